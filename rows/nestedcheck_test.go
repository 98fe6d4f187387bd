package rows

import (
	"strings"
	"testing"

	"github.com/timelake/timelake/schema"
)

// TestCheckNestedRepeats: a hand-built batch whose rows repeat texts (as
// labels do; checkNested parses each distinct text once) has every row
// made the reader's text, and a bad text is refused at its first row
// even after good ones were remembered.
func TestCheckNestedRepeats(t *testing.T) {
	_, nt, err := schema.ParseTypeText("map<string, long>")
	if err != nil {
		t.Fatal(err)
	}
	sch := &schema.Table{Fields: []schema.Field{{ID: 1, Name: "m", Type: schema.Nested, Nested: nt}}}
	in := []string{`{ "a" : 1 }`, `{"b":2}`, `{ "a" : 1 }`, `{ "a" : 1 }`, `{"b":2}`, `{"a":1}`, `{ "a" : 1 }`}
	want := []string{`{"a":1}`, `{"b":2}`, `{"a":1}`, `{"a":1}`, `{"b":2}`, `{"a":1}`, `{"a":1}`}
	b := &Batch{Schema: sch, Len: len(in), Cols: []Column{{Strs: append([]string(nil), in...)}}}
	if err := CheckValueSizes(b); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.Cols[0].Strs, " "); got != strings.Join(want, " ") {
		t.Fatalf("checked texts %s, want %s", got, strings.Join(want, " "))
	}
	// an empty text after a null first row is no value either
	b = &Batch{Schema: sch, Len: 2, Cols: []Column{{Strs: []string{"", ""}, Nulls: []bool{true, false}}}}
	if e, ok := CheckValueSizes(b).(*Error); !ok || e.Row != 2 || e.Code != CodeTypeMismatch {
		t.Fatalf("empty text: %v, want TYPE_MISMATCH at row 2", e)
	}
	bad := append(append([]string(nil), in...), `{"a":"x"}`, `{ "a" : 1 }`, `{"a":"x"}`)
	b = &Batch{Schema: sch, Len: len(bad), Cols: []Column{{Strs: bad}}}
	err = CheckValueSizes(b)
	if e, ok := err.(*Error); !ok || e.Row != 8 || e.Code != CodeTypeMismatch || e.Column != "m" {
		t.Fatalf("bad text: %v, want TYPE_MISMATCH at row 8 of column m", err)
	}
}
