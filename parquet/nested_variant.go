package parquet

import (
	"fmt"

	"github.com/timelake/timelake/variant"
)

// Reading a variant (a group annotated VARIANT): its `metadata` and
// `value` leaves are binary columns like a string's, and a row's variant
// is printed as JSON text (package variant) where the assembly meets the
// group. A shredded variant (one with `typed_value`) is refused, naming
// the column: its values are spread over typed columns Timelake does not
// put back together.

// variantNode reads the children of VARIANT group e (n, present at
// definition level def) as the node's two leaves.
func (p *nestedParser) variantNode(n *nestedNode, e *schemaElement, path fieldPath, def, rep uint8) (*nestedNode, error) {
	if e.NumChildren != 2 {
		for range e.NumChildren {
			if c, err := p.next(path); err == nil && c.Name == "typed_value" {
				return nil, fmt.Errorf("%w: column %q is a shredded variant (typed_value): Timelake reads unshredded variants only", ErrUnsupported, path)
			}
		}
		return nil, fmt.Errorf("%w: VARIANT group %q has %d fields, want metadata and value", ErrCorrupt, path, e.NumChildren)
	}
	n.kind = nVariant
	for range 2 {
		c, err := p.next(path)
		if err != nil {
			return nil, err
		}
		if c.Name == "typed_value" {
			return nil, fmt.Errorf("%w: column %q is a shredded variant (typed_value): Timelake reads unshredded variants only", ErrUnsupported, path)
		}
		if c.NumChildren != 0 || !c.HasType || c.Type != TypeByteArray || c.Repetition == repRepeated {
			return nil, fmt.Errorf("%w: VARIANT group %q: field %q is not a binary", ErrCorrupt, path, c.Name)
		}
		el := *c
		el.Logical = logicalType{Kind: logicalString} // read its bytes as a string's
		leafDef := def
		if c.Repetition == repOptional {
			leafDef++
		}
		leaf, err := p.leafAt(&nestedNode{name: c.Name, optional: c.Repetition == repOptional, def: leafDef}, &el, path.add(c.Name), leafDef, rep)
		if err != nil {
			return nil, err
		}
		n.children = append(n.children, leaf)
		n.leaves = append(n.leaves, leaf.leaf)
	}
	if n.children[0].name != "metadata" || n.children[1].name != "value" {
		if n.children[0].name == "value" && n.children[1].name == "metadata" {
			n.children[0], n.children[1] = n.children[1], n.children[0]
		} else {
			return nil, fmt.Errorf("%w: VARIANT group %q has fields %q and %q, want metadata and value", ErrCorrupt, path, n.children[0].name, n.children[1].name)
		}
	}
	n.first = n.leaves[0]
	return n, nil
}

// variantValue appends the JSON of the variant at the leaves' current
// entries (the group is present).
func (a *assembler) variantValue(n *nestedNode) error {
	var parts [2][]byte
	for i, c := range n.children {
		l := a.leaves[c.leaf]
		if l.pos >= len(l.data.def) {
			return errStep
		}
		if l.data.def[l.pos] != c.def {
			return fmt.Errorf("%w: variant %q has a null %s", ErrCorrupt, n.name, c.name)
		}
		l.pos++
		if l.vpos >= l.data.nvals || l.vpos >= len(l.data.vals.strs) {
			return errStep
		}
		parts[i] = []byte(l.data.vals.strs[l.vpos])
		l.vpos++
	}
	var err error
	if a.buf, err = variant.AppendJSON(a.buf, parts[0], parts[1]); err != nil {
		return fmt.Errorf("%w: variant %q: %w", ErrCorrupt, n.name, err)
	}
	return nil
}
