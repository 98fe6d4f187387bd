package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestCatalogRollupCommands: a rollup of a catalog table is the table
// NS.T__rollup_NAME of the same catalog: add, list, refresh, inline
// refresh on append, maintain, scan it by name, drop (without purge).
func TestCatalogRollupCommands(t *testing.T) {
	c := authCatalog(t)
	ns := namespace(t)
	tbl, ruName := ns+".cpu", ns+".cpu__rollup_hourly"
	mustCatCLI(t, c, "", "create", tbl, "--time", "ts", "--series", "host", "--column", "cpu:double?", "--column", "mem:long")
	mustCatCLI(t, c, catCSV1, "append", tbl, "-", "--format", "csv")

	out := mustCatCLI(t, c, "", "rollup", "add", tbl, "hourly", "--every", "1h", "--agg", "cpu:min,max,avg,last", "--agg", "mem:max", "--retention", "365d", "--json")
	var added rollupItem
	must(t, json.Unmarshal([]byte(out), &added))
	if added.Table != ruName || !strings.HasPrefix(added.Location, "file:") || !strings.HasSuffix(added.Location, "cpu__rollup_hourly") {
		t.Fatalf("add --json = %s; want table %s at a location the catalog assigned", out, ruName)
	}
	// The rollup table is in the catalog, empty, with the rollup's retention.
	ruInfo := infoJSON(t, c, ruName)
	if ruInfo.Table != ruName || ruInfo.Location != added.Location || ruInfo.Rows != 0 {
		t.Errorf("info of the rollup table = %+v", ruInfo)
	}
	props := mustCatCLI(t, c, "", "info", tbl, "--json")
	for _, want := range []string{`"timelake.rollup.hourly.table": "` + ruName + `"`, `"timelake.rollup.hourly.location": "` + added.Location + `"`} {
		if !strings.Contains(props, want) {
			t.Errorf("the raw table's properties lack %s:\n%s", want, props)
		}
	}
	code, _, errs := catCLI(t, c, "", "rollup", "add", tbl, "hourly", "--every", "1d", "--agg", "cpu:max")
	wantCode(t, "add twice", code, errs, "ROLLUP_EXISTS")

	var list []rollupItem
	must(t, json.Unmarshal([]byte(mustCatCLI(t, c, "", "rollup", "list", tbl, "--json")), &list))
	if len(list) != 1 || list[0].Name != "hourly" || list[0].Location != added.Location || list[0].Table != ruName || list[0].Source != nil || list[0].Error != "" {
		t.Fatalf("list before a refresh: %+v", list)
	}
	if out := mustCatCLI(t, c, "", "rollup", "refresh", tbl); !strings.Contains(out, "rollup hourly: full refresh") || !strings.Contains(out, "2 rows written") {
		t.Errorf("refresh printed:\n%s", out)
	}
	must(t, json.Unmarshal([]byte(mustCatCLI(t, c, "", "rollup", "list", tbl, "--json")), &list))
	var raw struct {
		SnapshotID string `json:"snapshot-id"`
	}
	must(t, json.Unmarshal([]byte(mustCatCLI(t, c, "", "info", tbl, "--json")), &raw))
	if list[0].Source == nil || *list[0].Source != raw.SnapshotID {
		t.Errorf("source-snapshot %v, want the raw table's %s", list[0].Source, raw.SnapshotID)
	}

	// Inline: the append refreshes the rollup in the same command.
	mustCatCLI(t, c, "", "rollup", "drop", tbl, "hourly") // and add again, --inline
	mustCatCLI(t, c, "", "rollup", "add", tbl, "hourly", "--every", "1h", "--agg", "cpu:min,max,avg,last", "--agg", "mem:max", "--inline")
	out = mustCatCLI(t, c, catCSV2, "append", tbl, "-", "--format", "csv", "--json")
	if !strings.Contains(out, `"rollup-refreshes"`) || strings.Contains(out, "warnings") {
		t.Errorf("append --json of an inline rollup:\n%s", out)
	}
	header := "bucket,host,row_count,cpu_count,cpu_sum,cpu_min,cpu_max,cpu_last,mem_max"
	want := []string{
		"2026-11-28T10:00:00.000000Z,a,1,1,1.5,1.5,1.5,1.5,100",
		"2026-11-28T10:00:00.000000Z,b,1,0,,,,,200",
		"2026-11-28T11:00:00.000000Z,a,1,1,2.5,2.5,2.5,2.5,300",
		"2026-11-29T10:00:00.000000Z,c,1,1,3.5,3.5,3.5,3.5,400",
	}
	checkRows(t, "after the inline refresh", mustCatCLI(t, c, "", "scan", ruName, "--format", "csv"), header, want)

	// A late row and a duplicate, then maintain: it refreshes the rollup
	// (inline too) and maintains its table through the catalog.
	mustCatCLI(t, c, "ts,host,cpu,mem\n2026-11-28T10:30:00Z,a,4.5,50\n2026-11-29T10:00:00Z,c,7.5,401\n", "append", tbl, "-", "--format", "csv")
	out = mustCatCLI(t, c, "", "maintain", tbl, "--json")
	var mres maintainJSONView
	must(t, json.Unmarshal([]byte(out), &mres))
	if len(mres.Refreshes) != 1 || mres.Refreshes[0].Mode != "up-to-date" || len(mres.Rollups) != 1 || mres.Rollups[0].Name != "hourly" {
		t.Errorf("maintain's rollups: %+v\n%s", mres, out)
	}
	want[0] = "2026-11-28T10:00:00.000000Z,a,2,2,6,1.5,4.5,4.5,100"
	want[3] = "2026-11-29T10:00:00.000000Z,c,1,1,7.5,7.5,7.5,7.5,401"
	checkRows(t, "after a late row and a duplicate", mustCatCLI(t, c, "", "scan", ruName, "--format", "csv"), header, want)

	// Drop: the catalog forgets the table (no purge: its files stay).
	out = mustCatCLI(t, c, "", "rollup", "drop", tbl, "hourly")
	if !strings.Contains(out, "and its table "+ruName+" from the catalog without purge") {
		t.Errorf("drop printed %s", out)
	}
	code, _, errs = catCLI(t, c, "", "info", ruName)
	wantCode(t, "info of the dropped rollup table", code, errs, "NO_TABLE")
	dir := strings.TrimPrefix(strings.TrimPrefix(added.Location, "file://"), "file:")
	if _, err := os.Stat(dir + "/metadata"); err != nil {
		t.Errorf("the dropped rollup's files are gone: %v", err)
	}
	if out := mustCatCLI(t, c, "", "rollup", "list", tbl); !strings.Contains(out, "no rollups") {
		t.Errorf("list after drop: %s", out)
	}
	if info := mustCatCLI(t, c, "", "info", tbl, "--json"); strings.Contains(info, "timelake.rollup.hourly.") {
		t.Errorf("drop left properties:\n%s", info)
	}
}

