package table_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestCatchUpOverPositionDeletes: another engine deletes the row that was a
// series' latest (a position delete). Latest refuses by name rather than
// answer the deleted row; an append goes on without an index and says so;
// once a compaction has applied the delete, the index is caught up from the
// rows left and the deleted row is not in it.
func TestCatchUpOverPositionDeletes(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(91), loc, interopSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	appendRows(t, tb, []time.Time{day, day.Add(time.Minute), day.Add(2 * time.Minute)}, 10) // host-0: mem 10, 11, 12
	fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}
	p := schema.Day.Apply(day.UnixMicro())
	var path string
	for pth := range liveEntries(t, fw) {
		path = pth
	}
	del := fw.positionDeletes(p, path, []int64{2}) // the latest row, mem 12
	fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
		entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: del}}}}, addedDeletes: 1, addedPositionDeletes: 1})
	if tb, err = table.Open(ctx, st, testenv.New(92)); err != nil {
		t.Fatal(err)
	}
	latestMem := func() (string, error) {
		b, err := tb.Latest(ctx)
		if err != nil {
			return "", err
		}
		var out []string
		mem := b.Schema.Fields
		for i := 0; i < b.Len; i++ {
			for c, f := range mem {
				if f.Name == "mem" {
					out = append(out, fmt.Sprint(b.Cols[c].Ints[i]))
				}
			}
		}
		return strings.Join(out, ","), nil
	}
	if got, err := latestMem(); table.Code(err) != "UNSUPPORTED_TABLE" {
		t.Fatalf("Latest over a position delete = %q, %v; want UNSUPPORTED_TABLE", got, err)
	}
	res, err := tb.Append(ctx, rowsFromMaps(t, tb, map[string]any{"ts": day.Add(-time.Hour), "host": "host-1", "shard": int64(0), "mem": int64(7)}))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "no last-value index") || tb.Metadata().StatisticsFor(res.SnapshotID) != nil {
		t.Fatalf("append over a delete: warnings %q, statistics %v", res.Warnings, tb.Metadata().StatisticsFor(res.SnapshotID))
	}
	mr, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil || mr.DeleteFilesApplied != 1 {
		t.Fatalf("maintain = %+v, %v", mr, err)
	}
	got, err := latestMem()
	if err != nil || got != "11,7" {
		t.Fatalf("Latest after the compaction = %q, %v; want 11,7 (host-0's row 12 deleted)", got, err)
	}
}

func rowsFromMaps(t *testing.T, tb *table.Table, ms ...map[string]any) *rows.Batch {
	t.Helper()
	b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
