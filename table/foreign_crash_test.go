package table_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// visibleMem is what a reader sees of the mem column: every live data
// file's values less the positions live position delete files remove.
func visibleMem(t *testing.T, st store.Store, tb *table.Table) []int64 {
	t.Helper()
	fw := &foreignWriter{t: t, ctx: context.Background(), st: st, tb: tb}
	live := liveEntries(t, fw)
	deleted := map[string]map[int64]bool{}
	for path, e := range live {
		if !e.DataFile.IsDelete() {
			continue
		}
		raw, err := st.Get(fw.ctx, fw.key(path))
		if err != nil {
			t.Fatal(err)
		}
		err = datafile.ParsePositionDeletes(raw, func(p string, pos int64) error {
			if d, ok := live[p]; ok && d.SequenceNumber <= e.SequenceNumber {
				if deleted[p] == nil {
					deleted[p] = map[int64]bool{}
				}
				deleted[p][pos] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var out []int64
	for path, e := range live {
		if e.DataFile.IsDelete() {
			continue
		}
		raw, err := st.Get(fw.ctx, fw.key(path))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquet.Open(raw)
		if err != nil {
			t.Fatal(err)
		}
		var pos int64
		for rg := range f.NumRowGroups() {
			c, err := f.ReadColumn(rg, tb.Schema().Index("mem"))
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range c.Ints {
				if !deleted[path][pos] {
					out = append(out, v)
				}
				pos++
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestApplyDeletesCrashAtEveryRequest fails each request of a compaction
// that applies a position delete, in turn: the table opens, readers see
// exactly the rows they saw before (no deleted row comes back, none is
// lost), and the next run applies the delete.
func TestApplyDeletesCrashAtEveryRequest(t *testing.T) {
	ctx := context.Background()
	base := memstore.New()
	tb, err := table.Create(ctx, base, testenv.New(81), loc, interopSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	for a := range 3 {
		var ts []time.Time
		for m := range 5 {
			ts = append(ts, day.Add(time.Duration(m+2*a)*time.Minute))
		}
		appendRows(t, tb, ts, int64(100*a))
	}
	fw := &foreignWriter{t: t, ctx: ctx, st: base, tb: tb}
	p := schema.Day.Apply(day.UnixMicro())
	var first string
	for path, e := range liveEntries(t, fw) {
		if e.SequenceNumber == 1 {
			first = path
		}
	}
	del := fw.positionDeletes(p, first, []int64{0, 4})
	fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
		entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: del}}}}, addedDeletes: 1, addedPositionDeletes: 2})
	want := fmt.Sprint(visibleMem(t, base, tb))

	probe := faultstore.New(cloneStore(t, base))
	tbp, err := table.Open(ctx, probe, testenv.New(82))
	if err != nil {
		t.Fatal(err)
	}
	opened := probe.Requests(faultstore.AnyOp)
	if res, err := tbp.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil || res.DeleteFilesApplied != 1 {
		t.Fatalf("clean run = %+v, %v", res, err)
	}
	total := probe.Requests(faultstore.AnyOp) - opened
	// The rows after compaction: one per key, the latest append's, less
	// the deleted ones (mem 0 and 4 of the first append; 4 is overwritten
	// by later appends anyway).
	wantAfter := fmt.Sprint(visibleMem(t, probe, tbp))
	for n := 1; n <= total; n++ {
		fs := faultstore.New(cloneStore(t, base))
		tbn, err := table.Open(ctx, fs, testenv.New(82))
		if err != nil {
			t.Fatal(err)
		}
		fs.AddRule(faultstore.Rule{Nth: n, Action: faultstore.Fail})
		_, runErr := tbn.Maintain(ctx, table.MaintainOptions{Compact: true})
		fs.ClearRules()
		after, err := table.Open(ctx, fs, testenv.New(83))
		if err != nil {
			t.Fatalf("request %d failed: the table does not open: %v", n, err)
		}
		got := fmt.Sprint(visibleMem(t, fs, after))
		// A failure after the commit (the next round's reads) leaves it committed.
		if runErr != nil && got != want && got != wantAfter {
			t.Errorf("request %d failed (%v): readers see mem %s, want %s (before) or %s (committed)", n, runErr, got, want, wantAfter)
		}
		if runErr == nil && got != wantAfter {
			t.Errorf("request %d failed, the run did not: readers see mem %s, want %s", n, got, wantAfter)
		}
		if _, err := after.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
			t.Fatalf("request %d failed: the next run: %v", n, err)
		}
		if got := fmt.Sprint(visibleMem(t, fs, after)); got != wantAfter {
			t.Errorf("request %d failed, then a clean run: mem %s, want %s", n, got, wantAfter)
		}
	}
	t.Logf("%d requests", total)
}

// TestApplyDeletesToUnsortedFile: position deletes name rows by their place
// in the file as written; compaction sorts an unsorted file in memory, and
// must take the deleted rows out before the sort loses their places.
func TestApplyDeletesToUnsortedFile(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(91), loc, interopSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	appendRows(t, tb, []time.Time{day.Add(time.Hour)}, 1) // a table with a snapshot of ours first
	fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb, unsorted: true}
	p := schema.Day.Apply(day.UnixMicro())
	var rs []modelRow
	for i := range 8 {
		rs = append(rs, modelRow{ts: day.Add(time.Duration(i) * time.Minute).UnixMicro(), host: fmt.Sprintf("u%d", i%2), mem: int64(1000 + i)})
	}
	df := fw.dataFile(p, rs, 0, false)
	fw.commit(foreignCommit{op: "append", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
		entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: df}}}},
		addedFiles: 1, addedRecords: int64(len(rs)), addedBytes: df.FileSize})
	// positions 0 and 2 of the file as written (reverse order): mem 1007 and 1003
	del := fw.positionDeletes(p, df.Path, []int64{0, 2})
	fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
		entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: del}}}}, addedDeletes: 1, addedPositionDeletes: 2})
	want := fmt.Sprint(visibleMem(t, st, tb))
	if slices.Contains(visibleMem(t, st, tb), 1007) {
		t.Fatalf("the fixture is wrong: mem 1007 is visible before compaction (%s)", want)
	}
	tb2, err := table.Open(ctx, st, testenv.New(92))
	if err != nil {
		t.Fatal(err)
	}
	res, err := tb2.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.DeleteFilesApplied != 1 || res.RowsDeleted != 2 {
		t.Errorf("maintain applied %d delete files, %d rows; want 1 and 2 (%v)", res.DeleteFilesApplied, res.RowsDeleted, res.Plan)
	}
	if got := fmt.Sprint(visibleMem(t, st, tb2)); got != want {
		t.Errorf("after compaction readers see mem %s, want %s", got, want)
	}
}
