// Command native runs the workerd benchmark's workloads natively, in one Go
// process, on a memory store: appends of 1k, 10k and 100k rows (5 columns,
// 100 series, the rows of table/bench_test.go), compaction of 8 × 1k and
// 24 × 50k rows in one cold day (table/compact_bench_test.go's table), and an
// expiry + cleanup run on a table of 1,000 snapshots. For each it prints, as
// JSON on stdout, every sample's wall time, process CPU time (getrusage:
// user + system of every thread, GC workers included, as the workerd figure
// counts the whole process), the live heap's high-water mark above the heap
// before the operation (sampled every millisecond), and store requests.
//
//	go run ./bench/native -runs 5 > bench/results/native.json
//
// bench/run.sh runs it; bench/report.mjs puts it beside the workerd figures.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/timelake/timelake/internal/sysenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
	"github.com/timelake/timelake/wasm/colrows"
)

// day1 is the day the rows fall on (the worker's DAY1): a past day, so a
// compaction finds its partition cold.
var day1 = time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)

var (
	hosts = func() []string {
		h := make([]string, 100)
		for i := range h {
			h[i] = fmt.Sprintf("host-%03d", i)
		}
		return h
	}()
	regions = []string{"eu", "us", "ap", "sa"}
)

func metricsSchema() *schema.Table {
	s, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "region", Type: schema.String, Required: true},
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long},
	}, schema.Day)
	if err != nil {
		panic(err)
	}
	return s
}

// appendRows: one row per series per second from day1 10:00, in time order.
func appendRows(s *schema.Table, n int) *rows.Batch {
	b := &rows.Batch{Schema: s, Cols: make([]rows.Column, len(s.Fields)), Len: n}
	start := day1.Add(10 * time.Hour).UnixMicro()
	for i := range n {
		b.Cols[0].Ints = append(b.Cols[0].Ints, start+int64(i/100)*1e6)
		b.Cols[1].Strs = append(b.Cols[1].Strs, hosts[i%100])
		b.Cols[2].Strs = append(b.Cols[2].Strs, regions[i%4])
		b.Cols[3].Floats = append(b.Cols[3].Floats, float64(i%1000)/10)
		b.Cols[4].Ints = append(b.Cols[4].Ints, int64(1<<30+i*4096))
		b.Cols[5].Ints = append(b.Cols[5].Ints, 0)
	}
	return b
}

// wireRows: the same rows as the client sends them across the bridge (one
// Column per key, JavaScript types: the time as a Date.now() number, strings
// as one UTF-8 string and offsets), for the WASM build's code path:
// colrows.Build (align) and then Append.
func wireRows(n int) *colrows.Input {
	strCol := func(name string, f func(i int) string) colrows.Column {
		c := colrows.Column{Name: name, Tag: colrows.String, Off: make([]int32, 1, n+1)}
		var sb []byte
		for i := range n {
			sb = append(sb, f(i)...)
			c.Off = append(c.Off, int32(len(sb)))
		}
		c.Str = string(sb)
		return c
	}
	numCol := func(name string, f func(i int) float64) colrows.Column {
		c := colrows.Column{Name: name, Tag: colrows.Number, F64: make([]float64, n)}
		for i := range n {
			c.F64[i] = f(i)
		}
		return c
	}
	start := day1.Add(10 * time.Hour).UnixMilli()
	return &colrows.Input{Len: n, Cols: []colrows.Column{
		numCol("ts", func(i int) float64 { return float64(start + int64(i/100)*1000) }),
		strCol("host", func(i int) string { return hosts[i%100] }),
		strCol("region", func(i int) string { return regions[i%4] }),
		numCol("cpu", func(i int) float64 { return float64(i%1000) / 10 }),
		numCol("mem", func(i int) float64 { return float64(1<<30 + i*4096) }),
	}}
}

// fillRows: batch f of files × each rows spread over day1.
func fillRows(s *schema.Table, f, files, each int) *rows.Batch {
	b := &rows.Batch{Schema: s, Cols: make([]rows.Column, len(s.Fields)), Len: each}
	step := int64(24*3600*1e6) / int64(files*each/100+1)
	for i := range each {
		r := f*each + i
		b.Cols[0].Ints = append(b.Cols[0].Ints, day1.UnixMicro()+int64(r/100)*step)
		b.Cols[1].Strs = append(b.Cols[1].Strs, hosts[r%100])
		b.Cols[2].Strs = append(b.Cols[2].Strs, regions[r%4])
		b.Cols[3].Floats = append(b.Cols[3].Floats, float64(r%1000)/10)
		b.Cols[4].Ints = append(b.Cols[4].Ints, int64(1<<30+r*4096))
		b.Cols[5].Ints = append(b.Cols[5].Ints, 0)
	}
	return b
}

// counting wraps a store with request counters, as the Worker's wrapper.
type counting struct {
	store.Store
	mu sync.Mutex
	c  map[string]int64
}

