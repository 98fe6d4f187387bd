package table_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestCleanupSparesWhatAReaderMayOpen: data files written a month ago,
// compacted away by the latest commit (a history of one snapshot, so that
// commit leaves them unreferenced). A reader loaded the version before it a
// second ago. A cleanup right after must not delete them, old as their
// last-modified time is (the cleanup before this change did: it judged by
// that time alone); they go once unreferenced for the orphan grace, and the
// marks file says since when.
func TestCleanupSparesWhatAReaderMayOpen(t *testing.T) {
	ctx := context.Background()
	env, st, step := steppedEnv(1)
	tb, err := table.Create(ctx, st, env, loc, metricsSchema(t), map[string]string{table.PropMaxSnapshots: "1"})
	if err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(k)*time.Hour), 10, 5)); err != nil {
			t.Fatal(err)
		}
		step(10 * time.Second)
	}
	inputs := keysOf(t, st, "data/")
	step(30 * 24 * time.Hour)
	reader, err := table.Open(ctx, st, env)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil || res.Merges != 1 {
		t.Fatalf("compaction: %+v, %v; want one merge", res, err)
	}
	if n := len(tb.Metadata().Snapshots); n != 1 {
		t.Fatalf("%d snapshots after the compaction, want 1: the inputs unreferenced", n)
	}
	kept := func(when string, want bool) {
		t.Helper()
		for _, k := range inputs {
			_, err := st.Get(ctx, k)
			if got := err == nil; got != want || err != nil && !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s: %s: %v, want kept %v", when, k, err, want)
			}
		}
	}

	step(time.Second)
	res, err = tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.KeptYoung < len(inputs) {
		t.Errorf("cleanup right after: %d kept as young, want at least the %d inputs", res.KeptYoung, len(inputs))
	}
	kept("cleanup right after the compaction", true)
	if got := readerRows(t, reader); got != 30 {
		t.Errorf("the reader of the version before the compaction read %d rows, want 30", got)
	}
	raw, err := st.Get(ctx, maintenance.MarksKey)
	if err != nil {
		t.Fatal(err)
	}
	marks, err := maintenance.ParseMarks(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range inputs {
		if _, ok := marks[k]; !ok {
			t.Errorf("%s has no mark in %s", k, raw)
		}
	}

	step(23 * time.Hour)
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true}); err != nil {
		t.Fatal(err)
	}
	kept("23 h after", true)

	step(time.Hour + time.Minute)
	res, err = tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true})
	if err != nil {
		t.Fatal(err)
	}
	kept("unreferenced for the grace", false)
	if res.OrphansDeleted < len(inputs) {
		t.Errorf("%d orphans deleted, want at least the %d inputs", res.OrphansDeleted, len(inputs))
	}
	if s := scan(t, st, tb); len(s.rows) != 30 || s.files != 1 {
		t.Errorf("after the cleanup: %d rows in %d files, want 30 in 1", len(s.rows), s.files)
	}
	if left := keysOf(t, st, "data/"); slices.ContainsFunc(inputs, func(k string) bool { return slices.Contains(left, k) }) {
		t.Errorf("data/ = %v: an input is left", left)
	}
}

