package arrowipc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// labelBatches are 100,000 rows of ts, host and 8 labels, once as a
// map<string, string> column and once as 8 string columns (the same
// values), for the benchmarks of the labels case.
func labelBatches(b *testing.B) (asMap, asCols *rows.Batch) {
	const n = 100_000
	str := &schema.NestedType{Kind: schema.KindPrimitive, Prim: schema.String}
	mapSch := &schema.Table{Time: 0, Ingest: -1, Series: []int{1}, Fields: []schema.Field{
		{ID: 1, Name: "ts", Type: schema.Timestamptz, Required: true},
		{ID: 2, Name: "host", Type: schema.String, Required: true},
		{ID: 3, Name: "tags", Type: schema.Nested, Nested: &schema.NestedType{Kind: schema.KindMap,
			Key: &schema.NestedField{ID: 4, Name: "key", Required: true, Type: str}, Value: &schema.NestedField{ID: 5, Name: "value", Type: str}}},
	}}
	colSch := &schema.Table{Time: 0, Ingest: -1, Series: []int{1}, Fields: mapSch.Fields[:2:2]}
	asMap = &rows.Batch{Schema: mapSch, Len: n, Cols: make([]rows.Column, 3)}
	asCols = &rows.Batch{Schema: colSch, Len: n, Cols: make([]rows.Column, 2, 10)}
	for k := range 8 {
		colSch.Fields = append(colSch.Fields, schema.Field{ID: 10 + k, Name: fmt.Sprintf("label%d", k), Type: schema.String})
		asCols.Cols = append(asCols.Cols, rows.Column{})
	}
	var sb strings.Builder
	for i := range n {
		ts, host := int64(i)*1_000_000, fmt.Sprintf("host-%d", i%500)
		for _, bt := range []*rows.Batch{asMap, asCols} {
			bt.Cols[0].Ints = append(bt.Cols[0].Ints, ts)
			bt.Cols[1].Strs = append(bt.Cols[1].Strs, host)
		}
		sb.Reset()
		sb.WriteByte('{')
		for k := range 8 {
			v := fmt.Sprintf("value-%d-%d", k, i%(10+k*50))
			if k > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `"label%d":"%s"`, k, v)
			asCols.Cols[2+k].Strs = append(asCols.Cols[2+k].Strs, v)
		}
		sb.WriteByte('}')
		asMap.Cols[2].Strs = append(asMap.Cols[2].Strs, sb.String())
	}
	return asMap, asCols
}

// BenchmarkLabelsArrow writes (scan output) and reads (append input) the
// labels as an Arrow map column and as 8 string columns.
func BenchmarkLabelsArrow(b *testing.B) {
	asMap, asCols := labelBatches(b)
	for _, c := range []struct {
		name string
		bt   *rows.Batch
	}{{"map", asMap}, {"8cols", asCols}} {
		w, err := NewStreamWriter(c.bt.Schema)
		if err != nil {
			b.Fatal(err)
		}
		data, err := w.Append(nil, c.bt)
		if err != nil {
			b.Fatal(err)
		}
		data = w.End(data)
		b.Run("write/"+c.name, func(b *testing.B) {
			var buf []byte
			for b.Loop() {
				if buf, err = w.Append(buf[:0], c.bt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(buf)), "bytes")
		})
		b.Run("read/"+c.name, func(b *testing.B) {
			for b.Loop() {
				got, err := Read(data, c.bt.Schema, rows.Options{})
				if err != nil || got.Len != c.bt.Len {
					b.Fatal(err)
				}
			}
		})
	}
}