func newCounting(s store.Store) *counting { return &counting{Store: s, c: map[string]int64{}} }
func (s *counting) add(k string, n int64) {
	s.mu.Lock()
	s.c[k] += n
	s.mu.Unlock()
}
func (s *counting) take() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.c
	s.c = map[string]int64{}
	return c
}
func (s *counting) Get(ctx context.Context, k string) ([]byte, error) {
	b, err := s.Store.Get(ctx, k)
	s.add("get", 1)
	s.add("bytesIn", int64(len(b)))
	return b, err
}
func (s *counting) GetRange(ctx context.Context, k string, off, n int64) ([]byte, error) {
	b, err := s.Store.GetRange(ctx, k, off, n)
	s.add("getRange", 1)
	s.add("bytesIn", int64(len(b)))
	return b, err
}
func (s *counting) Put(ctx context.Context, k string, d []byte) error {
	s.add("put", 1)
	s.add("bytesOut", int64(len(d)))
	return s.Store.Put(ctx, k, d)
}
func (s *counting) PutIfAbsent(ctx context.Context, k string, d []byte) (bool, error) {
	s.add("putIfAbsent", 1)
	s.add("bytesOut", int64(len(d)))
	return s.Store.PutIfAbsent(ctx, k, d)
}
func (s *counting) Delete(ctx context.Context, keys []string) error {
	s.add("delete", 1)
	s.add("deletedKeys", int64(len(keys)))
	return s.Store.Delete(ctx, keys)
}
func (s *counting) List(ctx context.Context, p string) ([]store.Object, error) {
	s.add("list", 1)
	return s.Store.List(ctx, p)
}

