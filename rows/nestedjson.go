package rows

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/timelake/timelake/schema"
)

// A nested column (map, list, struct, to any depth) takes each row's value
// as JSON text checked against the column's schema.NestedType and stored as
// the reader prints it (NestedTree.AppendText), so that what is appended
// scans back byte for byte. NestedTree is the one reader of that text: the
// input paths (NDJSON, CSV, Go values) check and canonicalize with it, and
// the Parquet writer walks its nodes to shred a row into its leaves' levels.
//
// The JSON a row takes: a struct is an object of its fields by name (any
// order; a field left out is null; an unknown field is refused), a list
// an array, a map an object whose member names are its keys (a key of
// another type than string as its text: "1", "true", a timestamp), with
// no key twice. Leaves: long and int a JSON integer (or a number that is
// an exact integer), double and float a number or "NaN", "Infinity",
// "-Infinity" (any spelling ParseFloat's callers take), boolean true or
// false, string a string, the timestamps a string as ParseTime reads
// (ParseTimeNanos for the nanosecond types).

// NestedNode is one value of a parsed nested value: a leaf's value, or a
// struct, list or map whose children are NestedTree.Kids[Kids:Kids+N]
// (a struct's in its type's field order, -1 for a field left out; a
// map's as key, value pairs).
type NestedNode struct {
	Null    bool
	Str     string // a string leaf; a map key's text, whatever its type
	Int     int64  // long, int, the timestamps (micro- or nanoseconds)
	Float   float64
	Bool    bool
	Kids, N int32
}

// NestedTree is a parsed nested value, its root Nodes[0]. Reused across
// rows, it allocates only as it grows.
type NestedTree struct {
	Nodes []NestedNode
	Kids  []int32
	stack []int32
	p     mapParser
	path  []pathStep // the path to the value being read, for an error
	// canon: the text read so far is already the reader's (no space, no
	// escape, fields in order, leaves as printed), so AppendText would
	// give it back and CanonicalNested keeps the text
	canon bool
	// valueCanon: canon up to the end of the value, before what follows
	valueCanon bool
	tmp        []byte
	// SkipUnknown passes over a struct field the type lacks instead of
	// refusing it: a file written before the field was dropped from the
	// table's struct.
	SkipUnknown bool
	// RawVariants keeps a variant's text as the input has it, unchecked
	// (the Parquet writer, whose encoder checks it), instead of its
	// canonical text.
	RawVariants bool
}

// pathStep is a step into a value: a struct field (".name"), a list
// element ("[3]") or a map value ("[key]"), formatted only on an error.
type pathStep struct {
	name  string
	index int // -1: a struct field; -2: a map key
}

func (s pathStep) String() string {
	switch s.index {
	case -1:
		return "." + s.name
	case -2:
		return "[" + s.name + "]"
	}
	return "[" + strconv.Itoa(s.index) + "]"
}

// NestedPathError is a value that does not fit the column's type, at Path
// inside the value ("" the value itself, ".b" a struct field, "[3]" a list
// element, "[env]" a map value).
type NestedPathError struct {
	Path, Msg string
}

func (e *NestedPathError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return "at " + e.Path + ": " + e.Msg
}

// Parse reads text as a value of t into the tree. The error is a
// *NestedPathError.
func (tr *NestedTree) Parse(t *schema.NestedType, text string) error {
	if _, err := tr.parsePrefix(t, text); err != nil {
		return err
	}
	if tr.p.i < len(text) {
		return tr.fail("text after the value")
	}
	return nil
}

// parsePrefix reads a value of t at the start of text (spaces before it
// allowed), returning where it ends.
func (tr *NestedTree) parsePrefix(t *schema.NestedType, text string) (int, error) {
	tr.Nodes, tr.Kids, tr.stack, tr.path = tr.Nodes[:0], tr.Kids[:0], tr.stack[:0], tr.path[:0]
	// UTF-8 is checked in strings as they are read (mapParser.str): a
	// byte past ASCII anywhere else is no JSON and refused as such
	tr.p = mapParser{s: text}
	tr.canon = true
	tr.space()
	if _, err := tr.value(t); err != nil {
		return 0, err
	}
	if tr.Nodes[0].Null && t.Kind == schema.KindVariant {
		// a variant column's text null (not a null row) is the variant
		// null, as the reader prints it
		tr.Nodes[0] = NestedNode{Str: "null"}
	} else if tr.Nodes[0].Null {
		return 0, tr.fail("null (a null value is no value: leave it out or give the column null)")
	}
	end := tr.p.i
	tr.valueCanon = tr.canon
	tr.space() // spaces after the value: not the reader's text
	return end, nil
}

