package rows

import (
	"math"
	"strconv"

	"github.com/timelake/timelake/schema"
)

// A parsed nested value printed as the reader prints it (nestedjson.go
// reads it).

// AppendText appends the value as the reader prints it: compact, a
// struct's fields in its type's order (null for one left out), a map's
// entries and a list's elements in the input's order.
func (tr *NestedTree) AppendText(dst []byte, t *schema.NestedType) []byte {
	return tr.appendNode(dst, t, 0)
}

func (tr *NestedTree) appendNode(b []byte, t *schema.NestedType, at int32) []byte {
	if at < 0 || tr.Nodes[at].Null {
		return append(b, "null"...)
	}
	n := &tr.Nodes[at]
	kids := tr.Kids[n.Kids : n.Kids+n.N]
	switch t.Kind {
	case schema.KindVariant:
		return append(b, n.Str...) // its canonical text (variant.go)
	case schema.KindPrimitive:
		return appendLeafText(b, t.Prim, n, true)
	case schema.KindStruct:
		b = append(b, '{')
		for j := range t.Fields {
			if j > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, t.Fields[j].Name)
			b = append(b, ':')
			b = tr.appendNode(b, t.Fields[j].Type, kids[j])
		}
		return append(b, '}')
	case schema.KindList:
		b = append(b, '[')
		for i, k := range kids {
			if i > 0 {
				b = append(b, ',')
			}
			b = tr.appendNode(b, t.Elem.Type, k)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for i := 0; i < len(kids); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, tr.Nodes[kids[i]].Str)
		b = append(b, ':')
		b = tr.appendNode(b, t.Value.Type, kids[i+1])
	}
	return append(b, '}')
}

// appendLeafText appends a leaf's value as the reader prints it: a
// timestamp, NaN or an infinity as a JSON string; quoted false for a
// map key's bare text.
func appendLeafText(b []byte, t schema.Type, n *NestedNode, quoted bool) []byte {
	switch {
	case t == schema.String:
		if !quoted {
			return append(b, n.Str...)
		}
		return AppendJSONString(b, n.Str)
	case t.IsTime():
		if quoted {
			b = append(b, '"')
		}
		if t.Nanos() {
			b = AppendNanosText(b, n.Int, t.Zoned())
		} else {
			b = AppendMicrosText(b, n.Int, t.Zoned())
		}
		if quoted {
			b = append(b, '"')
		}
		return b
	case t.IsInteger():
		return strconv.AppendInt(b, n.Int, 10)
	case t.IsFloat():
		bits := 64
		if t == schema.Float {
			bits = 32
		}
		if quoted && (math.IsNaN(n.Float) || math.IsInf(n.Float, 0)) {
			b = append(b, '"')
			b = strconv.AppendFloat(b, n.Float, 'g', -1, bits)
			return append(b, '"')
		}
		return strconv.AppendFloat(b, n.Float, 'g', -1, bits)
	case t == schema.Boolean:
		return strconv.AppendBool(b, n.Bool)
	}
	return b
}

// CanonicalNested checks text as a value of t and returns it as the
// reader prints it (text itself when it already is: no allocation), tr
// the scratch to parse with (nil for a fresh one). The error is a
// *NestedPathError.
func CanonicalNested(tr *NestedTree, t *schema.NestedType, text string, scratch []byte) (string, []byte, error) {
	if tr == nil {
		tr = new(NestedTree)
	}
	if err := tr.Parse(t, text); err != nil {
		return "", scratch, err
	}
	if tr.canon {
		return text, scratch, nil
	}
	scratch = tr.AppendText(scratch[:0], t)
	if string(scratch) == text {
		return text, scratch, nil
	}
	return string(scratch), scratch, nil
}
