package parquet

import (
	"fmt"
	"testing"

	"github.com/timelake/timelake/internal/benchcpu"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

var benchSpecs = []ColumnSpec{
	{Name: "ts", FieldID: 1, Type: schema.Timestamptz, Required: true},
	{Name: "host", FieldID: 2, Type: schema.String, Required: true},
	{Name: "region", FieldID: 3, Type: schema.String},
	{Name: "cpu", FieldID: 4, Type: schema.Double},
	{Name: "mem", FieldID: 5, Type: schema.Long},
	{Name: "_ingest_ts", FieldID: 6, Type: schema.Timestamptz, Required: true},
}

// benchRows is 100,000 rows sorted by (host, ts): 100 hosts of 1,000 points
// 10 s apart, 4 regions, cpu and mem wandering.
func benchRows(n int) []rows.Column {
	cols := make([]rows.Column, len(benchSpecs))
	hosts := make([]string, 100)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("host-%03d.example.net", i)
	}
	regions := []string{"eu-west-1", "us-east-1", "ap-south-1", "sa-east-1"}
	per := n / len(hosts)
	x := uint64(88172645463325252)
	for i := range n {
		h := i / per
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		cols[0].Ints = append(cols[0].Ints, 1_764_000_000_000_000+int64(i%per)*10_000_000+int64(x%1000))
		cols[1].Strs = append(cols[1].Strs, hosts[h%len(hosts)])
		cols[2].Strs = append(cols[2].Strs, regions[h%4])
		cols[3].Floats = append(cols[3].Floats, float64(x%10000)/100)
		cols[4].Ints = append(cols[4].Ints, 8<<30+int64(x%(1<<24)))
		cols[5].Ints = append(cols[5].Ints, 1_764_000_500_000_000)
	}
	return cols
}

func BenchmarkWrite100k(b *testing.B) {
	for _, bc := range []struct {
		name string
		opt  Options
	}{
		{"zstd1", Options{}},
		{"zstd3", Options{ZstdLevel: 3}},
		{"compat", Options{Compat: true}},
		{"uncompressed", Options{Codec: Uncompressed}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			const n = 100_000
			data := benchRows(n)
			b.ReportAllocs()
			var size int
			for b.Loop() {
				w, err := NewWriter(benchSpecs, bc.opt)
				if err != nil {
					b.Fatal(err)
				}
				if err := w.Write(data, n); err != nil {
					b.Fatal(err)
				}
				out, _, err := w.Finish()
				if err != nil {
					b.Fatal(err)
				}
				size = len(out)
			}
			b.ReportMetric(float64(size), "file-bytes")
		})
	}
}

