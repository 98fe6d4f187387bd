package parquet

// The schema tree of nested columns (maps, lists, structs) other engines
// write: a top-level group, or a repeated field, becomes a NestedColumn
// whose leaves are column chunks like any other (FileMeta.Columns, in the
// file's depth-first order, flagged InNested so that no flat reader takes
// them), with the definition and repetition levels each node is read at.
//
// LIST is read in the 3-level form the spec asks for
// (<list> (LIST) { repeated group list { <element> } }) and in the legacy
// 2-level forms parquet-mr, Spark and older pyarrow wrote (a repeated
// primitive element; a repeated group of several fields, or named "array"
// or "<list>_tuple", being the element itself); MAP is a repeated
// key_value group of a key and a value; an unannotated group is a struct;
// an unannotated repeated field is a required list of required elements.

import (
	"fmt"
	"strings"

	"github.com/timelake/timelake/schema"
)

// Converted types of groups (parquet.thrift ConvertedType).
const (
	convMap         int32 = 1
	convMapKeyValue int32 = 2
	convList        int32 = 3
)

type nestedKind uint8

const (
	nLeaf nestedKind = iota + 1
	nStruct
	nList
	nMap
	nVariant // a VARIANT group: children metadata, value (nested_variant.go)
)

// nestedNode is one node of a nested column's tree.
type nestedNode struct {
	name     string
	fieldID  int32 // 0 when the file has none
	kind     nestedKind
	optional bool  // a null here is its own (definition level below def)
	def      uint8 // definition level of a present (non-null) node
	// repDef and repRep are, for a list or map, the levels of its
	// repeated group: an entry with definition level below repDef is an
	// empty list; a repetition level of repRep continues the list.
	repDef, repRep uint8
	children       []*nestedNode // struct fields; list: [element]; map: [key, value]
	leaf           int           // nLeaf: the index of its column in FileMeta.Columns
	// vprim and vscale are, for a leaf of a shredded variant's
	// typed_value, the variant primitive type its values are, and a
	// decimal's scale (nested_variant_shred.go)
	vprim, vscale uint8
	first         int   // the first leaf under the node (its levels steer the reading)
	leaves        []int // every leaf under the node
}

// NestedColumn is a top-level nested column of a file.
type NestedColumn struct {
	Name     string
	FieldID  int32 // 0 when the file has none
	Required bool
	root     *nestedNode
}

// nestedParser walks the flat schema list depth first.
type nestedParser struct {
	m     *FileMeta
	els   []schemaElement
	at    int  // the next element
	shred bool // inside a shredded variant's typed_value: leaves are variant primitives
}

func (p *nestedParser) next(path fieldPath) (*schemaElement, error) {
	if p.at >= len(p.els) {
		return nil, fmt.Errorf("%w: schema ends inside group %q", ErrCorrupt, path)
	}
	e := &p.els[p.at]
	p.at++
	if e.NumChildren < 0 || int(e.NumChildren) > len(p.els)-p.at {
		return nil, fmt.Errorf("%w: group %q claims %d children", ErrCorrupt, e.Name, e.NumChildren)
	}
	return e, nil
}

// columns builds m.Columns (every leaf) and m.Nested from m.schema.
func (m *FileMeta) columns() error {
	p := &nestedParser{m: m, els: m.schema, at: 1}
	root := m.schema[0]
	for range root.NumChildren {
		e, err := p.next(nil)
		if err != nil {
			return err
		}
		if e.NumChildren == 0 && e.Repetition != repRepeated {
			info, conv, err := columnInfo(e)
			if err != nil {
				return err
			}
			info.Path = []string{e.Name}
			m.Columns = append(m.Columns, info)
			m.convs = append(m.convs, conv)
			continue
		}
		n, err := p.node(e, fieldPath{e.Name}, 0, 0, 1)
		if err != nil {
			return err
		}
		m.Nested = append(m.Nested, NestedColumn{Name: e.Name, FieldID: n.fieldID, Required: e.Repetition == repRequired, root: n})
	}
	if p.at != len(p.els) {
		return fmt.Errorf("%w: root has %d children but the schema lists %d more elements", ErrCorrupt, root.NumChildren, len(p.els)-p.at)
	}
	return nil
}

