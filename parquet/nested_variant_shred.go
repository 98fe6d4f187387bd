package parquet

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/timelake/timelake/variant"
)

// Reading a shredded variant (VariantShredding.md): beside `value` a
// variant (or an object's field, or an array's element) may have a
// `typed_value` holding it as a Parquet type — a primitive column, a
// group of the object's fields (each a required group of its own value
// and typed_value), or a LIST of elements (each such a group). A row's
// variant is put back together from both, depth first over the levels:
// typed_value when it is non-null (an object's fields merged with those
// left in value), else value, else the value is missing (a field absent
// from its object; a variant null at the top). Printed as JSON like an
// unshredded variant: the typed primitives are encoded as the variant
// primitive they stand for and printed by package variant, so that a
// value prints alike whichever way it was stored.

// Variant primitive type ids (VariantEncoding.md), for typed_value leaves.
const (
	vpBool          = 1 // true; false is 2
	vpInt8          = 3
	vpInt16         = 4
	vpInt32         = 5
	vpInt64         = 6
	vpDouble        = 7
	vpDecimal4      = 8
	vpDecimal8      = 9
	vpDecimal16     = 10
	vpDate          = 11
	vpTimestamp     = 12
	vpTimestampNTZ  = 13
	vpFloat         = 14
	vpBinary        = 15
	vpString        = 16
	vpTime          = 17
	vpTimestampNs   = 18
	vpTimestampNTZs = 19
)

// shredLeaf sets n.vprim (and vscale) from typed_value leaf e's Parquet
// type and rewrites e to the plain physical column columnInfo reads.
func shredLeaf(n *nestedNode, e *schemaElement, path fieldPath) error {
	lt := e.Logical
	unsupported := func(what string) error {
		return fmt.Errorf("%w: shredded variant field %q: %s is not read", ErrUnsupported, path, what)
	}
	scale := func() error {
		s := e.Scale
		if lt.Kind == logicalDecimal {
			s = lt.DecimalScale
		}
		if s < 0 || s > 38 {
			return fmt.Errorf("%w: shredded variant field %q: decimal scale %d", ErrCorrupt, path, s)
		}
		n.vscale = uint8(s)
		return nil
	}
	conv := func(c int32) bool { return lt.Kind == logicalNone && e.HasConverted && e.Converted == c }
	isDecimal := lt.Kind == logicalDecimal || conv(convDecimal)
	switch e.Type {
	case TypeBoolean:
		n.vprim = vpBool
	case TypeInt32:
		switch {
		case isDecimal:
			n.vprim = vpDecimal4
			if err := scale(); err != nil {
				return err
			}
		case lt.Kind == logicalDate || conv(convDate):
			n.vprim = vpDate
		case lt.Kind == logicalInteger && lt.Signed && lt.BitWidth == 8, conv(convInt8):
			n.vprim = vpInt8
		case lt.Kind == logicalInteger && lt.Signed && lt.BitWidth == 16, conv(convInt16):
			n.vprim = vpInt16
		case lt.Kind == logicalNone && !e.HasConverted, lt.Kind == logicalInteger && lt.Signed && lt.BitWidth == 32, conv(convInt32):
			n.vprim = vpInt32
		default:
			return unsupported("an INT32 of this annotation")
		}
	case TypeInt64:
		switch {
		case isDecimal:
			n.vprim = vpDecimal8
			if err := scale(); err != nil {
				return err
			}
		case lt.Kind == logicalTime && lt.Unit == unitMicros, conv(convTimeMicros):
			n.vprim = vpTime
		case conv(convTimestampMicros):
			n.vprim = vpTimestamp
		case lt.Kind == logicalTimestamp && lt.Unit == unitMicros:
			n.vprim = vpTimestampNTZ
			if lt.UTC {
				n.vprim = vpTimestamp
			}
		case lt.Kind == logicalTimestamp && lt.Unit == unitNanos:
			n.vprim = vpTimestampNTZs
			if lt.UTC {
				n.vprim = vpTimestampNs
			}
		case lt.Kind == logicalNone && !e.HasConverted, lt.Kind == logicalInteger && lt.Signed && lt.BitWidth == 64, conv(convInt64):
			n.vprim = vpInt64
		default:
			return unsupported("an INT64 of this annotation")
		}
	case TypeFloat:
		n.vprim = vpFloat
	case TypeDouble:
		n.vprim = vpDouble
	case TypeByteArray:
		switch {
		case isDecimal:
			n.vprim = vpDecimal16
			if err := scale(); err != nil {
				return err
			}
		case lt.Kind == logicalString || conv(convUTF8):
			n.vprim = vpString
		case lt.Kind == logicalNone && !e.HasConverted:
			n.vprim = vpBinary
		default:
			return unsupported("a BYTE_ARRAY of this annotation")
		}
		e.Logical, e.HasConverted = logicalType{Kind: logicalString}, false
		return nil
	default:
		return unsupported(fmt.Sprintf("physical type %d (a uuid or a fixed-length decimal)", e.Type))
	}
	e.Logical, e.HasConverted = logicalType{}, false
	return nil
}

