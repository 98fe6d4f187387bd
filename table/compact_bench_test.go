package table_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/benchcpu"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// overlayStore reads a frozen table and keeps a run's writes apart, so each
// benchmark iteration compacts the same table; uploaded data files are only
// counted, not kept, so the heap measures the compaction, not the store.
type overlayStore struct {
	base map[string][]byte
	mu   sync.Mutex
	over map[string][]byte

	gets, getRanges atomic.Int64 // requests, as a remote store would see them
}

func (s *overlayStore) get(key string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.over[key]; ok {
		return b, b != nil
	}
	b, ok := s.base[key]
	return b, ok
}
func (s *overlayStore) Get(ctx context.Context, key string) ([]byte, error) {
	s.gets.Add(1)
	if b, ok := s.get(key); ok {
		return b, nil
	}
	return nil, fmt.Errorf("%s: %w", key, store.ErrNotFound)
}
func (s *overlayStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	s.getRanges.Add(1)
	b, ok := s.get(key)
	if !ok {
		return nil, fmt.Errorf("%s: %w", key, store.ErrNotFound)
	}
	if off < 0 || n < 0 || off+n > int64(len(b)) {
		return nil, store.ErrRange
	}
	return b[off : off+n : off+n], nil
}
func (s *overlayStore) Put(ctx context.Context, key string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.HasPrefix(key, "data/") {
		data = []byte{} // counted by the result, not kept
	}
	s.over[key] = data
	return nil
}
func (s *overlayStore) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	if _, ok := s.get(key); ok {
		return false, nil
	}
	return true, s.Put(ctx, key, data)
}
func (s *overlayStore) Delete(ctx context.Context, keys []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		s.over[k] = nil
	}
	return nil
}
func (s *overlayStore) List(ctx context.Context, prefix string) ([]store.Object, error) {
	return nil, fmt.Errorf("overlayStore: List is not needed by compaction")
}

// compactionTable appends files × rowsEach rows of one cold day: each append
// the next stretch of time for the same 100 series (as a real feed
// arrives), so every series is interleaved across all files.
func compactionTable(b *testing.B, files, rowsEach int) map[string][]byte {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(1), loc, metricsSchema(b), map[string]string{maintenance.PropCompactMinFiles: "2", maintenance.PropByteCap: "0"})
	if err != nil {
		b.Fatal(err)
	}
	s := tb.Schema()
	hosts := make([]string, 100)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("host-%03d", i)
	}
	step := int64(24*3600*1e6) / int64(files*rowsEach/100+1) // spread over the day
	for f := range files {
		bt := &rows.Batch{Schema: s, Cols: make([]rows.Column, len(s.Fields)), Len: rowsEach}
		for i := range rowsEach {
			r := f*rowsEach + i
			bt.Cols[0].Ints = append(bt.Cols[0].Ints, day1.UnixMicro()+int64(r/100)*step)
			bt.Cols[1].Strs = append(bt.Cols[1].Strs, hosts[r%100])
			bt.Cols[2].Strs = append(bt.Cols[2].Strs, []string{"eu", "us", "ap", "sa"}[r%4])
			bt.Cols[3].Floats = append(bt.Cols[3].Floats, float64(r%1000)/10)
			bt.Cols[4].Ints = append(bt.Cols[4].Ints, int64(1<<30+r*4096))
			bt.Cols[5].Ints = append(bt.Cols[5].Ints, 0)
		}
		if _, err := tb.Append(ctx, bt); err != nil {
			b.Fatal(err)
		}
	}
	return storeObjects(b, st)
}

// heapPeak samples the live heap every millisecond until stop is called,
// and returns the highest reading.
func heapPeak() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

// runCost is what one measured run took: process CPU (ns) and the live
// heap's high-water mark above the heap before it.
type runCost struct {
	cpu  int64
	peak uint64
}

// measured runs op with the benchmark timer running (the caller stops it
// before and starts it after, around its own set-up and checks), after a
// collection, and reports its CPU and heap peak.
func measured(b *testing.B, op func() error) (runCost, error) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	stop := heapPeak()
	b.StartTimer()
	cpu0 := benchcpu.Now()
	err := op()
	cpu := benchcpu.Now() - cpu0
	b.StopTimer()
	var c runCost
	if p := stop(); p > before {
		c.peak = p - before
	}
	c.cpu = cpu
	return c, err
}

// BenchmarkCompact merges one cold partition. peak-heap-MiB is the live
// heap's high-water mark during the run above the heap before it (the
// frozen input table): what the compaction itself holds.
func BenchmarkCompact(b *testing.B) {
	for _, c := range []struct{ files, rows int }{{8, 1_000}, {24, 10_000}, {24, 50_000}, {24, 100_000}} {
		b.Run(fmt.Sprintf("files=%d/rows=%d", c.files, c.files*c.rows), func(b *testing.B) {
			base := compactionTable(b, c.files, c.rows)
			ctx := context.Background()
			var peak uint64
			var read, written, gets, getRanges, cpu int64
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				st := &overlayStore{base: base, over: map[string][]byte{}}
				tb, err := table.Open(ctx, st, testenv.New(2))
				if err != nil {
					b.Fatal(err)
				}
				st.gets.Store(0)
				st.getRanges.Store(0)
				var res *table.MaintainResult
				cost, err := measured(b, func() (err error) {
					res, err = tb.Maintain(ctx, table.MaintainOptions{Compact: true})
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				if res.FilesRead != c.files || res.RowsAfter != int64(c.files*c.rows) {
					b.Fatalf("merged %d files into %d rows, want %d files, %d rows", res.FilesRead, res.RowsAfter, c.files, c.files*c.rows)
				}
				peak = max(peak, cost.peak)
				cpu += cost.cpu
				read, written = res.BytesRead, res.BytesWritten
				gets, getRanges = st.gets.Load(), st.getRanges.Load()
				b.StartTimer()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(read), "bytes-read/op")
			b.ReportMetric(float64(written), "bytes-written/op")
			b.ReportMetric(float64(gets), "gets/op")
			b.ReportMetric(float64(getRanges), "getranges/op")
			b.ReportMetric(float64(c.files*c.rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
