package parquet

import (
	"fmt"
)

// Reading a variant (a group annotated VARIANT): its `metadata` and
// `value` leaves are binary columns like a string's, and a row's variant
// is printed as JSON text (package variant) where the assembly meets the
// group. A shredded variant (with `typed_value`) is put back together
// from both (nested_variant_shred.go).

// variantNode reads the children of VARIANT group e (n, present at
// definition level def): metadata, value (optional when shredded) and
// typed_value (when shredded), by name.
func (p *nestedParser) variantNode(n *nestedNode, e *schemaElement, path fieldPath, def, rep uint8, depth int) (*nestedNode, error) {
	n.kind = nVariant
	var meta *nestedNode
	for range e.NumChildren {
		c, err := p.next(path)
		if err != nil {
			return nil, err
		}
		cpath := path.add(c.Name)
		if c.Name == "typed_value" {
			shred := p.shred
			p.shred = true
			tn, err := p.node(c, cpath, def, rep, depth+1)
			p.shred = shred
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, tn)
			n.leaves = append(n.leaves, tn.leaves...)
			continue
		}
		if c.NumChildren != 0 || !c.HasType || c.Type != TypeByteArray || c.Repetition == repRepeated || c.Name != "metadata" && c.Name != "value" {
			return nil, fmt.Errorf("%w: VARIANT group %q: field %q is not a binary metadata or value", ErrCorrupt, path, c.Name)
		}
		el := *c
		el.Logical, el.HasConverted = logicalType{Kind: logicalString}, false // read its bytes as a string's
		leafDef := def
		if c.Repetition == repOptional {
			leafDef++
		}
		leaf, err := p.leafAt(&nestedNode{name: c.Name, optional: c.Repetition == repOptional, def: leafDef}, &el, cpath, leafDef, rep)
		if err != nil {
			return nil, err
		}
		if c.Name == "metadata" {
			meta = leaf
		}
		n.children = append(n.children, leaf)
		n.leaves = append(n.leaves, leaf.leaf)
	}
	if v, t := shredParts(n); meta == nil || v == nil && t == nil {
		return nil, fmt.Errorf("%w: VARIANT group %q lacks its metadata or value", ErrCorrupt, path)
	}
	n.first = n.leaves[0]
	return n, nil
}

// variantValue appends the JSON of the variant at the leaves' current
// entries (the group is present).
func (a *assembler) variantValue(n *nestedNode) error {
	var meta []byte
	for _, c := range n.children {
		if c.name != "metadata" {
			continue
		}
		l := a.leaves[c.leaf]
		if l.pos >= len(l.data.def) {
			return errStep
		}
		if l.data.def[l.pos] != c.def {
			return fmt.Errorf("%w: variant %q has a null metadata", ErrCorrupt, n.name)
		}
		l.pos++
		s, ok := l.data.str(l.vpos)
		if l.vpos >= l.data.nvals || !ok {
			return errStep
		}
		a.meta = append(a.meta[:0], s...)
		meta = a.meta
		l.vpos++
	}
	v, t := shredParts(n)
	present, err := a.shredded(v, t, meta, 0)
	if err != nil {
		return fmt.Errorf("%w: variant %q: %w", ErrCorrupt, n.name, err)
	}
	if !present {
		a.buf = append(a.buf, "null"...) // a variant missing where one is required: a variant null
	}
	return nil
}
