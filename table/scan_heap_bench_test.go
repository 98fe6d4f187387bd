package table_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// liveHeap measures the heap a scan holds: at every 16th batch a
// collection, then the bytes of live objects above those before the scan.
// A keyed scan merges every file it reads at once, so this is mostly the
// pages its cursors hold (docs/decisions/scan.md).
type liveHeap struct {
	base, peak uint64
	batches    int
	s          []metrics.Sample
}

func newLiveHeap() *liveHeap {
	h := &liveHeap{s: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
	runtime.GC()
	metrics.Read(h.s)
	h.base = h.s[0].Value.Uint64()
	return h
}

func (h *liveHeap) batch(*rows.Batch) error {
	h.batches++
	if h.batches%16 != 1 {
		return nil
	}
	runtime.GC()
	metrics.Read(h.s)
	if u := h.s[0].Value.Uint64(); u > h.base && u-h.base > h.peak {
		h.peak = u - h.base
		if p := os.Getenv("TIMELAKE_HEAP_PROFILE"); p != "" {
			// the live heap at the peak, for go tool pprof -sample_index=inuse_space
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return pprof.WriteHeapProfile(f)
		}
	}
	return nil
}

func scanLiveHeap(b *testing.B, tb *table.Table, wantRows int64) {
	var peak uint64
	for b.Loop() {
		h := newLiveHeap()
		st, err := tb.Scan(context.Background(), table.ScanOptions{}, h.batch)
		if err != nil {
			b.Fatal(err)
		}
		if wantRows > 0 && st.Rows != wantRows {
			b.Fatalf("%d rows, want %d", st.Rows, wantRows)
		}
		peak = max(peak, h.peak)
	}
	b.ReportMetric(float64(peak)/(1<<20), "live-heap-MiB")
}

// BenchmarkScanHeapManyFiles: the whole-table keyed scan of 200 files of
// 50 series each (every file holds every series, so the merge reads all
// 200 at once); live-heap-MiB is the most heap the scan held.
func BenchmarkScanHeapManyFiles(b *testing.B) {
	ctx := context.Background()
	tb, err := table.Create(ctx, memstore.New(), testenv.New(1), loc, metricsSchema(b), map[string]string{"timelake.auto-maintain": "false"})
	if err != nil {
		b.Fatal(err)
	}
	const files, hosts, per = 200, 50, 12000
	for f := range files {
		ms := make([]map[string]any, per)
		start := day1.Add(time.Duration(f) * time.Hour / 8)
		for i := range ms {
			ms[i] = map[string]any{"ts": start.Add(time.Duration(i/hosts) * time.Second), "host": fmt.Sprintf("h%03d", i%hosts),
				"region": fmt.Sprintf("r%d", i%hosts%7), "cpu": float64(i%977) / 3, "mem": int64(i * f)}
		}
		batch, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tb.Append(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	scanLiveHeap(b, tb, files*per)
}

// BenchmarkScanHeapFlights: the whole-table scan of the flights-3m table
// the bench builds (bench/flights.mjs), at TIMELAKE_FLIGHTS_DIR (a copy:
// the directory store makes its temporary directory there); skipped
// without it.
func BenchmarkScanHeapFlights(b *testing.B) {
	dir := os.Getenv("TIMELAKE_FLIGHTS_DIR")
	if dir == "" {
		b.Skip("TIMELAKE_FLIGHTS_DIR not set")
	}
	st, err := dirstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	tb, err := table.Open(context.Background(), st, testenv.New(1))
	if err != nil {
		b.Fatal(err)
	}
	scanLiveHeap(b, tb, 0)
}
