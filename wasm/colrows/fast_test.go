package colrows

import (
	"math"
	"reflect"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// fuzzInput builds a small Input from data: per column a name, a tag (or
// mixed tags) and values from palettes chosen to hit every conversion and its
// failures (NaN, fractions, 2^54, times out of range, invalid UTF-8).
func fuzzInput(data []byte) (*Input, rows.Options) {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	names := []string{"ts", "host", "cpu", "mem", "up", "n32", "f32", "disk", "_ingest_ts"}
	floats := []float64{0, 1.5, math.NaN(), 1795946400000, 1 << 54, -1, 3e14, math.Inf(1), 42, 1e39, -62135596800000, 253402300799999, 253402300800000}
	ints := []int64{0, math.MaxInt64, 1 << 40, -5, 7}
	palette := []string{"a", "2026-11-29T10:00:00Z", "12", "\xff", "", "1.5", "true", "host-1"}
	opt := rows.Options{TimeUnit: rows.TimeUnit(next() % 4), IgnoreUnknown: next()%2 == 1}
	n := 1 + int(next()%6)
	in := &Input{Len: n}
	for ncols := 1 + int(next()%7); len(in.Cols) < ncols; {
		c := Column{Name: names[int(next())%len(names)], F64: make([]float64, n), I64: make([]int64, n)}
		tag := Tag(next() % 10)
		if tag == 9 {
			c.Tag, c.Tags = Mixed, make([]byte, n)
			for r := range c.Tags {
				c.Tags[r] = next() % 9
			}
		} else {
			c.Tag = tag
		}
		for r := range n {
			c.F64[r] = floats[int(next())%len(floats)]
			c.I64[r] = ints[int(next())%len(ints)]
		}
		vals := make([]string, n)
		if next()%3 == 0 { // a dictionary
			vals = make([]string, 1+int(next()%4))
			c.Idx = make([]int32, n)
			for r := range c.Idx {
				c.Idx[r] = int32(int(next()) % len(vals))
			}
		}
		for r := range vals {
			vals[r] = palette[int(next())%len(palette)]
		}
		c.Str, c.Off = strs(vals...)
		in.Cols = append(in.Cols, c)
	}
	return in, opt
}

func fuzzSchema(t testing.TB) *schema.Table {
	s, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long},
		{Name: "up", Type: schema.Boolean},
		{Name: "n32", Type: schema.Int},
		{Name: "f32", Type: schema.Float, Required: true},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// FuzzFastPath holds Build's column-at-a-time path to the value-by-value one:
// where it answers, the same batch; and Build's result (batch or error) is
// always buildSlow's.
func FuzzFastPath(f *testing.F) {
	f.Add([]byte{0, 0, 3, 2, 0, 2, 3, 0, 0, 0, 0, 1, 4, 0, 0, 0, 7})
	f.Add([]byte{1, 1, 5, 6, 0, 9, 2, 1, 2, 3, 4, 5, 6, 1, 4, 1, 1, 1, 1, 7, 2, 2, 8, 3, 2, 1})
	f.Add([]byte{0, 0, 2, 4, 2, 9, 2, 1, 2, 4, 4, 0, 0, 1, 1, 7, 7, 0, 0, 1, 4, 5, 1, 1, 1, 0})
	f.Add([]byte{0, 0, 2, 2, 0, 2, 3, 0, 0, 0, 0, 1, 1, 4, 1, 3, 0, 1, 2, 7, 3, 1, 0, 0, 0, 0, 0, 0})
	sch := fuzzSchema(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		in, opt := fuzzInput(data)
		p, err := newPlan(sch, in, opt)
		if err != nil {
			return
		}
		slow, slowErr := buildSlow(sch, in, opt, p)
		fast, ok := buildFast(sch, in, opt.TimeUnit, p)
		if ok {
			if slowErr != nil {
				t.Fatalf("fast path took input the slow path refuses (%v)", slowErr)
			}
			if !reflect.DeepEqual(fast.Cols, slow.Cols) || fast.Len != slow.Len {
				t.Fatalf("fast path batch\n%+v\nwant\n%+v", fast.Cols, slow.Cols)
			}
		}
		got, gotErr := Build(sch, in, opt)
		if !reflect.DeepEqual(gotErr, slowErr) || (got == nil) != (slow == nil) || got != nil && !reflect.DeepEqual(got.Cols, slow.Cols) {
			t.Fatalf("Build = %v, %v; want %v, %v", got, gotErr, slow, slowErr)
		}
	})
}

// TestFastPathTaken checks that the common inputs do not fall back.
func TestFastPathTaken(t *testing.T) {
	sch := fuzzSchema(t)
	host := strCol("host", "a", "b", "a")
	tests := []struct {
		name string
		cols []Column
	}{
		{"numbers", []Column{{Name: "ts", Tag: Number, F64: []float64{1e12, 1e12 + 1, 1e12}}, host,
			{Name: "cpu", Tag: Number, F64: []float64{0.5, 1, 2}}, {Name: "mem", Tag: Number, F64: []float64{1, 2, 3}},
			{Name: "f32", Tag: Number, F64: []float64{1, 2, 3}}}},
		{"dates, nulls, booleans, bigints, a dictionary", []Column{{Name: "ts", Tag: Date, F64: []float64{1e12, 1e12 + 1, 1e12}},
			{Name: "host", Tag: String, Str: "ab", Off: []int32{0, 1, 2}, Idx: []int32{0, 1, 0}},
			{Name: "cpu", Tag: Mixed, Tags: []byte{byte(Null), byte(Number), byte(Absent)}, F64: []float64{0, 1, 0}},
			{Name: "up", Tag: Mixed, Tags: []byte{byte(True), byte(False), byte(Null)}},
			{Name: "mem", Tag: BigInt, I64: []int64{1, math.MaxInt64, 3}},
			{Name: "f32", Tag: Number, F64: []float64{1, 2, 3}}}},
	}
	for _, tc := range tests {
		in := &Input{Len: 3, Cols: tc.cols}
		p, err := newPlan(sch, in, rows.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		fast, ok := buildFast(sch, in, 0, p)
		if !ok {
			t.Fatalf("%s: fast path not taken", tc.name)
		}
		slow, err := buildSlow(sch, in, rows.Options{}, p)
		if err != nil || !reflect.DeepEqual(fast.Cols, slow.Cols) {
			t.Errorf("%s: fast %+v, slow %+v (%v)", tc.name, fast.Cols, slow.Cols, err)
		}
	}
}
