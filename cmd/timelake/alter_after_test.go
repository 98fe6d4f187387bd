package main

import (
	"strings"
	"testing"
)

// TestAppendAfterAlterCLI: after an alter, appends with the new names,
// --evolve on the altered table, and scan and latest over old and new
// files under the current schema.
func TestAppendAfterAlterCLI(t *testing.T) {
	dir := newTable(t)
	mustCLI(t, goodCSV, "append", dir, "-", "--format", "csv")
	mustCLI(t, "", "alter", dir, "--rename", "cpu=load", "--add", "disk:long", "--drop", "note")
	mustCLI(t, "ts,host,load,mem,disk\n2026-11-30T10:00:00.000000Z,c,9.5,900,7\n", "append", dir, "-", "--format", "csv")
	mustCLI(t, "ts,host,load,mem,zone\n2026-11-30T11:00:00Z,d,1,1,eu\n", "append", dir, "-", "--format", "csv", "--evolve")
	out := mustCLI(t, "", "scan", dir)
	want := "ts,host,load,mem,ok,disk,zone\n" +
		"2026-11-28T10:00:00.000000Z,a,1.5,100,true,,\n" +
		"2026-11-29T10:00:00.000000Z,a,2.5,300,false,,\n" +
		"2026-11-28T10:01:00.000000Z,b,,200,,,\n" +
		"2026-11-30T10:00:00.000000Z,c,9.5,900,,7,\n" +
		"2026-11-30T11:00:00.000000Z,d,1,1,,,eu\n"
	if out != want {
		t.Errorf("scan after alter and appends:\n%s\nwant\n%s", out, want)
	}
	if out := mustCLI(t, "", "info", dir); !strings.Contains(out, "* 2  ts:timestamptz host:string load:double? mem:long ok:boolean? disk:long? zone:string? _ingest_ts:timestamptz?") {
		t.Errorf("info:\n%s", out)
	}
}
