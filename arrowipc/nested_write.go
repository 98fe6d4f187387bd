package arrowipc

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Nested columns out: a row's value is its JSON text (rows.Column.Strs of
// a schema.Nested column); the stream carries it as Arrow's nested types,
// as pyarrow reads an Iceberg table (pyiceberg's schema_to_pyarrow):
//
//	struct<a: long, b: string>  struct<a: int64, b: utf8>, one child per field
//	list<T>                     list<element: T> (32-bit offsets)
//	map<K, V>                   map<entries: struct<key: K (not null), value: V>>
//	variant                     utf8: its JSON text
//
// every child nullable unless the Iceberg field is required and carrying
// its Iceberg field id as PARQUET:field_id. A batch's texts are taken
// apart into child arrays (validity, offsets, values) driven by the type,
// the inverse of the readers' printing (rows.AppendJSONTime and friends):
// a struct's members by name (a member the type lacks is left out, one it
// has that the text lacks is null), a map's keys read back as the key
// type, a timestamp's text as the type's unit.

// nestedField is the Schema message's Field of a nested node: its name,
// nullability, type and children, with the Iceberg id as metadata.
func nestedField(name string, nullable bool, id int, t *schema.NestedType) (fbTab, error) {
	var typ typeID
	var params fbTab
	var kids fbTabs
	child := func(f *schema.NestedField) error {
		c, err := nestedField(f.Name, !f.Required, f.ID, f.Type)
		kids = append(kids, c)
		return err
	}
	switch t.Kind {
	case schema.KindPrimitive, schema.KindVariant:
		prim := t.Prim
		if t.Kind == schema.KindVariant {
			prim = schema.String // its JSON text (appendJSON)
		}
		var err error
		if typ, params, err = arrowTypeOf(schema.Field{Name: name, Type: prim}); err != nil {
			return nil, err
		}
	case schema.KindStruct:
		typ, params = tStruct, fbTab{}
		for i := range t.Fields {
			if err := child(&t.Fields[i]); err != nil {
				return nil, err
			}
		}
	case schema.KindList:
		typ, params = tList, fbTab{}
		if err := child(t.Elem); err != nil {
			return nil, err
		}
	case schema.KindMap:
		typ, params = tMap, fbTab{fbBool(false)} // keysSorted: no
		var ev fbTabs
		for _, f := range []*schema.NestedField{t.Key, t.Value} {
			c, err := nestedField(f.Name, f != t.Key && !f.Required, f.ID, f.Type)
			if err != nil {
				return nil, err
			}
			ev = append(ev, c)
		}
		kids = fbTabs{fbTab{0: fbRef(fbStr("entries")), 1: fbBool(false), 2: fbU8(uint8(tStruct)), 3: fbRef(fbTab{}), 5: fbRef(ev)}}
	default:
		return nil, fmt.Errorf("arrowipc: column %q: nested type of kind %d", name, t.Kind)
	}
	if kids == nil {
		kids = fbTabs{}
	}
	tab := fbTab{
		0: fbRef(fbStr(name)),
		1: fbBool(nullable),
		2: fbU8(uint8(typ)),
		3: fbRef(params),
		5: fbRef(kids),
	}
	if id != 0 {
		tab = append(tab, fbRef(fbTabs{fbTab{fbRef(fbStr(fieldIDKey)), fbRef(fbStr(strconv.Itoa(id)))}}))
	}
	return tab, nil
}

// arrNode builds the Arrow array of one node of a nested type, a batch at
// a time.
type arrNode struct {
	t        *schema.NestedType // for the map's entries: the struct of key and value
	required bool               // a placeholder under a null parent is a zero value, not a null
	n, nulls int
	valid    []byte // validity bitmap, a bit per value
	offs     []byte // list, map, string: int32 offsets, n+1 of them
	data     []byte // fixed-width values, a bool bitmap, or string bytes
	kids     []*arrNode
	byName   map[string]int // struct: its fields
	seen     []bool         // struct: scratch, the members one object gave
}

func newArrNode(t *schema.NestedType, required bool) *arrNode {
	a := &arrNode{t: t, required: required}
	switch t.Kind {
	case schema.KindStruct:
		a.byName = make(map[string]int, len(t.Fields))
		for i := range t.Fields {
			f := &t.Fields[i]
			a.byName[f.Name] = i
			a.kids = append(a.kids, newArrNode(f.Type, f.Required))
		}
		a.seen = make([]bool, len(t.Fields))
	case schema.KindList:
		a.kids = []*arrNode{newArrNode(t.Elem.Type, t.Elem.Required)}
	case schema.KindMap:
		entries := &schema.NestedType{Kind: schema.KindStruct, Fields: []schema.NestedField{*t.Key, *t.Value}}
		e := &arrNode{t: entries, required: true,
			kids: []*arrNode{newArrNode(t.Key.Type, true), newArrNode(t.Value.Type, t.Value.Required)}}
		a.kids = []*arrNode{e}
	}
	return a
}

