package parquet

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Nested columns of every shape written and read back: random types
// (structs, lists, maps of primitive keys, every leaf type, optional or
// required, to a few levels) and random values (nulls, empties, NaN,
// unicode), in every page layout; the reader's text is the writer's
// input, row for row.

type nestedGen struct {
	r  *rand.Rand
	id int
}

var genPrims = []schema.Type{schema.Long, schema.Int, schema.Double, schema.Float, schema.Boolean, schema.String,
	schema.Timestamptz, schema.Timestamp, schema.TimestamptzNs, schema.TimestampNs}

func (g *nestedGen) field(name string, depth int) schema.NestedField {
	g.id++
	f := schema.NestedField{ID: g.id, Name: name, Required: g.r.IntN(3) == 0}
	f.Type = g.typ(depth)
	return f
}

func (g *nestedGen) prim() *schema.NestedType {
	return &schema.NestedType{Kind: schema.KindPrimitive, Prim: genPrims[g.r.IntN(len(genPrims))]}
}

func (g *nestedGen) typ(depth int) *schema.NestedType {
	k := g.r.IntN(4)
	if depth <= 0 {
		k = 0
	}
	switch k {
	case 1:
		t := &schema.NestedType{Kind: schema.KindStruct}
		for i := range 1 + g.r.IntN(3) {
			t.Fields = append(t.Fields, g.field(fmt.Sprintf("f%d", i), depth-1))
		}
		return t
	case 2:
		e := g.field("element", depth-1)
		return &schema.NestedType{Kind: schema.KindList, Elem: &e}
	case 3:
		g.id++
		key := schema.NestedField{ID: g.id, Name: "key", Required: true, Type: g.prim()}
		v := g.field("value", depth-1)
		return &schema.NestedType{Kind: schema.KindMap, Key: &key, Value: &v}
	}
	return g.prim()
}

// value is a random JSON text of t (null allowed unless required).
func (g *nestedGen) value(b *strings.Builder, t *schema.NestedType, required bool) {
	if !required && g.r.IntN(6) == 0 {
		b.WriteString("null")
		return
	}
	switch t.Kind {
	case schema.KindPrimitive:
		b.WriteString(g.leaf(t.Prim, true))
	case schema.KindStruct:
		b.WriteByte('{')
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(f.Name) + ":")
			g.value(b, f.Type, f.Required)
		}
		b.WriteByte('}')
	case schema.KindList:
		b.WriteByte('[')
		for i := range g.r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			g.value(b, t.Elem.Type, t.Elem.Required)
		}
		b.WriteByte(']')
	case schema.KindMap:
		b.WriteByte('{')
		seen := map[string]bool{}
		for i := range g.r.IntN(4) {
			k := g.leaf(t.Key.Type.Prim, false)
			if seen[k] {
				continue
			}
			seen[k] = true
			if i > 0 && len(seen) > 1 {
				b.WriteByte(',')
			}
			b.Write(rows.AppendJSONString(nil, k))
			b.WriteByte(':')
			g.value(b, t.Value.Type, t.Value.Required)
		}
		b.WriteByte('}')
	}
}

func (g *nestedGen) leaf(t schema.Type, quoted bool) string {
	r := g.r
	q := func(s string) string {
		if quoted {
			return string(rows.AppendJSONString(nil, s))
		}
		return s
	}
	switch t {
	case schema.Long:
		return strconv.FormatInt([]int64{0, -1, math.MaxInt64, math.MinInt64, r.Int64N(1000)}[r.IntN(5)], 10)
	case schema.Int:
		return strconv.FormatInt(int64(int32(r.Uint32())), 10)
	case schema.Double, schema.Float:
		bits := 64
		if t == schema.Float {
			bits = 32
		}
		f := []float64{0, 1.5, -2, math.NaN(), math.Inf(1), 1e300, r.Float64()}[r.IntN(7)]
		if bits == 32 && math.Abs(f) > math.MaxFloat32 && !math.IsInf(f, 0) {
			f = 3.25
		}
		s := strconv.FormatFloat(f, 'g', -1, bits)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return q(s)
		}
		return s
	case schema.Boolean:
		return strconv.FormatBool(r.IntN(2) == 0)
	case schema.String:
		return q([]string{"", "a", "ключ 🙂", "\"q\"\\\n", fmt.Sprintf("s%d", r.IntN(50))}[r.IntN(5)])
	}
	us := r.Int64N(4e15) - 1e15
	var b []byte
	if t.Nanos() {
		b = rows.AppendNanosText(nil, us*1000+r.Int64N(1000), t.Zoned())
	} else {
		b = rows.AppendMicrosText(nil, us, t.Zoned())
	}
	return q(string(b))
}

