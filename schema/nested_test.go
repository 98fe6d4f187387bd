package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseNested(t *testing.T) {
	cases := []struct{ raw, text, err string }{
		{`{"type":"map","key-id":5,"key":"string","value-id":6,"value":"string","value-required":false}`, "map<string, string>", ""},
		{`{"type":"list","element-id":7,"element":{"type":"list","element-id":8,"element":"long","element-required":true},"element-required":false}`, "list<list<long>>", ""},
		{`{"type":"struct","fields":[{"id":9,"name":"a","required":false,"type":"long"},{"id":10,"name":"b","required":true,"type":"string"}]}`, "struct<a: long, b: string>", ""},
		{`{"type":"list","element-id":7,"element":"decimal(9,2)","element-required":false}`, "", "decimal(9,2)"},
		{`{"type":"variant"}`, "", "not a struct, list or map"},
		{`{"type":"list","element-id":7,"element-required":false}`, "", "has no element"},
	}
	for _, c := range cases {
		nt, err := ParseNested(json.RawMessage(c.raw))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want one naming %q", c.raw, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
		if nt.String() != c.text {
			t.Errorf("%s: text %q, want %q", c.raw, nt.String(), c.text)
		}
		// the JSON written back reads as the same type
		again, err := ParseNested(nt.JSON())
		if err != nil || again.String() != c.text || again.MaxID() != nt.MaxID() {
			t.Errorf("%s: JSON %s reads back as %v (%v)", c.raw, nt.JSON(), again, err)
		}
	}
	deep := `"long"`
	for i := 0; i <= MaxNestDepth+1; i++ {
		deep = `{"type":"list","element-id":1,"element":` + deep + `}`
	}
	if _, err := ParseNested(json.RawMessage(deep)); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("a list %d deep: err %v, want refused", MaxNestDepth+2, err)
	}
	if _, err := New("ts", []string{"tags"}, []Field{{Name: "tags", Type: Nested}}, Day); err == nil || !strings.Contains(err.Error(), "is nested") {
		t.Errorf("nested series column: err %v, want refused", err)
	}
}
