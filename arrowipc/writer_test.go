package arrowipc

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// writerSchema is a table of every column type: an int series, required
// and nullable values.
func writerSchema(t testing.TB) *schema.Table {
	tb, err := schema.NewWithoutIngest("ts", []string{"host", "shard"}, []schema.Field{
		{Name: "shard", Type: schema.Int},
		{Name: "mem", Type: schema.Long},
		{Name: "cpu", Type: schema.Double},
		{Name: "load", Type: schema.Float},
		{Name: "ok", Type: schema.Boolean},
		{Name: "note", Type: schema.String},
		{Name: "seen", Type: schema.Timestamptz},
		{Name: "n", Type: schema.Long, Required: true},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// randomBatch is n rows of tb: extreme and ordinary values, nulls in the
// nullable columns (and a column of nulls with no values at all, as the
// scan hands out).
func randomBatch(tb *schema.Table, n int, r *rand.Rand) *rows.Batch {
	b := &rows.Batch{Schema: tb, Cols: make([]rows.Column, len(tb.Fields)), Len: n}
	ints := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32}
	floats := []float64{0, math.Copysign(0, -1), 1.5, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, math.SmallestNonzeroFloat64}
	strs := []string{"", "a", "héllo", "日本", strings.Repeat("x", 300), "quote\"comma,\nline"}
	allNull := r.IntN(4) == 0
	for c, f := range tb.Fields {
		col := &b.Cols[c]
		nullable := !f.Required
		if nullable && allNull && c == len(tb.Fields)-2 {
			col.Nulls = make([]bool, n)
			for i := range col.Nulls {
				col.Nulls[i] = true
			}
			continue // no values: a column of nulls may carry none
		}
		for i := range n {
			null := nullable && r.IntN(5) == 0
			if null {
				if col.Nulls == nil {
					col.Nulls = make([]bool, n)
				}
				col.Nulls[i] = true
			}
			switch f.Type {
			case schema.Long:
				v := r.Int64() - math.MaxInt64/2
				if r.IntN(3) == 0 {
					v = ints[r.IntN(len(ints))]
				}
				col.Ints = append(col.Ints, v)
			case schema.Int:
				col.Ints = append(col.Ints, int64(int32(r.Uint32())))
			case schema.Timestamptz:
				col.Ints = append(col.Ints, schema.MinMicros+r.Int64N(schema.MaxMicros-schema.MinMicros))
			case schema.Double:
				v := r.NormFloat64() * 1e6
				if r.IntN(3) == 0 {
					v = floats[r.IntN(len(floats))]
				}
				col.Floats = append(col.Floats, v)
			case schema.Float:
				col.Floats = append(col.Floats, float64(float32(r.NormFloat64())))
			case schema.Boolean:
				col.Bools = append(col.Bools, r.IntN(2) == 0)
			case schema.String:
				col.Strs = append(col.Strs, strs[r.IntN(len(strs))]+fmt.Sprint(r.IntN(100)))
			}
			if null { // a null keeps a zero value
				switch {
				case f.Type.IsInteger():
					col.Ints[i] = 0
				case f.Type.IsFloat():
					col.Floats[i] = 0
				case f.Type == schema.Boolean:
					col.Bools[i] = false
				default:
					col.Strs[i] = ""
				}
			}
		}
	}
	return b
}

// cell renders row i of column c as text, for comparisons (NaN == NaN,
// -0 ≠ 0).
func cell(b *rows.Batch, c, i int) string {
	col := &b.Cols[c]
	if isNull(col, i) {
		return "null"
	}
	at := func(n int) bool { return i < n }
	switch f := b.Schema.Fields[c]; {
	case f.Type.IsInteger():
		if !at(len(col.Ints)) {
			return "0"
		}
		return fmt.Sprint(col.Ints[i])
	case f.Type.IsFloat():
		if !at(len(col.Floats)) {
			return "0"
		}
		if math.IsNaN(col.Floats[i]) {
			return "NaN"
		}
		return fmt.Sprintf("%x", math.Float64bits(col.Floats[i]))
	case f.Type == schema.Boolean:
		return fmt.Sprint(at(len(col.Bools)) && col.Bools[i])
	default:
		if !at(len(col.Strs)) {
			return `""`
		}
		return fmt.Sprintf("%q", col.Strs[i])
	}
}

func encode(t testing.TB, tb *schema.Table, batches []*rows.Batch) []byte {
	w, err := NewStreamWriter(tb)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, b := range batches {
		if out, err = w.Append(out, b); err != nil {
			t.Fatal(err)
		}
	}
	return w.End(out)
}

// TestWriterRoundTrip: random batches of every type written and read back
// through the reader give the same values, batch boundaries kept.
func TestWriterRoundTrip(t *testing.T) {
	tb := writerSchema(t)
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		var batches []*rows.Batch
		var want []string
		for range 1 + r.IntN(4) {
			b := randomBatch(tb, r.IntN(70), r)
			batches = append(batches, b)
			for i := range b.Len {
				want = append(want, renderRow(b, i))
			}
		}
		data := encode(t, tb, batches)
		rd, err := NewReader(data, tb, rows.Options{})
		if err != nil {
			t.Fatalf("round %d: NewReader: %v", round, err)
		}
		var got []string
		for {
			b, err := rd.Next(math.MaxInt)
			if err == io.EOF {
				break
			}
			if err != nil {
				var re *rows.Error
				if len(want) == 0 && asRowsError(err, &re) && re.Code == rows.CodeEmptyInput {
					break
				}
				t.Fatalf("round %d: Next: %v", round, err)
			}
			for i := range b.Len {
				got = append(got, renderRow(b, i))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("round %d: got %d rows, want %d", round, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("round %d row %d:\ngot  %s\nwant %s", round, i+1, got[i], want[i])
			}
		}
	}
}

func renderRow(b *rows.Batch, i int) string {
	var parts []string
	for c := range b.Schema.Fields {
		parts = append(parts, cell(b, c, i))
	}
	return strings.Join(parts, " ")
}

// TestWriterLayout: every message starts 8-aligned, every body buffer
// starts 8-aligned inside the body, the stream ends with the end marker,
// and a stream of no batch is the schema alone.
func TestWriterLayout(t *testing.T) {
	tb := writerSchema(t)
	r := rand.New(rand.NewPCG(3, 4))
	data := encode(t, tb, []*rows.Batch{randomBatch(tb, 13, r), randomBatch(tb, 0, r), randomBatch(tb, 65, r)})
	if !strings.HasSuffix(string(data), "\xff\xff\xff\xff\x00\x00\x00\x00") {
		t.Fatalf("no end-of-stream marker at the end")
	}
	kinds := ""
	for pos := 0; ; {
		if pos%8 != 0 {
			t.Fatalf("a message starts at byte %d, not 8-aligned", pos)
		}
		if n := binary.LittleEndian.Uint32(data[pos+4:]); n%8 != 0 {
			t.Fatalf("message at %d: metadata length %d is not a multiple of 8", pos, n)
		}
		m, next, err := readMessage(data, pos)
		if err != nil {
			t.Fatal(err)
		}
		if m == nil {
			break
		}
		kinds += fmt.Sprint(m.kind)
		if m.kind == headerRecordBatch {
			rb, err := readRecordBatch(m.header)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.body)%8 != 0 {
				t.Fatalf("message at %d: body of %d bytes", pos, len(m.body))
			}
			for j, b := range rb.buffers {
				if b.offset%8 != 0 || b.offset+b.length > int64(len(m.body)) {
					t.Fatalf("message at %d: buffer %d at %d (%d bytes) in a %d-byte body", pos, j, b.offset, b.length, len(m.body))
				}
			}
			if len(rb.nodes) != len(tb.Fields) {
				t.Fatalf("%d field nodes for %d fields", len(rb.nodes), len(tb.Fields))
			}
		}
		pos = next
	}
	if kinds != "1333" {
		t.Fatalf("message kinds %s, want a schema and three batches (1333)", kinds)
	}
	empty := encode(t, tb, nil)
	m, next, err := readMessage(empty, 0)
	if err != nil || m == nil || m.kind != headerSchema || len(empty)-next != 8 {
		t.Fatalf("an empty stream: %v, %v, %d bytes after the schema; want the schema and the end marker", m, err, len(empty)-next)
	}
	fields, err := readSchema(m.header)
	if err != nil || len(fields) != len(tb.Fields) {
		t.Fatalf("empty stream's schema: %d fields, %v", len(fields), err)
	}
	for i, f := range fields {
		want := tb.Fields[i]
		if f.name != want.Name || f.nullable == want.Required {
			t.Errorf("field %d: %q nullable %v, want %q nullable %v", i, f.name, f.nullable, want.Name, !want.Required)
		}
	}
	if got := fields[0].typ.String(); got != "timestamp[us, tz=UTC]" {
		t.Errorf("time column type %s, want timestamp[us, tz=UTC]", got)
	}
}

// TestWriterRefuses: a batch of another schema is an error naming the column.
func TestWriterRefuses(t *testing.T) {
	tb := writerSchema(t)
	w, err := NewStreamWriter(tb)
	if err != nil {
		t.Fatal(err)
	}
	other := *tb
	other.Fields = append([]schema.Field(nil), tb.Fields...)
	other.Fields[3].Type = schema.String
	b := randomBatch(&other, 3, rand.New(rand.NewPCG(5, 6)))
	if _, err := w.Append(nil, b); err == nil || !strings.Contains(err.Error(), `"mem"`) {
		t.Fatalf("got %v, want an error naming column mem", err)
	}
	// the refused batch left the stream as it was: the next one starts it
	out, err := w.Append(nil, randomBatch(tb, 3, rand.New(rand.NewPCG(5, 6))))
	if err != nil {
		t.Fatal(err)
	}
	if m, _, err := readMessage(out, 0); err != nil || m == nil || m.kind != headerSchema {
		t.Fatalf("after a refused batch, the stream starts with %v, %v; want the schema", m, err)
	}
}

func asRowsError(err error, re **rows.Error) bool {
	e, ok := err.(*rows.Error)
	*re = e
	return ok
}

// BenchmarkStreamWriter100k: 100k rows of every column type (some nulls)
// in 8192-row batches encoded into one reused buffer; bytes/s are those of
// the stream.
func BenchmarkStreamWriter100k(b *testing.B) {
	tb := writerSchema(b)
	r := rand.New(rand.NewPCG(9, 10))
	var batches []*rows.Batch
	for n := 100_000; n > 0; n -= 8192 {
		batches = append(batches, randomBatch(tb, min(n, 8192), r))
	}
	var buf []byte
	size := 0
	b.ReportAllocs()
	for b.Loop() {
		w, err := NewStreamWriter(tb)
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		for _, bt := range batches {
			if buf, err = w.Append(buf[:0], bt); err != nil {
				b.Fatal(err)
			}
			size += len(buf)
		}
		size += len(w.End(buf[:0]))
	}
	b.SetBytes(int64(size))
}
