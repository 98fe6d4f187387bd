package table_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/benchcpu"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/table"
)

// countingStore counts the bytes and requests that pass through it.
type countingStore struct {
	store.Store
	read, written, requests atomic.Int64
}

func (s *countingStore) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.Store.Get(ctx, key)
	s.requests.Add(1)
	s.read.Add(int64(len(b)))
	return b, err
}

func (s *countingStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	b, err := s.Store.GetRange(ctx, key, off, n)
	s.requests.Add(1)
	s.read.Add(int64(len(b)))
	return b, err
}

func (s *countingStore) Put(ctx context.Context, key string, data []byte) error {
	s.requests.Add(1)
	s.written.Add(int64(len(data)))
	return s.Store.Put(ctx, key, data)
}

func (s *countingStore) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	s.requests.Add(1)
	s.written.Add(int64(len(data)))
	return s.Store.PutIfAbsent(ctx, key, data)
}

func (s *countingStore) Delete(ctx context.Context, keys []string) error {
	s.requests.Add(1)
	return s.Store.Delete(ctx, keys)
}

func (s *countingStore) List(ctx context.Context, prefix string) ([]store.Object, error) {
	s.requests.Add(1)
	return s.Store.List(ctx, prefix)
}

func (s *countingStore) reset() {
	s.read.Store(0)
	s.written.Store(0)
	s.requests.Store(0)
}

// BenchmarkAppendAge measures an append of rows rows into a table with the
// default properties that has already taken age appends of the same size
// (one every 10 seconds by its clock, none compacted): process CPU, bytes
// read and written and requests per append, in a memory store. The cost
// after 10,000 commits against the cost after 10 is the target to
// keep flat (≤ 1.2×). Run enough appends (-benchtime=300x) to include the
// manifest merges (one in ~100 appends), whose cost is spread over them.
//
//	go test ./table/ -run '^$' -bench BenchmarkAppendAge -benchtime=300x
func BenchmarkAppendAge(b *testing.B) {
	for _, rowsN := range []int{10, 1_000} {
		for _, age := range []int{10, 10_000} {
			b.Run(fmt.Sprintf("rows=%d/age=%d", rowsN, age), func(b *testing.B) {
				ctx := context.Background()
				env, mem, step := steppedEnv(1)
				st := &countingStore{Store: mem}
				tb, err := table.Create(ctx, st, env, loc, metricsSchema(b), nil)
				if err != nil {
					b.Fatal(err)
				}
				k := 0
				prepare := func() func() error { // the batch is built outside the measure
					bt := batch(b, tb.Schema(), day1.Add(time.Duration(k)*10*time.Second), rowsN, 10)
					k++
					step(10 * time.Second)
					return func() error { _, err := tb.Append(ctx, bt); return err }
				}
				for range age {
					if err := prepare()(); err != nil {
						b.Fatal(err)
					}
				}
				st.reset()
				var cpu int64
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					next := prepare()
					b.StartTimer()
					c0 := benchcpu.Now()
					if err := next(); err != nil {
						b.Fatal(err)
					}
					cpu += benchcpu.Now() - c0
				}
				b.StopTimer()
				n := float64(b.N)
				b.ReportMetric(float64(cpu)/1e6/n, "cpu-ms/op")
				b.ReportMetric(float64(st.read.Load())/n, "bytes-read/op")
				b.ReportMetric(float64(st.written.Load())/n, "bytes-written/op")
				b.ReportMetric(float64(st.requests.Load())/n, "requests/op")
				b.ReportMetric(float64(len(tb.Metadata().Snapshots)), "snapshots")
			})
		}
	}
}
