package scan

import (
	"errors"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestWhereVariantRefused: a label filter into a variant column, or ending
// on a struct's variant field, is BAD_FILTER naming the variant.
func TestWhereVariantRefused(t *testing.T) {
	sch := whereSchema(t)
	_, st, err := schema.ParseTypeText("struct<a: long, v: variant>")
	if err != nil {
		t.Fatal(err)
	}
	sch.Fields = append(sch.Fields,
		schema.Field{ID: 90, Name: "v", Type: schema.Nested, Nested: schema.VariantType()},
		schema.Field{ID: 91, Name: "sv", Type: schema.Nested, Nested: st})
	for _, c := range []struct{ expr, at string }{
		{`v[a]=1`, "v is a variant"},
		{`v.a=1`, "v is a variant"},
		{`v=1`, "v is a variant"},
		{`sv.v=x`, "sv.v is a variant"},
		{`sv.v[k]!=x`, "sv.v is a variant"},
	} {
		_, err := ParseWheres(sch, []string{c.expr})
		if err == nil || !strings.Contains(err.Error(), c.at) || !strings.Contains(err.Error(), "not into a variant") {
			t.Errorf("where %q: %v, want an error saying %q", c.expr, err, c.at)
			continue
		}
		var re *rows.Error
		if !errors.As(err, &re) || re.Code != CodeBadFilter {
			t.Errorf("where %q: %v, want code %s", c.expr, err, CodeBadFilter)
		}
	}
	// the struct's other field is still filtered
	if _, err := ParseWheres(sch, []string{`sv.a=1`}); err != nil {
		t.Errorf("where sv.a=1: %v", err)
	}
}