// node reads element e (its children follow in p) present at levels
// (def, rep) of its parent, depth deep.
func (p *nestedParser) node(e *schemaElement, path fieldPath, def, rep uint8, depth int) (*nestedNode, error) {
	if depth > schema.MaxNestDepth {
		return nil, fmt.Errorf("%w: column %q is nested deeper than %d levels", ErrUnsupported, path, schema.MaxNestDepth)
	}
	n := &nestedNode{name: e.Name}
	if e.HasFieldID {
		n.fieldID = e.FieldID
	}
	switch e.Repetition {
	case repRequired:
	case repOptional:
		n.optional, def = true, def+1
	case repRepeated:
		// unannotated repeated field: a required list of it, required
		list := &nestedNode{name: e.Name, fieldID: n.fieldID, kind: nList, def: def, repDef: def + 1, repRep: rep + 1}
		el, err := p.bare(e, path, def+1, rep+1, depth+1)
		if err != nil {
			return nil, err
		}
		list.children = []*nestedNode{el}
		list.first, list.leaves = el.first, el.leaves
		return list, nil
	default:
		return nil, fmt.Errorf("%w: column %q has repetition %d", ErrCorrupt, path, e.Repetition)
	}
	n.def = def
	if e.NumChildren == 0 {
		return p.leafAt(n, e, path, def, rep)
	}
	if e.Logical.Kind == logicalVariant {
		return p.variantNode(n, e, path, def, rep, depth)
	}
	isList := e.Logical.Kind == logicalList || e.Logical.Kind == logicalNone && e.HasConverted && e.Converted == convList
	isMap := e.Logical.Kind == logicalMap || e.Logical.Kind == logicalNone && e.HasConverted && (e.Converted == convMap || e.Converted == convMapKeyValue)
	if !isList && !isMap {
		n.kind = nStruct
		for range e.NumChildren {
			c, err := p.next(path)
			if err != nil {
				return nil, err
			}
			cn, err := p.node(c, path.add(c.Name), def, rep, depth+1)
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, cn)
			n.leaves = append(n.leaves, cn.leaves...)
		}
		if len(n.leaves) == 0 {
			return nil, fmt.Errorf("%w: group %q has no leaves", ErrCorrupt, path)
		}
		n.first = n.leaves[0]
		return n, nil
	}
	if e.NumChildren != 1 {
		return nil, fmt.Errorf("%w: LIST or MAP group %q has %d children, want 1", ErrCorrupt, path, e.NumChildren)
	}
	r, err := p.next(path)
	if err != nil {
		return nil, err
	}
	if r.Repetition != repRepeated {
		return nil, fmt.Errorf("%w: the child %q of LIST or MAP group %q is not repeated", ErrCorrupt, r.Name, path)
	}
	n.repDef, n.repRep = def+1, rep+1
	rpath := path.add(r.Name)
	if isMap {
		n.kind = nMap
		if r.NumChildren != 2 {
			return nil, fmt.Errorf("%w: MAP %q: key_value group has %d fields, want a key and a value", ErrUnsupported, path, r.NumChildren)
		}
		for range 2 {
			c, err := p.next(rpath)
			if err != nil {
				return nil, err
			}
			cn, err := p.node(c, rpath.add(c.Name), n.repDef, n.repRep, depth+1)
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, cn)
			n.leaves = append(n.leaves, cn.leaves...)
		}
		if n.children[0].kind != nLeaf || n.children[0].optional {
			return nil, fmt.Errorf("%w: MAP %q: key is not a required primitive", ErrUnsupported, path)
		}
		n.first = n.leaves[0]
		return n, nil
	}
	n.kind = nList
	var el *nestedNode
	switch {
	case r.NumChildren == 0, r.NumChildren > 1, r.Name == "array", r.Name == e.Name+"_tuple":
		// 2-level: the repeated field is the element
		el, err = p.bare(r, rpath, n.repDef, n.repRep, depth+1)
	default:
		c, err2 := p.next(rpath)
		if err2 != nil {
			return nil, err2
		}
		el, err = p.node(c, rpath.add(c.Name), n.repDef, n.repRep, depth+1)
	}
	if err != nil {
		return nil, err
	}
	n.children = []*nestedNode{el}
	n.first, n.leaves = el.first, el.leaves
	return n, nil
}

// bare reads repeated element e as a required element at (def, rep): its
// repetition is the list's.
func (p *nestedParser) bare(e *schemaElement, path fieldPath, def, rep uint8, depth int) (*nestedNode, error) {
	el := *e
	el.Repetition = repRequired
	n := &nestedNode{name: e.Name, def: def}
	if e.HasFieldID {
		n.fieldID = e.FieldID
	}
	if e.NumChildren == 0 {
		return p.leafAt(n, &el, path, def, rep)
	}
	n.kind = nStruct
	for range e.NumChildren {
		c, err := p.next(path)
		if err != nil {
			return nil, err
		}
		cn, err := p.node(c, path.add(c.Name), def, rep, depth+1)
		if err != nil {
			return nil, err
		}
		n.children = append(n.children, cn)
		n.leaves = append(n.leaves, cn.leaves...)
	}
	n.first = n.leaves[0]
	return n, nil
}

// leafAt makes n the leaf e, a column chunk of the file.
func (p *nestedParser) leafAt(n *nestedNode, e *schemaElement, path fieldPath, def, rep uint8) (*nestedNode, error) {
	el := *e
	if el.Repetition == repRepeated {
		el.Repetition = repRequired
	}
	if p.shred {
		if err := shredLeaf(n, &el, path); err != nil {
			return nil, err
		}
	}
	info, conv, err := columnInfo(&el)
	if err != nil {
		return nil, err
	}
	info.Name, info.InNested, info.MaxDef, info.MaxRep = path.String(), true, def, rep
	info.Path = path
	n.kind, n.leaf, n.first = nLeaf, len(p.m.Columns), len(p.m.Columns)
	n.leaves = []int{n.leaf}
	p.m.Columns = append(p.m.Columns, info)
	p.m.convs = append(p.m.convs, conv)
	return n, nil
}

// fieldPath is the names from the top-level column down to a node.
type fieldPath []string

func (p fieldPath) add(name string) fieldPath { return append(p[:len(p):len(p)], name) }

func (p fieldPath) String() string { return strings.Join(p, ".") }

// Leaves are the indexes in FileMeta.Columns of the column's leaves.
func (nc *NestedColumn) Leaves() []int { return nc.root.leaves }

// NodeIDs are the field ids of the column's nodes below its root, depth
// first (a struct's fields, a list's element, a map's key and value, each
// followed by the nodes under it; 0 where the file has none): equal to
// schema.NestedType.NodeIDs of the table's type when the file's type is
// the table's.
func (c *NestedColumn) NodeIDs() []int32 {
	var out []int32
	var walk func(n *nestedNode)
	walk = func(n *nestedNode) {
		if n.kind == nVariant {
			return // metadata, value, typed_value: its encoding, not nodes of its type
		}
		for _, k := range n.children {
			out = append(out, k.fieldID)
			walk(k)
		}
	}
	walk(c.root)
	return out
}
