package main

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

func TestAlterCLI(t *testing.T) {
	dir := newTable(t)
	mustCLI(t, goodCSV, "append", dir, "-", "--format", "csv")
	// Flags apply in the order given, across flag names: the rename comes
	// before the --optional that names the new name.
	out := mustCLI(t, "", "alter", dir, "--add", "disk:long", "--rename=cpu=load", "--optional", "mem", "--drop", "note", "--add", "temp:float?")
	if want := "schema 1 is current at version 3: ts:timestamptz host:string load:double? mem:long? ok:boolean? disk:long? temp:float? _ingest_ts:timestamptz?\n"; out != want {
		t.Errorf("alter printed\n%q\nwant\n%q", out, want)
	}
	out = mustCLI(t, "", "info", dir)
	for _, want := range []string{
		"schemas:\n  0  ts:timestamptz host:string cpu:double? mem:long ok:boolean? note:string? _ingest_ts:timestamptz?\n" +
			"* 1  ts:timestamptz host:string load:double? mem:long? ok:boolean? disk:long? temp:float? _ingest_ts:timestamptz?\n",
		"columns         ts:timestamptz host:string load:double?",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	var info struct {
		Schemas []struct {
			ID      int  `json:"id"`
			Current bool `json:"current"`
		} `json:"schemas"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "", "info", dir, "--json")), &info); err != nil {
		t.Fatal(err)
	}
	if len(info.Schemas) != 2 || info.Schemas[1].ID != 1 || !info.Schemas[1].Current {
		t.Errorf("info --json schemas = %+v", info.Schemas)
	}
	out = mustCLI(t, "", "alter", dir, "--rename", "load=load", "--json")
	var res struct {
		Changed bool `json:"changed"`
		Version int  `json:"version"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Changed || res.Version != 3 {
		t.Errorf("a no-op alter --json = %s (%v)", out, err)
	}
}

// TestAlterCLIRefused: a forbidden change exits 1 with its code, the table
// unchanged; a malformed one too; none at all is a usage error (exit 2).
func TestAlterCLIRefused(t *testing.T) {
	dir := newTable(t)
	mustCLI(t, goodCSV, "append", dir, "-", "--format", "csv")
	for _, tc := range []struct {
		args     []string
		code     int
		wantErrs string
	}{
		{[]string{"--drop", "ts"}, 1, `column "ts": change 1 (--drop ts): the time column cannot be dropped [SCHEMA_CHANGE_FORBIDDEN]`},
		{[]string{"--widen", "mem:int"}, 1, `narrows the type`},
		{[]string{"--add", "x:long", "--drop", "x", "--add", "x:int"}, 1, `[SCHEMA_CHANGE_FORBIDDEN]`},
		{[]string{"--add", "cpu:double"}, 1, `[DUPLICATE_COLUMN]`},
		{[]string{"--drop", "nope"}, 1, `[UNKNOWN_COLUMN]`},
		{[]string{"--add", "x:decimal"}, 1, `[BAD_TYPE]`},
		{[]string{"--rename", "cpu"}, 1, `want OLD=NEW [BAD_CHANGE]`},
		{nil, 2, "alter needs at least one of"},
	} {
		before := dirState(t, dir)
		code, _, errs := cli(t, "", append([]string{"alter", dir}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.wantErrs) {
			t.Errorf("alter %v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.wantErrs)
		}
		if !maps.Equal(before, dirState(t, dir)) {
			t.Errorf("alter %v changed the table", tc.args)
		}
	}
}
