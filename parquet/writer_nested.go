package parquet

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/variant"
)

// Writing a nested column (map, list, struct, to any depth). A row holds
// the value as its JSON text (rows.Column.Strs, as the reader gives it);
// rows.NestedTree parses it against ColumnSpec.Nested, and the value is
// shredded (Dremel) into one leaf column writer per primitive of the type,
// each with repetition and definition levels, in Parquet's layouts:
//
//	<optional|required> group NAME (LIST)    a list
//	  repeated group list
//	    <optional|required> ELEMENT element
//	<optional|required> group NAME (MAP)     a map
//	  repeated group key_value
//	    required KEY key
//	    <optional|required> VALUE value
//	<optional|required> group NAME           a struct: its fields
//
// with the Iceberg field id of every node. The leaves are written as flat
// columns are (dictionary or PLAIN, any codec, data pages v1 or v2, pages
// and row groups cut at row boundaries) and carry chunk statistics (null
// count, min and max of their values) but no column index: a leaf's page
// bounds say nothing of which rows hold a value.

// Leaf kinds of a colWriter.
const (
	leafFlat = 0 // a flat column
	leafHead = 1 // a nested column's first leaf: it checks and shreds the rows for all
	leafTail = 2 // a nested column's other leaves
)

// SpecOf is the ColumnSpec of a table's field.
func SpecOf(f schema.Field) ColumnSpec {
	s := ColumnSpec{Name: f.Name, FieldID: int32(f.ID), Type: f.Type, Required: f.Required}
	if f.Type == schema.Nested {
		s.Nested = f.Nested
	}
	return s
}

// nestedCol is a nested column's tree of levels and its leaves' writers.
type nestedCol struct {
	spec   ColumnSpec
	root   *wnode
	leaves []*colWriter
	vals   []rows.Column // each leaf's values of the segment being added
	tree   rows.NestedTree
	memo   shredMemo       // recent texts' shredding (writer_nested_memo.go)
	err    error           // a value that did not parse
	venc   variant.Encoder // a variant's (writer_variant.go)
	row    int64           // the row being added, for an error
}

// wnode is a node of a nested column's type with its levels.
type wnode struct {
	t        *schema.NestedType
	name     string
	id       int32
	optional bool
	def      uint32 // definition level of the node when present
	rep      uint32 // a list's or map's: the repetition level of its entries after the first
	leaf     int    // a primitive's leaf (index in nestedCol.leaves)
	lo, hi   int    // the leaves under the node
	kids     []*wnode
}

// addNestedColumn adds nested column cw.spec's leaves, cw the first.
func (w *Writer) addNestedColumn(cw *colWriter) error {
	c := cw.spec
	if c.Nested == nil {
		return fmt.Errorf("parquet: column %q is nested but has no type", c.Name)
	}
	if err := c.Nested.Writable(); err != nil {
		return fmt.Errorf("parquet: column %q: %v", c.Name, err)
	}
	nc := &nestedCol{spec: c}
	nc.root = nc.build(w, cw, c.Nested, c.Name, c.FieldID, !c.Required, 0, 0, nil)
	nc.vals = make([]rows.Column, len(nc.leaves))
	for i, l := range nc.leaves {
		l.nest = nc
		l.leaf = leafTail
		if i == 0 {
			l.leaf = leafHead
		}
	}
	w.strCols = append(w.strCols, cw.in)
	w.cols = append(w.cols, nc.leaves...)
	return nil
}

// build makes the node of type t (named name, with field id id) whose
// parent is defined at level def and repeated at level rep, under path.
func (nc *nestedCol) build(w *Writer, head *colWriter, t *schema.NestedType, name string, id int32, optional bool, def, rep uint32, path []string) *wnode {
	n := &wnode{t: t, name: name, id: id, optional: optional, def: def, lo: len(nc.leaves)}
	if optional {
		n.def++
	}
	path = append(path[:len(path):len(path)], name)
	switch t.Kind {
	case schema.KindVariant:
		nc.buildVariant(w, head, n, rep, path) // writer_variant.go
	case schema.KindPrimitive:
		cw := head
		if len(nc.leaves) > 0 {
			cw = &colWriter{w: w, in: head.in, bufs: bufPool.Get().(*bufs)}
		}
		cw.spec = ColumnSpec{Name: nc.spec.Name, FieldID: id, Type: t.Prim, Required: !optional}
		cw.phys = physicalOf(t.Prim)
		if t.Prim == schema.String {
			cw.dict = map[string]uint32{}
		}
		cw.maxDef, cw.maxRep, cw.leafPath = n.def, rep, path
		n.leaf = len(nc.leaves)
		nc.leaves = append(nc.leaves, cw)
	case schema.KindStruct:
		for _, f := range t.Fields {
			n.kids = append(n.kids, nc.build(w, head, f.Type, f.Name, int32(f.ID), !f.Required, n.def, rep, path))
		}
	case schema.KindList:
		n.rep = rep + 1
		inner := append(path[:len(path):len(path)], "list")
		n.kids = []*wnode{nc.build(w, head, t.Elem.Type, "element", int32(t.Elem.ID), !t.Elem.Required, n.def+1, n.rep, inner)}
	case schema.KindMap:
		n.rep = rep + 1
		inner := append(path[:len(path):len(path)], "key_value")
		n.kids = []*wnode{
			nc.build(w, head, t.Key.Type, "key", int32(t.Key.ID), false, n.def+1, n.rep, inner),
			nc.build(w, head, t.Value.Type, "value", int32(t.Value.ID), !t.Value.Required, n.def+1, n.rep, inner),
		}
	}
	n.hi = len(nc.leaves)
	return n
}

