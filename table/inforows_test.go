package table_test

import (
	"context"
	"testing"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestInfoAfterPositionDeletes: info counts rows and the time range as
// readers see them once another engine's position deletes apply — the
// first and last rows deleted narrow the range, a delete naming a file
// written after it or no live file counts nothing, and rows-stored keeps
// what the files hold.
func TestInfoAfterPositionDeletes(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(95), loc, interopSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	var ts []time.Time
	for m := range 6 {
		ts = append(ts, day.Add(time.Duration(m)*time.Minute))
	}
	appendRows(t, tb, ts, 100) // one file, rows at minutes 0…5, in order
	fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}
	var first string
	for path, e := range liveEntries(t, fw) {
		if !e.DataFile.IsDelete() {
			first = path
		}
	}
	p := schema.Day.Apply(day.UnixMicro())
	spec := *tb.Metadata().DefaultSpec()
	del := fw.positionDeletes(p, "file:"+first[len("file://"):], []int64{0, 5, 5}) // Java's file:/p; pos 5 twice
	stale := fw.positionDeletes(p, loc+"/data/gone.parquet", []int64{1})
	fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: spec, entries: []iceberg.ManifestEntry{
		{Status: iceberg.StatusAdded, DataFile: del}, {Status: iceberg.StatusAdded, DataFile: stale}}}},
		addedDeletes: 2, addedPositionDeletes: 4})
	// a later append's rows are not deleted by the earlier delete
	later := []time.Time{day.Add(2 * time.Minute), day.Add(3 * time.Minute)}
	tb2, err := table.Open(ctx, st, testenv.New(96))
	if err != nil {
		t.Fatal(err)
	}
	appendRows(t, tb2, later, 500)

	info, err := tb2.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type view struct {
		Rows, Stored     int64
		MinTime, MaxTime string
	}
	got := view{info.Rows, info.RowsStored, info.MinTime, info.MaxTime}
	want := view{6, 8, "2026-11-27T00:01:00Z", "2026-11-27T00:04:00Z"}
	if got != want {
		t.Errorf("info = %+v, want %+v", got, want)
	}
	if info.RowsBeforeEqualityDeletes {
		t.Errorf("info says equality deletes are not subtracted; there are none")
	}
}