type sample struct {
	Workload  string           `json:"workload"`
	Kind      string           `json:"kind"`
	WallMs    float64          `json:"wallMs"`
	CPUMs     float64          `json:"cpuMs"`
	PeakHeap  uint64           `json:"peakHeapBytes"`
	Store     map[string]int64 `json:"store"`
	Allocated uint64           `json:"allocatedBytes"`
	// Expiry's counts (maintenance runs): what the run did, to check
	// that workerd's run did the same.
	Expired int `json:"snapshotsExpired,omitempty"`
	Deleted int `json:"filesDeleted,omitempty"`
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs f and returns its sample; the heap is sampled every
// millisecond (the peak above the live heap before f).
func measure(workload, kind string, st *counting, f func() error) sample {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before, alloc0 := ms.HeapAlloc, ms.TotalAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	st.take()
	c0, t0 := cpuNow(), time.Now()
	err := f()
	wall, cpu := time.Since(t0), cpuNow()-c0
	close(done)
	wg.Wait()
	if err != nil {
		fmt.Fprintf(os.Stderr, "native: %s: %v\n", workload, err)
		os.Exit(1)
	}
	runtime.ReadMemStats(&ms)
	s := sample{Workload: workload, Kind: kind, WallMs: float64(wall) / 1e6, CPUMs: float64(cpu) / 1e6, Store: st.take(), Allocated: ms.TotalAlloc - alloc0}
	if p := peak.Load(); p > before {
		s.PeakHeap = p - before
	}
	fmt.Fprintf(os.Stderr, "native: %s %s: cpu %.1f ms, wall %.1f ms, heap +%.1f MiB\n", workload, kind, s.CPUMs, s.WallMs, float64(s.PeakHeap)/(1<<20))
	return s
}

// clone copies every object of src into a fresh memory store.
func clone(ctx context.Context, src *memstore.Store, opts ...memstore.Option) *memstore.Store {
	dst := memstore.New(opts...)
	objs, err := src.List(ctx, "")
	if err != nil {
		panic(err)
	}
	for _, o := range objs {
		b, err := src.Get(ctx, o.Key)
		if err != nil {
			panic(err)
		}
		if err := dst.Put(ctx, o.Key, b); err != nil {
			panic(err)
		}
	}
	return dst
}

func main() {
	runs := flag.Int("runs", 5, "samples of each workload (cold); warm appends take -warm per run")
	warm := flag.Int("warm", 3, "warm appends per run")
	smoke := flag.Bool("smoke", false, "tiny sizes")
	only := flag.String("only", "", "comma-separated workloads (appends, compaction, expiry); empty: all")
	flag.Parse()
	want := func(w string) bool { return *only == "" || slices.Contains(strings.Split(*only, ","), w) }
	ctx := context.Background()
	env := sysenv.Env()
	sch := metricsSchema()
	sizes := []int{1_000, 10_000, 100_000}
	compacts := []struct{ files, rows int }{{8, 1_000}, {24, 50_000}}
	snapshots := 1000
	if *smoke {
		// The sizes of harness.mjs's smoke run (8 files of 100 rows), so that
		// a smoke report's WASM/native ratios pair the same workloads.
		sizes, compacts, snapshots = []int{1_000}, compacts[:1], 20
		compacts[0].rows = 100
	}
	var out []sample
	if !want("appends") {
		sizes = nil
	}
	if !want("compaction") {
		compacts = nil
	}

	for _, n := range sizes {
		wire := wireRows(n)
		st := newCounting(memstore.New())
		tb, err := table.Create(ctx, st, env, "file:///bench/w", sch, nil)
		if err != nil {
			panic(err)
		}
		for range *runs * *warm {
			out = append(out, measure(fmt.Sprintf("append %d (columns in, as from JS)", n), "warm", st, func() error {
				b, err := colrows.Build(tb.Schema(), wire, rows.Options{})
				if err != nil {
					return err
				}
				_, err = tb.Append(ctx, b)
				return err
			}))
		}
	}
	for _, n := range sizes {
		src := appendRows(sch, n)
		for range *runs {
			st := newCounting(memstore.New())
			tb, err := table.Create(ctx, st, env, "file:///bench/a", sch, nil)
			if err != nil {
				panic(err)
			}
			name := fmt.Sprintf("append %d", n)
			// "cold" natively: a table just opened, the first append of the process's run for it.
			tb, err = table.Open(ctx, st, env)
			if err != nil {
				panic(err)
			}
			out = append(out, measure(name, "cold", st, func() error { _, err := tb.Append(ctx, src); return err }))
			for range *warm {
				out = append(out, measure(name, "warm", st, func() error { _, err := tb.Append(ctx, src); return err }))
			}
		}
	}

	type job struct {
		name string
		base *memstore.Store
		opts table.MaintainOptions
		// clock stamps the copy's objects (nil: no modification time).
		clock func() time.Time
	}
	var jobs []job
	for _, c := range compacts {
		base := memstore.New()
		tb, err := table.Create(ctx, base, env, "file:///bench/c", sch, map[string]string{maintenance.PropByteCap: "0"})
		if err != nil {
			panic(err)
		}
		for f := range c.files {
			if _, err := tb.Append(ctx, fillRows(sch, f, c.files, c.rows)); err != nil {
				panic(err)
			}
		}
		jobs = append(jobs, job{fmt.Sprintf("compact %d files / %d rows", c.files, c.files*c.rows), base, table.MaintainOptions{Compact: true}, nil})
	}
	if want("expiry") {
		// Every snapshot kept (timelake.history.max-snapshots=0): with the
		// default, 10, each commit drops all but the newest 10 and expiry
		// finds 9. The copy's objects are stamped now, as the workerd
		// harness's copies (R2, the client's memoryStore) are: the grace
		// floor (10 minutes, sysenv) keeps every unreferenced file, so the
		// run expires the snapshots and deletes nothing, there as here
		// (bench/expirenode.mjs and BenchmarkExpire/floor=10m time the
		// cleanup run 11 minutes later too).
		base := memstore.New()
		tb, err := table.Create(ctx, base, env, "file:///bench/s", sch, map[string]string{
			table.PropMaxSnapshotAgeMs: "1", table.PropMinSnapshotsKeep: "1", maintenance.PropOrphanGrace: "0s",
			table.PropMaxSnapshots: "0",
		})
		if err != nil {
			panic(err)
		}
		start := day1.Add(-48 * time.Hour)
		for i := range snapshots {
			b := &rows.Batch{Schema: sch, Cols: make([]rows.Column, len(sch.Fields)), Len: 10}
			for j := range 10 {
				b.Cols[0].Ints = append(b.Cols[0].Ints, start.Add(time.Duration(i)*time.Second).UnixMicro())
				b.Cols[1].Strs = append(b.Cols[1].Strs, hosts[j])
				b.Cols[2].Strs = append(b.Cols[2].Strs, "eu")
				b.Cols[3].Floats = append(b.Cols[3].Floats, float64(j))
				b.Cols[4].Ints = append(b.Cols[4].Ints, int64(i))
				b.Cols[5].Ints = append(b.Cols[5].Ints, 0)
			}
			if _, err := tb.Append(ctx, b); err != nil {
				panic(err)
			}
		}
		jobs = append(jobs, job{fmt.Sprintf("expire + cleanup, %d snapshots", snapshots), base, table.MaintainOptions{Expire: true, Orphans: true}, time.Now})
	}
	for _, j := range jobs {
		for range *runs {
			var opts []memstore.Option
			if j.clock != nil {
				opts = append(opts, memstore.WithClock(j.clock))
			}
			st := newCounting(clone(ctx, j.base, opts...))
			tb, err := table.Open(ctx, st, env)
			if err != nil {
				panic(err)
			}
			var res *table.MaintainResult
			s := measure(j.name, "cold", st, func() (err error) { res, err = tb.Maintain(ctx, j.opts); return err })
			s.Expired, s.Deleted = res.SnapshotsExpired, res.FilesDeleted
			if j.opts.Expire {
				fmt.Fprintf(os.Stderr, "native: %s: %d snapshots expired, %d files deleted, %d kept young\n", j.name, res.SnapshotsExpired, res.FilesDeleted, res.KeptYoung)
			}
			out = append(out, s)
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(map[string]any{"go": runtime.Version(), "gomaxprocs": runtime.GOMAXPROCS(0), "samples": out}); err != nil {
		panic(err)
	}
}
