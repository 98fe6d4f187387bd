package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// TestHistory: a table with two appends and a compaction, written with a
// clock the test sets, lists its snapshots newest first, exactly.
func TestHistory(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "metrics")
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := testenv.New(7)
	clock := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	env.Now = func() time.Time { return clock }
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "cpu", Type: schema.Double}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, st, env, "file://"+dir, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, csv := range []string{
		"ts,host,cpu\n2026-11-28T10:00:00Z,a,1\n2026-11-28T10:01:00Z,b,2\n2026-11-28T10:02:00Z,c,3\n",
		"ts,host,cpu\n2026-11-28T10:00:00Z,a,5\n2026-11-28T11:00:00Z,a,6\n",
	} {
		clock = clock.Add(time.Duration(i+1) * time.Minute)
		b, err := rows.NewCSVReader(strings.NewReader(csv), tb.Schema(), rows.Options{}).Next(100)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tb.Append(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, strconv.FormatInt(res.SnapshotID, 10))
	}
	clock = clock.Add(time.Hour)
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
		t.Fatal(err)
	}
	ids = append(ids, strconv.FormatInt(*tb.Metadata().CurrentSnapshotID, 10))

	// The ids are the table's random ones: padded as tabwriter pads them.
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-len(s)) }
	w := len(ids[0])
	for _, id := range ids {
		w = max(w, len(id))
	}
	want := "  " + pad("snapshot", w) + "  " + pad("parent", w) + "  time (UTC)                operation  rows +/-  files +/-  writer\n" +
		"* " + pad(ids[2], w) + "  " + pad(ids[1], w) + "  2026-11-30T10:03:00.000Z  replace    +4 -5     +1 -2      Timelake\n" +
		"  " + pad(ids[1], w) + "  " + pad(ids[0], w) + "  2026-11-30T09:03:00.000Z  append     +2 -0     +1 -0      Timelake\n" +
		"  " + pad(ids[0], w) + "  " + pad("-", w) + "  2026-11-30T09:01:00.000Z  append     +3 -0     +1 -0      Timelake\n"
	if got := mustCLI(t, "", "history", dir); got != want {
		t.Errorf("history =\n%s\nwant\n%s", got, want)
	}
	want = "  " + pad("snapshot", w) + "  " + pad("parent", w) + "  time (UTC)                operation  rows +/-  files +/-  writer\n" +
		"* " + pad(ids[2], w) + "  " + pad(ids[1], w) + "  2026-11-30T10:03:00.000Z  replace    +4 -5     +1 -2      Timelake\n" +
		"(the newest 1 of 3 snapshots)\n"
	if got := mustCLI(t, "", "history", dir, "--limit", "1"); got != want {
		t.Errorf("history --limit 1 =\n%s\nwant\n%s", got, want)
	}

	var got struct {
		Current   string         `json:"current-snapshot-id"`
		Total     int            `json:"total"`
		Snapshots []historyEntry `json:"snapshots"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "", "history", dir, "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if got.Current != ids[2] || got.Total != 3 || len(got.Snapshots) != 3 {
		t.Fatalf("history --json = %+v", got)
	}
	first := got.Snapshots[2]
	if first.SnapshotID != ids[0] || first.ParentID != "" || first.Time != "2026-11-30T09:01:00.000Z" || first.Operation != "append" ||
		first.AddedRows != 3 || first.AddedFiles != 1 || first.Writer != "Timelake" || first.Current || first.Summary["timelake.commit-id"] == "" {
		t.Errorf("history --json, the first snapshot = %+v", first)
	}
	if code, _, _ := cli(t, "", "history", dir, "--limit", "x"); code != 2 {
		t.Errorf("--limit x: exit %d, want 2", code)
	}
}

// TestHistoryForeign: a table another engine created and Timelake did not
// adopt is listed from its metadata alone; the writer is told by the
// summary's keys (Spark's spark.app.id), else unknown (pyiceberg writes no
// key of its own).
func TestHistoryForeign(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spark_table")
	if err := os.MkdirAll(filepath.Join(dir, "metadata"), 0o755); err != nil {
		t.Fatal(err)
	}
	md := `{"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"file://` + dir + `",
"last-sequence-number":3,"last-updated-ms":1795000300000,"last-column-id":3,
"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"ts","required":true,"type":"timestamptz"},
 {"id":2,"name":"host","required":true,"type":"string"},{"id":3,"name":"cpu","required":false,"type":"double"}]}],
"current-schema-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"default-spec-id":0,"last-partition-id":999,
"properties":{},"current-snapshot-id":3,
"snapshots":[
 {"snapshot-id":1,"sequence-number":1,"timestamp-ms":1795000100000,"manifest-list":"file://` + dir + `/metadata/snap-1.avro",
  "summary":{"operation":"append","added-data-files":"1","added-records":"10","total-records":"10"},"schema-id":0},
 {"snapshot-id":2,"parent-snapshot-id":1,"sequence-number":2,"timestamp-ms":1795000200000,"manifest-list":"file://` + dir + `/metadata/snap-2.avro",
  "summary":{"operation":"append","spark.app.id":"local-1","added-data-files":"2","added-records":"20","total-records":"30"},"schema-id":0},
 {"snapshot-id":3,"parent-snapshot-id":2,"sequence-number":3,"timestamp-ms":1795000300000,"manifest-list":"file://` + dir + `/metadata/snap-3.avro",
  "summary":{"operation":"delete","spark.app.id":"local-1","deleted-data-files":"1","deleted-records":"10","total-records":"20"},"schema-id":0}],
"snapshot-log":[],"metadata-log":[],"sort-orders":[{"order-id":0,"fields":[]}],"default-sort-order-id":0,
"refs":{"main":{"snapshot-id":3,"type":"branch"}}}`
	if err := os.WriteFile(filepath.Join(dir, "metadata", "v1.metadata.json"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "  snapshot  parent  time (UTC)                operation  rows +/-  files +/-  writer\n" +
		"* 3         2       2026-11-18T11:11:40.000Z  delete     +0 -10    +0 -1      Spark\n" +
		"  2         1       2026-11-18T11:10:00.000Z  append     +20 -0    +2 -0      Spark\n" +
		"  1         -       2026-11-18T11:08:20.000Z  append     +10 -0    +1 -0      unknown\n"
	if got := mustCLI(t, "", "history", dir); got != want {
		t.Errorf("history of another engine's table =\n%s\nwant\n%s", got, want)
	}
}
