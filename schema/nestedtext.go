package schema

import (
	"fmt"
	"strings"
)

// Nested type text, as create --column and alter --add take it and
// NestedType.String prints it: map<K, V>, list<T>, struct<name: T, …>,
// nested to any depth (MaxNestDepth), spaces optional; "variant" (format
// 3) alone or as any node but a map's key. Every struct field,
// list element and map value is optional (an engine's own default, and
// what a value left out of a row needs); a map key is required, as Iceberg
// has it. The ids are 0 until AssignIDs.

// ParseTypeText reads a type's text: a primitive's name (nt nil) or a
// nested type (t Nested).
func ParseTypeText(s string) (t Type, nt *NestedType, err error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, VariantName) {
		return Nested, VariantType(), nil // a variant column (format 3)
	}
	if !strings.ContainsRune(s, '<') {
		t, err = ParseType(s)
		return t, nil, err
	}
	p := typeText{s: s}
	nt, err = p.typ(0)
	if err == nil {
		p.space()
		if p.i < len(p.s) {
			err = fmt.Errorf("type %q: unexpected %q after the type", s, p.s[p.i:])
		}
	}
	if err == nil && nt.Kind == KindPrimitive {
		return nt.Prim, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	return Nested, nt, nil
}

type typeText struct {
	s string
	i int
}

func (p *typeText) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *typeText) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// word reads up to a delimiter of the type text.
func (p *typeText) word() string {
	p.space()
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune("<>,: ", rune(p.s[p.i])) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *typeText) fail(format string, a ...any) error {
	return fmt.Errorf("type %q at byte %d: %s", p.s, p.i+1, fmt.Sprintf(format, a...))
}

func (p *typeText) typ(depth int) (*NestedType, error) {
	if depth > MaxNestDepth {
		return nil, p.fail("nested deeper than %d levels", MaxNestDepth)
	}
	name := p.word()
	sub := func(fieldName string, required bool) (*NestedField, error) {
		t, err := p.typ(depth + 1)
		if err != nil {
			return nil, err
		}
		return &NestedField{Name: fieldName, Required: required, Type: t}, nil
	}
	switch strings.ToLower(name) {
	case VariantName:
		return VariantType(), nil
	case "list", "array":
		if !p.eat('<') {
			return nil, p.fail("want list<TYPE>")
		}
		e, err := sub("element", false)
		if err != nil {
			return nil, err
		}
		if !p.eat('>') {
			return nil, p.fail("want > after the list's element type")
		}
		return &NestedType{Kind: KindList, Elem: e}, nil
	case "map":
		if !p.eat('<') {
			return nil, p.fail("want map<KEY, VALUE>")
		}
		k, err := sub("key", true)
		if err != nil {
			return nil, err
		}
		if k.Type.Kind != KindPrimitive {
			return nil, p.fail("a map's key is a primitive type, not %s", k.Type)
		}
		if !p.eat(',') {
			return nil, p.fail("want a comma after the map's key type")
		}
		v, err := sub("value", false)
		if err != nil {
			return nil, err
		}
		if !p.eat('>') {
			return nil, p.fail("want > after the map's value type")
		}
		return &NestedType{Kind: KindMap, Key: k, Value: v}, nil
	case "struct":
		if !p.eat('<') {
			return nil, p.fail("want struct<NAME: TYPE, …>")
		}
		t := &NestedType{Kind: KindStruct}
		seen := map[string]bool{}
		for {
			fname := p.word()
			if fname == "" {
				return nil, p.fail("want a field name")
			}
			if seen[fname] {
				return nil, p.fail("field %q twice", fname)
			}
			seen[fname] = true
			if !p.eat(':') {
				return nil, p.fail("want : after field %q", fname)
			}
			f, err := sub(fname, false)
			if err != nil {
				return nil, err
			}
			t.Fields = append(t.Fields, *f)
			if p.eat('>') {
				return t, nil
			}
			if !p.eat(',') {
				return nil, p.fail("want a comma or > after field %q", fname)
			}
		}
	}
	prim, err := ParseType(name)
	if err != nil {
		return nil, p.fail("%v", err)
	}
	return &NestedType{Kind: KindPrimitive, Prim: prim}, nil
}

// Clone is a deep copy of t.
func (t *NestedType) Clone() *NestedType {
	if t == nil {
		return nil
	}
	c := *t
	field := func(f *NestedField) *NestedField {
		if f == nil {
			return nil
		}
		g := *f
		g.Type = f.Type.Clone()
		return &g
	}
	c.Elem, c.Key, c.Value = field(t.Elem), field(t.Key), field(t.Value)
	if t.Fields != nil {
		c.Fields = make([]NestedField, len(t.Fields))
		for i := range t.Fields {
			c.Fields[i] = *field(&t.Fields[i])
		}
	}
	return &c
}

// AssignIDs gives every node of t a fresh field id from next (depth
// first: a struct's fields, a list's element, a map's key and value, each
// before the nodes under it).
func (t *NestedType) AssignIDs(next func() int) {
	switch t.Kind {
	case KindStruct:
		for i := range t.Fields {
			t.Fields[i].ID = next()
		}
		for i := range t.Fields {
			t.Fields[i].Type.AssignIDs(next)
		}
	case KindList:
		t.Elem.ID = next()
		t.Elem.Type.AssignIDs(next)
	case KindMap:
		t.Key.ID, t.Value.ID = next(), next()
		t.Key.Type.AssignIDs(next)
		t.Value.Type.AssignIDs(next)
	}
}

// NodeIDs are the field ids of t's nodes, depth first (a struct's fields,
// a list's element, a map's key and value, each followed by the nodes
// under it).
func (t *NestedType) NodeIDs() []int32 {
	var out []int32
	var walk func(t *NestedType)
	walk = func(t *NestedType) {
		for _, f := range t.children() {
			out = append(out, int32(f.ID))
			walk(f.Type)
		}
	}
	walk(t)
	return out
}
