package table_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// daysBatch is one row a day for n days from start.
func daysBatch(t *testing.T, tb *table.Table, start time.Time, n int) *rows.Batch {
	t.Helper()
	ms := make([]map[string]any, n)
	for i := range ms {
		ms[i] = map[string]any{"ts": start.AddDate(0, 0, i), "host": "h", "region": "eu", "cpu": float64(i), "mem": int64(i)}
	}
	b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAppendMaxPartitions: an append spanning more partitions than
// timelake.append.max-partitions allows (100,000 days against the default
// 1,000; two staged batches of 6 new days each against 10) is
// TOO_MANY_PARTITIONS naming the count and the property, and leaves the
// store as it was; within the bound it appends.
func TestAppendMaxPartitions(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb := create(t, st, 1)
	before := snapshotStore(t, st)
	_, err := tb.Append(ctx, daysBatch(t, tb, time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC), 100_000))
	if table.Code(err) != "TOO_MANY_PARTITIONS" || !strings.Contains(err.Error(), "100000") || !strings.Contains(err.Error(), table.PropAppendMaxPartitions) {
		t.Fatalf("append of 100,000 days: err = %v (%s), want TOO_MANY_PARTITIONS naming the count and the property", err, table.Code(err))
	}
	sameStore(t, before, snapshotStore(t, st))

	st = memstore.New()
	tb = createWith(t, st, 1, map[string]string{table.PropAppendMaxPartitions: "10"})
	if _, err := tb.Append(ctx, daysBatch(t, tb, day1, 10)); err != nil {
		t.Fatalf("append of 10 days under a bound of 10: %v", err)
	}
	before = snapshotStore(t, st)
	app, err := tb.NewAppender(table.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Add(ctx, nil, daysBatch(t, tb, day1.AddDate(1, 0, 0), 6)); err != nil {
		t.Fatal(err)
	}
	err = app.Add(ctx, nil, daysBatch(t, tb, day1.AddDate(2, 0, 0), 6))
	if table.Code(err) != "TOO_MANY_PARTITIONS" || !strings.Contains(err.Error(), "12 ") {
		t.Fatalf("second staged batch: err = %v (%s), want TOO_MANY_PARTITIONS for 12 partitions", err, table.Code(err))
	}
	app.Abort(ctx)
	sameStore(t, before, snapshotStore(t, st))
}

// TestStagedFilesGone: a staged append whose uploaded data file was deleted
// (an orphan cleanup with a grace shorter than the append took) refuses to
// commit with STAGED_FILES_GONE naming the file; the table keeps its version.
func TestStagedFilesGone(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	env := testenv.New(1)
	now := testenv.Start
	env.Now = func() time.Time { return now }
	tb, err := table.Create(ctx, st, env, loc, metricsSchema(t), map[string]string{maintenance.PropOrphanGrace: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	version := tb.Version()
	app, err := tb.NewAppender(table.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Add(ctx, nil, batch(t, tb.Schema(), day1, 50, 2)); err != nil {
		t.Fatal(err)
	}
	objs, err := st.List(ctx, "data/")
	if err != nil || len(objs) == 0 {
		t.Fatalf("staged files: %v %v", objs, err)
	}
	gone := objs[0].Key
	if err := st.Delete(ctx, []string{gone}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(45 * time.Minute) // past half the grace: the append checks
	_, err = app.Commit(ctx)
	if table.Code(err) != "STAGED_FILES_GONE" || !strings.Contains(err.Error(), gone) {
		t.Fatalf("commit: err = %v (%s), want STAGED_FILES_GONE naming %s", err, table.Code(err), gone)
	}
	re, err := table.Open(ctx, st, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	if re.Version() != version {
		t.Errorf("version %d after the refused commit, want %d", re.Version(), version)
	}
	var _ store.Store = st
}
