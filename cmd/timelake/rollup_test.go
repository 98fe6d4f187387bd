package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRollupCommands(t *testing.T) {
	dir := newTable(t)
	mustCLI(t, goodCSV, "append", dir, "-", "--format", "csv")
	out := mustCLI(t, "", "rollup", "add", dir, "hourly", "--every", "1h", "--agg", "cpu:min,max,avg,last", "--agg", "mem:max", "--retention", "365d")
	if !strings.Contains(out, "rollup hourly added") || !strings.Contains(out, dir+"__rollup_hourly") {
		t.Errorf("add printed:\n%s", out)
	}
	if _, err := os.Stat(dir + "__rollup_hourly/metadata/v1.metadata.json"); err != nil {
		t.Errorf("no rollup table beside the raw one: %v", err)
	}
	info := mustCLI(t, "", "info", dir, "--json")
	if !strings.Contains(info, `"timelake.rollup.hourly.aggregates": "cpu:count,sum,min,max,last;mem:max"`) {
		t.Errorf("the definition is not in the raw table's properties:\n%s", info)
	}
	// The same name again: ROLLUP_EXISTS, nothing changed.
	if code, _, errs := cli(t, "", "rollup", "add", dir, "hourly", "--every", "1d", "--agg", "cpu:max"); code != 1 || !strings.Contains(errs, "[ROLLUP_EXISTS]") {
		t.Errorf("add twice: exit %d, %s", code, errs)
	}
	// Bad definitions are coded errors naming the key.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--every", "2h", "--agg", "cpu:max"}, "timelake.rollup.x.every: \"2h\": want 1m, 5m, 15m, 1h or 1d [BAD_ROLLUP]"},
		{[]string{"--every", "1h", "--agg", "note:sum"}, "timelake.rollup.x.aggregates: column \"note\" is string: sum and avg take numbers [BAD_ROLLUP]"},
		{[]string{"--every", "1h", "--agg", "cpu:median"}, "unknown aggregate \"median\""},
	} {
		code, _, errs := cli(t, "", append([]string{"rollup", "add", dir, "x"}, c.args...)...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %s; want %q", c.args, code, errs, c.want)
		}
	}
	if code, _, _ := cli(t, "", "rollup", "add", dir, "x", "--agg", "cpu:max"); code != 2 {
		t.Errorf("add without --every: exit %d, want 2", code)
	}

	var list []map[string]any
	must(t, json.Unmarshal([]byte(mustCLI(t, "", "rollup", "list", dir, "--json")), &list))
	if len(list) != 1 || list[0]["name"] != "hourly" || list[0]["source-snapshot"] != nil || !strings.HasSuffix(list[0]["location"].(string), "metrics__rollup_hourly") {
		t.Errorf("list before a refresh: %v", list)
	}
	out = mustCLI(t, "", "rollup", "refresh", dir)
	if !strings.Contains(out, "rollup hourly: full refresh") || !strings.Contains(out, "3 rows written") {
		t.Errorf("refresh printed:\n%s", out)
	}
	must(t, json.Unmarshal([]byte(mustCLI(t, "", "rollup", "list", dir, "--json")), &list))
	var info2 struct {
		SnapshotID string `json:"snapshot-id"`
	}
	must(t, json.Unmarshal([]byte(mustCLI(t, "", "info", dir, "--json")), &info2))
	if list[0]["source-snapshot"] != info2.SnapshotID {
		t.Errorf("source-snapshot %v, want the raw table's %s", list[0]["source-snapshot"], info2.SnapshotID)
	}
	// The rollup is a table: scan it.
	got := mustCLI(t, "", "scan", dir+"__rollup_hourly", "--format", "csv")
	want := "bucket,host,row_count,cpu_count,cpu_sum,cpu_min,cpu_max,cpu_last,mem_max\n" +
		"2026-11-28T10:00:00.000000Z,a,1,1,1.5,1.5,1.5,1.5,100\n" +
		"2026-11-29T10:00:00.000000Z,a,1,1,2.5,2.5,2.5,2.5,300\n" +
		"2026-11-28T10:00:00.000000Z,b,1,0,,,,,200\n"
	if got != want {
		t.Errorf("rollup rows:\n%s\nwant:\n%s", got, want)
	}
	// A late row and a duplicate, then maintain: it refreshes the rollup.
	mustCLI(t, "ts,host,cpu,mem\n2026-11-28T10:30:00Z,a,4.5,50\n2026-11-29T10:00:00Z,a,7.5,301\n", "append", dir, "-", "--format", "csv")
	out = mustCLI(t, "", "maintain", dir, "--json")
	var mres struct {
		Refreshes []struct {
			Mode    string `json:"mode"`
			Buckets int    `json:"buckets"`
		} `json:"rollup-refreshes"`
	}
	must(t, json.Unmarshal([]byte(out), &mres))
	if len(mres.Refreshes) != 1 || mres.Refreshes[0].Mode != "incremental" || mres.Refreshes[0].Buckets != 2 {
		t.Errorf("maintain's refresh: %+v\n%s", mres, out)
	}
	got = mustCLI(t, "", "scan", dir+"__rollup_hourly", "--format", "csv", "--series", "host=a")
	want = "bucket,host,row_count,cpu_count,cpu_sum,cpu_min,cpu_max,cpu_last,mem_max\n" +
		"2026-11-28T10:00:00.000000Z,a,2,2,6,1.5,4.5,4.5,100\n" +
		"2026-11-29T10:00:00.000000Z,a,1,1,7.5,7.5,7.5,7.5,301\n"
	if got != want {
		t.Errorf("after maintain:\n%s\nwant:\n%s", got, want)
	}
	// maintain compacted the raw table after its refresh: the next refresh
	// walks that replace snapshot, recomputes nothing and records it.
	if out := mustCLI(t, "", "rollup", "refresh", dir); !strings.Contains(out, "0 buckets recomputed, 0 rows written, 0 bytes read") {
		t.Errorf("the refresh after a compaction: %s", out)
	}
	if out := mustCLI(t, "", "rollup", "refresh", dir); !strings.Contains(out, "up to date") {
		t.Errorf("a refresh with nothing new: %s", out)
	}
	if code, _, errs := cli(t, "", "rollup", "refresh", dir, "nope"); code != 1 || !strings.Contains(errs, "[NO_ROLLUP]") {
		t.Errorf("refresh of an unknown rollup: exit %d, %s", code, errs)
	}
	out = mustCLI(t, "", "rollup", "drop", dir, "hourly")
	if !strings.Contains(out, "dropped") {
		t.Errorf("drop printed %s", out)
	}
	if out := mustCLI(t, "", "rollup", "list", dir); !strings.Contains(out, "no rollups") {
		t.Errorf("list after drop: %s", out)
	}
	if info := mustCLI(t, "", "info", dir, "--json"); strings.Contains(info, "timelake.rollup.") {
		t.Errorf("drop left properties:\n%s", info)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRollupInline(t *testing.T) {
	dir := newTable(t)
	mustCLI(t, "", "rollup", "add", dir, "daily", "--every", "1d", "--agg", "mem:sum,max", "--inline")
	out := mustCLI(t, goodCSV, "append", dir, "-", "--format", "csv", "--json")
	if !strings.Contains(out, `"rollup-refreshes"`) {
		t.Errorf("append --json has no refresh:\n%s", out)
	}
	mustCLI(t, "ts,host,mem\n2026-11-28T23:00:00Z,a,5\n", "append", dir, "-", "--format", "csv")
	got := mustCLI(t, "", "scan", dir+"__rollup_daily", "--format", "csv")
	want := "bucket,host,row_count,mem_sum,mem_max\n" +
		"2026-11-28T00:00:00.000000Z,a,2,105,100\n" +
		"2026-11-29T00:00:00.000000Z,a,1,300,300\n" +
		"2026-11-28T00:00:00.000000Z,b,1,200,200\n"
	if got != want {
		t.Errorf("rollup after inline refreshes:\n%s\nwant:\n%s", got, want)
	}
	// A row later than its series' last one folds into the stored rollup
	// row without reading the raw table.
	out = mustCLI(t, "ts,host,mem\n2026-11-29T11:00:00Z,a,7\n", "append", dir, "-", "--format", "csv", "--json")
	if !strings.Contains(out, `"mode": "fold"`) && !strings.Contains(out, `"mode":"fold"`) {
		t.Errorf("inline refresh of a later row is not a fold:\n%s", out)
	}
	if got := mustCLI(t, "", "scan", dir+"__rollup_daily", "--format", "csv", "--series", "host=a"); !strings.Contains(got, "2026-11-29T00:00:00.000000Z,a,2,307,300\n") {
		t.Errorf("rollup of a after the fold:\n%s", got)
	}
	// A refresh that fails leaves the append standing, with a warning.
	if err := os.RemoveAll(dir + "__rollup_daily"); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cli(t, "ts,host,mem\n2026-11-30T00:00:00Z,c,1\n", "append", dir, "-", "--format", "csv")
	if code != 0 || !strings.Contains(errs, "warning: rollup refresh") || !strings.Contains(out, "appended 1 row ") {
		t.Errorf("append with a broken rollup: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestRollupRetention: the raw table's retention waits for its rollups
// (maintain catches them up one snapshot a run under a tiny byte cap), then
// drops the old raw partitions; the rollup keeps their buckets.
func TestRollupRetention(t *testing.T) {
	// Retention 30 days (every row is older), a byte cap that stops each
	// refresh after one raw snapshot.
	dir := filepath.Join(t.TempDir(), "m")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "mem:long",
		"--prop", "timelake.retention=30d", "--prop", "timelake.maintain-byte-cap=1")
	mustCLI(t, "", "rollup", "add", dir, "daily", "--every", "1d", "--agg", "mem:sum")
	day := func(i int) string { return fmt.Sprintf("ts,host,mem\n2020-01-0%dT10:00:00Z,a,%d\n", i, i) }
	mustCLI(t, day(1), "append", dir, "-", "--format", "csv")
	mustCLI(t, "", "rollup", "refresh", dir)
	mustCLI(t, day(2), "append", dir, "-", "--format", "csv")
	mustCLI(t, day(3), "append", dir, "-", "--format", "csv")
	runs := 0
	for ; runs < 6; runs++ {
		code, out, errs := cli(t, "", "maintain", dir, "--json")
		if code != 0 {
			t.Fatalf("maintain: %s", errs)
		}
		if strings.Contains(out, `"partitions-dropped": 3`) {
			break
		}
		if !strings.Contains(out, "retention skipped") {
			t.Fatalf("run %d: neither retention nor its postponement:\n%s", runs, out)
		}
	}
	if runs != 1 {
		t.Fatalf("retention ran at maintain run %d, want the second (the first catches the rollup up by one snapshot of two)", runs+1)
	}
	got := mustCLI(t, "", "scan", dir+"__rollup_daily", "--format", "csv")
	want := "bucket,host,row_count,mem_sum\n" +
		"2020-01-01T00:00:00.000000Z,a,1,1\n" +
		"2020-01-02T00:00:00.000000Z,a,1,2\n" +
		"2020-01-03T00:00:00.000000Z,a,1,3\n"
	if got != want {
		t.Errorf("the rollup after the raw retention:\n%s\nwant:\n%s", got, want)
	}
	if raw := mustCLI(t, "", "scan", dir, "--format", "csv"); strings.Count(raw, "\n") != 1 {
		t.Errorf("raw rows left after retention:\n%s", raw)
	}
	// A late row for a dropped day: the rollup keeps its bucket as it was.
	mustCLI(t, "ts,host,mem\n2020-01-02T11:00:00Z,a,50\n", "append", dir, "-", "--format", "csv")
	if out := mustCLI(t, "", "rollup", "refresh", dir, "--json"); !strings.Contains(out, `"skipped": 1`) {
		t.Errorf("the refresh of a late row for a dropped day:\n%s", out)
	}
	if got := mustCLI(t, "", "scan", dir+"__rollup_daily", "--format", "csv"); got != want {
		t.Errorf("after a late row for a dropped day:\n%s\nwant:\n%s", got, want)
	}
}
