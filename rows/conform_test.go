package rows

import (
	"slices"
	"strings"
	"testing"

	"github.com/timelake/timelake/schema"
)

// evolved is testTable after a schema change: cpu renamed to load, n
// widened to long, f widened to double, note dropped, disk added.
func evolved(tb testing.TB, from *schema.Table) *schema.Table {
	tb.Helper()
	to := &schema.Table{Partition: from.Partition, Time: from.Time, Series: slices.Clone(from.Series)}
	for i, f := range from.Fields {
		switch i {
		case cCPU:
			f.Name = "load"
		case cN:
			f.Type = schema.Long
		case cF:
			f.Type = schema.Double
		case cNote:
			continue
		}
		if i == cIngest {
			to.Ingest = len(to.Fields)
		}
		to.Fields = append(to.Fields, f)
	}
	to.Fields = append(to.Fields, schema.Field{ID: 20, Name: "disk", Type: schema.Double})
	return to
}

func TestConform(t *testing.T) {
	from := testTable(t)
	b := &Batch{Schema: from, Cols: make([]Column, len(from.Fields)), Len: 2}
	b.Cols[cTS].Ints = []int64{1, 2}
	b.Cols[cHost].Strs = []string{"a", "b"}
	b.Cols[cCPU].Floats = []float64{0.5, 1.5}
	b.Cols[cMem].Ints = []int64{10, 20}
	b.Cols[cN].Ints = []int64{-3, 4}
	b.Cols[cF].Floats = []float64{0.25, 0}
	b.Cols[cF].Nulls = []bool{false, true}
	b.Cols[cOK].Bools = []bool{true, false}
	b.Cols[cNote] = NullsOf(schema.String, 2)
	b.Cols[cIngest].Ints = []int64{7, 7}

	to := evolved(t, from)
	got, err := Conform(b, to)
	if err != nil {
		t.Fatalf("Conform: %v", err)
	}
	if got.Schema != to || got.Len != 2 || len(got.Cols) != len(to.Fields) {
		t.Fatalf("got schema %p len %d cols %d", got.Schema, got.Len, len(got.Cols))
	}
	load := to.Index("load")
	if !slices.Equal(got.Cols[load].Floats, []float64{0.5, 1.5}) {
		t.Errorf("load (renamed cpu) = %v, want [0.5 1.5]", got.Cols[load].Floats)
	}
	if n := got.Cols[to.Index("n")]; !slices.Equal(n.Ints, []int64{-3, 4}) {
		t.Errorf("n (widened) = %v", n.Ints)
	}
	if f := got.Cols[to.Index("f")]; !f.IsNull(1) || f.Floats[0] != 0.25 {
		t.Errorf("f (widened) = %v %v", f.Floats, f.Nulls)
	}
	if d := got.Cols[to.Index("disk")]; !d.IsNull(0) || !d.IsNull(1) || len(d.Floats) != 2 {
		t.Errorf("disk (added) = %v %v, want two nulls", d.Floats, d.Nulls)
	}
	if same, err := Conform(b, from); err != nil || same != b {
		t.Errorf("Conform to its own schema: %p %v, want the batch itself", same, err)
	}
}

func TestConformRefuses(t *testing.T) {
	from := testTable(t)
	fill := func() *Batch {
		b := &Batch{Schema: from, Cols: make([]Column, len(from.Fields)), Len: 1}
		for i, f := range from.Fields {
			b.Cols[i] = NullsOf(f.Type, 1)
			if f.Required {
				b.Cols[i].Nulls = nil
			}
		}
		return b
	}
	cases := []struct {
		name string
		b    func() *Batch
		to   func(to *schema.Table)
		want string
	}{
		{"value in a dropped column", func() *Batch {
			b := fill()
			b.Cols[cNote] = Column{Strs: []string{"x"}}
			return b
		}, func(*schema.Table) {}, `column "note" (field id 8) is no longer in the table's schema`},
		{"required column added", fill, func(to *schema.Table) { to.Fields[len(to.Fields)-1].Required = true }, `column "disk" (field id 20) is required`},
		{"narrowed", fill, func(to *schema.Table) { to.Fields[cMem].Type = schema.Int }, `column "mem" (field id 4) is int, and these rows hold long`},
		{"null in a column made required", fill, func(to *schema.Table) { to.Fields[cCPU].Required = true }, `column "load" (field id 3) is required, and row 1 is null`},
		{"series column retyped", fill, func(to *schema.Table) { to.Fields[cHost].Type = schema.Long }, `series column "host" (field id 2, long) was "host" (field id 2, string)`},
		{"another time column", fill, func(to *schema.Table) { to.Time = cMem }, `time column "mem" (field id 4) was "ts" (field id 1)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			to := evolved(t, from)
			c.to(to)
			_, err := Conform(c.b(), to)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
	// Follow lets a dropped column's values go.
	b := fill()
	b.Cols[cNote] = Column{Strs: []string{"x"}}
	if _, err := Follow(b, evolved(t, from)); err != nil {
		t.Errorf("Follow: %v", err)
	}
}