// roundTrip writes the rows (nil a null) of a column of type nt with opt
// and reads them back.
func roundTrip(t testing.TB, nt *schema.NestedType, required bool, vals []*string, opt Options) []*string {
	t.Helper()
	specs := []ColumnSpec{
		{Name: "ts", FieldID: 1000, Type: schema.Long, Required: true},
		{Name: "v", FieldID: 1001, Type: schema.Nested, Nested: nt, Required: required},
	}
	w, err := NewWriter(specs, opt)
	if err != nil {
		t.Fatal(err)
	}
	ts := rows.Column{Ints: make([]int64, len(vals))}
	for i := range ts.Ints {
		ts.Ints[i] = int64(i)
	}
	if err := w.Write([]rows.Column{ts, mapColumn(vals)}, len(vals)); err != nil {
		t.Fatal(err)
	}
	data, _, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	var got []*string
	for rg := range f.Meta().RowGroups {
		col, err := f.ReadNested(rg, 0, nil)
		if err != nil {
			t.Fatalf("%s: row group %d: %v", nt, rg, err)
		}
		for i, s := range col.Strs {
			if col.IsNull(i) {
				got = append(got, nil)
			} else {
				got = append(got, &s)
			}
		}
	}
	return got
}

func checkNestedRoundTrip(t testing.TB, seed uint64, opt Options) {
	g := &nestedGen{r: rand.New(rand.NewPCG(seed, seed>>7))}
	nt := g.typ(3)
	for nt.Kind == schema.KindPrimitive {
		nt = g.typ(3)
	}
	required := g.r.IntN(3) == 0
	n := 1 + g.r.IntN(60)
	vals := make([]*string, n)
	var tr rows.NestedTree
	for i := range vals {
		if !required && g.r.IntN(8) == 0 {
			continue
		}
		var b strings.Builder
		g.value(&b, nt, true)
		// the table holds the reader's text (rows canonicalizes it)
		text, _, err := rows.CanonicalNested(&tr, nt, b.String(), nil)
		if err != nil {
			t.Fatalf("seed %d: %s: generated %s: %v", seed, nt, b.String(), err)
		}
		vals[i] = &text
	}
	got := roundTrip(t, nt, required, vals, opt)
	if len(got) != n {
		t.Fatalf("seed %d: %s: %d rows, want %d", seed, nt, len(got), n)
	}
	for i := range vals {
		if show(got[i]) != show(vals[i]) {
			t.Fatalf("seed %d: %s: row %d: %s, want %s", seed, nt, i, show(got[i]), show(vals[i]))
		}
	}
}

var nestedOpts = []Options{
	{},
	{Compat: true, Codec: Snappy},
	{PageRowLimit: 3, RowGroupRows: 7, Codec: Uncompressed},
	{PageRowLimit: 5, RowGroupRows: 11, Compat: true, Codec: Snappy},
	{PageBytes: 60, Codec: Zstd},
}

// TestWriteNestedRandom: 300 random types and values in each layout.
func TestWriteNestedRandom(t *testing.T) {
	for seed := range uint64(300) {
		checkNestedRoundTrip(t, seed, nestedOpts[seed%uint64(len(nestedOpts))])
	}
}

// FuzzNestedLevels: the levels the writer shreds a random nested value
// into assemble back into the same value.
func FuzzNestedLevels(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint8(seed))
	}
	f.Fuzz(func(t *testing.T, seed uint64, layout uint8) {
		checkNestedRoundTrip(t, seed, nestedOpts[int(layout)%len(nestedOpts)])
	})
}

