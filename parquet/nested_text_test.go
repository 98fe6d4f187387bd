package parquet

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestReadNestedLabelRows: a map<string, string> of labels repeated row
// after row (dictionary-encoded leaves, read as indexes into the
// dictionary and printed from its entries' JSON strings), with null rows,
// empty maps and strings needing escapes, over enough rows that their
// texts span many textChunk buffers, reads back every row as written:
// null rows as null, no row's text running into the next one's.
func TestReadNestedLabelRows(t *testing.T) {
	nt, err := schema.ParseNested([]byte(`{"type":"map","key-id":2,"key":"string","value-id":3,"value":"string","value-required":false}`))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 27))
	const n = 20000
	vals := make([]*string, n)
	size := 0
	for i := range vals {
		var s string
		switch k := rng.IntN(20); {
		case k == 0:
			continue // a null row
		case k == 1:
			s = `{}`
		default:
			s = fmt.Sprintf(`{"env":"prod","host":"h-%d","q":"a\"b\\c\n%d","status":"%d","v":null}`, i%100, i%7, 200+100*(i%4))
		}
		size += len(s)
		vals[i] = &s
	}
	if size < 10*textChunk {
		t.Fatalf("%d bytes of text, want several chunks", size)
	}
	for _, o := range []Options{{}, {Compat: true}} {
		got := roundTrip(t, nt, false, vals, o)
		if len(got) != n {
			t.Fatalf("%d rows, want %d", len(got), n)
		}
		for i := range vals {
			if show(got[i]) != show(vals[i]) {
				t.Fatalf("%+v: row %d: %s, want %s", o, i, show(got[i]), show(vals[i]))
			}
		}
	}
}

// TestReadNestedSecondDictionary: a string leaf's values held as indexes
// point into the chunk's dictionary, so a dictionary page after them (a
// chunk has one) is refused as corrupt rather than read against the wrong
// entries.
func TestReadNestedSecondDictionary(t *testing.T) {
	nt, err := schema.ParseNested([]byte(`{"type":"map","key-id":2,"key":"string","value-id":3,"value":"string","value-required":false}`))
	if err != nil {
		t.Fatal(err)
	}
	s := `{"env":"prod"}`
	w, err := NewWriter([]ColumnSpec{{Name: "v", FieldID: 1, Type: schema.Nested, Nested: nt}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]rows.Column{mapColumn([]*string{&s, &s})}, 2); err != nil {
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
	m := f.Meta()
	c := m.Nested[0].Leaves()[0]
	ch, err := m.Chunk(0, c)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.bytes(m.RowGroups[0].Columns[c].Start(), ch.Meta.TotalCompressedSize)
	if err != nil {
		t.Fatal(err)
	}
	h, hlen, err := readPageHeader(b)
	if err != nil || h.Type == pageData || h.Type == pageDataV2 {
		t.Fatalf("first page %+v (%v), want a dictionary page", h, err)
	}
	var ok leafData
	if err := DecodeLeaf(ch, b, &ok); err != nil || len(ok.idx) != 2 {
		t.Fatalf("the chunk as written: %v, %d indexes", err, len(ok.idx))
	}
	twice := append(append([]byte{}, b...), b[:hlen+int(h.CompressedSize)]...)
	var out leafData
	if err := DecodeLeaf(ch, twice, &out); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a second dictionary page: %v, want ErrCorrupt", err)
	}
}
