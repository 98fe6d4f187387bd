package main

import (
	"bufio"
	"fmt"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/scan"
	"github.com/timelake/timelake/schema"
)

// countWriter counts the bytes an output writes.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// BenchmarkScanOutput: 100k scanned rows (ts, host, cpu double, mem long,
// ok boolean, note string; some nulls) in the scan's 8192-row batches,
// written by each output format to a discarding writer. rows/s and the
// output's bytes are reported; parquet builds its file in memory.
func BenchmarkScanOutput(b *testing.B) {
	tb, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "cpu", Type: schema.Double}, {Name: "mem", Type: schema.Long}, {Name: "ok", Type: schema.Boolean}, {Name: "note", Type: schema.String},
	}, schema.Day)
	if err != nil {
		b.Fatal(err)
	}
	proj := scan.Projection(tb, nil)
	const total = 100_000
	var batches []*rows.Batch
	for start := 0; start < total; start += 8192 {
		n := min(8192, total-start)
		bt := &rows.Batch{Schema: proj, Cols: make([]rows.Column, len(proj.Fields)), Len: n}
		c := bt.Cols
		c[4].Nulls = make([]bool, n)
		for i := range n {
			k := start + i
			c[0].Ints = append(c[0].Ints, 1_795_946_400_000_000+int64(k/100)*1_000_000)
			c[1].Strs = append(c[1].Strs, fmt.Sprintf("host-%02d", k%100))
			c[2].Floats = append(c[2].Floats, float64(k%1000)/8)
			c[3].Ints = append(c[3].Ints, int64(k)*1_048_577)
			c[4].Bools = append(c[4].Bools, k%2 == 0)
			c[4].Nulls[i] = k%10 == 0
			c[5].Strs = append(c[5].Strs, fmt.Sprintf("note %d", k%37))
		}
		batches = append(batches, bt)
	}
	for _, format := range []string{"csv", "ndjson", "arrow", "parquet"} {
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			var size int64
			for b.Loop() {
				cw := &countWriter{}
				bw := bufio.NewWriterSize(cw, 1<<16)
				out := newScanOut(format, bw)
				for _, bt := range batches {
					if err := out.write(bt); err != nil {
						b.Fatal(err)
					}
				}
				if err := out.finish(proj); err != nil {
					b.Fatal(err)
				}
				if err := bw.Flush(); err != nil {
					b.Fatal(err)
				}
				size = cw.n
			}
			b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(size), "out-bytes")
		})
	}
}
