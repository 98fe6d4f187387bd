package table_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// catchUpBase is a table with a Timelake append of 1k rows; with foreign, then
// another engine's append of n rows (100 series; no index for its snapshot).
func catchUpBase(b testing.TB, n int, foreign, unsorted bool) map[string][]byte {
	return catchUpTable(b, loc, n, foreign, unsorted)
}

// catchUpTable is catchUpBase at location.
func catchUpTable(b testing.TB, location string, n int, foreign, unsorted bool) map[string][]byte {
	ctx := context.Background()
	st := memstore.New()
	env := testenv.New(1)
	tb, err := table.Create(ctx, st, env, location, metricsSchema(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tb.Append(ctx, benchBatch(b, tb, 1_000)); err != nil {
		b.Fatal(err)
	}
	if foreign {
		f := benchBatch(b, tb, n)
		for i := range f.Cols[0].Ints {
			f.Cols[0].Ints[i] += 3600e6 // an hour later: every series gets a newer row
		}
		rows.SetIngest(f, testenv.Start.UnixMicro())
		if _, err := table.CommitForeign(ctx, st, env, table.ForeignOp{Rows: f, Unsorted: unsorted}); err != nil {
			b.Fatal(err)
		}
	}
	return storeObjects(b, st)
}

// TestCatchUpFixture writes BenchmarkIndexCatchUp's table (a Timelake append
// of 1k rows, then another engine's of TIMELAKE_CATCHUP_ROWS, default 100k)
// to the directory TIMELAKE_CATCHUP_FIXTURE, one file per object key, at
// table location TIMELAKE_CATCHUP_LOCATION: bench/harness.mjs loads it into
// workerd's R2 for its catch-up workload. Skipped without the variable.
func TestCatchUpFixture(t *testing.T) {
	dir := os.Getenv("TIMELAKE_CATCHUP_FIXTURE")
	if dir == "" {
		t.Skip("TIMELAKE_CATCHUP_FIXTURE not set (bench/harness.mjs sets it)")
	}
	n := 100_000
	if v := os.Getenv("TIMELAKE_CATCHUP_ROWS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	location := os.Getenv("TIMELAKE_CATCHUP_LOCATION")
	if location == "" {
		location = loc
	}
	for key, data := range catchUpTable(t, location, n, true, false) {
		f := filepath.Join(dir, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkIndexCatchUp measures what the first reader or writer after
// another engine's append of 100k rows pays to catch the last-value index
// up, against a Timelake append of the same rows (the target: at most 2×).
// peak-heap-MiB is the live heap's high-water mark above the frozen table.
func BenchmarkIndexCatchUp(b *testing.B) {
	const n = 100_000
	cases := []struct {
		name     string
		foreign  bool
		unsorted bool // the foreign file in arrival order: every row another series
		run      func(ctx context.Context, tb *table.Table, src *rows.Batch) error
	}{
		{"timelake-append-100k", false, false, func(ctx context.Context, tb *table.Table, src *rows.Batch) error {
			_, err := tb.Append(ctx, src)
			return err
		}},
		{"latest-after-foreign-100k", true, false, func(ctx context.Context, tb *table.Table, _ *rows.Batch) error {
			idx, err := tb.Latest(ctx)
			if err == nil && idx.Len != 100 {
				b.Fatalf("latest has %d series, want 100", idx.Len)
			}
			return err
		}},
		{"latest-after-foreign-unsorted-100k", true, true, func(ctx context.Context, tb *table.Table, _ *rows.Batch) error {
			idx, err := tb.Latest(ctx)
			if err == nil && idx.Len != 100 {
				b.Fatalf("latest has %d series, want 100", idx.Len)
			}
			return err
		}},
		{"append-1k-after-foreign-100k", true, false, func(ctx context.Context, tb *table.Table, src *rows.Batch) error {
			_, err := tb.Append(ctx, rows.Slice(src, 0, 1_000))
			return err
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			base := catchUpBase(b, n, c.foreign, c.unsorted)
			ctx := context.Background()
			var peak uint64
			var cpu int64
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				st := &overlayStore{base: base, over: map[string][]byte{}}
				tb, err := table.Open(ctx, st, testenv.New(2))
				if err != nil {
					b.Fatal(err)
				}
				src := benchBatch(b, tb, n)
				for i := range src.Cols[0].Ints {
					src.Cols[0].Ints[i] += 2 * 3600e6
				}
				cost, err := measured(b, func() error { return c.run(ctx, tb, src) })
				if err != nil {
					b.Fatal(err)
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
