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
func expiryTable(b *testing.B, n int) *memstore.Store {
	ctx := context.Background()
	st := memstore.New(memstore.WithClock(oldClock()))
	tb := createWith(b, st, 1, map[string]string{
		table.PropMaxSnapshotAgeMs: "0", table.PropMinSnapshotsKeep: "1", maintenance.PropOrphanGrace: "0s",
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
// (n-1 expire; their data files stay live, their manifest lists and old
// metadata versions go). peak-heap-MiB is the live heap's high-water mark
// above the heap before the run (the store's copy of the table).
func BenchmarkExpire(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("snapshots=%d", n), func(b *testing.B) {
			base := expiryTable(b, n)
			ctx := context.Background()
			env := testenv.New(2)
			later := testenv.Start.Add(24 * time.Hour) // after every snapshot of the table
			env.Now = func() time.Time { return later }
			var peak uint64
			var cpu int64
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				st := cloneAt(b, base)
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
				if res.SnapshotsExpired != n-1 || res.FilesDeleted < n-1 {
					b.Fatalf("expired %d snapshots, deleted %d files; want %d expired and at least their manifest lists deleted", res.SnapshotsExpired, res.FilesDeleted, n-1)
				}
				peak = max(peak, cost.peak)
				cpu += cost.cpu
				b.StartTimer()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