// TestWriteNestedShapes: fixed shapes with their levels' edge cases
// (required structs of required leaves: no levels at all; lists of lists;
// maps of long keys to structs), and the file's schema and field ids.
func TestWriteNestedShapes(t *testing.T) {
	parse := func(js string) *schema.NestedType {
		nt, err := schema.ParseNested([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		return nt
	}
	cases := []struct {
		typ      string
		required bool
		vals     []string // "" a null row
	}{
		{`{"type":"struct","fields":[{"id":2,"name":"a","required":true,"type":"long"},{"id":3,"name":"b","required":true,"type":"string"}]}`, true,
			[]string{`{"a":1,"b":"x"}`, `{"a":-5,"b":""}`}},
		{`{"type":"list","element-id":2,"element-required":false,"element":{"type":"list","element-id":3,"element-required":true,"element":"int"}}`, false,
			[]string{`[[1,2],[],null,[3]]`, ``, `[]`, `[[]]`, `[null,null]`}},
		{`{"type":"map","key-id":2,"key":"long","value-id":3,"value-required":false,"value":{"type":"struct","fields":[{"id":4,"name":"x","required":false,"type":"double"},{"id":5,"name":"l","required":false,"type":{"type":"list","element-id":6,"element-required":false,"element":"boolean"}}]}}`, false,
			[]string{`{"1":{"x":1.5,"l":[true,null]},"2":null,"-3":{"x":null,"l":null}}`, `{}`, ``, `{"4":{"x":"NaN","l":[]}}`}},
	}
	for _, c := range cases {
		nt := parse(c.typ)
		vals := make([]*string, len(c.vals))
		for i, v := range c.vals {
			if v != "" {
				vals[i] = &c.vals[i]
			}
		}
		for _, o := range nestedOpts {
			got := roundTrip(t, nt, c.required, vals, o)
			for i := range vals {
				if i >= len(got) || show(got[i]) != show(vals[i]) {
					t.Fatalf("%s %+v: row %d: %v, want %s", nt, o, i, got, show(vals[i]))
				}
			}
		}
	}
	// the schema: ids of every node, the LIST and MAP layouts
	nt := parse(cases[2].typ)
	w, err := NewWriter([]ColumnSpec{{Name: "m", FieldID: 1, Type: schema.Nested, Nested: nt}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]rows.Column{mapColumn([]*string{&cases[2].vals[0]})}, 1); err != nil {
		t.Fatal(err)
	}
	data, _, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range f.Meta().Columns {
		paths = append(paths, fmt.Sprintf("%s=%d", strings.Join(c.Path, "."), c.FieldID))
	}
	want := "m.key_value.key=2 m.key_value.value.x=4 m.key_value.value.l.list.element=6"
	if strings.Join(paths, " ") != want {
		t.Fatalf("leaves %v, want %s", paths, want)
	}
	// leaf statistics: the keys 1, 2, -3; the x values 1.5 (one of three
	// entries null); no column index
	cc := f.Meta().RowGroups[0].Columns
	st := cc[0].Meta.Stats
	if !st.HasMin || int64(binary.LittleEndian.Uint64(st.Min)) != -3 || int64(binary.LittleEndian.Uint64(st.Max)) != 2 || st.NullCount != 0 {
		t.Errorf("key statistics %+v, want -3..2, no nulls", st)
	}
	if st := cc[1].Meta.Stats; !st.HasMin || math.Float64frombits(binary.LittleEndian.Uint64(st.Min)) != 1.5 || st.NullCount != 2 {
		t.Errorf("x statistics %+v, want 1.5..1.5, 2 nulls", st)
	}
	for _, c := range cc {
		if c.HasColumnIndex {
			t.Errorf("leaf %v has a column index", c.Meta.Path)
		}
	}
}

// TestWriteNestedPlainFallback: a nested string leaf whose dictionary
// passes DictionaryLimit falls back to PLAIN like a flat column, and its
// values read back the same.
func TestWriteNestedPlainFallback(t *testing.T) {
	nt, err := schema.ParseNested([]byte(`{"type":"list","element-id":2,"element-required":false,"element":"string"}`))
	if err != nil {
		t.Fatal(err)
	}
	const n = 6000
	vals := make([]*string, n)
	for i := range vals {
		s := fmt.Sprintf(`["%0200d",null,"k%d"]`, i, i%3)
		vals[i] = &s
	}
	for _, o := range []Options{{}, {Compat: true}} {
		got := roundTrip(t, nt, false, vals, o)
		for i := range vals {
			if show(got[i]) != show(vals[i]) {
				t.Fatalf("%+v: row %d: %s, want %s", o, i, show(got[i]), show(vals[i]))
			}
		}
		w, err := NewWriter([]ColumnSpec{{Name: "v", FieldID: 1, Type: schema.Nested, Nested: nt}}, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write([]rows.Column{mapColumn(vals)}, n); err != nil {
			t.Fatal(err)
		}
		data, _, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(data)
		if err != nil {
			t.Fatal(err)
		}
		m := f.Meta().RowGroups[0].Columns[0].Meta
		if !slices.Contains(m.Encodings, EncPlain) || !m.HasDictionaryPage {
			t.Errorf("%+v: encodings %v (dictionary page %v), want a dictionary then PLAIN", o, m.Encodings, m.HasDictionaryPage)
		}
	}
}
