package parquet

import "github.com/timelake/timelake/schema"

// Shape is nested column k's type as the file has it: its structs'
// fields, lists' elements and maps' keys and values by the file's names,
// with the file's field ids (0 where it has none), the required flags, and
// each leaf's table type (0 for a leaf of a type Timelake does not read).
// An input's column is checked against the table's type by it before its
// rows are read.
func (m *FileMeta) Shape(k int) *schema.NestedType {
	if k < 0 || k >= len(m.Nested) {
		return nil
	}
	return m.shape(m.Nested[k].root)
}

func (m *FileMeta) shape(n *nestedNode) *schema.NestedType {
	field := func(c *nestedNode, name string) *schema.NestedField {
		return &schema.NestedField{ID: int(c.fieldID), Name: name, Required: !c.optional, Type: m.shape(c)}
	}
	switch n.kind {
	case nLeaf:
		t := &schema.NestedType{Kind: schema.KindPrimitive}
		if n.leaf >= 0 && n.leaf < len(m.Columns) {
			t.Prim = m.Columns[n.leaf].Type
		}
		return t
	case nStruct:
		t := &schema.NestedType{Kind: schema.KindStruct}
		for _, c := range n.children {
			t.Fields = append(t.Fields, *field(c, c.name))
		}
		return t
	case nList:
		return &schema.NestedType{Kind: schema.KindList, Elem: field(n.children[0], "element")}
	case nVariant:
		return schema.VariantType() // its metadata and value (and typed_value) are its encoding
	}
	return &schema.NestedType{Kind: schema.KindMap, Key: field(n.children[0], "key"), Value: field(n.children[1], "value")}
}
