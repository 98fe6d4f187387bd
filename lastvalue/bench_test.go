package lastvalue

import (
	"fmt"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// benchBatch is n rows of `series` hosts in three regions, sorted by
// (host, region, time) as an append's deduplicated batch is.
func benchBatch(b *testing.B, n, series int) *rows.Batch {
	b.Helper()
	s, err := schema.New("ts", []string{"host", "region"}, []schema.Field{{Name: "v", Type: schema.Double}}, schema.Day)
	if err != nil {
		b.Fatal(err)
	}
	bt := &rows.Batch{Schema: s, Cols: make([]rows.Column, len(s.Fields)), Len: n}
	per := n / series
	for k := range series {
		host, region := fmt.Sprintf("host-%03d", k/3), fmt.Sprintf("eu-%d", k%3)
		for j := range per {
			for c, f := range s.Fields {
				switch {
				case f.Name == "host":
					bt.Cols[c].Strs = append(bt.Cols[c].Strs, host)
				case f.Name == "region":
					bt.Cols[c].Strs = append(bt.Cols[c].Strs, region)
				case f.Type.IsFloat():
					bt.Cols[c].Floats = append(bt.Cols[c].Floats, float64(j))
				default:
					bt.Cols[c].Ints = append(bt.Cols[c].Ints, int64(j)*1000)
				}
			}
		}
	}
	bt.Len = per * series
	return bt
}

// BenchmarkMerge folds a 100,000-row append of 300 series into an index of
// the same series, as every append does.
func BenchmarkMerge(b *testing.B) {
	app := benchBatch(b, 100_000, 300)
	prev := Merge(nil, benchBatch(b, 300, 300))
	b.ReportAllocs()
	for b.Loop() {
		Merge(prev, Merge(nil, app))
	}
}

// BenchmarkDecode reads a 300-series index back, as every append does.
func BenchmarkDecode(b *testing.B) {
	idx := Merge(nil, benchBatch(b, 300, 300))
	data, err := Encode(idx)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data, idx.Schema); err != nil {
			b.Fatal(err)
		}
	}
}
