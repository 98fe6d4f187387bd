package main

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestNestedFits: a Parquet input's nested shape against the table's: the
// same shape, int into long, float into double and an optional struct
// field the file lacks fit; a struct field the table lacks, a required
// field the file lacks or has optional, and a leaf or kind that differs
// are refused, each naming the path.
func TestNestedFits(t *testing.T) {
	typ := func(js string) *schema.NestedType {
		nt, err := schema.ParseNested(json.RawMessage(js))
		if err != nil {
			t.Fatal(err)
		}
		return nt
	}
	table := typ(`{"type":"struct","fields":[{"id":1,"name":"a","required":true,"type":"long"},{"id":2,"name":"b","type":{"type":"list","element-id":3,"element":"double"}},{"id":4,"name":"c","type":"string"}]}`)
	for _, c := range []struct {
		file, code, path string
	}{
		{`{"type":"struct","fields":[{"id":1,"name":"a","required":true,"type":"long"},{"id":2,"name":"b","type":{"type":"list","element-id":3,"element":"double"}},{"id":4,"name":"c","type":"string"}]}`, "", ""},
		{`{"type":"struct","fields":[{"id":0,"name":"a","required":true,"type":"int"},{"id":0,"name":"b","type":{"type":"list","element-id":0,"element":"float"}}]}`, "", ""},
		{`{"type":"struct","fields":[{"id":0,"name":"a","required":true,"type":"long"},{"id":0,"name":"z","type":"long"}]}`, rows.CodeUnknownColumn, "col.z"},
		{`{"type":"struct","fields":[{"id":0,"name":"b","type":{"type":"list","element-id":0,"element":"double"}}]}`, rows.CodeMissingColumn, "col.a"},
		{`{"type":"struct","fields":[{"id":0,"name":"a","type":"long"}]}`, rows.CodeMissingColumn, "col.a"},
		{`{"type":"struct","fields":[{"id":0,"name":"a","required":true,"type":"string"}]}`, rows.CodeTypeMismatch, "col.a"},
		{`{"type":"struct","fields":[{"id":0,"name":"a","required":true,"type":"long"},{"id":0,"name":"b","type":{"type":"list","element-id":0,"element":"long"}}]}`, rows.CodeTypeMismatch, "col.b.element"},
		{`{"type":"struct","fields":[{"id":0,"name":"a","required":true,"type":"long"},{"id":0,"name":"b","type":{"type":"map","key-id":0,"key":"string","value-id":0,"value":"double"}}]}`, rows.CodeTypeMismatch, "col.b"},
		{`{"type":"list","element-id":0,"element":"long"}`, rows.CodeTypeMismatch, "col"},
	} {
		_, err := nestedFits(typ(c.file), table, "col", false)
		var re *rows.Error
		switch {
		case c.code == "" && err != nil:
			t.Errorf("%s: %v, want it to fit", c.file, err)
		case c.code != "" && (!errors.As(err, &re) || re.Code != c.code || re.Column != c.path):
			t.Errorf("%s: %v, want %s naming %s", c.file, err, c.code, c.path)
		}
	}
	// with --ignore-unknown a struct field the table lacks is passed over
	// and said; other mismatches are refused as without it
	extra := typ(`{"type":"struct","fields":[{"id":0,"name":"a","required":true,"type":"long"},{"id":0,"name":"z","type":"long"}]}`)
	if skipped, err := nestedFits(extra, table, "col", true); err != nil || !skipped {
		t.Errorf("an extra field with skip: skipped %v, %v", skipped, err)
	}
	if skipped, err := nestedFits(table, table, "col", true); err != nil || skipped {
		t.Errorf("the same shape with skip: skipped %v, %v", skipped, err)
	}
	wrong := typ(`{"type":"struct","fields":[{"id":0,"name":"a","required":true,"type":"string"},{"id":0,"name":"z","type":"long"}]}`)
	var re *rows.Error
	if _, err := nestedFits(wrong, table, "col", true); !errors.As(err, &re) || re.Code != rows.CodeTypeMismatch || re.Column != "col.a" {
		t.Errorf("a wrong leaf with skip: %v", err)
	}
}