// space skips white space, which the reader's text has none of.
func (tr *NestedTree) space() {
	at := tr.p.i
	tr.p.space()
	if tr.p.i != at {
		tr.canon = false
	}
}

// str reads a JSON string, noting an escape (the reader's text has one
// only where AppendJSONString puts it, which str cannot tell cheaply).
func (tr *NestedTree) str() (string, error) {
	at := tr.p.i
	s, err := tr.p.str()
	if tr.p.i-at != len(s)+2 {
		tr.canon = false
	}
	return s, err
}

func (tr *NestedTree) fail(format string, a ...any) error {
	var path strings.Builder
	for _, s := range tr.path {
		path.WriteString(s.String())
	}
	return &NestedPathError{Path: strings.ToValidUTF8(path.String(), "\uFFFD"), Msg: strings.ToValidUTF8(fmt.Sprintf(format, a...), "\uFFFD")}
}

// value reads a value of t at the parser's position, returning its node.
func (tr *NestedTree) value(t *schema.NestedType) (int32, error) {
	p := &tr.p
	at := int32(len(tr.Nodes))
	tr.Nodes = append(tr.Nodes, NestedNode{})
	if strings.HasPrefix(p.s[p.i:], "null") {
		p.i += 4
		tr.Nodes[at].Null = true
		return at, nil
	}
	switch t.Kind {
	case schema.KindVariant:
		return at, tr.variant(at)
	case schema.KindPrimitive:
		start := p.i
		if err := tr.leaf(at, t.Prim); err != nil {
			return at, err
		}
		if tr.canon && t.Prim != schema.String {
			tr.tmp = appendLeafText(tr.tmp[:0], t.Prim, &tr.Nodes[at], true)
			tr.canon = string(tr.tmp) == p.s[start:p.i]
		}
		return at, nil
	case schema.KindStruct:
		if !p.eat('{') {
			return at, tr.fail("%s given for a %s (want a JSON object)", tr.what(), t)
		}
		k0 := int32(len(tr.Kids))
		for range t.Fields {
			tr.Kids = append(tr.Kids, -1)
		}
		n := 0
		err := tr.members(func(name string) error {
			j := -1
			for i := range t.Fields {
				if t.Fields[i].Name == name {
					j = i
					break
				}
			}
			tr.path = append(tr.path, pathStep{name, -1})
			if j < 0 && tr.SkipUnknown {
				tr.canon = false
				tr.path = tr.path[:len(tr.path)-1]
				return tr.skip(0)
			}
			if j < 0 {
				return tr.fail("no such field in %s", t)
			}
			if j != n {
				tr.canon = false // out of the type's order
			}
			if tr.Kids[k0+int32(j)] >= 0 {
				return tr.fail("field given twice")
			}
			kid, err := tr.value(t.Fields[j].Type)
			if err != nil {
				return err
			}
			if tr.Nodes[kid].Null && t.Fields[j].Required {
				return tr.fail("field is required but null")
			}
			tr.Kids[k0+int32(j)] = kid
			tr.path = tr.path[:len(tr.path)-1]
			n++
			return nil
		})
		if err != nil {
			return at, err
		}
		if n != len(t.Fields) {
			tr.canon = false // a field left out
		}
		for j := range t.Fields {
			if tr.Kids[k0+int32(j)] < 0 && t.Fields[j].Required {
				tr.path = append(tr.path, pathStep{t.Fields[j].Name, -1})
				return at, tr.fail("required field left out")
			}
		}
		tr.Nodes[at].Kids, tr.Nodes[at].N = k0, int32(len(t.Fields))
		return at, nil
	case schema.KindList:
		if !p.eat('[') {
			return at, tr.fail("%s given for a %s (want a JSON array)", tr.what(), t)
		}
		base := len(tr.stack)
		tr.space()
		if !p.eat(']') {
			for i := 0; ; i++ {
				tr.space()
				tr.path = append(tr.path, pathStep{"", i})
				kid, err := tr.value(t.Elem.Type)
				if err != nil {
					return at, err
				}
				if tr.Nodes[kid].Null && t.Elem.Required {
					return at, tr.fail("element is required but null")
				}
				tr.path = tr.path[:len(tr.path)-1]
				tr.stack = append(tr.stack, kid)
				tr.space()
				if p.eat(']') {
					break
				}
				if !p.eat(',') {
					return at, tr.fail("not a JSON array: after element %d, no comma or closing bracket", i)
				}
			}
		}
		tr.Nodes[at].Kids, tr.Nodes[at].N = int32(len(tr.Kids)), int32(len(tr.stack)-base)
		tr.Kids = append(tr.Kids, tr.stack[base:]...)
		tr.stack = tr.stack[:base]
		return at, nil
	}
	// a map: an object of its keys' texts
	if !p.eat('{') {
		return at, tr.fail("%s given for a %s (want a JSON object)", tr.what(), t)
	}
	base := len(tr.stack)
	err := tr.members(func(name string) error {
		tr.path = append(tr.path, pathStep{name, -2})
		key := int32(len(tr.Nodes))
		tr.Nodes = append(tr.Nodes, NestedNode{})
		if err := tr.key(key, name, t.Key.Type); err != nil {
			return err
		}
		val, err := tr.value(t.Value.Type)
		if err != nil {
			return err
		}
		if tr.Nodes[val].Null && t.Value.Required {
			return tr.fail("value is required but null")
		}
		tr.path = tr.path[:len(tr.path)-1]
		tr.stack = append(tr.stack, key, val)
		return nil
	})
	if err != nil {
		return at, err
	}
	pairs := tr.stack[base:]
	if dup, ok := tr.duplicateKey(pairs); ok {
		return at, tr.fail("key %q appears twice", dup)
	}
	tr.Nodes[at].Kids, tr.Nodes[at].N = int32(len(tr.Kids)), int32(len(pairs))
	tr.Kids = append(tr.Kids, pairs...)
	tr.stack = tr.stack[:base]
	return at, nil
}

