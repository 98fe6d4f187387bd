package main

import (
	"encoding/json"
	"maps"
	"path/filepath"
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
		{[]string{"--required", "cpu"}, 1, `column "cpu": change 1 (--required cpu): an optional column stays optional`},
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

// TestAppendEvolveCLI: --evolve adds the input's unknown columns with the
// rows, typed by --column (CSV), the JSON values (NDJSON) or the Arrow
// schema; without --evolve they are UNKNOWN_COLUMN as before.
func TestAppendEvolveCLI(t *testing.T) {
	dir := newTable(t)
	csvIn := "ts,host,cpu,mem,disk,zone\n2026-11-28T10:00:00Z,a,1.5,100,7,eu\n"
	if code, _, errs := cli(t, csvIn, "append", dir, "-", "--format", "csv"); code != 1 || !strings.Contains(errs, "[UNKNOWN_COLUMN]") {
		t.Errorf("without --evolve: exit %d, %q", code, errs)
	}
	if code, _, errs := cli(t, csvIn, "append", dir, "-", "--format", "csv", "--column", "disk:long"); code != 2 || !strings.Contains(errs, "give --evolve too") {
		t.Errorf("--column without --evolve: exit %d, %q", code, errs)
	}
	mustCLI(t, csvIn, "append", dir, "-", "--format", "csv", "--evolve", "--column", "disk:long")
	out := mustCLI(t, "", "info", dir)
	if want := "* 1  ts:timestamptz host:string cpu:double? mem:long ok:boolean? note:string? disk:long? zone:string? _ingest_ts:timestamptz?"; !strings.Contains(out, want) {
		t.Errorf("after a CSV --evolve, info lacks %q:\n%s", want, out)
	}
	if want := "rows            1\n"; !strings.Contains(out, want) {
		t.Errorf("info lacks %q:\n%s", want, out)
	}
	// On a table with a schema history: NDJSON values typed, a known column no change.
	mustCLI(t, `{"ts":"2026-11-28T11:00:00Z","host":"b","mem":1,"load":0.5,"up":true,"disk":3}`+"\n", "append", dir, "-", "--format", "ndjson", "--evolve")
	if out := mustCLI(t, "", "info", dir); !strings.Contains(out, "* 2  ts:timestamptz host:string cpu:double? mem:long ok:boolean? note:string? disk:long? zone:string? load:double? up:boolean? _ingest_ts") {
		t.Errorf("after an NDJSON --evolve:\n%s", out)
	}
}

// TestAppendEvolveArrowCLI: every Arrow type becomes a column of its table type.
func TestAppendEvolveArrowCLI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host")
	mustCLI(t, "", "append", dir, filepath.Join("..", "..", "arrowipc", "testdata", "types.arrows"), "--evolve")
	out := mustCLI(t, "", "info", dir)
	want := "columns         ts:timestamptz host:string i8:int? i16:int? i32:int? i64:long? u8:long? u16:long? u32:long? u64:long? f16:float? f32:float? f64:double? flag:boolean? note:string? word:string? _ingest_ts:timestamptz?"
	if !strings.Contains(out, want) || !strings.Contains(out, "rows            20\n") {
		t.Errorf("info after an Arrow --evolve:\n%s\nwant %s and 20 rows", out, want)
	}
}

// TestAlterCatalogCLI: alter on a catalog table (the catalog numbers its
// versions from 0).
func TestAlterCatalogCLI(t *testing.T) {
	c := authCatalog(t)
	tbl := namespace(t) + ".cpu"
	mustCatCLI(t, c, "", "create", tbl, "--time", "ts", "--series", "host", "--column", "cpu:double?", "--column", "mem:long")
	mustCatCLI(t, c, catCSV1, "append", tbl, "-", "--format", "csv")
	out := mustCatCLI(t, c, "", "alter", tbl, "--rename", "cpu=load", "--add", "disk:long")
	if want := "schema 1 is current at version 2: ts:timestamptz host:string load:double? mem:long disk:long? _ingest_ts:timestamptz?\n"; out != want {
		t.Errorf("alter printed %q, want %q", out, want)
	}
	code, _, errs := catCLI(t, c, "", "alter", tbl, "--drop", "host")
	wantCode(t, "drop a series column", code, errs, "SCHEMA_CHANGE_FORBIDDEN")
	if info := infoJSON(t, c, tbl); info.Version != 2 || info.Rows != 2 {
		t.Errorf("info after the alters: %+v", info)
	}
}