type maintainJSONView struct {
	Refreshes []struct {
		Mode    string `json:"mode"`
		Buckets int    `json:"buckets"`
	} `json:"rollup-refreshes"`
	Rollups []struct {
		Name string `json:"name"`
	} `json:"rollup-tables"`
}

// checkRows compares CSV output with a header and rows in any order.
func checkRows(t *testing.T, what, csv, header string, want []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) == 0 || lines[0] != header {
		t.Errorf("%s: header %q, want %q", what, lines[0], header)
		return
	}
	got := map[string]bool{}
	for _, l := range lines[1:] {
		got[l] = true
	}
	if len(got) != len(want) || len(lines)-1 != len(want) {
		t.Errorf("%s: rows\n%s\nwant\n%s", what, strings.Join(lines[1:], "\n"), strings.Join(want, "\n"))
		return
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("%s: no row %s in\n%s", what, w, strings.Join(lines[1:], "\n"))
		}
	}
}

// TestCatalogRollupRetention: as TestRollupRetention, through the catalog:
// the raw table's retention waits for its rollup, then drops the old raw
// partitions; the rollup keeps their buckets.
func TestCatalogRollupRetention(t *testing.T) {
	c := authCatalog(t)
	tbl := namespace(t) + ".m"
	mustCatCLI(t, c, "", "create", tbl, "--time", "ts", "--series", "host", "--column", "mem:long",
		"--prop", "timelake.retention=30d", "--prop", "timelake.maintain-byte-cap=1")
	mustCatCLI(t, c, "", "rollup", "add", tbl, "daily", "--every", "1d", "--agg", "mem:sum")
	day := func(i int) string { return fmt.Sprintf("ts,host,mem\n2020-01-0%dT10:00:00Z,a,%d\n", i, i) }
	mustCatCLI(t, c, day(1), "append", tbl, "-", "--format", "csv")
	mustCatCLI(t, c, "", "rollup", "refresh", tbl)
	mustCatCLI(t, c, day(2), "append", tbl, "-", "--format", "csv")
	mustCatCLI(t, c, day(3), "append", tbl, "-", "--format", "csv")
	out := mustCatCLI(t, c, "", "maintain", tbl, "--json")
	if !strings.Contains(out, "retention skipped") || strings.Contains(out, `"partitions-dropped": 3`) {
		t.Fatalf("the first maintain (the rollup one snapshot behind): want retention held:\n%s", out)
	}
	if out := mustCatCLI(t, c, "", "maintain", tbl, "--json"); !strings.Contains(out, `"partitions-dropped": 3`) {
		t.Fatalf("the second maintain: want the 3 old partitions dropped:\n%s", out)
	}
	checkRows(t, "the rollup after the raw retention", mustCatCLI(t, c, "", "scan", tbl+"__rollup_daily", "--format", "csv"), "bucket,host,row_count,mem_sum",
		[]string{"2020-01-01T00:00:00.000000Z,a,1,1", "2020-01-02T00:00:00.000000Z,a,1,2", "2020-01-03T00:00:00.000000Z,a,1,3"})
	if raw := mustCatCLI(t, c, "", "scan", tbl, "--format", "csv"); strings.Count(raw, "\n") != 1 {
		t.Errorf("raw rows left after retention:\n%s", raw)
	}
}
