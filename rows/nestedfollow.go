package rows

import (
	"fmt"
	"slices"

	"github.com/timelake/timelake/schema"
)

// followNested re-prints the first n rows of c, the JSON texts of a nested
// column of type from, as values of to, the same column's type in a newer
// schema: its struct fields matched by field id, as Iceberg matches them
// (a field to adds null, one it dropped left out, one renamed under its
// new name, the fields in to's order). Rows held in memory (the last-value
// index) would otherwise keep the shape of the schema they were read in,
// where a scan of the same rows gives the new one. c's texts are not
// changed: a new column is returned when one differs. A text that does
// not read as from is an error.
func followNested(c Column, n int, from, to *schema.NestedType) (Column, error) {
	if from.String() == to.String() && slices.Equal(from.NodeIDs(), to.NodeIDs()) {
		return c, nil
	}
	bridge, err := namedAs(to, from)
	if err != nil {
		return c, err
	}
	tr := NestedTree{SkipUnknown: true}
	var buf []byte
	out := c
	cloned := false
	for r := 0; r < n; r++ {
		if c.IsNull(r) {
			continue
		}
		if err := tr.Parse(bridge, c.Strs[r]); err != nil {
			return c, fmt.Errorf("row %d: %w", r+1, err)
		}
		buf = tr.AppendText(buf[:0], to)
		if string(buf) == c.Strs[r] {
			continue
		}
		if !cloned {
			out.Strs, cloned = slices.Clone(c.Strs), true
		}
		out.Strs[r] = string(buf)
	}
	return out, nil
}

// namedAs is to with each struct field that from has (by field id) under
// from's name, so that a text of from reads into to's shape: parsed with
// it, the tree's nodes are to's, and printed with to, under to's names.
func namedAs(to, from *schema.NestedType) (*schema.NestedType, error) {
	if to.Kind != from.Kind {
		return nil, fmt.Errorf("a %s was a %s", to, from)
	}
	out := *to
	switch to.Kind {
	case schema.KindStruct:
		out.Fields = slices.Clone(to.Fields)
		for i, f := range out.Fields {
			for _, g := range from.Fields {
				if g.ID != f.ID {
					continue
				}
				t, err := namedAs(f.Type, g.Type)
				if err != nil {
					return nil, err
				}
				out.Fields[i].Name, out.Fields[i].Type = g.Name, t
			}
		}
	case schema.KindList:
		e := *to.Elem
		t, err := namedAs(to.Elem.Type, from.Elem.Type)
		if err != nil {
			return nil, err
		}
		e.Type = t
		out.Elem = &e
	case schema.KindMap:
		k, v := *to.Key, *to.Value
		kt, err := namedAs(to.Key.Type, from.Key.Type)
		if err != nil {
			return nil, err
		}
		vt, err := namedAs(to.Value.Type, from.Value.Type)
		if err != nil {
			return nil, err
		}
		k.Type, v.Type = kt, vt
		out.Key, out.Value = &k, &v
	}
	return &out, nil
}
