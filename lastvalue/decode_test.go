package lastvalue

import (
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestDecodeFollowsSchema: an index written before a schema change reads
// under the new schema by field id.
func TestDecodeFollowsSchema(t *testing.T) {
	old, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "n", Type: schema.Int}, {Name: "f", Type: schema.Float}, {Name: "gone", Type: schema.String},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	b := &rows.Batch{Schema: old, Cols: make([]rows.Column, len(old.Fields)), Len: 2}
	b.Cols[0].Ints = []int64{1, 2}
	b.Cols[1].Strs = []string{"a", "b"}
	b.Cols[2].Ints = []int64{-5, 1 << 30}
	b.Cols[3].Floats = []float64{0.5, 3}
	b.Cols[4].Strs = []string{"x", "y"}
	b.Cols[5].Ints = []int64{9, 9}
	data, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}

	// n → count (long), f widened, gone dropped, added appended; host renamed.
	cur := &schema.Table{Partition: schema.Day, Time: 0, Series: []int{1}, Ingest: 4, Fields: []schema.Field{
		{ID: 1, Name: "ts", Type: schema.Timestamptz, Required: true},
		{ID: 2, Name: "hostname", Type: schema.String, Required: true},
		{ID: 3, Name: "count", Type: schema.Long},
		{ID: 4, Name: "f", Type: schema.Double},
		{ID: 6, Name: schema.IngestColumn, Type: schema.Timestamptz},
		{ID: 7, Name: "added", Type: schema.Boolean},
	}}
	got, err := Decode(data, cur)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if got.Schema != cur || got.Len != 2 {
		t.Fatalf("schema %p, len %d", got.Schema, got.Len)
	}
	if c := got.Cols[2].Ints; c[0] != -5 || c[1] != 1<<30 {
		t.Errorf("count = %v", c)
	}
	if c := got.Cols[3].Floats; c[0] != 0.5 || c[1] != 3 {
		t.Errorf("f = %v", c)
	}
	if c := got.Cols[1].Strs; c[0] != "a" || c[1] != "b" {
		t.Errorf("hostname = %v", c)
	}
	if c := got.Cols[5]; !c.IsNull(0) || !c.IsNull(1) || len(c.Bools) != 2 {
		t.Errorf("added = %v %v, want nulls", c.Bools, c.Nulls)
	}

	// A type the table cannot read the column as (not a promotion), and a missing key column.
	retyped := *cur
	retyped.Fields = append([]schema.Field(nil), cur.Fields...)
	retyped.Fields[2].Type = schema.String
	if _, err := Decode(data, &retyped); err == nil || !strings.Contains(err.Error(), `the table's "count" is string`) {
		t.Errorf("retyped: err = %v", err)
	}
	other := *cur
	other.Fields = append([]schema.Field(nil), cur.Fields...)
	other.Fields[1].ID = 9
	if _, err := Decode(data, &other); err == nil || !strings.Contains(err.Error(), `no column "hostname" (id 9)`) {
		t.Errorf("missing series: err = %v", err)
	}
}