// members reads an object's members after its '{', calling each with its
// name at the value.
func (tr *NestedTree) members(each func(name string) error) error {
	p := &tr.p
	tr.space()
	if p.eat('}') {
		return nil
	}
	for {
		tr.space()
		name, err := tr.str()
		if err != nil {
			return tr.fail("not a JSON object: member name: %v", err)
		}
		tr.space()
		if !p.eat(':') {
			return tr.fail("not a JSON object: no colon after %q", name)
		}
		tr.space()
		if err := each(name); err != nil {
			return err
		}
		tr.space()
		if p.eat('}') {
			return nil
		}
		if !p.eat(',') {
			return tr.fail("not a JSON object: after %q, no comma or closing brace", name)
		}
	}
}

// duplicateKey finds a key given twice among the key, value pairs:
// pairwise for a few (labels), by a set past that.
func (tr *NestedTree) duplicateKey(pairs []int32) (string, bool) {
	if len(pairs) <= 32 {
		for i := 0; i < len(pairs); i += 2 {
			for j := i + 2; j < len(pairs); j += 2 {
				if tr.Nodes[pairs[i]].Str == tr.Nodes[pairs[j]].Str {
					return tr.Nodes[pairs[i]].Str, true
				}
			}
		}
		return "", false
	}
	seen := make(map[string]bool, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		k := tr.Nodes[pairs[i]].Str
		if seen[k] {
			return k, true
		}
		seen[k] = true
	}
	return "", false
}

// key sets node at from a map key's text: a string key is the text, any
// other is read as its type (and Str made its canonical text, so "01" and
// "1" are the one key 1).
func (tr *NestedTree) key(at int32, text string, t *schema.NestedType) error {
	if t.Kind != schema.KindPrimitive {
		return tr.fail("map key type %s is not written", t)
	}
	n := &tr.Nodes[at]
	if t.Prim == schema.String {
		n.Str = text
		return nil
	}
	var ce *convErr
	switch p := t.Prim; {
	case p.IsTime():
		n.Int, ce = leafTime(text, p)
	case p.IsInteger():
		n.Int, ce = textInt(text, p)
	case p.IsFloat():
		n.Float, ce = textFloat(text, p)
	case p == schema.Boolean:
		var ok bool
		if n.Bool, ok = textBool(text); !ok || (text != "true" && text != "false") {
			ce = mismatch("key %q is not true or false", text)
		}
	default:
		ce = mismatch("map key type %s is not written", p)
	}
	if ce != nil {
		return tr.fail("key: %s", ce.msg)
	}
	tr.tmp = appendLeafText(tr.tmp[:0], t.Prim, n, false)
	if string(tr.tmp) != text {
		tr.canon = false
		n.Str = string(tr.tmp)
	} else {
		n.Str = text
	}
	return nil
}