func (a *arrNode) reset() {
	a.n, a.nulls = 0, 0
	a.valid, a.offs, a.data = a.valid[:0], a.offs[:0], a.data[:0]
	if a.t.Kind == schema.KindList || a.t.Kind == schema.KindMap || a.isString() {
		a.offs = binary.LittleEndian.AppendUint32(a.offs, 0)
	}
	for _, k := range a.kids {
		k.reset()
	}
}

func (a *arrNode) isString() bool {
	return a.t.Kind == schema.KindPrimitive && a.t.Prim == schema.String || a.t.Kind == schema.KindVariant
}

// bit appends a validity bit.
func (a *arrNode) bit(ok bool) {
	if a.n%8 == 0 {
		a.valid = append(a.valid, 0)
	}
	if ok {
		a.valid[a.n>>3] |= 1 << (a.n & 7)
	} else {
		a.nulls++
	}
	a.n++
}

// appendNull appends a null, or under a null parent (placeholder) a zero
// value where the field is required: a struct's children have its length.
func (a *arrNode) appendNull(placeholder bool) error {
	if placeholder && a.required {
		return a.appendZero()
	}
	a.bit(false)
	a.appendEmpty()
	for _, k := range a.structKids() {
		if err := k.appendNull(true); err != nil {
			return err
		}
	}
	return nil
}

// structKids are the children that take one value per value of a (a
// struct's fields); nil for the others.
func (a *arrNode) structKids() []*arrNode {
	if a.t.Kind == schema.KindStruct {
		return a.kids
	}
	return nil
}

// appendEmpty appends the offsets and values of an empty or null value.
func (a *arrNode) appendEmpty() {
	switch {
	case a.t.Kind == schema.KindList || a.t.Kind == schema.KindMap || a.isString():
		a.offs = append(a.offs, a.offs[len(a.offs)-4:]...)
	case a.t.Kind == schema.KindPrimitive && a.t.Prim == schema.Boolean:
		if (a.n-1)%8 == 0 {
			a.data = append(a.data, 0)
		}
	case a.t.Kind == schema.KindPrimitive:
		a.data = append(a.data, make([]byte, primWidth(a.t.Prim))...)
	}
}

func (a *arrNode) appendZero() error {
	a.bit(true)
	a.appendEmpty()
	for _, k := range a.structKids() {
		if err := k.appendNull(true); err != nil {
			return err
		}
	}
	return nil
}

func primWidth(t schema.Type) int {
	if t == schema.Int || t == schema.Float {
		return 4
	}
	return 8
}

// appendJSON appends the JSON value at p.
func (a *arrNode) appendJSON(p *jsonText, depth int) error {
	p.space()
	if p.lit("null") {
		return a.appendNull(false)
	}
	if depth > schema.MaxNestDepth+1 {
		return p.errf("nested deeper than %d", schema.MaxNestDepth)
	}
	switch a.t.Kind {
	case schema.KindVariant:
		// a variant is carried as utf8, its JSON text as the reader
		// prints it (a variant null is a null)
		start := p.i
		if err := p.skip(depth); err != nil {
			return err
		}
		return a.appendText(p.s[start:p.i])
	case schema.KindPrimitive:
		tok, quoted, err := p.scalar()
		if err != nil {
			return err
		}
		return a.appendScalar(tok, quoted, p)
	case schema.KindStruct:
		if !p.eat('{') {
			return p.errf("a struct value is not a JSON object")
		}
		clear(a.seen)
		seen := a.seen
		err := p.members(func(name string) error {
			i, ok := a.byName[name]
			if !ok {
				return p.skip(depth) // a field the type lacks (dropped): left out
			}
			if seen[i] {
				return p.errf("struct field %q given twice", name)
			}
			seen[i] = true
			return a.kids[i].appendJSON(p, depth+1)
		})
		if err != nil {
			return err
		}
		a.bit(true)
		for i, k := range a.kids {
			if !seen[i] {
				if err := k.appendNull(false); err != nil {
					return err
				}
			}
		}
		return nil
	case schema.KindList:
		if !p.eat('[') {
			return p.errf("a list value is not a JSON array")
		}
		el := a.kids[0]
		p.space()
		if !p.eat(']') {
			for {
				if err := el.appendJSON(p, depth+1); err != nil {
					return err
				}
				p.space()
				if p.eat(']') {
					break
				}
				if !p.eat(',') {
					return p.errf("no comma or closing bracket in an array")
				}
			}
		}
		return a.endRepeated(el.n)
	case schema.KindMap:
		if !p.eat('{') {
			return p.errf("a map value is not a JSON object")
		}
		e := a.kids[0]
		err := p.members(func(key string) error {
			e.bit(true)
			if err := e.kids[0].appendScalar(key, true, p); err != nil {
				return err
			}
			return e.kids[1].appendJSON(p, depth+1)
		})
		if err != nil {
			return err
		}
		return a.endRepeated(e.n)
	}
	return p.errf("nested type of kind %d", a.t.Kind)
}