// shredParts are the value and typed_value children of a shredded group
// (the variant, an object's field, an array's element); either may be nil.
func shredParts(n *nestedNode) (value, typed *nestedNode) {
	for _, c := range n.children {
		switch c.name {
		case "value":
			value = c
		case "typed_value":
			typed = c
		}
	}
	return value, typed
}

// shredded appends the JSON of the value at the current entries of value
// and typed (either nil); present is false for a missing value (both
// null), for which nothing is appended.
func (a *assembler) shredded(value, typed *nestedNode, meta []byte, depth int) (present bool, err error) {
	if depth > variant.MaxDepth {
		return false, fmt.Errorf("%w: shredded variant nested deeper than %d", ErrCorrupt, variant.MaxDepth)
	}
	var vb []byte
	have := false
	if value != nil {
		if value.kind != nLeaf {
			return false, fmt.Errorf("%w: a shredded variant's value is not a binary", ErrCorrupt)
		}
		l := a.leaves[value.leaf]
		if l.pos >= len(l.data.def) {
			return false, errStep
		}
		d := l.data.def[l.pos]
		l.pos++
		if d == value.def {
			s, ok := l.data.str(l.vpos)
			if l.vpos >= l.data.nvals || !ok {
				return false, errStep
			}
			// a copy in scratch kept per depth (an object's value is read
			// after its fields' values)
			for len(a.vals) <= depth {
				a.vals = append(a.vals, nil)
			}
			a.vals[depth] = append(a.vals[depth][:0], s...)
			vb, have = a.vals[depth], true
			l.vpos++
		}
	}
	if typed != nil {
		tl := a.leaves[typed.first]
		if tl.pos >= len(tl.data.def) {
			return false, errStep
		}
		d := tl.data.def[tl.pos]
		if d < typed.def {
			if err := a.skip(typed, typed.def); err != nil {
				return false, err
			}
		} else {
			switch typed.kind {
			case nLeaf:
				tl.pos++
				return true, a.shredPrim(typed, tl)
			case nList:
				return true, a.shredList(typed, d, meta, depth)
			case nStruct:
				return true, a.shredObject(typed, vb, have, meta, depth)
			}
			return false, fmt.Errorf("%w: a shredded variant's typed_value is a %v", ErrUnsupported, typed.kind)
		}
	}
	if !have {
		return false, nil
	}
	a.buf, err = variant.AppendJSON(a.buf, meta, vb)
	return true, err
}

