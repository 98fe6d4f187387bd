package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigCSV is n rows of the newTable schema, a minute apart over four hosts;
// row bad (1-based, 0: none) holds a value that is not a double.
func bigCSV(t *testing.T, n, bad int) string {
	t.Helper()
	var sb strings.Builder
	sb.WriteString("ts,host,cpu,mem,ok,note\n")
	for i := 1; i <= n; i++ {
		cpu := fmt.Sprint(i % 100)
		if i == bad {
			cpu = "oops"
		}
		fmt.Fprintf(&sb, "%d,h%d,%s,%d,,\n", int64(1795953600000)+int64(i)*60000, i%4, cpu, i)
	}
	p := filepath.Join(t.TempDir(), "big.csv")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The tester's case: an append of three batches whose third holds a bad
// value fails with the row and column, and the table is as it was: the
// same files byte for byte (same metadata version, no data file left in
// data/), the same scan.
func TestAppendFailureCommitsNothing(t *testing.T) {
	dir := newTable(t)
	mustCLI(t, goodCSV, "append", dir, "-")
	before := dirState(t, dir)
	scan := mustCLI(t, "", "scan", dir)
	in := bigCSV(t, 300, 250)
	code, out, errs := cli(t, "", "append", dir, in, "--batch-rows", "100", "--json")
	if code != 1 || !strings.Contains(errs, "row 250 (line 251)") || !strings.Contains(errs, "[TYPE_MISMATCH]") {
		t.Fatalf("exit %d, stderr %q; want 1 naming row 250 with TYPE_MISMATCH", code, errs)
	}
	var res struct {
		Code      string
		Committed struct{ Commits, Input_rows int }
		Resume    *resume
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if res.Code != "TYPE_MISMATCH" || res.Committed.Commits != 0 || res.Committed.Input_rows != 0 || res.Resume != nil {
		t.Errorf("--json: %s; want TYPE_MISMATCH with nothing committed", out)
	}
	after := dirState(t, dir)
	if !maps.Equal(before, after) {
		for k := range after {
			if _, ok := before[k]; !ok {
				t.Errorf("left behind: %s", k)
			}
		}
		t.Errorf("the table's files changed (%d files before, %d after)", len(before), len(after))
	}
	if got := mustCLI(t, "", "scan", dir); got != scan {
		t.Errorf("scan changed after the failed append")
	}
	// The whole file, fixed, lands as one commit.
	out = mustCLI(t, "", "append", dir, bigCSV(t, 300, 0), "--batch-rows", "100", "--json")
	var ok struct{ Version, Commits, Batches, Input_rows int }
	if err := json.Unmarshal([]byte(out), &ok); err != nil {
		t.Fatal(err)
	}
	if ok.Version != 3 || ok.Commits != 1 || ok.Batches != 3 || ok.Input_rows != 300 {
		t.Errorf("append: %s; want version 3, one commit of 3 batches, 300 rows", out)
	}
}

// --commit-every 1 commits each batch: the failure in the third leaves
// two commits, which the error and --json name with where to resume.
func TestAppendCommitEveryReportsCommitted(t *testing.T) {
	dir := newTable(t)
	in := bigCSV(t, 300, 250)
	code, out, errs := cli(t, "", "append", dir, in, "--batch-rows", "100", "--commit-every", "1", "--json")
	if code != 1 || !strings.Contains(errs, "[TYPE_MISMATCH]") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"2 commits before it stand: 200 input rows in v2 (snapshot ", "resume from " + in + " at data row 201 (line 202)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q lacks %q", errs, want)
		}
	}
	var res struct {
		Code      string
		Committed struct {
			Commits, Input_rows int
			Versions            []int
			Snapshot_ids        []int64
		}
		Resume resume
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	c := res.Committed
	if res.Code != "TYPE_MISMATCH" || c.Commits != 2 || c.Input_rows != 200 || fmt.Sprint(c.Versions) != "[2 3]" || len(c.Snapshot_ids) != 2 {
		t.Errorf("--json: %s", out)
	}
	if res.Resume.File != in || res.Resume.Row != 201 || res.Resume.Line != 202 {
		t.Errorf("resume = %+v, want %s row 201 line 202", res.Resume, in)
	}
	var info struct{ Version, Rows int }
	if err := json.Unmarshal([]byte(mustCLI(t, "", "info", dir, "--json")), &info); err != nil {
		t.Fatal(err)
	}
	if info.Version != 3 || info.Rows != 200 {
		t.Errorf("info: version %d, %d rows; want version 3 with 200 rows", info.Version, info.Rows)
	}
	if code, _, _ := cli(t, "", "append", dir, in, "--commit-every", "0"); code != 2 {
		t.Errorf("--commit-every 0: exit %d, want 2", code)
	}
}
