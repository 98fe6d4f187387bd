package scan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

func testSchema(t *testing.T) *schema.Table {
	t.Helper()
	s, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "v", Type: schema.Long}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func long(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }

func ptr(v int64) *int64 { return &v }

func TestNewFilterErrors(t *testing.T) {
	sch := testSchema(t)
	cases := []struct {
		name     string
		from, to *int64
		series   map[string][]any
		code     string
	}{
		{"ok", ptr(1), ptr(2), map[string][]any{"host": {"a", "b"}}, ""},
		{"from = to", ptr(2), ptr(2), nil, CodeBadRange},
		{"from > to", ptr(3), ptr(2), nil, CodeBadRange},
		{"unknown column", nil, nil, map[string][]any{"x": {"a"}}, CodeUnknownColumn},
		{"not a series column", nil, nil, map[string][]any{"v": {int64(1)}}, CodeBadFilter},
		{"integer for a string", nil, nil, map[string][]any{"host": {int64(1)}}, CodeBadFilter},
		{"a float", nil, nil, map[string][]any{"host": {1.5}}, CodeBadFilter},
		{"no values", nil, nil, map[string][]any{"host": {}}, CodeBadFilter},
	}
	for _, tc := range cases {
		_, err := NewFilter(sch, tc.from, tc.to, tc.series)
		code := ""
		if re, ok := err.(*rows.Error); ok {
			code = re.Code
		} else if err != nil {
			code = "?"
		}
		if code != tc.code {
			t.Errorf("%s: err %v, want code %q", tc.name, err, tc.code)
		}
	}
}

func TestParseTime(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		code string
	}{
		{"2026-11-29T10:00:00Z", time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC).UnixMicro(), ""},
		{"2026-11-29", time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC).UnixMicro(), ""},
		{"1795860000000", 1795860000000000, ""},
		{"-1000", -1000000, ""},
		{"yesterday", 0, CodeBadTime},
		{"2026-13-01", 0, CodeBadTime},
	}
	for _, tc := range cases {
		got, err := ParseTime(tc.in)
		code := ""
		if re, ok := err.(*rows.Error); ok {
			code = re.Code
		}
		if got != tc.want || code != tc.code {
			t.Errorf("ParseTime(%q) = %d, %v; want %d, %q", tc.in, got, err, tc.want, tc.code)
		}
	}
}

func TestMayMatch(t *testing.T) {
	sch := testSchema(t)
	f, _ := NewFilter(sch, ptr(100), ptr(200), map[string][]any{"host": {"b", "d"}})
	cases := []struct {
		time   Bound
		host   Bound
		expect bool
	}{
		{Bound{long(0), long(99)}, Bound{[]byte("a"), []byte("z")}, false},
		{Bound{long(200), long(300)}, Bound{[]byte("a"), []byte("z")}, false},
		{Bound{long(199), long(300)}, Bound{[]byte("a"), []byte("z")}, true},
		{Bound{long(0), long(999)}, Bound{[]byte("c"), []byte("c")}, false},
		{Bound{long(0), long(999)}, Bound{[]byte("c"), []byte("d")}, true},
		{Bound{long(0), long(999)}, Bound{[]byte("e"), []byte("f")}, false},
		{Bound{}, Bound{}, true},
	}
	for i, tc := range cases {
		if got := f.MayMatch(tc.time, map[string]Bound{"host": tc.host}); got != tc.expect {
			t.Errorf("case %d: MayMatch = %v, want %v", i, got, tc.expect)
		}
	}
	if !f.PartitionMayMatch(schema.Day, 0) || f.PartitionMayMatch(schema.Day, 1) {
		t.Error("PartitionMayMatch: day 0 holds [100, 200) µs, day 1 does not")
	}
}

