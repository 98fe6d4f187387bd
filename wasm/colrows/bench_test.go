package colrows

import (
	"context"
	"fmt"
	"testing"
	"time"

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

// BenchmarkBuild is the align step of the WASM build's append.
func BenchmarkBuild(b *testing.B) {
	sch := benchSchema(b)
	for _, n := range []int{1_000, 100_000} {
		in := benchInput(n)
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				if _, err := Build(sch, in, rows.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0)
		})
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
	cpu0 := processCPU()
	for b.Loop() {
		bt, err := Build(tb.Schema(), in, rows.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tb.Append(ctx, bt); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0)
}
