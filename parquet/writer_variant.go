package parquet

import (
	"fmt"

	"github.com/timelake/timelake/schema"
)

// Writing a variant (Iceberg format 3), a node of a nested column's type
// (writer_nested.go) at the top or inside a struct, list or map value. A
// row holds the value as its JSON text (a top-level variant's is encoded
// as it is; inside a struct, list or map rows.NestedTree finds its text,
// RawVariants); each value is encoded into Parquet's Variant binary
// encoding (package variant) and written unshredded:
//
//	<optional|required> group NAME (VARIANT(1))  field_id = the node's
//	  required binary metadata
//	  required binary value
//
// Both leaves are required inside the group, so a row's entries are at the
// group's definition level when it is present, below when it (or a node
// above) is null, as for any leaf. The metadata of rows of one shape
// repeats, which the dictionary encoding stores once per chunk.

// buildVariant adds variant node n's two leaves, metadata then value.
func (nc *nestedCol) buildVariant(w *Writer, head *colWriter, n *wnode, rep uint32, path []string) {
	n.leaf = len(nc.leaves)
	for _, name := range [2]string{"metadata", "value"} {
		cw := head
		if len(nc.leaves) > 0 {
			cw = &colWriter{w: w, in: head.in, bufs: bufPool.Get().(*bufs)}
		}
		// flat byte-array pages (the schema says binary, variantSchema)
		cw.spec = ColumnSpec{Name: nc.spec.Name, Type: schema.String, Required: true}
		cw.phys, cw.dict = TypeByteArray, map[string]uint32{}
		cw.maxDef, cw.maxRep = n.def, rep
		cw.leafPath = append(path[:len(path):len(path)], name)
		nc.leaves = append(nc.leaves, cw)
	}
}

// shredVariant encodes the variant text of a present node of n and adds
// it to n's leaves at repetition level rep. Text the encoder refuses (not
// from rows' readers) fails the Writer as a value that does not parse.
func (nc *nestedCol) shredVariant(n *wnode, text string, rep uint32) {
	m, v, err := nc.venc.Encode(text)
	if err != nil {
		if nc.err == nil {
			nc.err = fmt.Errorf("parquet: row %d: column %q: not a JSON value for a variant: %v", nc.row, nc.spec.Name, err)
		}
		m, v = []byte{1, 0, 0}, []byte{0} // the empty metadata, a variant null: keeps the leaves in step
	}
	for i, b := range [2][]byte{m, v} {
		l := nc.leaves[n.leaf+i]
		l.reps, l.defs = append(l.reps, rep), append(l.defs, n.def)
		nc.vals[n.leaf+i].Strs = append(nc.vals[n.leaf+i].Strs, string(b))
	}
}

// variantSchema is the schema elements of a variant node: e its group's
// element (name, repetition, field id), then its two leaves.
func variantSchema(e schemaElement) []schemaElement {
	e.NumChildren = 2
	e.Logical = logicalType{Kind: logicalVariant, VariantVersion: 1}
	leaf := func(name string) schemaElement {
		return schemaElement{Name: name, Type: TypeByteArray, HasType: true, HasRepetition: true, Repetition: repRequired}
	}
	return []schemaElement{e, leaf("metadata"), leaf("value")}
}