// physicalOf is the physical type a primitive is written as.
func physicalOf(t schema.Type) PhysicalType {
	switch t {
	case schema.Int:
		return TypeInt32
	case schema.Double:
		return TypeDouble
	case schema.Float:
		return TypeFloat
	case schema.Boolean:
		return TypeBoolean
	case schema.String:
		return TypeByteArray
	}
	return TypeInt64 // long and the timestamps
}

// check validates rows [0,n) of a nested column before anything is
// written: their count, no null in a required column. Whether each value
// parses as the column's type is found as it is shredded (add): parsed
// once, not twice, as every caller hands the writer values checked before
// (rows' readers and Builder, the reader's own text).
func (nc *nestedCol) check(c *rows.Column, n int, firstRow int64) error {
	name := nc.spec.Name
	if len(c.Strs) < n || (c.Nulls != nil && len(c.Nulls) < n) {
		return fmt.Errorf("parquet: column %q has %d values, want %d", name, len(c.Strs), n)
	}
	for i := 0; i < n; i++ {
		if c.IsNull(i) {
			if nc.spec.Required {
				return fmt.Errorf("parquet: row %d: column %q is required but null", firstRow+int64(i), name)
			}
		}
	}
	return nil
}

// add shreds rows [a,b) of the column into its leaves' levels and values.
// A value that does not parse fails the Writer (Writer.Write).
func (nc *nestedCol) add(c *rows.Column, a, b int) {
	for r := a; r < b; r++ {
		if c.IsNull(r) {
			nc.nulls(nc.root, 0, 0)
			continue
		}
		nc.row = nc.leaves[0].w.totalRows + nc.leaves[0].w.rgRowsPending() + int64(r-a)
		text := c.Strs[r]
		if nc.root.t.Kind == schema.KindVariant {
			nc.shredVariant(nc.root, text, 0) // no tree: the encoder checks the text
			continue
		}
		if runs, ok := nc.memo.lookup(text); ok {
			nc.replay(runs)
			continue
		}
		nc.tree.RawVariants = true // the text of a variant in it is encoded, not printed (shredVariant)
		if err := nc.tree.Parse(nc.spec.Nested, text); err != nil {
			if nc.err == nil {
				nc.err = fmt.Errorf("parquet: row %d: column %q: %v", nc.row, nc.spec.Name, err)
			}
			nc.nulls(nc.root, 0, 0) // keeps the leaves in step; the Writer is failed
			continue
		}
		nc.mark()
		nc.shred(nc.root, 0, 0)
		if nc.err == nil { // a variant in it that failed to encode is not kept
			nc.remember(text)
		}
	}
	for i, l := range nc.leaves {
		v := &nc.vals[i]
		l.addValues(v, 0, max(len(v.Ints), len(v.Floats), len(v.Bools), len(v.Strs)), nil)
		v.Ints, v.Floats, v.Bools, v.Strs = v.Ints[:0], v.Floats[:0], v.Bools[:0], v.Strs[:0]
	}
}

// nulls gives each leaf under n one entry at repetition level rep and
// definition level def: n is null (def below n's) or empty (n's own).
func (nc *nestedCol) nulls(n *wnode, rep, def uint32) {
	for _, l := range nc.leaves[n.lo:n.hi] {
		l.reps, l.defs = append(l.reps, rep), append(l.defs, def)
		l.pageNulls++
	}
}

// shred adds the value of tree node at (a node of n's type) to the leaves
// under n, its first entries at repetition level rep.
func (nc *nestedCol) shred(n *wnode, at int32, rep uint32) {
	tr := &nc.tree
	if at < 0 || tr.Nodes[at].Null {
		nc.nulls(n, rep, n.def-1)
		return
	}
	node := &tr.Nodes[at]
	kids := tr.Kids[node.Kids : node.Kids+node.N]
	switch n.t.Kind {
	case schema.KindVariant:
		nc.shredVariant(n, node.Str, rep)
	case schema.KindPrimitive:
		l := nc.leaves[n.leaf]
		l.reps, l.defs = append(l.reps, rep), append(l.defs, n.def)
		v := &nc.vals[n.leaf]
		switch p := n.t.Prim; {
		case p == schema.String:
			v.Strs = append(v.Strs, node.Str)
		case p.IsFloat():
			v.Floats = append(v.Floats, node.Float)
		case p == schema.Boolean:
			v.Bools = append(v.Bools, node.Bool)
		default:
			v.Ints = append(v.Ints, node.Int)
		}
	case schema.KindStruct:
		for j, k := range n.kids {
			nc.shred(k, kids[j], rep)
		}
	case schema.KindList:
		if len(kids) == 0 {
			nc.nulls(n, rep, n.def)
			return
		}
		for i, e := range kids {
			if i > 0 {
				rep = n.rep
			}
			nc.shred(n.kids[0], e, rep)
		}
	case schema.KindMap:
		if len(kids) == 0 {
			nc.nulls(n, rep, n.def)
			return
		}
		for i := 0; i < len(kids); i += 2 {
			if i > 0 {
				rep = n.rep
			}
			nc.shred(n.kids[0], kids[i], rep)
			nc.shred(n.kids[1], kids[i+1], rep)
		}
	}
}

