package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// The label-heavy benchmark: 100 series (host), a row per series per
// second, cpu, and 8 labels — as one tags map<string, string> column, or as
// 8 string columns holding the same values. Seven labels are the series'
// (env, region, az, job, instance, service, version), one changes row by
// row (status), as Prometheus and OpenTelemetry attributes do.
var labelNames = []string{"env", "region", "az", "job", "instance", "service", "version", "status"}

// labelValues are row i's 8 label values, in labelNames order.
func labelValues(i int) []string {
	h := i % 100
	region := []string{"eu-west-1", "us-east-1", "ap-south-1", "sa-east-1"}[h%4]
	return []string{
		[]string{"prod", "staging", "dev"}[h%3],
		region,
		region + []string{"a", "b", "c"}[h%3],
		[]string{"api", "db", "cache", "queue", "web"}[h%5],
		fmt.Sprintf("10.0.%d.%d:9090", h/10, h%10),
		fmt.Sprintf("svc-%02d", h%20),
		fmt.Sprintf("v1.%d.0", h%7),
		[]string{"200", "404", "500", "503"}[i%4],
	}
}

// labelTable creates a table of ts, host, cpu and the labels: shape "map"
// (tags map<string, string>, added as another engine adds it) or "columns"
// (label_env … label_status strings).
func labelTable(tb testing.TB, shape string) (*table.Table, *memstore.Store) {
	ctx := context.Background()
	st := memstore.New()
	fields := []schema.Field{{Name: "cpu", Type: schema.Double}}
	if shape == "columns" {
		for _, l := range labelNames {
			fields = append(fields, schema.Field{Name: "label_" + l, Type: schema.String})
		}
	}
	sch, err := schema.New("ts", []string{"host"}, fields, schema.Day)
	if err != nil {
		tb.Fatal(err)
	}
	t, err := table.Create(ctx, st, testenv.New(1), loc, sch, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if shape == "map" {
		id := t.Metadata().LastColumnID + 1
		t = addForeignColumn(tb, ctx, st, t, iceberg.SchemaField{ID: id, Name: "tags",
			Type: json.RawMessage(fmt.Sprintf(`{"type":"map","key-id":%d,"key":"string","value-id":%d,"value":"string","value-required":false}`, id+1, id+2))}, id+2, 2)
	}
	return t, st
}

// labelBatch is n rows for t (either shape): the map's JSON text is built
// per row, as an input would carry it.
func labelBatch(tb testing.TB, t *table.Table, n int) *rows.Batch {
	s := t.Schema()
	bt := &rows.Batch{Schema: s, Cols: make([]rows.Column, len(s.Fields)), Len: n}
	start := day1.Add(10 * time.Hour).UnixMicro()
	tc := s.Index("tags")
	for i := range n {
		bt.Cols[s.Time].Ints = append(bt.Cols[s.Time].Ints, start+int64(i/100)*1e6)
		bt.Cols[s.Index("host")].Strs = append(bt.Cols[s.Index("host")].Strs, fmt.Sprintf("host-%03d", i%100))
		bt.Cols[s.Index("cpu")].Floats = append(bt.Cols[s.Index("cpu")].Floats, float64(i%1000)/10)
		vals := labelValues(i)
		if tc >= 0 {
			var sb strings.Builder
			sb.WriteByte('{')
			for k, l := range labelNames {
				if k > 0 {
					sb.WriteByte(',')
				}
				sb.WriteString(`"` + l + `":"` + vals[k] + `"`)
			}
			sb.WriteByte('}')
			bt.Cols[tc].Strs = append(bt.Cols[tc].Strs, sb.String())
			continue
		}
		for k, l := range labelNames {
			c := s.Index("label_" + l)
			bt.Cols[c].Strs = append(bt.Cols[c].Strs, vals[k])
		}
	}
	if s.Ingest >= 0 {
		bt.Cols[s.Ingest].Ints = make([]int64, n)
	}
	return bt
}

// BenchmarkAppendLabels: appends of 100,000 rows with 8 labels, as a map
// column and as 8 string columns (memory store; the table recreated outside
// the timer every 50 appends, as BenchmarkAppend).
//
//	go test ./table -run '^$' -bench 'BenchmarkAppendLabels|BenchmarkScanLabels' -benchtime 10x -count 5
func BenchmarkAppendLabels(b *testing.B) {
	for _, shape := range []string{"map", "columns"} {
		b.Run("shape="+shape, func(b *testing.B) {
			ctx := context.Background()
			t, _ := labelTable(b, shape)
			src := labelBatch(b, t, 100_000)
			var written int64
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%50 == 49 {
					b.StopTimer()
					t, _ = labelTable(b, shape)
					b.StartTimer()
				}
				res, err := t.Append(ctx, src)
				if err != nil {
					b.Fatal(err)
				}
				written += res.Bytes
			}
			b.ReportMetric(float64(written)/float64(b.N), "data-bytes/op")
		})
	}
}

// BenchmarkScanLabels: a scan of the 100,000 rows back (every column), and
// the same with a label filter on the status label (a quarter of the rows).
func BenchmarkScanLabels(b *testing.B) {
	for _, shape := range []string{"map", "columns"} {
		ctx := context.Background()
		t, _ := labelTable(b, shape)
		if _, err := t.Append(ctx, labelBatch(b, t, 100_000)); err != nil {
			b.Fatal(err)
		}
		for _, where := range []bool{false, true} {
			name := "shape=" + shape
			opt := table.ScanOptions{}
			if where {
				name += "/where"
				if shape == "map" {
					opt.Where = []string{"tags[status]=500"}
				}
			}
			if where && shape == "columns" {
				continue // no label filter on plain columns (a string column is not a series column)
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					n := 0
					if _, err := t.Scan(ctx, opt, func(bt *rows.Batch) error { n += bt.Len; return nil }); err != nil {
						b.Fatal(err)
					}
					if want := map[bool]int{false: 100_000, true: 25_000}[where]; n != want {
						b.Fatalf("%d rows, want %d", n, want)
					}
				}
			})
		}
	}
}
