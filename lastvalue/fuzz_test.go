package lastvalue

import (
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

func FuzzDecode(f *testing.F) {
	s, _ := testSchemaF()
	b := batch(s, row{"a", 1, 2, 3}, row{"b", 4, 5, 6})
	data, err := Encode(Merge(nil, b))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("PAR1PAR1"))
	// an index of an earlier schema of the table, read by field id: v a
	// float then (widened to double), x since dropped
	other := &schema.Table{Partition: schema.Day, Time: 0, Series: []int{1}, Ingest: 3, Fields: []schema.Field{
		{ID: 1, Name: "ts", Type: schema.Timestamptz, Required: true},
		{ID: 2, Name: "host", Type: schema.String, Required: true},
		{ID: 3, Name: "v", Type: schema.Float},
		{ID: 4, Name: schema.IngestColumn, Type: schema.Timestamptz},
		{ID: 9, Name: "x", Type: schema.Int},
	}}
	ob := &rows.Batch{Schema: other, Cols: make([]rows.Column, len(other.Fields)), Len: 1}
	ob.Cols[0].Ints, ob.Cols[1].Strs, ob.Cols[2].Floats, ob.Cols[3].Ints, ob.Cols[4].Ints = []int64{1}, []string{"a"}, []float64{0.5}, []int64{2}, []int64{7}
	if data, err = Encode(ob); err != nil {
		f.Fatal(err)
	}
	if _, err := Decode(data, s); err != nil {
		f.Fatalf("the earlier schema's index: %v", err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := Decode(data, s)
		if err != nil {
			return
		}
		for i, c := range idx.Cols {
			n := len(c.Ints) + len(c.Floats) + len(c.Bools) + len(c.Strs)
			if n != idx.Len {
				t.Fatalf("column %d has %d values, the index %d rows", i, n, idx.Len)
			}
		}
	})
}
