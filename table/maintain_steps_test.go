package table_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

func createWith(t testing.TB, st store.Store, seed uint64, props map[string]string) *table.Table {
	t.Helper()
	tb, err := table.Create(context.Background(), st, testenv.New(seed), loc, metricsSchema(t), props)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func appendMaps(t testing.TB, tb *table.Table, ms []map[string]any) {
	t.Helper()
	b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(context.Background(), b); err != nil {
		t.Fatal(err)
	}
}

func TestRetentionDropsOldPartitions(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	// The Env clock reads 2026-11-29T12:00: the cut-off is 2026-11-27T12:00.
	tb := createWith(t, st, 1, map[string]string{maintenance.PropRetention: "2d"})
	for d := 25; d <= 28; d++ {
		day := time.Date(2026, 11, d, 6, 0, 0, 0, time.UTC)
		ms := []map[string]any{
			{"ts": day, "host": "a", "region": "eu", "cpu": 1.0, "mem": int64(d)},
			{"ts": day.Add(time.Hour), "host": "b", "region": "eu", "cpu": 2.0, "mem": int64(d)},
		}
		if d == 25 {
			ms = append(ms, map[string]any{"ts": day, "host": "gone", "region": "eu", "mem": int64(1)})
		}
		appendMaps(t, tb, ms)
	}
	idxBefore := tb.Metadata().CurrentSnapshot().Summary[lastvalue.SummaryKey]
	res, err := tb.Maintain(ctx, table.MaintainOptions{Retention: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.PartitionsDropped != 2 || res.FilesDropped != 2 || res.RowsDropped != 5 || res.SeriesDropped != 1 {
		t.Errorf("result = %+v, want 2 partitions, 2 files, 5 rows, 1 series dropped", res)
	}
	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range info.Partitions {
		names = append(names, p.Name)
	}
	if got, want := strings.Join(names, ","), "ts_day=2026-11-27,ts_day=2026-11-28"; got != want {
		t.Errorf("partitions = %s, want %s", got, want)
	}
	if info.Rows != 4 || info.MinTime != "2026-11-27T06:00:00Z" || info.MaxTime != "2026-11-28T07:00:00Z" {
		t.Errorf("info = %d rows, %s .. %s; want 4 rows from 2026-11-27T06:00:00Z to 2026-11-28T07:00:00Z", info.Rows, info.MinTime, info.MaxTime)
	}
	s := tb.Metadata().CurrentSnapshot()
	if s.Summary["operation"] != "delete" || s.Summary["deleted-data-files"] != "2" || s.Summary["deleted-records"] != "5" {
		t.Errorf("summary = %v, want a delete of 2 files and 5 records", s.Summary)
	}
	if s.Summary[lastvalue.SummaryKey] == idxBefore {
		t.Errorf("the last-value index did not change")
	}
	idx, err := tb.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if idx.Len != 2 || idx.Cols[tb.Schema().Series[0]].Strs[0] != "a" || idx.Cols[tb.Schema().Series[0]].Strs[1] != "b" {
		t.Errorf("latest holds %d series, want a and b", idx.Len)
	}
	// Nothing more to drop.
	if res, err = tb.Maintain(ctx, table.MaintainOptions{Retention: true}); err != nil || res.Commits != 0 {
		t.Errorf("second run = %+v, %v; want no commit", res, err)
	}
}

// settableClock is a store clock a test moves.
type settableClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *settableClock) get() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *settableClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// checkSnapshotsReadable reads every object each snapshot of the table's
// metadata reaches: manifest list, manifests, data files, last-value index.
func checkSnapshotsReadable(t *testing.T, st store.Store, tb *table.Table) {
	t.Helper()
	ctx := context.Background()
	key := func(p string) string { return strings.TrimPrefix(p, tb.Metadata().Location+"/") }
	for _, s := range tb.Metadata().Snapshots {
		raw, err := st.Get(ctx, key(s.ManifestList))
		if err != nil {
			t.Errorf("snapshot %d: %v", s.SnapshotID, err)
			continue
		}
		ml, err := iceberg.ReadManifestList(raw, s.ManifestList)
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range ml.Files {
			raw, err := st.Get(ctx, key(mf.ManifestPath))
			if err != nil {
				t.Errorf("snapshot %d: %v", s.SnapshotID, err)
				continue
			}
			m, err := iceberg.ReadManifest(raw, mf)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range m.Entries {
				if e.Status == iceberg.StatusDeleted {
					continue
				}
				if _, err := st.Get(ctx, key(e.DataFile.Path)); err != nil {
					t.Errorf("snapshot %d: data file: %v", s.SnapshotID, err)
				}
			}
		}
		if p := s.Summary[lastvalue.SummaryKey]; p != "" {
			if _, err := st.Get(ctx, key(p)); err != nil {
				t.Errorf("snapshot %d: last-value index: %v", s.SnapshotID, err)
			}
		}
	}
}

func TestExpiryAndCleanup(t *testing.T) {
	ctx := context.Background()
	clock := &settableClock{now: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)} // long before the Env's now
	st := memstore.New(memstore.WithClock(clock.get))
	env := testenv.New(1)
	var later time.Duration // moves the table's clock on
	envNow := env.Now
	env.Now = func() time.Time { return envNow().Add(later) }
	tb, err := table.Create(ctx, st, env, loc, metricsSchema(t), map[string]string{
		table.PropMaxSnapshotAgeMs: "0", table.PropMinSnapshotsKeep: "1", table.PropPrevVersionsMax: "3",
		maintenance.PropOrphanGrace: "1h",
	})
	if err != nil {
		t.Fatal(err)
	}
	overlapping(t, tb, day1, 9, 200)
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
		t.Fatal(err)
	}
	// An old orphan (a crashed commit) and a young one (a commit in flight).
	if err := st.Put(ctx, "data/ts_day=2026-11-28/orphan.parquet", []byte("x")); err != nil {
		t.Fatal(err)
	}
	clock.set(testenv.Start.Add(-time.Minute))
	if err := st.Put(ctx, "data/ts_day=2026-11-28/inflight.parquet", []byte("y")); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, "metadata/inflight-m0.avro", []byte("z")); err != nil {
		t.Fatal(err)
	}
	before := scan(t, st, tb)
	snaps := len(tb.Metadata().Snapshots)

	dry, err := tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if dry.SnapshotsExpired != snaps-1 || dry.FilesDeleted == 0 || dry.Commits != 0 {
		t.Errorf("dry run = %+v, want %d snapshots to expire and files to delete, no commit", dry, snaps-1)
	}
	if n := len(tb.Metadata().Snapshots); n != snaps {
		t.Errorf("a dry run changed the table: %d snapshots, want %d", n, snaps)
	}

	res, err := tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.SnapshotsExpired != snaps-1 || len(tb.Metadata().Snapshots) != 1 {
		t.Errorf("expired %d, left %d snapshots; want %d expired, 1 left", res.SnapshotsExpired, len(tb.Metadata().Snapshots), snaps-1)
	}
	if res.FilesDeleted != dry.FilesDeleted || res.OrphansDeleted != 0 {
		t.Errorf("result = %+v, want the dry run's %d files deleted, no orphan", res, dry.FilesDeleted)
	}
	// Old as they are, the expired files and the orphan were first seen
	// unreferenced now: a reader of the version before may open them for
	// the grace.
	if _, err := st.Get(ctx, "data/ts_day=2026-11-28/orphan.parquet"); err != nil {
		t.Errorf("old orphan first seen now: %v, want it kept", err)
	}
	if n := len(keysOf(t, st, "data/")); n <= 3 {
		t.Errorf("data objects left = %d, want the expired inputs still there", n)
	}
	later = time.Hour + time.Minute
	res, err = tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true})
	if err != nil {
		t.Fatal(err)
	}
	// The young ones are past the writer grace now, first seen: kept.
	if res.OrphansDeleted == 0 || res.KeptYoung != 2 {
		t.Errorf("an hour later: %+v, want orphans deleted and 2 kept", res)
	}
	checkSnapshotsReadable(t, st, tb)
	sameRows(t, "after expiry", before, scan(t, st, tb))
	for _, k := range []string{"data/ts_day=2026-11-28/inflight.parquet", "metadata/inflight-m0.avro"} {
		if _, err := st.Get(ctx, k); err != nil {
			t.Errorf("young %s was deleted: %v", k, err)
		}
	}
	if _, err := st.Get(ctx, "data/ts_day=2026-11-28/orphan.parquet"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("old orphan: got %v, want it deleted", err)
	}
	// The compaction inputs are gone (only the expired append snapshots reached them).
	if n := len(keysOf(t, st, "data/")); n != 2 {
		t.Errorf("data objects left = %v, want the compacted file and the young orphan", keysOf(t, st, "data/"))
	}
	// Metadata versions: the current one and the 3 of its log; nothing
	// older but the superseded markers of the versions this run's commits
	// pushed out of the log (commit.Superseded), young.
	var versions []int
	for _, k := range keysOf(t, st, "metadata/") {
		if n, ok := commit.ParseMetadataKey(k); ok {
			if raw, err := st.Get(ctx, k); err != nil || commit.IsSuperseded(raw) {
				continue
			}
			versions = append(versions, n)
		}
	}
	if len(versions) != 4 {
		t.Errorf("metadata versions left = %v, want the current and 3 before it", versions)
	}
	// Everything left is reachable or first seen by the run before: a
	// third run deletes nothing.
	res, err = tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true})
	if err != nil || res.FilesDeleted != 0 || res.SnapshotsExpired != 0 {
		t.Errorf("second run = %+v, %v; want nothing deleted", res, err)
	}
	tb2, err := table.Open(ctx, st, testenv.New(9))
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "reopened", before, scan(t, st, tb2))
}

