package arrowipc

import (
	"io"
	"math"
	"slices"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

func nanosSchema(t *testing.T) *schema.Table {
	t.Helper()
	tb, err := schema.NewWithoutIngest("ts", []string{"host"}, []schema.Field{
		{Name: "ts", Type: schema.TimestamptzNs},
		{Name: "seen", Type: schema.TimestampNs},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// nanosBatch: times 1 ns apart around the epoch and at the ends of int64.
func nanosBatch(tb *schema.Table) *rows.Batch {
	ts := []int64{-2, -1, 0, 1, 1_700_000_000_123_456_789, math.MinInt64, math.MaxInt64}
	b := &rows.Batch{Schema: tb, Len: len(ts), Cols: make([]rows.Column, len(tb.Fields))}
	for _, v := range ts {
		b.Cols[0].Ints = append(b.Cols[0].Ints, v)
		b.Cols[1].Strs = append(b.Cols[1].Strs, "h")
		b.Cols[2].Ints = append(b.Cols[2].Ints, v)
	}
	b.Cols[2].Nulls = []bool{false, false, false, true, false, false, false}
	b.Cols[2].Ints[3] = 0
	return b
}

// TestNanosArrow: ns columns are written as Arrow timestamp[ns, tz=UTC]
// and timestamp[ns] and read back (into ns columns) exact, int64's ends
// included.
func TestNanosArrow(t *testing.T) {
	tb := nanosSchema(t)
	b := nanosBatch(tb)
	data := encode(t, tb, []*rows.Batch{b})
	r, err := NewReader(data, tb, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Next(100)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{0, 2} {
		if c == 0 && !slices.Equal(got.Cols[c].Ints[:got.Len], b.Cols[c].Ints) {
			t.Errorf("column %d: %v, want %v", c, got.Cols[c].Ints, b.Cols[c].Ints)
		}
		for i := range b.Len {
			if b.Cols[c].IsNull(i) != got.Cols[c].IsNull(i) || !b.Cols[c].IsNull(i) && got.Cols[c].Ints[i] != b.Cols[c].Ints[i] {
				t.Errorf("column %d row %d: %d, want %d", c, i, got.Cols[c].Ints[i], b.Cols[c].Ints[i])
			}
		}
	}
	if _, err := r.Next(100); err != io.EOF {
		t.Errorf("after the batch: %v", err)
	}
}

// TestNanosArrowPyarrow: pyarrow reads the ns types and every value.
func TestNanosArrowPyarrow(t *testing.T) {
	tb := nanosSchema(t)
	b := nanosBatch(tb)
	got := pyarrowRead(t, encode(t, tb, []*rows.Batch{b}))
	want := map[string]string{"ts": "timestamp[ns, tz=UTC]", "host": "string", "seen": "timestamp[ns]"}
	for _, f := range got.Schema {
		if f.Type != want[f.Name] {
			t.Errorf("pyarrow: %s is %s, want %s", f.Name, f.Type, want[f.Name])
		}
	}
	for i := range b.Len {
		for c := range tb.Fields {
			if w := pyCell(b, c, i); got.All[i][c] != w {
				t.Errorf("row %d column %d: pyarrow %s, want %s", i, c, got.All[i][c], w)
			}
		}
	}
}