// shredPrim appends typed_value leaf n's next value, encoded as the variant
// primitive it stands for and printed by package variant.
func (a *assembler) shredPrim(n *nestedNode, l *leafCursor) error {
	i := l.vpos
	if i >= l.data.nvals {
		return errStep
	}
	l.vpos++
	v := &l.data.vals
	le := binary.LittleEndian
	b := append(a.prim[:0], n.vprim<<2)
	switch n.vprim {
	case vpBool:
		if i >= len(v.bools) {
			return errStep
		}
		if !v.bools[i] {
			b[0] = 2 << 2
		}
	case vpDouble, vpFloat:
		if i >= len(v.floats) {
			return errStep
		}
		if n.vprim == vpFloat {
			b = le.AppendUint32(b, math.Float32bits(float32(v.floats[i])))
		} else {
			b = le.AppendUint64(b, math.Float64bits(v.floats[i]))
		}
	case vpString, vpBinary, vpDecimal16:
		s, ok := l.data.str(i)
		if !ok {
			return errStep
		}
		if n.vprim != vpDecimal16 {
			b = append(le.AppendUint32(b, uint32(len(s))), s...)
			break
		}
		if len(s) == 0 || len(s) > 16 {
			return fmt.Errorf("%w: a decimal of %d bytes", ErrCorrupt, len(s))
		}
		// big-endian two's complement, sign-extended to 16 little-endian bytes
		b = append(b, n.vscale)
		for k := len(s) - 1; k >= 0; k-- {
			b = append(b, s[k])
		}
		ext := byte(0)
		if s[0]&0x80 != 0 {
			ext = 0xff
		}
		for range 16 - len(s) {
			b = append(b, ext)
		}
	default: // the integers
		if i >= len(v.ints) {
			return errStep
		}
		x := v.ints[i]
		switch n.vprim {
		case vpInt8:
			b = append(b, byte(x))
		case vpInt16:
			b = le.AppendUint16(b, uint16(x))
		case vpInt32, vpDate:
			b = le.AppendUint32(b, uint32(x))
		case vpDecimal4:
			b = le.AppendUint32(append(b, n.vscale), uint32(x))
		case vpDecimal8:
			b = le.AppendUint64(append(b, n.vscale), uint64(x))
		default: // int64, time, the timestamps
			b = le.AppendUint64(b, uint64(x))
		}
	}
	a.prim = b
	var err error
	a.buf, err = variant.AppendJSON(a.buf, emptyVariantMeta, b)
	return err
}

var emptyVariantMeta = []byte{0x11, 0, 0}

// shredList appends the array of typed_value list n (present: definition
// level d at its first leaf).
func (a *assembler) shredList(n *nestedNode, d uint8, meta []byte, depth int) error {
	a.buf = append(a.buf, '[')
	if d < n.repDef { // empty
		a.buf = append(a.buf, ']')
		return a.skip(n, n.repDef)
	}
	l := a.leaves[n.first]
	el := n.children[0]
	for i := 0; ; i++ {
		if i > 0 {
			a.buf = append(a.buf, ',')
		}
		ev, et := shredParts(el)
		present, err := a.shredded(ev, et, meta, depth+1)
		if err != nil {
			return err
		}
		if !present {
			a.buf = append(a.buf, "null"...) // an element is never missing; read as null
		}
		if l.pos >= len(l.data.rep) || l.data.rep[l.pos] < n.repRep {
			break
		}
		if l.data.rep[l.pos] > n.repRep {
			return errStep
		}
	}
	a.buf = append(a.buf, ']')
	return nil
}

// shredField is one member of a shredded object being put together: its
// key and its JSON in the assembler's scratch.
type shredField struct {
	key        string
	start, end int
}

// shredObject appends the object of typed_value group n: its present
// fields merged with the ones left in value (vb, when have), in key order.
func (a *assembler) shredObject(n *nestedNode, vb []byte, have bool, meta []byte, depth int) error {
	// each field's JSON goes to a.buf past mark, then is moved into place
	mark := len(a.buf)
	var fields []shredField
	for _, f := range n.children {
		fv, ft := shredParts(f)
		start := len(a.buf)
		present, err := a.shredded(fv, ft, meta, depth+1)
		if err != nil {
			return err
		}
		if present {
			fields = append(fields, shredField{key: f.name, start: start, end: len(a.buf)})
		}
	}
	if have {
		ok, err := variant.ObjectFields(meta, vb, func(k, j []byte) error {
			for _, f := range fields {
				if f.key == string(k) {
					return nil // the typed field wins (the spec's rule)
				}
			}
			start := len(a.buf)
			a.buf = append(a.buf, j...)
			fields = append(fields, shredField{key: string(k), start: start, end: len(a.buf)})
			return nil
		})
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if !ok {
			return fmt.Errorf("%w: a partially shredded object's value is not an object", ErrCorrupt)
		}
	}
	slices.SortFunc(fields, func(x, y shredField) int {
		switch {
		case x.key < y.key:
			return -1
		case x.key > y.key:
			return 1
		}
		return 0
	})
	parts := append([]byte(nil), a.buf[mark:]...)
	a.buf = append(a.buf[:mark], '{')
	for i, f := range fields {
		if i > 0 {
			a.buf = append(a.buf, ',')
		}
		a.buf = appendJSONString(a.buf, f.key)
		a.buf = append(a.buf, ':')
		a.buf = append(a.buf, parts[f.start-mark:f.end-mark]...)
	}
	a.buf = append(a.buf, '}')
	return nil
}
