package table_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// expiryTable appends n small batches (10 rows, one snapshot each) to a
// table whose snapshots all expire but the last: snapshot k's manifest list
// names k manifests, as on a table fed by small appends and never compacted.
// timelake.history.max-snapshots=0: with its default (10) every commit drops
// all but the newest 10 snapshots from the metadata, so the table would hold
// 10 snapshots, not n, and expiry would find 9 to expire.
func expiryTable(b *testing.B, n int) *memstore.Store {
	ctx := context.Background()
	st := memstore.New(memstore.WithClock(oldClock()))
	tb := createWith(b, st, 1, map[string]string{
		table.PropMaxSnapshotAgeMs: "0", table.PropMinSnapshotsKeep: "1", maintenance.PropOrphanGrace: "0s",
		table.PropMaxSnapshots: "0",
	})
	start := day1.Add(-48 * time.Hour)
	for i := range n {
		if _, err := tb.Append(ctx, batch(b, tb.Schema(), start.Add(time.Duration(i)*10*time.Minute), 10, 10)); err != nil {
			b.Fatal(err)
		}
	}
	return st
}

// BenchmarkExpire runs expiry and file cleanup on a table of n snapshots
// (n-1 expire; their data files stay live, their manifest lists, the
// manifests only they reach and old metadata versions go). peak-heap-MiB is
// the live heap's high-water mark above the heap before the run (the store's
// copy of the table); expired and deleted are the run's counts.
//
// floor=0 is the core alone: no grace floor (a test's single writer), so
// one run expires the snapshots and deletes their files. floor=10m is what
// the drivers (CLI, @timelake/client) do: their grace floor keeps the files
// of snapshots expired by this run for 10 minutes after it first saw them
// unreferenced (a reader may have loaded the version before), so the work
// takes two runs: the expiry, then the cleanup 11 minutes later by the
// clock; the op is both, as bench/expirenode.mjs times them in Node.
func BenchmarkExpire(b *testing.B) {
	for _, n := range []int{100, 1000} {
		for _, floor := range []time.Duration{0, table.DefaultGraceFloor} {
			b.Run(fmt.Sprintf("snapshots=%d/floor=%s", n, fmtFloor(floor)), func(b *testing.B) {
				benchExpire(b, n, floor)
			})
		}
	}
}

func fmtFloor(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return fmt.Sprintf("%dm", int(d/time.Minute))
}

func benchExpire(b *testing.B, n int, floor time.Duration) {
	base := expiryTable(b, n)
	ctx := context.Background()
	var peak uint64
	var cpu int64
	var expired, deleted int
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		st := cloneAt(b, base)
		env := testenv.New(2)
		env.GraceFloor = floor
		at := testenv.Start.Add(24 * time.Hour) // after every snapshot of the table
		env.Now = func() time.Time { return at }
		runs := 1
		if floor > 0 {
			runs = 2
		}
		expired, deleted = 0, 0
		for r := range runs {
			if r > 0 {
				at = at.Add(floor + time.Minute) // the next run, past the grace floor
			}
			tb, err := table.Open(ctx, st, env)
			if err != nil {
				b.Fatal(err)
			}
			var res *table.MaintainResult
			cost, err := measured(b, func() (err error) {
				res, err = tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true})
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			expired += res.SnapshotsExpired
			deleted += res.FilesDeleted // expired files, old metadata versions and orphans
			peak = max(peak, cost.peak)
			cpu += cost.cpu
		}
		// Every expired snapshot's manifest list goes (its manifests and the
		// old metadata versions too): at least n-1 files.
		if expired != n-1 || deleted < n-1 {
			b.Fatalf("expired %d snapshots, deleted %d files in %d runs; want %d expired and at least their manifest lists deleted", expired, deleted, runs, n-1)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(expired), "expired")
	b.ReportMetric(float64(deleted), "deleted")
}