// TestCleanupGarbledMarks: a marks file that cannot be read counts as
// empty: nothing is deleted on its word, a warning says so, and the next
// run writes a good one.
func TestCleanupGarbledMarks(t *testing.T) {
	ctx := context.Background()
	_, st, step, tb := oneBatchTable(t)
	const orphan = "data/ts_day=2026-11-28/orphan.parquet"
	if err := st.Put(ctx, orphan, []byte("x")); err != nil {
		t.Fatal(err)
	}
	step(48 * time.Hour)
	// Garbage that claims the orphan was seen long ago.
	if err := st.Put(ctx, maintenance.MarksKey, []byte(`{"timelake-unreferenced":1,"seen":[{"ms":0,"keys":["`+orphan+`"]}`)); err != nil {
		t.Fatal(err)
	}
	res, err := tb.Maintain(ctx, table.MaintainOptions{Orphans: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, orphan); err != nil || res.OrphansDeleted != 0 || len(res.Warnings) != 1 {
		t.Errorf("garbled marks: orphan %v, %d deleted, warnings %q; want it kept and one warning", err, res.OrphansDeleted, res.Warnings)
	}
	raw, err := st.Get(ctx, maintenance.MarksKey)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := maintenance.ParseMarks(raw); err != nil || len(m) != 1 {
		t.Errorf("marks rewritten as %s (%v), want the orphan first seen now", raw, err)
	}
	step(25 * time.Hour)
	if res, err := tb.Maintain(ctx, table.MaintainOptions{Orphans: true}); err != nil || res.OrphansDeleted != 1 {
		t.Errorf("a day later: %+v, %v; want the orphan deleted", res, err)
	}
}

// oneBatchTable is a table of metricsSchema in a memstore under a stepped
// clock (steppedEnv(1)), holding one append of 10 rows for each of 5 hosts at day1.
func oneBatchTable(t *testing.T) (table.Env, *memstore.Store, func(time.Duration), *table.Table) {
	t.Helper()
	env, st, step := steppedEnv(1)
	tb, err := table.Create(context.Background(), st, env, loc, metricsSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(context.Background(), batch(t, tb.Schema(), day1, 10, 5)); err != nil {
		t.Fatal(err)
	}
	return env, st, step, tb
}

// readerRows scans the version tb loaded, every row.
func readerRows(t *testing.T, tb *table.Table) int {
	t.Helper()
	n := 0
	if _, err := tb.Scan(context.Background(), table.ScanOptions{}, func(b *rows.Batch) error { n += b.Len; return nil }); err != nil {
		t.Fatalf("reader: %v", err)
	}
	return n
}

// TestStaleTableAppendsAfterCleanup: a Table whose loaded version other
// writers replaced hours ago finds that version's manifest list deleted
// (unreferenced past the metadata grace). Its append starts again from the
// newest version instead of failing; every row is there.
func TestStaleTableAppendsAfterCleanup(t *testing.T) {
	ctx := context.Background()
	env, st, step, busy := oneBatchTable(t)
	stale, err := table.Open(ctx, st, env)
	if err != nil {
		t.Fatal(err)
	}
	loaded := stale.Metadata().CurrentSnapshot().ManifestList
	for k := range 12 {
		if _, err := busy.Append(ctx, batch(t, busy.Schema(), day1.Add(time.Duration(k+1)*time.Minute), 10, 5)); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		step(2 * time.Hour)
		if _, err := busy.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true}); err != nil {
			t.Fatal(err)
		}
	}
	if slices.Contains(keysOf(t, st, "metadata/"), strings.TrimPrefix(loaded, loc+"/")) {
		t.Fatalf("the stale Table's manifest list %s is still there: the test needs it deleted", loaded)
	}
	res, err := stale.Append(ctx, batch(t, stale.Schema(), day1.Add(time.Hour), 10, 5))
	if err != nil {
		t.Fatalf("append on a stale Table: %v", err)
	}
	if res.Version != busy.Version()+1 {
		t.Errorf("committed version %d, want %d (after the newest)", res.Version, busy.Version()+1)
	}
	info, err := stale.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 14*10 {
		t.Errorf("%d rows, want %d", info.Rows, 14*10)
	}
}

// TestCleanupDryRunWritesNoMarks: a dry run changes nothing, the marks
// file included.
func TestCleanupDryRunWritesNoMarks(t *testing.T) {
	ctx := context.Background()
	_, st, step, tb := oneBatchTable(t)
	if err := st.Put(ctx, "data/ts_day=2026-11-28/orphan.parquet", []byte("x")); err != nil {
		t.Fatal(err)
	}
	step(48 * time.Hour)
	res, err := tb.Maintain(ctx, table.MaintainOptions{Orphans: true, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, maintenance.MarksKey); !errors.Is(err, store.ErrNotFound) || res.KeptYoung != 1 {
		t.Errorf("dry run: marks file %v, %d kept; want none written and the orphan kept", err, res.KeptYoung)
	}
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Orphans: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, maintenance.MarksKey); err != nil {
		t.Errorf("a run: marks file %v, want it written", err)
	}
}
