package rows

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/benchcpu"

	"github.com/timelake/timelake/schema"
)

// benchTable is the benchmark schema: ts, host (100 values), region (4),
// cpu double, mem long.
func benchTable(tb testing.TB) *schema.Table {
	t, err := schema.New("ts", []string{"host", "region"}, []schema.Field{
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long},
	}, schema.Day)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

const benchRows = 100_000

// benchInput renders benchRows rows, time-major (every host at one time,
// then the next second), starting 10 minutes before midnight so the rows
// span two day partitions.
func benchInput(format string) []byte {
	var buf bytes.Buffer
	base := time.Date(2026, 11, 29, 23, 50, 0, 0, time.UTC)
	if format == "csv" {
		buf.WriteString("ts,host,region,cpu,mem\n")
	}
	for i := range benchRows {
		h := i % 100
		ts := base.Add(time.Duration(i/100) * time.Second).Format("2006-01-02T15:04:05.000000Z")
		cpu := float64(i%1000) / 7
		mem := int64(i) * 1024
		if format == "csv" {
			fmt.Fprintf(&buf, "%s,host-%03d,region-%d,%.4f,%d\n", ts, h, h%4, cpu, mem)
		} else {
			fmt.Fprintf(&buf, `{"ts":"%s","host":"host-%03d","region":"region-%d","cpu":%.4f,"mem":%d}`+"\n", ts, h, h%4, cpu, mem)
		}
	}
	return buf.Bytes()
}

func benchRead(b *testing.B, format string) {
	t := benchTable(b)
	in := benchInput(format)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		var next func(int) (*Batch, error)
		if format == "csv" {
			next = NewCSVReader(bytes.NewReader(in), t, Options{}).Next
		} else {
			next = NewNDJSONReader(bytes.NewReader(in), t, Options{}).Next
		}
		n := 0
		for {
			batch, err := next(16384)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += batch.Len
		}
		if n != benchRows {
			b.Fatalf("read %d rows", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}

func BenchmarkNDJSON100k(b *testing.B) { benchRead(b, "ndjson") }
func BenchmarkCSV100k(b *testing.B)    { benchRead(b, "csv") }

// BenchmarkSortDedup100k sorts 100,000 rows of 100 hosts in two
// partitions: "ordered" as they arrive from a collector (time-major),
// "shuffled" in random order with 10% of the rows repeated.
func BenchmarkSortDedup100k(b *testing.B) {
	t := benchTable(b)
	batch, err := readAll(NewNDJSONReader(bytes.NewReader(benchInput("ndjson")), t, Options{}).Next, 0)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	idx := seq(batch.Len)
	r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	for i := range len(idx) / 10 {
		idx[i] = idx[len(idx)-1-i]
	}
	shuffled := Take(batch, idx)
	for _, c := range []struct {
		name string
		b    *Batch
	}{{"ordered", batch}, {"shuffled", shuffled}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := benchcpu.Now()
			for b.Loop() {
				SortDedup(c.b)
			}
			benchcpu.ReportPerOp(b, cpu0)
		})
	}
}

func BenchmarkParseTime(b *testing.B) {
	for _, s := range []string{"2026-11-29T10:00:00Z", "2026-11-29T10:00:00.123456Z", "2026-11-29 11:00:00.5+01:00"} {
		b.Run("ParseTime/"+s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseTime(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// For comparison: the standard library on the common form.
	b.Run("time.Parse/2026-11-29T10:00:00.123456Z", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := time.Parse(time.RFC3339Nano, "2026-11-29T10:00:00.123456Z"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSortDedupSliced is SortDedup100k/ordered with the series strings
// sliced out of one buffer, each distinct value once, as the WASM bridge
// hands over a JavaScript column's dictionary.
func BenchmarkSortDedupSliced(b *testing.B) {
	t := benchTable(b)
	batch, err := readAll(NewNDJSONReader(bytes.NewReader(benchInput("ndjson")), t, Options{}).Next, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range t.Series {
		var buf []byte
		at := map[string][2]int{}
		for _, v := range batch.Cols[s].Strs {
			if _, ok := at[v]; !ok {
				at[v] = [2]int{len(buf), len(buf) + len(v)}
				buf = append(buf, v...)
			}
		}
		all := string(buf)
		for i, v := range batch.Cols[s].Strs {
			batch.Cols[s].Strs[i] = all[at[v][0]:at[v][1]]
		}
	}
	b.ReportAllocs()
	cpu0 := benchcpu.Now()
	for b.Loop() {
		SortDedup(batch)
	}
	benchcpu.ReportPerOp(b, cpu0)
}

// BenchmarkConvertFloat64s converts 100,000 JavaScript numbers, as the WASM
// bridge does: Date.now() milliseconds to a timestamptz, integral numbers to
// a long, numbers to a double.
func BenchmarkConvertFloat64s(b *testing.B) {
	const n = 100_000
	vs := make([]float64, n)
	for i := range vs {
		vs[i] = float64(1795946400000 + int64(i/100)*1000)
	}
	ints, floats := make([]int64, n), make([]float64, n)
	for _, typ := range []schema.Type{schema.Timestamptz, schema.Long, schema.Double} {
		b.Run(typ.String(), func(b *testing.B) {
			cpu0 := benchcpu.Now()
			for b.Loop() {
				if i := ConvertFloat64s(typ, Milliseconds, vs, ints, floats); i >= 0 {
					b.Fatalf("refused value %d", i)
				}
			}
			benchcpu.ReportPerOp(b, cpu0)
		})
	}
}
