package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestMaintainCommand(t *testing.T) {
	dir := newTable(t)
	// Eight appends to one past day: the partition is cold and busy.
	for i := range 8 {
		csv := "ts,host,cpu,mem\n"
		for j := range 50 {
			csv += fmt.Sprintf("2020-01-01T%02d:%02d:00Z,h%d,%d.5,%d\n", i, j, j%3, j, i)
		}
		mustCLI(t, csv, "append", dir, "-", "--format", "csv")
	}
	before := dirState(t, dir)
	out := mustCLI(t, "", "maintain", dir, "--dry-run", "--compact")
	if !strings.Contains(out, "dry run") || !strings.Contains(out, "compact ts_day=2020-01-01 (busy): 8 files") {
		t.Errorf("dry run printed:\n%s", out)
	}
	sameDir(t, before, dirState(t, dir))

	out = mustCLI(t, "", "maintain", dir, "--compact", "--json")
	var res struct {
		Merges       int   `json:"merges"`
		FilesRead    int   `json:"files-read"`
		FilesWritten int   `json:"files-written"`
		RowsBefore   int64 `json:"rows-before"`
		RowsAfter    int64 `json:"rows-after"`
		Version      int   `json:"version"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	if res.Merges != 1 || res.FilesRead != 8 || res.FilesWritten != 1 || res.RowsBefore != 400 || res.RowsAfter != 400 || res.Version != 10 {
		t.Errorf("result = %+v, want 8 files of 400 rows merged into 1 at version 10", res)
	}
	info := mustCLI(t, "", "info", dir, "--json")
	if !strings.Contains(info, `"files": 1,`) || !strings.Contains(info, `"rows": 400,`) {
		t.Errorf("info after compaction:\n%s", info)
	}
	// All steps (the default): nothing old enough to expire by default.
	out = mustCLI(t, "", "maintain", dir)
	if !strings.Contains(out, "version") {
		t.Errorf("maintain printed:\n%s", out)
	}
	if code, _, errs := cli(t, "", "maintain", dir, "--bogus"); code != 2 || !strings.Contains(errs, "--bogus") {
		t.Errorf("a bad flag: exit %d, %s", code, errs)
	}
	if code, _, errs := cli(t, "", "maintain", dir+"-missing"); code != 1 || !strings.Contains(errs, "no table") {
		t.Errorf("a missing table: exit %d, %s", code, errs)
	}
}

func sameDir(t *testing.T, before, after map[string]string) {
	t.Helper()
	for k, v := range after {
		if w, ok := before[k]; !ok || w != v {
			t.Errorf("%s changed in a dry run", k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			t.Errorf("%s removed in a dry run", k)
		}
	}
}