// cloneStore copies every object of src into a new memstore.
func cloneStore(t testing.TB, src store.Store) *memstore.Store {
	t.Helper()
	ctx := context.Background()
	dst := memstore.New()
	for _, k := range keysOf(t, src, "") {
		b, err := src.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if err := dst.Put(ctx, k, b); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestMaintainCrashAtEveryRequest fails each request of a full maintenance
// run in turn: the table stays readable with every row, and the next run
// finishes the job.
func TestMaintainCrashAtEveryRequest(t *testing.T) {
	ctx := context.Background()
	base := memstore.New()
	tb := createWith(t, base, 1, map[string]string{table.PropMaxSnapshotAgeMs: "0", maintenance.PropOrphanGrace: "0"})
	overlapping(t, tb, day1, 9, 300)
	want := scan(t, base, tb)

	// A clean run, to count its requests.
	probe := faultstore.New(cloneStore(t, base))
	tbp, err := table.Open(ctx, probe, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	opened := probe.Requests(faultstore.AnyOp)
	if _, err := tbp.Maintain(ctx, table.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	total := probe.Requests(faultstore.AnyOp) - opened
	if total < 20 {
		t.Fatalf("a maintenance run made %d requests; expected more", total)
	}
	failed := 0
	step := 1
	if testing.Short() {
		step = 7 // a sample of the requests
	}
	for n := 1; n <= total; n += step {
		fs := faultstore.New(cloneStore(t, base))
		tbn, err := table.Open(ctx, fs, testenv.New(2))
		if err != nil {
			t.Fatal(err)
		}
		fs.AddRule(faultstore.Rule{Nth: n, Action: faultstore.Fail})
		if _, err := tbn.Maintain(ctx, table.MaintainOptions{}); err != nil {
			failed++
		}
		fs.ClearRules()
		after, err := table.Open(ctx, fs, testenv.New(3))
		if err != nil {
			t.Fatalf("request %d failed: the table does not open: %v", n, err)
		}
		sameRows(t, fmt.Sprintf("request %d failed", n), want, scan(t, fs, after))
		checkSnapshotsReadable(t, fs, after)
		if _, err := after.Maintain(ctx, table.MaintainOptions{}); err != nil {
			t.Fatalf("request %d failed: the next run: %v", n, err)
		}
		got := scan(t, fs, after)
		sameRows(t, fmt.Sprintf("request %d failed, then a clean run", n), want, got)
		if got.files != 1 {
			t.Errorf("request %d failed, then a clean run: %d files, want 1", n, got.files)
		}
		checkSnapshotsReadable(t, fs, after)
	}
	if failed == 0 {
		t.Errorf("no injected failure failed a run")
	}
	t.Logf("%d requests, %d failed runs", total, failed)
}

// TestMaintainConcurrentWithAppends runs appenders and two maintainers on
// one store: no row is ever lost, whatever commits win.
func TestMaintainConcurrentWithAppends(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	props := map[string]string{maintenance.PropCompactMinFiles: "2", table.PropCommitRetries: "50"}
	createWith(t, st, 1, props)
	const writers, appends, rowsEach = 3, 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tb, err := table.Open(ctx, st, testenv.New(uint64(10+w)))
			if err != nil {
				errs <- err
				return
			}
			for a := range appends {
				ms := make([]map[string]any, rowsEach)
				for i := range ms {
					ms[i] = map[string]any{"ts": day1.Add(time.Duration(a*rowsEach+i) * time.Second), "host": fmt.Sprintf("w%d-%d", w, i%4),
						"region": "eu", "cpu": float64(i), "mem": int64(a)}
				}
				b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
				if err != nil {
					errs <- err
					return
				}
				if _, err := tb.Append(ctx, b); err != nil {
					errs <- fmt.Errorf("writer %d append %d: %w", w, a, err)
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	var mwg sync.WaitGroup
	var dropped, runs int
	var mu sync.Mutex
	for m := range 2 {
		mwg.Add(1)
		go func() {
			defer mwg.Done()
			tb, err := table.Open(ctx, st, testenv.New(uint64(20+m)))
			if err != nil {
				errs <- err
				return
			}
			for {
				res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
				mu.Lock()
				runs++
				if res != nil {
					dropped += res.MergesDropped
				}
				mu.Unlock()
				if err != nil && !errors.Is(err, commit.ErrDropped) {
					errs <- fmt.Errorf("maintainer %d: %w", m, err)
					return
				}
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	mwg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tb, err := table.Open(ctx, st, testenv.New(99))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
		t.Fatal(err)
	}
	got := scan(t, st, tb)
	if want := writers * appends * rowsEach; len(got.rows) != want || got.stored != int64(want) {
		t.Errorf("%d distinct rows, %d stored; want %d of each", len(got.rows), got.stored, want)
	}
	checkSnapshotsReadable(t, st, tb)
	t.Logf("%d maintenance runs, %d merges dropped, %d files at the end", runs, dropped, got.files)
}