// nestedStats adds leaf cw's file statistics to its column's (FileStats
// has one per input column): its size over all leaves, its rows; no
// counts or bounds (Iceberg's would be of the leaves, by their ids, and
// are optional).
func nestedStats(cols []ColumnStats, cw *colWriter, nrows int64) []ColumnStats {
	if cw.leaf == leafHead {
		cols = append(cols, ColumnStats{Values: nrows})
	}
	cols[len(cols)-1].CompressedSize += cw.file.CompressedSize
	return cols
}

// nestedLevels appends a leaf's page levels to dst: repetition levels
// (none when the leaf is in no list or map), then definition levels (none
// when it and all above it are required), each with a 4-byte length
// prefix in data pages v1. It returns the bytes and the repetition
// levels' length.
func (cw *colWriter) nestedLevels(dst []byte) ([]byte, int) {
	compat := cw.w.opt.Compat
	section := func(dst []byte, v []uint32, max uint32) []byte {
		if max == 0 {
			return dst
		}
		at := len(dst)
		if compat {
			dst = append(dst, 0, 0, 0, 0)
		}
		dst = appendHybrid(dst, v, uint(bits.Len32(max)))
		if compat {
			binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
		}
		return dst
	}
	dst = section(dst, cw.reps, cw.maxRep)
	repLen := len(dst)
	dst = section(dst, cw.defs, cw.maxDef)
	return dst, repLen
}

// nestedSchema is the schema elements of nested column nc, depth first.
func nestedSchema(nc *nestedCol) []schemaElement {
	var els []schemaElement
	var walk func(n *wnode)
	walk = func(n *wnode) {
		rep := repRequired
		if n.optional {
			rep = repOptional
		}
		if n.t.Kind == schema.KindPrimitive {
			els = append(els, leafElement(n.name, n.t.Prim, rep, n.id))
			return
		}
		e := schemaElement{Name: n.name, HasRepetition: true, Repetition: rep, NumChildren: int32(len(n.kids)),
			FieldID: n.id, HasFieldID: true}
		inner := ""
		switch n.t.Kind {
		case schema.KindVariant:
			els = append(els, variantSchema(e)...)
			return
		case schema.KindList:
			e.Converted, e.HasConverted, e.Logical = convList, true, logicalType{Kind: logicalList}
			inner = "list"
		case schema.KindMap:
			e.Converted, e.HasConverted, e.Logical = convMap, true, logicalType{Kind: logicalMap}
			inner = "key_value"
		}
		if inner != "" {
			e.NumChildren = 1
			els = append(els, e, schemaElement{Name: inner, HasRepetition: true, Repetition: repRepeated, NumChildren: int32(len(n.kids))})
		} else {
			els = append(els, e)
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(nc.root)
	return els
}

// leafElement is the schema element of a primitive column or leaf.
func leafElement(name string, t schema.Type, rep int32, id int32) schemaElement {
	e := schemaElement{
		Name: name, Type: physicalOf(t), HasType: true,
		HasRepetition: true, Repetition: rep,
		FieldID: id, HasFieldID: true,
	}
	switch t {
	case schema.Timestamptz:
		e.Logical = logicalType{Kind: logicalTimestamp, UTC: true, Unit: unitMicros}
		e.Converted, e.HasConverted = convTimestampMicros, true
	case schema.Timestamp:
		// No converted type: TIMESTAMP_MICROS means adjusted to UTC.
		e.Logical = logicalType{Kind: logicalTimestamp, UTC: false, Unit: unitMicros}
	case schema.TimestamptzNs, schema.TimestampNs:
		// No converted type: the old ones have no nanoseconds.
		e.Logical = logicalType{Kind: logicalTimestamp, UTC: t.Zoned(), Unit: unitNanos}
	case schema.String:
		e.Logical = logicalType{Kind: logicalString}
		e.Converted, e.HasConverted = convUTF8, true
	}
	return e
}

// path is the column chunk's path in the schema.
func (cw *colWriter) path() []string {
	if cw.leaf != leafFlat {
		return cw.leafPath
	}
	return []string{cw.spec.Name}
}