func TestPageRanges(t *testing.T) {
	sch := testSchema(t)
	// 4 pages of 10 rows; hosts a | a,b | b | b,c ; times
	host := PageColumn{Name: "host", FirstRows: []int64{0, 10, 20, 30},
		Min: [][]byte{[]byte("a"), []byte("a"), []byte("b"), []byte("b")}, Max: [][]byte{[]byte("a"), []byte("b"), []byte("b"), []byte("c")}}
	tm := PageColumn{FirstRows: []int64{0, 10, 20, 30},
		Min: [][]byte{long(0), long(0), long(50), long(0)}, Max: [][]byte{long(40), long(90), long(90), long(99)}}
	cases := []struct {
		name     string
		from, to *int64
		hosts    []any
		want     []RowRange
	}{
		{"no filter", nil, nil, nil, []RowRange{{0, 40}}},
		{"host b", nil, nil, []any{"b"}, []RowRange{{10, 40}}},
		{"host a, late", ptr(60), nil, []any{"a"}, []RowRange{{10, 20}}},
		// b's rows in page 1 come before page 2's (all b) minimum 50: dropped
		{"one series, time after the run start", ptr(60), ptr(70), []any{"b"}, []RowRange{{20, 30}}},
		{"absent", nil, nil, []any{"zz"}, nil},
	}
	for _, tc := range cases {
		var series map[string][]any
		if tc.hosts != nil {
			series = map[string][]any{"host": tc.hosts}
		}
		f, err := NewFilter(sch, tc.from, tc.to, series)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.PageRanges(40, []PageColumn{tm, host}); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCoalesceAndPages(t *testing.T) {
	got := Coalesce([]ByteRange{{100, 10}, {0, 10}, {15, 5}, {200, 1}, {105, 20}}, 5)
	want := []ByteRange{{0, 20}, {100, 25}, {200, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("Coalesce = %v, want %v", got, want)
	}
	first := []int64{0, 10, 20, 30}
	for _, tc := range []struct{ from, to, p0, p1 int64 }{{0, 40, 0, 4}, {10, 20, 1, 2}, {9, 11, 0, 2}, {35, 36, 3, 4}} {
		a, b := Pages(first, tc.from, tc.to)
		if int64(a) != tc.p0 || int64(b) != tc.p1 {
			t.Errorf("Pages(%d, %d) = %d, %d; want %d, %d", tc.from, tc.to, a, b, tc.p0, tc.p1)
		}
	}
	if got := Windows([]RowRange{{0, 25}, {30, 31}}, 10); !slices.Equal(got, []RowRange{{0, 10}, {10, 20}, {20, 25}, {30, 31}}) {
		t.Errorf("Windows = %v", got)
	}
}

// TestMerge: inputs merge by key; duplicates keep the rows.Winner; raw keeps all.
func TestMerge(t *testing.T) {
	sch := testSchema(t)
	mk := func(keys ...string) *rows.Batch { // "host/ts/ingest/v"
		b := &rows.Batch{Schema: sch, Cols: make([]rows.Column, len(sch.Fields))}
		for _, k := range keys {
			var h string
			var ts, ing, v int64
			fmt.Sscanf(k, "%1s/%d/%d/%d", &h, &ts, &ing, &v)
			b.Cols[sch.Time].Ints = append(b.Cols[sch.Time].Ints, ts)
			b.Cols[sch.Series[0]].Strs = append(b.Cols[sch.Series[0]].Strs, h)
			b.Cols[sch.Ingest].Ints = append(b.Cols[sch.Ingest].Ints, ing)
			b.Cols[sch.Index("v")].Ints = append(b.Cols[sch.Index("v")].Ints, v)
			b.Len++
		}
		return b
	}
	in := func(seq int64, bs ...*rows.Batch) Input {
		return Input{Seq: seq, Next: func() (*rows.Batch, error) {
			if len(bs) == 0 {
				return nil, nil
			}
			b := bs[0]
			bs = bs[1:]
			return b, nil
		}}
	}
	run := func(raw bool, inputs ...Input) []int64 {
		var vs []int64
		err := Merge(sch, inputs, raw, func(b *rows.Batch, i, j int) error {
			vs = append(vs, b.Cols[sch.Index("v")].Ints[i:j]...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return vs
	}
	a := func() Input { return in(1, mk("a/1/10/1", "a/2/10/2"), mk("b/1/10/3")) }
	b := func() Input { return in(2, mk("a/2/20/4", "b/0/5/5", "b/1/5/6")) }
	if got, want := run(false, a(), b()), []int64{1, 4, 5, 3}; !slices.Equal(got, want) {
		t.Errorf("dedup merge = %v, want %v", got, want)
	}
	if got := run(true, a(), b()); len(got) != 6 {
		t.Errorf("raw merge = %v, want 6 rows", got)
	}
	// equal _ingest_ts: the later sequence number
	c := in(3, mk("a/1/10/7"))
	if got, want := run(false, a(), c), []int64{7, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("tie on _ingest_ts = %v, want %v", got, want)
	}
	// a key repeated within one input, and across batches of it
	d := in(4, mk("a/1/30/8", "a/1/40/9", "a/5/1/10"), mk("a/5/2/11", "b/1/1/12"))
	if got, want := run(false, a(), d), []int64{9, 2, 11, 3}; !slices.Equal(got, want) {
		t.Errorf("repeats within an input = %v, want %v", got, want)
	}
	if got := run(true, a(), in(4, mk("a/1/30/8", "a/1/40/9"))); !slices.Equal(got, []int64{1, 8, 9, 2, 3}) && !slices.Equal(got, []int64{8, 9, 1, 2, 3}) {
		t.Errorf("raw with repeats = %v", got)
	}
	// an unsorted input is an error
	err := Merge(sch, []Input{in(1, mk("b/1/1/1", "a/1/1/1"))}, false, func(*rows.Batch, int, int) error { return nil })
	if !errors.Is(err, ErrUnsorted) {
		t.Errorf("unsorted input: %v, want ErrUnsorted", err)
	}
}

// TestOutReuse: with Reuse, the batch taken is overwritten by the next one
// (one allocation for a whole scan), and each holds its rows when taken.
func TestOutReuse(t *testing.T) {
	sch := testSchema(t)
	in := &rows.Batch{Schema: sch, Cols: make([]rows.Column, len(sch.Fields)), Len: 6}
	for i := range 6 {
		in.Cols[sch.Time].Ints = append(in.Cols[sch.Time].Ints, int64(i))
		in.Cols[sch.Series[0]].Strs = append(in.Cols[sch.Series[0]].Strs, fmt.Sprint("h", i))
		in.Cols[sch.Ingest].Ints = append(in.Cols[sch.Ingest].Ints, 0)
		in.Cols[sch.Index("v")].Ints = append(in.Cols[sch.Index("v")].Ints, int64(10*i))
	}
	for _, reuse := range []bool{false, true} {
		o := NewOut(sch, sch, 3)
		if reuse {
			o.Reuse()
		}
		var taken []*rows.Batch
		var got [][]int64
		for i := 0; i < 6; i += 3 {
			o.Add(in, i, i+3)
			b := o.Take()
			got = append(got, slices.Clone(b.Cols[sch.Index("v")].Ints))
			taken = append(taken, b)
		}
		if want := [][]int64{{0, 10, 20}, {30, 40, 50}}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("reuse %v: batches %v, want %v", reuse, got, want)
		}
		shared := &taken[0].Cols[sch.Time].Ints[0] == &taken[1].Cols[sch.Time].Ints[0]
		if shared != reuse {
			t.Errorf("reuse %v: the batches share memory: %v", reuse, shared)
		}
	}
}