func BenchmarkRead100k(b *testing.B) {
	const n = 100_000
	w, _ := NewWriter(benchSpecs, Options{})
	_ = w.Write(benchRows(n), n)
	file, _, _ := w.Finish()
	b.ReportAllocs()
	for b.Loop() {
		f, err := Open(file)
		if err != nil {
			b.Fatal(err)
		}
		for c := range benchSpecs {
			if _, err := f.ReadColumn(0, c); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// Codec benchmarks: the per-value loops of the encoders and decoders on the
// columns of benchRows, a page (DefaultPageRowLimit values) at a time as the
// writer and readers use them. They isolate what the V8 profiles of the
// WebAssembly build name; run them natively and as WASM:
//
//	GOOS=js GOARCH=wasm go test -c -o /tmp/parquet.wasm ./parquet
//	node --single-threaded $(go env GOROOT)/lib/wasm/wasm_exec_node.js /tmp/parquet.wasm \
//	  -test.run X -test.bench 'Encode|Decode|Column' -test.benchtime 200x

// benchPages cuts vs into pages of DefaultPageRowLimit.
func benchPages[T any](vs []T) [][]T {
	var pages [][]T
	for len(vs) > 0 {
		n := min(len(vs), DefaultPageRowLimit)
		pages = append(pages, vs[:n])
		vs = vs[n:]
	}
	return pages
}

// benchIndexes returns dictionary indexes of 100,000 rows: "runs" as a
// sorted host column gives them (100 values, runs of 1,000), "random" as an
// unsorted low-cardinality column (a status of 16 values) does.
func benchIndexes(n int) (runs, random []uint32) {
	x := uint64(88172645463325252)
	for i := range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		runs = append(runs, uint32(i/(n/100)))
		random = append(random, uint32(x%16))
	}
	return runs, random
}

func BenchmarkEncode(b *testing.B) {
	const n = 100_000
	data := benchRows(n)
	runs, random := benchIndexes(n)
	for _, bc := range []struct {
		name string
		ints []int64
	}{{"delta-ts", data[0].Ints}, {"delta-long", data[4].Ints}} {
		b.Run(bc.name, func(b *testing.B) {
			pages := benchPages(bc.ints)
			var s deltaScratch
			var buf []byte
			cpu0 := benchcpu.Now()
			for b.Loop() {
				for _, p := range pages {
					buf = appendDelta(buf[:0], p, false, &s)
				}
			}
			benchcpu.ReportPerOp(b, cpu0)
		})
	}
	for _, bc := range []struct {
		name string
		idx  []uint32
		w    uint
	}{{"hybrid-runs", runs, 7}, {"hybrid-random", random, 4}} {
		b.Run(bc.name, func(b *testing.B) {
			pages := benchPages(bc.idx)
			var buf []byte
			cpu0 := benchcpu.Now()
			for b.Loop() {
				for _, p := range pages {
					buf = appendHybrid(buf[:0], p, bc.w)
				}
			}
			benchcpu.ReportPerOp(b, cpu0)
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	const n = 100_000
	data := benchRows(n)
	runs, random := benchIndexes(n)
	for _, bc := range []struct {
		name string
		ints []int64
	}{{"delta-ts", data[0].Ints}, {"delta-long", data[4].Ints}} {
		b.Run(bc.name, func(b *testing.B) {
			var s deltaScratch
			pages := benchPages(bc.ints)
			var enc [][]byte
			for _, p := range pages {
				enc = append(enc, appendDelta(nil, p, false, &s))
			}
			var dst []int64
			cpu0 := benchcpu.Now()
			for b.Loop() {
				for i, e := range enc {
					var err error
					dst, _, err = decodeDelta(dst[:0], e, len(pages[i]), false)
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			benchcpu.ReportPerOp(b, cpu0)
		})
	}
	for _, bc := range []struct {
		name string
		idx  []uint32
		w    uint
	}{{"hybrid-runs", runs, 7}, {"hybrid-random", random, 4}} {
		b.Run(bc.name, func(b *testing.B) {
			pages := benchPages(bc.idx)
			var enc [][]byte
			for _, p := range pages {
				enc = append(enc, appendHybrid(nil, p, bc.w))
			}
			dst := make([]uint32, DefaultPageRowLimit)
			cpu0 := benchcpu.Now()
			for b.Loop() {
				for i, e := range enc {
					if err := decodeHybrid(dst[:len(pages[i])], e, bc.w); err != nil {
						b.Fatal(err)
					}
				}
			}
			benchcpu.ReportPerOp(b, cpu0)
		})
	}
}

// BenchmarkWriteColumn writes 100,000 rows of one column of benchRows,
// uncompressed: colWriter.add/addStrings and the page encoders without
// zstd's share.
func BenchmarkWriteColumn(b *testing.B) {
	const n = 100_000
	data := benchRows(n)
	for c, spec := range benchSpecs {
		b.Run(spec.Name, func(b *testing.B) {
			specs := []ColumnSpec{spec}
			cols := data[c : c+1]
			b.ReportAllocs()
			cpu0 := benchcpu.Now()
			for b.Loop() {
				w, err := NewWriter(specs, Options{Codec: Uncompressed})
				if err != nil {
					b.Fatal(err)
				}
				if err := w.Write(cols, n); err != nil {
					b.Fatal(err)
				}
				if _, _, err := w.Finish(); err != nil {
					b.Fatal(err)
				}
			}
			benchcpu.ReportPerOp(b, cpu0)
		})
	}
}

// BenchmarkReadColumn reads back the columns BenchmarkWriteColumn writes.
func BenchmarkReadColumn(b *testing.B) {
	const n = 100_000
	data := benchRows(n)
	for c, spec := range benchSpecs {
		b.Run(spec.Name, func(b *testing.B) {
			w, _ := NewWriter([]ColumnSpec{spec}, Options{Codec: Uncompressed})
			if err := w.Write(data[c:c+1], n); err != nil {
				b.Fatal(err)
			}
			file, _, err := w.Finish()
			if err != nil {
				b.Fatal(err)
			}
			f, err := Open(file)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu0 := benchcpu.Now()
			for b.Loop() {
				if _, err := f.ReadColumn(0, 0); err != nil {
					b.Fatal(err)
				}
			}
			benchcpu.ReportPerOp(b, cpu0)
		})
	}
}
