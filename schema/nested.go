package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Nested is the Type of a column of a nested Iceberg type (map, list,
// struct): Field.Nested describes it. Its values are read and written
// (Writable says which are not). A row holds each value as compact JSON text in Column.Strs
// (package rows), so that every path that carries, slices, sorts or takes
// rows carries it as it does a string. It is a constant apart from the
// primitive types (which count up from 1) so that adding a primitive never
// renumbers it; it is not persisted.
const Nested Type = 64

// MaxNestDepth bounds how deep a nested type may be (a list of lists of
// …): deeper types are refused when the schema is read, so that readers
// may recurse over a type and its Parquet levels without a stack to fear.
const MaxNestDepth = 32

// NestedKind is the kind of a node of a nested type.
type NestedKind uint8

const (
	KindPrimitive NestedKind = iota + 1
	KindStruct
	KindList
	KindMap
	// KindVariant is Iceberg format 3's variant: any JSON-like value,
	// stored in Parquet's Variant encoding (package variant), held in a
	// row as its JSON text like the other nested values. It has no
	// children; a table's variant column is Type Nested with a NestedType
	// of this kind, so that every path that carries a nested value's text
	// carries it.
	KindVariant
)

// VariantName is the Iceberg type name of a variant. persisted: must not change.
const VariantName = "variant"

// VariantType is the NestedType of a variant column.
func VariantType() *NestedType { return &NestedType{Kind: KindVariant} }

// IsVariant reports whether t is a variant.
func (t *NestedType) IsVariant() bool { return t != nil && t.Kind == KindVariant }

// NestedType is a nested Iceberg type, to any depth: a struct's fields, a
// list's element, a map's key and value, each with its Iceberg field id
// and required flag, down to primitive leaves.
type NestedType struct {
	Kind       NestedKind
	Prim       Type          // KindPrimitive: a primitive Timelake reads
	Fields     []NestedField // KindStruct
	Elem       *NestedField  // KindList (named "element")
	Key, Value *NestedField  // KindMap (named "key", "value")
}

// NestedField is a field of a nested type: a struct's field, a list's
// element, a map's key or value.
type NestedField struct {
	ID       int
	Name     string
	Required bool
	Type     *NestedType
}

// ParseNested reads a nested type from its Iceberg schema JSON (the "type"
// of a schema field: {"type":"map","key-id":…}). A primitive leaf must be
// one Timelake reads (ParseType); other leaves (decimal, date, uuid,
// binary…) are refused, and so is a type deeper than MaxNestDepth.
func ParseNested(raw json.RawMessage) (*NestedType, error) {
	return parseNested(raw, 0)
}

func parseNested(raw json.RawMessage, depth int) (*NestedType, error) {
	if depth > MaxNestDepth {
		return nil, fmt.Errorf("nested type deeper than %d levels", MaxNestDepth)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return nil, err
		}
		if name == VariantName {
			return VariantType(), nil
		}
		p, err := ParseType(name)
		if err != nil {
			return nil, fmt.Errorf("element type %q is not one Timelake reads", name)
		}
		return &NestedType{Kind: KindPrimitive, Prim: p}, nil
	}
	var j struct {
		Type   string `json:"type"`
		Fields []struct {
			ID       int             `json:"id"`
			Name     string          `json:"name"`
			Required bool            `json:"required"`
			Type     json.RawMessage `json:"type"`
		} `json:"fields"`
		ElementID       int             `json:"element-id"`
		Element         json.RawMessage `json:"element"`
		ElementRequired bool            `json:"element-required"`
		KeyID           int             `json:"key-id"`
		Key             json.RawMessage `json:"key"`
		ValueID         int             `json:"value-id"`
		Value           json.RawMessage `json:"value"`
		ValueRequired   bool            `json:"value-required"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("type %s: %v", raw, err)
	}
	sub := func(id int, name string, req bool, r json.RawMessage) (*NestedField, error) {
		if len(r) == 0 {
			return nil, fmt.Errorf("%s type has no %s", j.Type, name)
		}
		t, err := parseNested(r, depth+1)
		if err != nil {
			return nil, err
		}
		return &NestedField{ID: id, Name: name, Required: req, Type: t}, nil
	}
	t := &NestedType{}
	var err error
	switch j.Type {
	case "struct":
		t.Kind = KindStruct
		for _, f := range j.Fields {
			nf, err := sub(f.ID, f.Name, f.Required, f.Type)
			if err != nil {
				return nil, err
			}
			t.Fields = append(t.Fields, *nf)
		}
	case "list":
		t.Kind = KindList
		if t.Elem, err = sub(j.ElementID, "element", j.ElementRequired, j.Element); err != nil {
			return nil, err
		}
	case "map":
		t.Kind = KindMap
		if t.Key, err = sub(j.KeyID, "key", true, j.Key); err != nil {
			return nil, err
		}
		if t.Value, err = sub(j.ValueID, "value", j.ValueRequired, j.Value); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("type %s is not a struct, list or map", raw)
	}
	return t, nil
}

// String is the Iceberg type text: "map<string, string>", "list<long>",
// "struct<a: long, b: string>".
func (t *NestedType) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *NestedType) write(b *strings.Builder) {
	switch t.Kind {
	case KindVariant:
		b.WriteString(VariantName)
	case KindPrimitive:
		b.WriteString(t.Prim.String())
	case KindStruct:
		b.WriteString("struct<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Name + ": ")
			f.Type.write(b)
		}
		b.WriteString(">")
	case KindList:
		b.WriteString("list<")
		t.Elem.Type.write(b)
		b.WriteString(">")
	case KindMap:
		b.WriteString("map<")
		t.Key.Type.write(b)
		b.WriteString(", ")
		t.Value.Type.write(b)
		b.WriteString(">")
	}
}

// JSON is the type in Iceberg's schema JSON, as ParseNested reads it.
func (t *NestedType) JSON() json.RawMessage {
	return t.appendJSON(nil)
}

func (t *NestedType) appendJSON(b []byte) []byte {
	field := func(b []byte, key string, id int, reqKey string, req bool, typKey string, ft *NestedType) []byte {
		b = append(b, `"`+key+`":`...)
		b = strconv.AppendInt(b, int64(id), 10)
		if reqKey != "" {
			b = append(b, `,"`+reqKey+`":`...)
			b = strconv.AppendBool(b, req)
		}
		b = append(b, `,"`+typKey+`":`...)
		return ft.appendJSON(b)
	}
	switch t.Kind {
	case KindVariant:
		return strconv.AppendQuote(b, VariantName)
	case KindPrimitive:
		return strconv.AppendQuote(b, t.Prim.String())
	case KindStruct:
		b = append(b, `{"type":"struct","fields":[`...)
		for i, f := range t.Fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			b = field(b, "id", f.ID, "", false, "type", f.Type)
			name, _ := json.Marshal(f.Name)
			b = append(b, `,"name":`...)
			b = append(b, name...)
			b = append(b, `,"required":`...)
			b = strconv.AppendBool(b, f.Required)
			b = append(b, '}')
		}
		return append(b, "]}"...)
	case KindList:
		b = append(b, `{"type":"list",`...)
		b = field(b, "element-id", t.Elem.ID, "element-required", t.Elem.Required, "element", t.Elem.Type)
		return append(b, '}')
	case KindMap:
		b = append(b, `{"type":"map",`...)
		b = field(b, "key-id", t.Key.ID, "", false, "key", t.Key.Type)
		b = append(b, ',')
		b = field(b, "value-id", t.Value.ID, "value-required", t.Value.Required, "value", t.Value.Type)
		return append(b, '}')
	}
	return b
}

// MaxID is the highest field id in t (0 for a primitive).
func (t *NestedType) MaxID() int {
	m := 0
	for _, f := range t.children() {
		m = max(m, f.ID, f.Type.MaxID())
	}
	return m
}

// children are the struct fields, the list element or the map key and
// value.
func (t *NestedType) children() []NestedField {
	switch t.Kind {
	case KindStruct:
		return t.Fields
	case KindList:
		return []NestedField{*t.Elem}
	case KindMap:
		return []NestedField{*t.Key, *t.Value}
	}
	return nil
}

// NameOfID returns the name of the struct field with Iceberg id id
// anywhere in t, for a reader matching a file's fields by id.
func (t *NestedType) NameOfID(id int) (string, bool) {
	for _, f := range t.children() {
		if f.ID == id {
			return f.Name, true
		}
		if n, ok := f.Type.NameOfID(id); ok {
			return n, true
		}
	}
	return "", false
}

// TypeText is the column's type as Iceberg writes it: the primitive's name
// or the nested type's text (NestedType.String).
func (f Field) TypeText() string {
	if f.Nested != nil {
		return f.Nested.String()
	}
	return f.Type.String()
}

// IsStringMap reports whether t is map<string, string> (labels:
// Prometheus, OpenTelemetry attributes).
func (t *NestedType) IsStringMap() bool {
	return t != nil && t.Kind == KindMap &&
		t.Key.Type.Kind == KindPrimitive && t.Key.Type.Prim == String &&
		t.Value.Type.Kind == KindPrimitive && t.Value.Type.Prim == String
}

// HasVariant reports whether t is or holds a variant (a type only Iceberg
// format 3 has).
func (t *NestedType) HasVariant() bool {
	if t == nil {
		return false
	}
	if t.Kind == KindVariant {
		return true
	}
	for _, f := range t.children() {
		if f.Type.HasVariant() {
			return true
		}
	}
	return false
}

// Writable reports why values of t cannot be written (nil when they can):
// a map keyed by a list, map or struct (JSON, the values' text, has only
// strings for an object's member names). Every leaf type ParseNested
// takes is written.
func (t *NestedType) Writable() error {
	switch t.Kind {
	case KindStruct:
		for _, f := range t.Fields {
			if err := f.Type.Writable(); err != nil {
				return err
			}
		}
	case KindList:
		return t.Elem.Type.Writable()
	case KindMap:
		if t.Key.Type.Kind != KindPrimitive {
			return fmt.Errorf("a map keyed by %s is not written", t.Key.Type)
		}
		return t.Value.Type.Writable()
	}
	return nil
}
