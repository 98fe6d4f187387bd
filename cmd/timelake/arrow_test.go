package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// arrowFixture is one of the pyarrow-written fixtures of package arrowipc.
func arrowFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "arrowipc", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAppendArrow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "cpu:double?", "--column", "mem:long?", "--column", "note:string?")
	var res struct {
		Commits, Rows, Version int
		InputRows              int `json:"input_rows"`
	}
	read := func(out string) {
		t.Helper()
		res.Commits, res.Rows, res.Version, res.InputRows = 0, 0, 0, 0
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	bench := arrowFixture(t, "bench.arrows") // 1,000 rows, one record batch
	// stdin: sniffed from the continuation marker; committed in --batch-rows batches
	read(mustCLI(t, string(bench), "append", dir, "-", "--batch-rows", "300", "--commit-every", "1", "--json"))
	if res.Commits != 4 || res.Rows != 1000 || res.Version != 5 {
		t.Errorf("stdin stream in batches of 300 = %+v, want 4 commits, 1000 rows, version 5", res)
	}
	// a file by extension, and a name without one with --format arrow
	p := filepath.Join(t.TempDir(), "in.arrows")
	os.WriteFile(p, bench, 0o644)
	read(mustCLI(t, "", "append", dir, p, "--json"))
	if res.Commits != 1 || res.Rows != 1000 {
		t.Errorf("%s = %+v, want 1 commit of 1000 rows", p, res)
	}
	q := filepath.Join(t.TempDir(), "in.dat")
	os.WriteFile(q, bench, 0o644)
	read(mustCLI(t, "", "append", dir, q, "--format", "arrow", "--json"))
	if res.Rows != 1000 {
		t.Errorf("--format arrow = %+v, want 1000 rows", res)
	}
	var info struct{ Rows int }
	json.Unmarshal([]byte(mustCLI(t, "", "info", dir, "--json")), &info)
	if info.Rows != 3000 {
		t.Errorf("info rows = %d, want 3000", info.Rows)
	}

	// the file format (ZSTD bodies), sniffed from "ARROW1", into a table of its columns
	dir2 := filepath.Join(t.TempDir(), "types")
	mustCLI(t, "", "create", dir2, "--time", "ts", "--series", "host", "--column", "i64:long?", "--column", "f64:double?", "--column", "flag:boolean?", "--column", "note:string?")
	f := filepath.Join(t.TempDir(), "types")
	os.WriteFile(f, arrowFixture(t, "types-zstd.arrow"), 0o644)
	read(mustCLI(t, "", "append", dir2, f, "--ignore-unknown", "--json"))
	if res.InputRows != 300 || res.Rows != 20 {
		t.Errorf("zstd file = %+v, want 300 input rows, 20 after deduplication", res)
	}
}

func TestAppendArrowErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "cpu:double?", "--column", "mem:long?", "--column", "note:string?")
	before := dirState(t, dir)
	bench := arrowFixture(t, "bench.arrows")
	for _, c := range []struct {
		name  string
		stdin []byte
		args  []string
		want  []string
	}{
		{"truncated", bench[:len(bench)/2], []string{"-"}, []string{"[SYNTAX]", "Arrow"}},
		{"unknown column", arrowFixture(t, "nested.arrows"), []string{"-"}, []string{"[UNKNOWN_COLUMN]", `column "lst"`}},
		{"null series", arrowFixture(t, "err-null.arrows"), []string{"-", "--format", "arrow"}, []string{"[MISSING_COLUMN]", "row 2", `column "host"`}},
		{"no rows", arrowFixture(t, "empty.arrows"), []string{"-"}, []string{"[EMPTY_INPUT]"}},
	} {
		code, _, errs := cli(t, string(c.stdin), append([]string{"append", dir}, c.args...)...)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1; %s", c.name, code, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: stderr %q does not contain %q", c.name, errs, w)
			}
		}
	}
	after := dirState(t, dir)
	if len(after) != len(before) {
		t.Errorf("failed appends changed the table: %d files before, %d after", len(before), len(after))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("failed appends changed %s", k)
		}
	}
}
