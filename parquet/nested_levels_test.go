package parquet

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/timelake/timelake/schema"
)

// Golden cases of putting rows together from levels, on schemas written
// out element by element (as footers list them) with the levels and
// values a writer stores for them.
func TestAssembleGolden(t *testing.T) {
	opt, req, rep := int32(repOptional), int32(repRequired), int32(repRepeated)
	grp := func(name string, r int32, n int32, lt logicalKind) schemaElement {
		return schemaElement{Name: name, NumChildren: n, Repetition: r, HasRepetition: true, Logical: logicalType{Kind: lt}}
	}
	i64 := func(name string, r int32) schemaElement {
		return schemaElement{Name: name, Type: TypeInt64, HasType: true, Repetition: r, HasRepetition: true}
	}
	str := func(name string, r int32) schemaElement {
		return schemaElement{Name: name, Type: TypeByteArray, HasType: true, Repetition: r, HasRepetition: true, Logical: logicalType{Kind: logicalString}}
	}
	type leaf struct {
		rep, def []uint8
		ints     []int64
		strs     []string
	}
	cases := []struct {
		name   string
		els    []schemaElement // the column's elements, top first
		leaves []leaf
		want   []string // "" for a null row
	}{
		{"list<long>: empty, null, of nulls", []schemaElement{grp("l", opt, 1, logicalList), grp("list", rep, 1, 0), i64("element", opt)},
			// rows: [1,2], [], null, [null], [null,3]
			[]leaf{{rep: []uint8{0, 1, 0, 0, 0, 0, 1}, def: []uint8{3, 3, 1, 0, 2, 2, 3}, ints: []int64{1, 2, 3}}},
			[]string{"[1,2]", "[]", "", "[null]", "[null,3]"}},
		{"list<list<long>>", []schemaElement{grp("ll", opt, 1, logicalList), grp("list", rep, 1, 0), grp("element", opt, 1, logicalList), grp("list", rep, 1, 0), i64("element", opt)},
			// rows: [[1,2],[],null,[3]], [], null, [[null]]
			[]leaf{{rep: []uint8{0, 2, 1, 1, 1, 0, 0, 0}, def: []uint8{5, 5, 3, 2, 5, 1, 0, 4}, ints: []int64{1, 2, 3}}},
			[]string{"[[1,2],[],null,[3]]", "[]", "", "[[null]]"}},
		{"map<string,string> with null values", []schemaElement{grp("m", opt, 1, logicalMap), grp("key_value", rep, 2, 0), str("key", req), str("value", opt)},
			// rows: {a:x, b:null}, {}, null
			[]leaf{{rep: []uint8{0, 1, 0, 0}, def: []uint8{2, 2, 1, 0}, strs: []string{"a", "b"}},
				{rep: []uint8{0, 1, 0, 0}, def: []uint8{3, 2, 1, 0}, strs: []string{"x"}}},
			[]string{`{"a":"x","b":null}`, "{}", ""}},
		{"struct<a:long,b:string> with null fields", []schemaElement{grp("s", opt, 2, 0), i64("a", opt), str("b", opt)},
			// rows: {a:1,b:"q"}, null, {a:null,b:null}, {a:2,b:null}
			[]leaf{{rep: []uint8{0, 0, 0, 0}, def: []uint8{2, 0, 1, 2}, ints: []int64{1, 2}},
				{rep: []uint8{0, 0, 0, 0}, def: []uint8{2, 0, 1, 1}, strs: []string{"q"}}},
			[]string{`{"a":1,"b":"q"}`, "", `{"a":null,"b":null}`, `{"a":2,"b":null}`}},
		{"2-level list of a repeated primitive", []schemaElement{grp("l", opt, 1, logicalList), i64("array", rep)},
			// rows: [7,8], [], null
			[]leaf{{rep: []uint8{0, 1, 0, 0}, def: []uint8{2, 2, 1, 0}, ints: []int64{7, 8}}},
			[]string{"[7,8]", "[]", ""}},
		{"2-level list of a repeated group named array", []schemaElement{grp("l", opt, 1, logicalList), grp("array", rep, 1, 0), i64("x", opt)},
			// rows: [{x:1},{x:null}], null
			[]leaf{{rep: []uint8{0, 1, 0}, def: []uint8{3, 2, 0}, ints: []int64{1}}},
			[]string{`[{"x":1},{"x":null}]`, ""}},
		{"unannotated repeated field", []schemaElement{i64("r", rep)},
			// rows: [1,2], []
			[]leaf{{rep: []uint8{0, 1, 0}, def: []uint8{1, 1, 0}, ints: []int64{1, 2}}},
			[]string{"[1,2]", "[]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := &FileMeta{schema: append([]schemaElement{{Name: "schema", NumChildren: 1}}, tc.els...)}
			if err := m.columns(); err != nil {
				t.Fatal(err)
			}
			if len(m.Nested) != 1 || len(m.Columns) != len(tc.leaves) {
				t.Fatalf("%d nested columns, %d leaves; want 1 and %d", len(m.Nested), len(m.Columns), len(tc.leaves))
			}
			cursors := func() map[int]*leafCursor {
				ls := map[int]*leafCursor{}
				for i, l := range tc.leaves {
					ls[i] = &leafCursor{typ: m.Columns[i].Type, data: leafData{rep: l.rep, def: l.def,
						vals: values{ints: l.ints, strs: l.strs}, nvals: len(l.ints) + len(l.strs)}}
				}
				return ls
			}
			col, err := assemble(m.Nested[0].root, cursors(), int64(len(tc.want)), nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range tc.want {
				got := col.Strs[i]
				if col.IsNull(i) {
					got = ""
				}
				if got != w || (w == "") != col.IsNull(i) {
					t.Errorf("row %d: %q (null %v), want %q", i, got, col.IsNull(i), w)
				}
			}
			// one row more than the levels hold, or one fewer, is corrupt
			for _, n := range []int64{int64(len(tc.want)) + 1, int64(len(tc.want)) - 1} {
				if _, err := assemble(m.Nested[0].root, cursors(), n, nil); !errors.Is(err, ErrCorrupt) {
					t.Errorf("%d rows: err %v, want ErrCorrupt", n, err)
				}
			}
		})
	}
}

func TestAppendMicros(t *testing.T) {
	for _, us := range []int64{0, 1, -1, 1_700_000_000_123_456, -62_135_596_800_000_000, 253_402_300_799_999_999, 951_782_400_000_000, -86_400_000_001} {
		want := time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000")
		if got := string(appendMicros(nil, us, false)); got != want {
			t.Errorf("%d: %s, want %s", us, got, want)
		}
	}
	if got := string(appendMicros(nil, 0, true)); got != "1970-01-01T00:00:00.000000Z" {
		t.Errorf("zone: %s", got)
	}
	// a nanosecond timestamp in a nested leaf: 9 digits, as scan prints one
	a := &assembler{}
	l := &leafCursor{typ: schema.TimestamptzNs, data: leafData{vals: values{ints: []int64{-1}}, nvals: 1}}
	if err := a.leafValue(l, false); err != nil || string(a.buf) != `"1969-12-31T23:59:59.999999999Z"` {
		t.Errorf("nanos: %s %v", a.buf, err)
	}
}

// TestAssembleRandomLevels feeds the golden schemas' trees levels and
// values drawn at random (within each leaf's maxima, as the page decoder
// guarantees): an error or exactly the rows asked for, never a panic or a
// read past a leaf's entries.
func TestAssembleRandomLevels(t *testing.T) {
	opt, rep := int32(repOptional), int32(repRepeated)
	grp := func(name string, r int32, n int32, lt logicalKind) schemaElement {
		return schemaElement{Name: name, NumChildren: n, Repetition: r, HasRepetition: true, Logical: logicalType{Kind: lt}}
	}
	i64 := func(name string, r int32) schemaElement {
		return schemaElement{Name: name, Type: TypeInt64, HasType: true, Repetition: r, HasRepetition: true}
	}
	schemas := [][]schemaElement{
		{grp("ll", opt, 1, logicalList), grp("list", rep, 1, 0), grp("element", opt, 1, logicalList), grp("list", rep, 1, 0), i64("element", opt)},
		{grp("m", opt, 1, logicalMap), grp("key_value", rep, 2, 0), i64("key", int32(repRequired)), i64("value", opt)},
		{grp("s", opt, 2, 0), grp("xs", opt, 1, logicalList), grp("list", rep, 1, 0), i64("element", opt), i64("b", opt)},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, els := range schemas {
		m := &FileMeta{schema: append([]schemaElement{{Name: "schema", NumChildren: 1}}, els...)}
		if err := m.columns(); err != nil {
			t.Fatal(err)
		}
		ok := 0
		for range 20000 {
			leaves := map[int]*leafCursor{}
			n := 1 + rng.IntN(6)
			for c, col := range m.Columns {
				l := &leafCursor{typ: col.Type}
				for range n {
					l.data.rep = append(l.data.rep, uint8(rng.IntN(int(col.MaxRep)+1)))
					d := uint8(rng.IntN(int(col.MaxDef) + 1))
					l.data.def = append(l.data.def, d)
					if d == col.MaxDef {
						l.data.vals.ints = append(l.data.vals.ints, int64(c))
						l.data.nvals++
					}
				}
				l.data.rep[0] = 0
				leaves[c] = l
			}
			rows := int64(1 + rng.IntN(3))
			col, err := assemble(m.Nested[0].root, leaves, rows, nil)
			if err == nil {
				ok++
				if int64(len(col.Strs)) != rows {
					t.Fatalf("%d rows, asked for %d", len(col.Strs), rows)
				}
			} else if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err %v, want ErrCorrupt", err)
			}
		}
		if ok == 0 {
			t.Errorf("%s: no random levels assembled: the test tries nothing valid", els[0].Name)
		}
	}
}
