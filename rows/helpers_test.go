package rows

import (
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/schema"
)

// Field indexes of testTable.
const (
	cTS = iota
	cHost
	cCPU
	cMem
	cN
	cF
	cOK
	cNote
	cIngest
)

func testTable(tb testing.TB) *schema.Table {
	tb.Helper()
	t, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long},
		{Name: "n", Type: schema.Int},
		{Name: "f", Type: schema.Float},
		{Name: "ok", Type: schema.Boolean},
		{Name: "note", Type: schema.String},
	}, schema.Day)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// readAll reads every batch of an input and concatenates them.
func readAll(next func(int) (*Batch, error), max int) (*Batch, error) {
	var all *Batch
	for {
		b, err := next(max)
		if err != nil {
			if err.Error() == "EOF" {
				return all, nil
			}
			return nil, err
		}
		if all == nil {
			all = Take(b, seq(b.Len))
		} else {
			all = concat(all, b)
		}
	}
}

func seq(n int) []int32 {
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	return idx
}

func concat(a, b *Batch) *Batch {
	out := &Batch{Schema: a.Schema, Cols: make([]Column, len(a.Cols)), Len: a.Len + b.Len}
	for i := range a.Cols {
		x, y, o := &a.Cols[i], &b.Cols[i], &out.Cols[i]
		o.Ints = append(append([]int64(nil), x.Ints...), y.Ints...)
		o.Floats = append(append([]float64(nil), x.Floats...), y.Floats...)
		o.Bools = append(append([]bool(nil), x.Bools...), y.Bools...)
		o.Strs = append(append([]string(nil), x.Strs...), y.Strs...)
		if x.Nulls != nil || y.Nulls != nil {
			o.Nulls = append(nullsOf(x, a.Len), nullsOf(y, b.Len)...)
		}
	}
	return out
}

func nullsOf(c *Column, n int) []bool {
	if c.Nulls == nil {
		return make([]bool, n)
	}
	return append([]bool(nil), c.Nulls[:n]...)
}

func readCSV(t *schema.Table, in string, opt Options) (*Batch, error) {
	return readAll(NewCSVReader(strings.NewReader(in), t, opt).Next, 0)
}

func readNDJSON(t *schema.Table, in string, opt Options) (*Batch, error) {
	return readAll(NewNDJSONReader(strings.NewReader(in), t, opt).Next, 0)
}

// checkBatch verifies the Batch invariants every reader must keep.
func checkBatch(tb testing.TB, b *Batch) {
	tb.Helper()
	for i, f := range b.Schema.Fields {
		c := &b.Cols[i]
		var n int
		switch kindOf(f.Type) {
		case kindInt:
			n = len(c.Ints)
		case kindFloat:
			n = len(c.Floats)
		case kindBool:
			n = len(c.Bools)
		default:
			n = len(c.Strs)
		}
		if n != b.Len {
			tb.Fatalf("column %q has %d values, batch has %d rows", f.Name, n, b.Len)
		}
		if c.Nulls != nil && len(c.Nulls) != b.Len {
			tb.Fatalf("column %q has %d nulls, batch has %d rows", f.Name, len(c.Nulls), b.Len)
		}
		for r := 0; r < b.Len; r++ {
			if f.Required && c.IsNull(r) {
				tb.Fatalf("required column %q is null in row %d", f.Name, r)
			}
		}
		if f.Type == schema.Timestamptz && i != b.Schema.Ingest {
			for r, v := range c.Ints {
				if !c.IsNull(r) && (v < schema.MinMicros || v > schema.MaxMicros) {
					tb.Fatalf("column %q row %d: time %d out of range", f.Name, r, v)
				}
			}
		}
	}
}

func fmtMicros(us int64) string {
	return time.UnixMicro(us).UTC().Format(time.RFC3339Nano)
}
