package parquet

import (
	"fmt"
	"math/rand/v2"
	"testing"

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
