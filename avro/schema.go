package avro

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Type is an Avro schema type.
type Type uint8

const (
	TypeNull Type = iota + 1
	TypeBoolean
	TypeInt
	TypeLong
	TypeFloat
	TypeDouble
	TypeBytes
	TypeString
	TypeRecord
	TypeEnum
	TypeArray
	TypeMap
	TypeUnion
	TypeFixed
)

// typeNames are the Avro names of the types. persisted: must not change.
var typeNames = [...]string{
	TypeNull: "null", TypeBoolean: "boolean", TypeInt: "int", TypeLong: "long",
	TypeFloat: "float", TypeDouble: "double", TypeBytes: "bytes", TypeString: "string",
	TypeRecord: "record", TypeEnum: "enum", TypeArray: "array", TypeMap: "map",
	TypeUnion: "union", TypeFixed: "fixed",
}

func (t Type) String() string {
	if int(t) < len(typeNames) && typeNames[t] != "" {
		return typeNames[t]
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// Schema is an Avro schema. Attributes other than the ones Avro defines
// (Iceberg's field-id, element-id, key-id, value-id, …) are kept in Attrs in
// the order they were given or read, and written back in that order.
type Schema struct {
	Type        Type
	Name        string    // record, enum, fixed: the name as written (may be dotted)
	Namespace   string    // record, enum, fixed: as written, may be empty
	Doc         string    // record, enum, fixed
	Fields      []*Field  // record
	Items       *Schema   // array
	Values      *Schema   // map
	Branches    []*Schema // union
	Symbols     []string  // enum
	Size        int       // fixed
	LogicalType string    // e.g. "date", "map", "timestamp-micros"; empty if none
	Attrs       []Attr
}

// Field is one field of a record.
type Field struct {
	Name    string
	Type    *Schema
	Doc     string
	Default json.RawMessage // JSON default value; nil when the field has none
	Attrs   []Attr          // e.g. field-id
}

// Attr is a schema attribute with its JSON value.
type Attr struct {
	Key   string
	Value json.RawMessage
}

// IntAttr makes an attribute with an integer value, e.g. IntAttr("field-id", 100).
func IntAttr(key string, v int) Attr {
	return Attr{Key: key, Value: json.RawMessage(strconv.Itoa(v))}
}

// IntAttrOf returns the integer value of the attribute key, if present.
func IntAttrOf(attrs []Attr, key string) (int, bool) {
	for _, a := range attrs {
		if a.Key == key {
			n, err := strconv.Atoi(string(a.Value))
			return n, err == nil
		}
	}
	return 0, false
}

// FieldID returns the Iceberg field id of f (its "field-id" attribute).
func (f *Field) FieldID() (int, bool) { return IntAttrOf(f.Attrs, "field-id") }

// Primitive returns the schema of a primitive type.
func Primitive(t Type) *Schema { return &Schema{Type: t} }

// Optional returns the union ["null", s], the form Avro writers use for an
// optional value (null first so the default can be null).
func Optional(s *Schema) *Schema {
	return &Schema{Type: TypeUnion, Branches: []*Schema{{Type: TypeNull}, s}}
}

// FullName is the name of a named type including its namespace.
func (s *Schema) FullName() string {
	if strings.Contains(s.Name, ".") || s.Namespace == "" {
		return s.Name
	}
	return s.Namespace + "." + s.Name
}

// Field returns the record field with the given name, or nil.
func (s *Schema) Field(name string) *Field {
	for _, f := range s.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// String returns the schema as JSON.
func (s *Schema) String() string { return string(s.AppendJSON(nil)) }

// MarshalJSON writes the schema in canonical key order (type, name, …, then
// Attrs in order). A named type already written earlier in the same schema is
// written as a reference to its name.
func (s *Schema) MarshalJSON() ([]byte, error) { return s.AppendJSON(nil), nil }

// AppendJSON appends the schema's JSON to dst.
func (s *Schema) AppendJSON(dst []byte) []byte {
	return s.appendJSON(dst, map[string]bool{})
}

func appendJSONString(dst []byte, v string) []byte {
	b, _ := json.Marshal(v) // a string always marshals
	return append(dst, b...)
}

func appendAttrs(dst []byte, attrs []Attr) []byte {
	for _, a := range attrs {
		dst = append(dst, ',')
		dst = appendJSONString(dst, a.Key)
		dst = append(dst, ':')
		dst = append(dst, a.Value...)
	}
	return dst
}

func (s *Schema) appendJSON(dst []byte, seen map[string]bool) []byte {
	switch s.Type {
	case TypeUnion:
		dst = append(dst, '[')
		for i, b := range s.Branches {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = b.appendJSON(dst, seen)
		}
		return append(dst, ']')
	case TypeRecord, TypeEnum, TypeFixed:
		if seen[s.FullName()] {
			return appendJSONString(dst, s.FullName())
		}
		seen[s.FullName()] = true
	default:
		if s.LogicalType == "" && len(s.Attrs) == 0 && s.Type != TypeArray && s.Type != TypeMap {
			return appendJSONString(dst, s.Type.String())
		}
	}
	dst = append(dst, `{"type":`...)
	dst = appendJSONString(dst, s.Type.String())
	if s.Name != "" {
		dst = append(dst, `,"name":`...)
		dst = appendJSONString(dst, s.Name)
	}
	if s.Namespace != "" {
		dst = append(dst, `,"namespace":`...)
		dst = appendJSONString(dst, s.Namespace)
	}
	if s.Doc != "" {
		dst = append(dst, `,"doc":`...)
		dst = appendJSONString(dst, s.Doc)
	}
	switch s.Type {
	case TypeRecord:
		dst = append(dst, `,"fields":[`...)
		for i, f := range s.Fields {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"name":`...)
			dst = appendJSONString(dst, f.Name)
			dst = append(dst, `,"type":`...)
			dst = f.Type.appendJSON(dst, seen)
			if f.Doc != "" {
				dst = append(dst, `,"doc":`...)
				dst = appendJSONString(dst, f.Doc)
			}
			if f.Default != nil {
				dst = append(dst, `,"default":`...)
				dst = append(dst, f.Default...)
			}
			dst = appendAttrs(dst, f.Attrs)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	case TypeEnum:
		dst = append(dst, `,"symbols":[`...)
		for i, sym := range s.Symbols {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, sym)
		}
		dst = append(dst, ']')
	case TypeArray:
		dst = append(dst, `,"items":`...)
		dst = s.Items.appendJSON(dst, seen)
	case TypeMap:
		dst = append(dst, `,"values":`...)
		dst = s.Values.appendJSON(dst, seen)
	case TypeFixed:
		dst = append(dst, `,"size":`...)
		dst = strconv.AppendInt(dst, int64(s.Size), 10)
	}
	if s.LogicalType != "" {
		dst = append(dst, `,"logicalType":`...)
		dst = appendJSONString(dst, s.LogicalType)
	}
	dst = appendAttrs(dst, s.Attrs)
	return append(dst, '}')
}

// ParseSchema reads an Avro schema from JSON. Named types may be referenced
// by name after their definition.
func ParseSchema(data []byte) (*Schema, error) {
	p := schemaParser{named: map[string]*Schema{}}
	s, err := p.parse(json.RawMessage(data), "", 0)
	if err != nil {
		return nil, fmt.Errorf("avro: schema: %w", err)
	}
	return s, nil
}

type schemaParser struct {
	named map[string]*Schema
}

type member struct {
	key string
	val json.RawMessage
}

// objectMembers splits a JSON object into its members, in order.
func objectMembers(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object")
	}
	var ms []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		ms = append(ms, member{key, val})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return ms, nil
}

var primitiveByName = map[string]Type{
	"null": TypeNull, "boolean": TypeBoolean, "int": TypeInt, "long": TypeLong,
	"float": TypeFloat, "double": TypeDouble, "bytes": TypeBytes, "string": TypeString,
}

func (p *schemaParser) parse(data json.RawMessage, namespace string, depth int) (*Schema, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested more than %d levels", maxDepth)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("empty schema")
	}
	switch data[0] {
	case '"':
		var name string
		if err := json.Unmarshal(data, &name); err != nil {
			return nil, err
		}
		return p.byName(name, namespace)
	case '[':
		return p.union(data, namespace, depth)
	case '{':
		return p.object(data, namespace, depth)
	default:
		return nil, fmt.Errorf("schema must be a name, an array or an object, not %.20q", data)
	}
}

// union parses a union: a JSON array of its branches.
func (p *schemaParser) union(data json.RawMessage, namespace string, depth int) (*Schema, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, err
	}
	u := &Schema{Type: TypeUnion}
	for _, r := range raws {
		b, err := p.parse(r, namespace, depth+1)
		if err != nil {
			return nil, err
		}
		if b.Type == TypeUnion {
			return nil, fmt.Errorf("union directly inside a union")
		}
		u.Branches = append(u.Branches, b)
	}
	if len(u.Branches) == 0 {
		return nil, fmt.Errorf("union with no branches")
	}
	return u, nil
}

// schemaObject is a schema's JSON object: its members in order, and the
// keys the parser took (the others become attributes).
type schemaObject struct {
	ms    []member
	known map[string]bool
}

func (o *schemaObject) get(k string) json.RawMessage {
	for _, m := range o.ms {
		if m.key == k {
			return m.val
		}
	}
	return nil
}

// str is member k as a string ("" when absent), and marks k as taken.
func (o *schemaObject) str(k string) (string, error) {
	o.known[k] = true
	raw := o.get(k)
	if raw == nil {
		return "", nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("%q must be a string", k)
	}
	return v, nil
}

// object parses a schema written as a JSON object.
func (p *schemaParser) object(data json.RawMessage, namespace string, depth int) (*Schema, error) {
	ms, err := objectMembers(data)
	if err != nil {
		return nil, err
	}
	o := &schemaObject{ms: ms, known: map[string]bool{"type": true}}
	typeRaw := o.get("type")
	if typeRaw == nil {
		return nil, fmt.Errorf("object without a \"type\"")
	}
	var typeName string
	if err := json.Unmarshal(typeRaw, &typeName); err != nil {
		// {"type": {...}} or {"type": [...]}: a wrapped schema.
		return p.parse(typeRaw, namespace, depth+1)
	}
	s := &Schema{}
	if s.LogicalType, err = o.str("logicalType"); err != nil {
		return nil, err
	}
	switch typeName {
	case "record", "error", "enum", "fixed":
		if err := p.namedType(o, s, typeName, namespace, depth); err != nil {
			return nil, err
		}
	case "array":
		s.Type = TypeArray
		o.known["items"] = true
		if o.get("items") == nil {
			return nil, fmt.Errorf("array without \"items\"")
		}
		if s.Items, err = p.parse(o.get("items"), namespace, depth+1); err != nil {
			return nil, err
		}
	case "map":
		s.Type = TypeMap
		o.known["values"] = true
		if o.get("values") == nil {
			return nil, fmt.Errorf("map without \"values\"")
		}
		if s.Values, err = p.parse(o.get("values"), namespace, depth+1); err != nil {
			return nil, err
		}
	default:
		t, ok := primitiveByName[typeName]
		if !ok {
			return nil, fmt.Errorf("unknown type %q", typeName)
		}
		s.Type = t
	}
	for _, m := range ms {
		if !o.known[m.key] {
			s.Attrs = append(s.Attrs, Attr{m.key, m.val})
		}
	}
	return s, nil
}

// namedType parses into s a named type (record, error, enum or fixed) and
// defines its name.
func (p *schemaParser) namedType(o *schemaObject, s *Schema, typeName, namespace string, depth int) error {
	var err error
	if s.Name, err = o.str("name"); err != nil {
		return err
	}
	if s.Name == "" {
		return fmt.Errorf("%s without a name", typeName)
	}
	if s.Namespace, err = o.str("namespace"); err != nil {
		return err
	}
	if s.Doc, err = o.str("doc"); err != nil {
		return err
	}
	o.known["aliases"] = true
	if s.Namespace == "" && !strings.Contains(s.Name, ".") && namespace != "" {
		s.Namespace = namespace
	}
	full := s.FullName()
	if _, dup := p.named[full]; dup {
		return fmt.Errorf("type %q defined twice", full)
	}
	if _, prim := primitiveByName[full]; prim {
		return fmt.Errorf("type name %q is reserved", full)
	}
	p.named[full] = s // before fields: a record may refer to itself
	ns := s.Namespace
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		ns = full[:i]
	}
	switch typeName {
	case "record", "error":
		s.Type = TypeRecord
		o.known["fields"] = true
		var raws []json.RawMessage
		if err := json.Unmarshal(o.get("fields"), &raws); err != nil {
			return fmt.Errorf("record %q: \"fields\" must be an array", full)
		}
		names := map[string]bool{}
		for _, r := range raws {
			f, err := p.field(r, ns, depth)
			if err != nil {
				return fmt.Errorf("record %q: %w", full, err)
			}
			if names[f.Name] {
				return fmt.Errorf("record %q: field %q defined twice", full, f.Name)
			}
			names[f.Name] = true
			s.Fields = append(s.Fields, f)
		}
	case "enum":
		s.Type = TypeEnum
		o.known["symbols"], o.known["default"] = true, true
		if err := json.Unmarshal(o.get("symbols"), &s.Symbols); err != nil || len(s.Symbols) == 0 {
			return fmt.Errorf("enum %q: \"symbols\" must be a non-empty array of strings", full)
		}
	case "fixed":
		s.Type = TypeFixed
		o.known["size"] = true
		if err := json.Unmarshal(o.get("size"), &s.Size); err != nil || s.Size < 0 {
			return fmt.Errorf("fixed %q: \"size\" must be a non-negative integer", full)
		}
	}
	return nil
}

func (p *schemaParser) field(data json.RawMessage, namespace string, depth int) (*Field, error) {
	ms, err := objectMembers(data)
	if err != nil {
		return nil, fmt.Errorf("field: %w", err)
	}
	f := &Field{}
	var typeRaw json.RawMessage
	for _, m := range ms {
		switch m.key {
		case "name":
			if err := json.Unmarshal(m.val, &f.Name); err != nil {
				return nil, fmt.Errorf("field name must be a string")
			}
		case "type":
			typeRaw = m.val
		case "doc":
			_ = json.Unmarshal(m.val, &f.Doc) // a non-string doc is ignored
		case "default":
			f.Default = m.val
		case "aliases", "order":
		default:
			f.Attrs = append(f.Attrs, Attr{m.key, m.val})
		}
	}
	if f.Name == "" {
		return nil, fmt.Errorf("field without a name")
	}
	if typeRaw == nil {
		return nil, fmt.Errorf("field %q without a type", f.Name)
	}
	if f.Type, err = p.parse(typeRaw, namespace, depth+1); err != nil {
		return nil, fmt.Errorf("field %q: %w", f.Name, err)
	}
	return f, nil
}

func (p *schemaParser) byName(name, namespace string) (*Schema, error) {
	if t, ok := primitiveByName[name]; ok {
		return &Schema{Type: t}, nil
	}
	if !strings.Contains(name, ".") && namespace != "" {
		if s, ok := p.named[namespace+"."+name]; ok {
			return s, nil
		}
	}
	if s, ok := p.named[name]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("unknown type %q", name)
}

// minSize is the fewest bytes one value of s can take; 0 for cycles (a safe
// under-estimate).
func (s *Schema) minSize(visiting map[*Schema]bool) int {
	switch s.Type {
	case TypeNull:
		return 0
	case TypeFloat:
		return 4
	case TypeDouble:
		return 8
	case TypeFixed:
		return s.Size
	case TypeRecord:
		if visiting[s] {
			return 0
		}
		visiting[s] = true
		n := 0
		for _, f := range s.Fields {
			n += f.Type.minSize(visiting)
		}
		delete(visiting, s)
		return n
	default: // every other encoding starts with at least one byte
		return 1
	}
}
