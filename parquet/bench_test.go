package parquet

import (
	"fmt"
	"testing"

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