func leafTime(s string, t schema.Type) (int64, *convErr) {
	if t.Nanos() {
		return parseTimeNs(s)
	}
	return parseTime(s)
}

// leaf reads a primitive value of type t into node at.
func (tr *NestedTree) leaf(at int32, t schema.Type) error {
	p := &tr.p
	n := &tr.Nodes[at]
	if p.i < len(p.s) && p.s[p.i] == '"' {
		s, err := tr.str()
		if err != nil {
			return tr.fail("%v", err)
		}
		var ce *convErr
		switch {
		case t == schema.String:
			n.Str = s
		case t.IsTime():
			n.Int, ce = leafTime(s, t)
		case t.IsFloat():
			// NaN and the infinities, which JSON has no number for
			n.Float, ce = textFloat(s, t)
			if ce == nil && !math.IsNaN(n.Float) && !math.IsInf(n.Float, 0) {
				ce = mismatch("a string %q given for a %s (give a number)", shortValue(s), t)
			}
		default:
			ce = mismatch("a string %q given for a %s", shortValue(s), t)
		}
		if ce != nil {
			return tr.fail("%s", ce.msg)
		}
		return nil
	}
	switch c := p.peek(); {
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		for p.i < len(p.s) && strings.IndexByte("+-.eE0123456789", p.s[p.i]) >= 0 {
			p.i++
		}
		num := p.s[start:p.i]
		if _, ok := scanNumber(num); !ok || num[0] == '+' {
			return tr.fail("malformed number %s", shortValue(num))
		}
		var ce *convErr
		switch {
		case t.IsInteger() && !t.IsTime():
			n.Int, ce = textInt(num, t)
		case t.IsFloat():
			n.Float, ce = textFloat(num, t)
		default:
			ce = mismatch("a number %s given for a %s", num, t)
		}
		if ce != nil {
			return tr.fail("%s", ce.msg)
		}
		return nil
	case c == 't' || c == 'f':
		switch {
		case strings.HasPrefix(p.s[p.i:], "true"):
			n.Bool, p.i = true, p.i+4
		case strings.HasPrefix(p.s[p.i:], "false"):
			n.Bool, p.i = false, p.i+5
		default:
			return tr.fail("malformed value %s", p.token())
		}
		if t != schema.Boolean {
			return tr.fail("a boolean given for a %s", t)
		}
		return nil
	case c == '{' || c == '[':
		return tr.fail("an object or array given for a %s", t)
	}
	return tr.fail("malformed value %s", p.token())
}

func (p *mapParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// skip passes over one JSON value of any type.
func (tr *NestedTree) skip(depth int) error {
	p := &tr.p
	if depth > 2*schema.MaxNestDepth {
		return tr.fail("nested too deep")
	}
	switch c := p.peek(); {
	case c == '"':
		_, err := tr.str()
		return err
	case c == '{' || c == '[':
		p.i++
		closing := byte(']')
		if c == '{' {
			closing = '}'
		}
		tr.space()
		if p.eat(closing) {
			return nil
		}
		for {
			tr.space()
			if c == '{' {
				if _, err := tr.str(); err != nil {
					return tr.fail("%v", err)
				}
				tr.space()
				if !p.eat(':') {
					return tr.fail("no colon in an object")
				}
				tr.space()
			}
			if err := tr.skip(depth + 1); err != nil {
				return err
			}
			tr.space()
			if p.eat(closing) {
				return nil
			}
			if !p.eat(',') {
				return tr.fail("malformed JSON")
			}
		}
	}
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(",}] \t\r\n", rune(p.s[p.i])) {
		p.i++
	}
	if p.i == start {
		return tr.fail("malformed JSON")
	}
	return nil
}

// what names the JSON value at the parser's position, for an error.
func (tr *NestedTree) what() string {
	switch c := tr.p.peek(); {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number " + tr.p.token()
	}
	return tr.p.token()
}
