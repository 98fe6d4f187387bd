package table_test

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// gcPolicy is the WASM bridge's collector, natively (wasm/main.go,
// wasm/promise.go): the proportional collector off, a soft limit, and a
// collection once 8 MiB were allocated since the last, checked at each
// batch a refresh reads and each range read. peak is the most heap in
// use seen at those points (and at the end), above the heap in use at
// the start: what WebAssembly memory, which never shrinks, has to hold.
type gcPolicy struct {
	start, peak, last uint64
	s                 []metrics.Sample
}

func newGCPolicy() *gcPolicy {
	runtime.GC()
	p := &gcPolicy{s: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}, {Name: "/gc/heap/allocs:bytes"}}}
	p.start = p.inUse()
	p.last = p.s[2].Value.Uint64()
	return p
}

func (p *gcPolicy) inUse() uint64 {
	metrics.Read(p.s)
	return p.s[0].Value.Uint64() + p.s[1].Value.Uint64()
}

func (p *gcPolicy) check() {
	if p.s == nil {
		return // not measuring
	}
	if u := p.inUse(); u > p.start && u-p.start > p.peak {
		p.peak = u - p.start
	}
	if p.s[2].Value.Uint64()-p.last >= 8<<20 {
		runtime.GC()
		metrics.Read(p.s)
		p.last = p.s[2].Value.Uint64()
	}
}

// checkingStore checks the policy at each read, as the bridge's store does
// while a scan or refresh runs.
type checkingStore struct {
	store.Store
	p *gcPolicy
}

func (c *checkingStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	c.p.check()
	return c.Store.GetRange(ctx, key, off, n)
}

// BenchmarkRollupRefreshMemory: the catch-up of a day (as in
// BenchmarkRollupRefresh) under the WASM bridge's collector; peak-heap-MiB
// is the heap the refresh added at most (the isolate's baseline and the
// GC's own structures come on top in workerd).
func BenchmarkRollupRefreshMemory(b *testing.B) {
	ctx := context.Background()
	const total = 1_200_000
	p := &gcPolicy{}
	rawStore := memstore.New()
	raw, err := table.Create(ctx, &checkingStore{Store: rawStore, p: p}, testenv.New(1), loc, metricsSchema(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	d := hourly(b)
	if _, err := raw.Append(ctx, dayRows(b, raw, 0, 1, total)); err != nil {
		b.Fatal(err)
	}
	baseStore := memstore.New()
	base, err := table.AddRollup(ctx, raw, baseStore, d)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := table.DropRollup(ctx, raw, d.Name); err != nil {
		b.Fatal(err)
	}
	if _, err := table.RefreshRollup(ctx, raw, base, d, table.RefreshOptions{}); err != nil {
		b.Fatal(err)
	}
	for i := range 24 {
		if _, err := raw.Append(ctx, dayRows(b, raw, i*total/24, total/24, total)); err != nil {
			b.Fatal(err)
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	var peak uint64
	for b.Loop() {
		b.StopTimer()
		ru, err := table.Open(ctx, cloneStore(b, baseStore), testenv.New(2))
		if err != nil {
			b.Fatal(err)
		}
		*p = *newGCPolicy()
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(int64(p.start) + 40<<20)
		b.StartTimer()
		if _, err := table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{OnBatch: p.check}); err != nil {
			b.Fatal(err)
		}
		p.check()
		b.StopTimer()
		debug.SetGCPercent(100)
		peak = max(peak, p.peak)
		*p = gcPolicy{}
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
