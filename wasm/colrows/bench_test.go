package colrows

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/benchcpu"

	"github.com/timelake/timelake/internal/sysenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// benchSchema and benchInput are bench/native's workload: 100 hosts × 4
// regions, one row per host per second, as the client sends them (the time
// as a Date.now() number, strings as one UTF-8 buffer and offsets).
func benchSchema(b testing.TB) *schema.Table {
	s, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "region", Type: schema.String, Required: true},
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long},
	}, schema.Day)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func benchInput(n int) *Input {
	hosts := make([]string, 100)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("host-%03d", i)
	}
	regions := []string{"eu", "us", "ap", "sa"}
	strCol := func(name string, f func(i int) string) Column {
		c := Column{Name: name, Tag: String, Off: make([]int32, 1, n+1)}
		var sb []byte
		for i := range n {
			sb = append(sb, f(i)...)
			c.Off = append(c.Off, int32(len(sb)))
		}
		c.Str = string(sb)
		return c
	}
	numCol := func(name string, f func(i int) float64) Column {
		c := Column{Name: name, Tag: Number, F64: make([]float64, n)}
		for i := range n {
			c.F64[i] = f(i)
		}
		return c
	}
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC).UnixMilli()
	return &Input{Len: n, Cols: []Column{
		numCol("ts", func(i int) float64 { return float64(start + int64(i/100)*1000) }),
		strCol("host", func(i int) string { return hosts[i%100] }),
		strCol("region", func(i int) string { return regions[i%4] }),
		numCol("cpu", func(i int) float64 { return float64(i%1000) / 10 }),
		numCol("mem", func(i int) float64 { return float64(1<<30 + i*4096) }),
	}}
}

// dictInput is in with its string columns as the client sends series-like
// strings: each distinct value once, and an index per row.
func dictInput(in *Input) *Input {
	out := &Input{Len: in.Len, Cols: append([]Column(nil), in.Cols...)}
	for i := range out.Cols {
		c := &out.Cols[i]
		if c.Off == nil {
			continue
		}
		ids := map[string]int32{}
		var sb []byte
		off, idx := []int32{0}, make([]int32, in.Len)
		for r := range in.Len {
			s := c.str(r)
			k, ok := ids[s]
			if !ok {
				k = int32(len(ids))
				ids[s] = k
				sb = append(sb, s...)
				off = append(off, int32(len(sb)))
			}
			idx[r] = k
		}
		c.Str, c.Off, c.Idx = string(sb), off, idx
	}
	return out
}

// BenchmarkBuild is the align step of the WASM build's append.
func BenchmarkBuild(b *testing.B) {
	sch := benchSchema(b)
	for _, n := range []int{1_000, 100_000} {
		for _, dict := range []bool{false, true} {
			in := benchInput(n)
			name := fmt.Sprintf("rows=%d", n)
			if dict {
				in, name = dictInput(in), name+"/dict"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				cpu0 := benchcpu.Now()
				for b.Loop() {
					if _, err := Build(sch, in, rows.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				benchcpu.ReportPerOp(b, cpu0)
			})
		}
	}
}

// BenchmarkBuildAppend is the WASM build's whole append path natively:
// columns in → Build → Table.Append to a memory store (warm).
func BenchmarkBuildAppend(b *testing.B) {
	ctx := context.Background()
	sch := benchSchema(b)
	in := benchInput(100_000)
	tb, err := table.Create(ctx, memstore.New(), sysenv.Env(), "file:///bench/w", sch, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := benchcpu.Now()
	for b.Loop() {
		bt, err := Build(tb.Schema(), in, rows.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tb.Append(ctx, bt); err != nil {
			b.Fatal(err)
		}
	}
	benchcpu.ReportPerOp(b, cpu0)
}