// appendText appends a utf8 value.
func (a *arrNode) appendText(tok string) error {
	if len(a.data)+len(tok) > math.MaxInt32 {
		return fmt.Errorf("%d bytes of strings in one batch, past utf8's 2 GiB (fewer rows per batch)", len(a.data)+len(tok))
	}
	a.bit(true)
	a.data = append(a.data, tok...)
	a.offs = binary.LittleEndian.AppendUint32(a.offs, uint32(len(a.data)))
	return nil
}

// endRepeated ends a valid list or map whose child now holds end values.
func (a *arrNode) endRepeated(end int) error {
	if end > math.MaxInt32 {
		return fmt.Errorf("more than 2^31 list or map entries in one batch (fewer rows per batch)")
	}
	a.bit(true)
	a.offs = binary.LittleEndian.AppendUint32(a.offs, uint32(end))
	return nil
}

// appendScalar appends a primitive value from its JSON token (a string's
// unescaped text when quoted; a map key is always quoted).
func (a *arrNode) appendScalar(tok string, quoted bool, p *jsonText) error {
	t := a.t.Prim
	bad := func() error { return p.errf("%q is not a %s value", tok, t) }
	switch {
	case t == schema.String:
		if !quoted {
			return bad()
		}
		return a.appendText(tok)
	case t.IsTime():
		v, ok := rows.ParseJSONTime(tok, t)
		if !quoted || !ok {
			return bad()
		}
		a.bit(true)
		a.data = binary.LittleEndian.AppendUint64(a.data, uint64(v))
	case t == schema.Long || t == schema.Int:
		v, err := strconv.ParseInt(tok, 10, 64)
		if err != nil || (t == schema.Int && int64(int32(v)) != v) {
			return bad()
		}
		a.bit(true)
		if t == schema.Int {
			a.data = binary.LittleEndian.AppendUint32(a.data, uint32(int32(v)))
		} else {
			a.data = binary.LittleEndian.AppendUint64(a.data, uint64(v))
		}
	case t == schema.Double || t == schema.Float:
		v, err := strconv.ParseFloat(tok, 64)
		if err != nil && !(quoted && math.IsInf(v, 0)) {
			return bad()
		}
		a.bit(true)
		if t == schema.Float {
			a.data = binary.LittleEndian.AppendUint32(a.data, math.Float32bits(float32(v)))
		} else {
			a.data = binary.LittleEndian.AppendUint64(a.data, math.Float64bits(v))
		}
	case t == schema.Boolean:
		if tok != "true" && tok != "false" {
			return bad()
		}
		a.bit(true)
		a.appendEmpty()
		if tok == "true" {
			a.data[(a.n-1)>>3] |= 1 << ((a.n - 1) & 7)
		}
	default:
		return bad()
	}
	return nil
}

// layout appends a's field nodes and buffers, depth first, as a record
// batch lists them.
func (a *arrNode) layout(nodes []fieldNode, bufs [][]byte) ([]fieldNode, [][]byte) {
	nodes = append(nodes, fieldNode{length: int64(a.n), nulls: int64(a.nulls)})
	if a.nulls > 0 {
		bufs = append(bufs, a.valid)
	} else {
		bufs = append(bufs, nil)
	}
	switch {
	case a.t.Kind == schema.KindStruct:
	case a.t.Kind == schema.KindList || a.t.Kind == schema.KindMap:
		bufs = append(bufs, a.offs)
	case a.isString():
		bufs = append(bufs, a.offs, a.data)
	default:
		bufs = append(bufs, a.data)
	}
	for _, k := range a.kids {
		nodes, bufs = k.layout(nodes, bufs)
	}
	return nodes, bufs
}

// build fills a from n rows of col (JSON text, null where col is).
func (a *arrNode) build(name string, col *rows.Column, n int) error {
	a.reset()
	var p jsonText
	for i := range n {
		if isNull(col, i) || i >= len(col.Strs) {
			if err := a.appendNull(false); err != nil {
				return err
			}
			continue
		}
		p = jsonText{s: col.Strs[i]}
		err := a.appendJSON(&p, 0)
		if err == nil {
			if p.space(); p.i < len(p.s) {
				err = p.errf("text after the value")
			}
		}
		if err != nil {
			return fmt.Errorf("arrowipc: column %q, row %d of the batch: %w", name, i+1, err)
		}
	}
	return nil
}
