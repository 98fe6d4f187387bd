package arrowipc

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// vkind is how a vector's values are stored and handed to rows.Builder.
type vkind uint8

const (
	vNull vkind = iota
	vInt
	vUint
	vFloat16
	vFloat32
	vFloat64
	vBool
	vUtf8
	vLargeUtf8
	vTimestamp
	vDate32
	vDate64
	vDict

	vUnsupported vkind = 255
)

// vector is one column of one record batch (or a dictionary's values), its
// buffers checked against its length.
type vector struct {
	kind  vkind
	n     int
	width int    // bytes per value of vInt, vUint (and dictionary indices)
	unit  int    // vTimestamp
	valid []byte // validity bitmap; nil when every value is valid
	data  []byte // values (vBool: a bitmap)
	offs  []byte // vUtf8: int32 offsets, vLargeUtf8: int64
	str   string // vUtf8, vLargeUtf8: the value bytes as one string, sliced per row
	dict  *dictionary
	// unsigned says vDict indices are unsigned.
	unsigned bool
}

// dictionary is a dictionary's values: the first batch, then any deltas.
type dictionary struct {
	chunks []*vector
	n      int
}

// planKind says how field f is read: its kind and value width, or
// vUnsupported and, where there is more to say than the type, why.
func planKind(f *field) (vkind, int, string) {
	t := f.typ
	if f.dict != nil {
		it := f.dict.index
		if it.id != tInt || !validWidth(it.bitWidth) {
			return vUnsupported, 0, fmt.Sprintf("dictionary index type %s is not an integer", it)
		}
		if k, _, why := planKind(&field{typ: t}); k == vUnsupported {
			return vUnsupported, 0, why
		}
		return vDict, it.bitWidth / 8, ""
	}
	switch t.id {
	case tNull:
		return vNull, 0, ""
	case tInt:
		if !validWidth(t.bitWidth) {
			return vUnsupported, 0, fmt.Sprintf("integer width %d", t.bitWidth)
		}
		if t.signed {
			return vInt, t.bitWidth / 8, ""
		}
		return vUint, t.bitWidth / 8, ""
	case tFloatingPoint:
		switch t.prec {
		case 0:
			return vFloat16, 2, ""
		case 1:
			return vFloat32, 4, ""
		case 2:
			return vFloat64, 8, ""
		}
		return vUnsupported, 0, fmt.Sprintf("floating-point precision %d", t.prec)
	case tBool:
		return vBool, 0, ""
	case tUtf8:
		return vUtf8, 4, ""
	case tLargeUtf8:
		return vLargeUtf8, 8, ""
	case tTimestamp:
		if t.unit < unitSecond || t.unit > unitNano {
			return vUnsupported, 0, fmt.Sprintf("timestamp unit %d", t.unit)
		}
		return vTimestamp, 8, ""
	case tDate:
		if t.unit == 0 {
			return vDate32, 4, ""
		}
		return vDate64, 8, ""
	}
	return vUnsupported, 0, ""
}

func validWidth(w int) bool { return w == 8 || w == 16 || w == 32 || w == 64 }

// batchBody hands out a record batch's nodes and buffers in order, each
// bounds-checked against the body and, when compressed, decompressed.
type batchBody struct {
	rb       *recordBatch
	body     []byte
	node     int
	buf      int
	variadic int
	budget   int64
}

func (bb *batchBody) nextNode() (fieldNode, error) {
	if bb.node >= len(bb.rb.nodes) {
		return fieldNode{}, fmt.Errorf("the batch has %d field nodes, the schema needs more", len(bb.rb.nodes))
	}
	n := bb.rb.nodes[bb.node]
	bb.node++
	if n.length < 0 || n.nulls < 0 || n.nulls > n.length {
		return fieldNode{}, fmt.Errorf("field node %d: length %d, null count %d", bb.node-1, n.length, n.nulls)
	}
	return n, nil
}

func (bb *batchBody) nextBuffer() ([]byte, error) {
	if bb.buf >= len(bb.rb.buffers) {
		return nil, fmt.Errorf("the batch has %d buffers, the schema needs more", len(bb.rb.buffers))
	}
	b := bb.rb.buffers[bb.buf]
	bb.buf++
	if b.offset < 0 || b.length < 0 || b.offset > int64(len(bb.body)) || b.length > int64(len(bb.body))-b.offset {
		return nil, fmt.Errorf("buffer %d (offset %d, %d bytes) is outside the %d-byte body", bb.buf-1, b.offset, b.length, len(bb.body))
	}
	p := bb.body[b.offset : b.offset+b.length]
	if bb.rb.codec == codecNone {
		return p, nil
	}
	out, err := decompress(bb.rb.codec, p, &bb.budget)
	if err != nil {
		return nil, fmt.Errorf("buffer %d: %w", bb.buf-1, err)
	}
	return out, nil
}

// skip passes over field f (and its children) without reading its buffers.
func (bb *batchBody) skip(f *field, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("fields nested more than %d deep", maxDepth)
	}
	if _, err := bb.nextNode(); err != nil {
		return err
	}
	nbuf, children := 0, true
	if f.dict != nil {
		nbuf, children = 2, false
	} else {
		switch f.typ.id {
		case tNull, tRunEndEncoded:
		case tStruct, tFixedSizeList:
			nbuf = 1
		case tInt, tFloatingPoint, tBool, tDecimal, tDate, tTime, tTimestamp, tInterval, tFixedSizeBinary, tDuration, tList, tLargeList, tMap:
			nbuf = 2
		case tBinary, tUtf8, tLargeBinary, tLargeUtf8, tListView, tLargeListView:
			nbuf = 3
		case tUnion:
			nbuf = 1 + f.typ.mode // type ids, plus offsets when dense
		case tBinaryView, tUtf8View:
			if bb.variadic >= len(bb.rb.variadic) {
				return fmt.Errorf("field %q: no variadic buffer count", f.name)
			}
			v := bb.rb.variadic[bb.variadic]
			bb.variadic++
			if v < 0 || v > int64(len(bb.rb.buffers)) {
				return fmt.Errorf("field %q: %d variadic buffers", f.name, v)
			}
			nbuf = 2 + int(v)
		default:
			return fmt.Errorf("field %q: cannot skip Arrow type %s", f.name, f.typ)
		}
	}
	if bb.buf+nbuf > len(bb.rb.buffers) {
		return fmt.Errorf("the batch has %d buffers, the schema needs more", len(bb.rb.buffers))
	}
	bb.buf += nbuf // skipped buffers are never decompressed
	if children {
		for i := range f.children {
			if err := bb.skip(&f.children[i], depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// read decodes field f, a flat field of a kind planKind accepts. dicts gives
// the dictionaries read so far, by id.
func (bb *batchBody) read(f *field, dicts map[int64]*dictionary) (*vector, error) {
	node, err := bb.nextNode()
	if err != nil {
		return nil, err
	}
	kind, width, why := planKind(f)
	if kind == vUnsupported {
		return nil, fmt.Errorf("field %q: Arrow type %s is not supported %s", f.name, f.typeString(), why)
	}
	if node.length > math.MaxInt32 {
		return nil, fmt.Errorf("field %q: %d values in one batch is too many", f.name, node.length)
	}
	v := &vector{kind: kind, n: int(node.length), width: width}
	if kind == vNull {
		return v, nil
	}
	if v.valid, err = bb.nextBuffer(); err != nil {
		return nil, err
	}
	if node.nulls == 0 {
		v.valid = nil // writers may omit or leave stale bits: the count decides
	} else if len(v.valid) < (v.n+7)/8 {
		return nil, fmt.Errorf("field %q: %d nulls but a validity bitmap of %d bytes for %d values", f.name, node.nulls, len(v.valid), v.n)
	}
	switch kind {
	case vUtf8, vLargeUtf8:
		if v.offs, err = bb.nextBuffer(); err != nil {
			return nil, err
		}
		data, err := bb.nextBuffer()
		if err != nil {
			return nil, err
		}
		if err := v.checkOffsets(len(data)); err != nil {
			return nil, fmt.Errorf("field %q: %w", f.name, err)
		}
		v.str = string(data) // one copy per batch; rows slice it
		return v, nil
	}
	if v.data, err = bb.nextBuffer(); err != nil {
		return nil, err
	}
	need := int64(v.n) * int64(width)
	if kind == vBool {
		need = (int64(v.n) + 7) / 8
	}
	if int64(len(v.data)) < need {
		return nil, fmt.Errorf("field %q: %d values of %s need %d bytes, the buffer has %d", f.name, v.n, f.typeString(), need, len(v.data))
	}
	switch kind {
	case vTimestamp:
		v.unit = f.typ.unit
	case vDict:
		d := dicts[f.dict.id]
		if d == nil {
			return nil, fmt.Errorf("field %q: dictionary %d was not sent before the batch", f.name, f.dict.id)
		}
		v.dict, v.unsigned = d, !f.dict.index.signed
	}
	return v, nil
}

func (v *vector) checkOffsets(dataLen int) error {
	w := 4
	if v.kind == vLargeUtf8 {
		w = 8
	}
	if v.n == 0 && len(v.offs) == 0 {
		return nil
	}
	if int64(len(v.offs)) < (int64(v.n)+1)*int64(w) {
		return fmt.Errorf("%d offsets bytes for %d strings", len(v.offs), v.n)
	}
	prev := int64(0)
	for i := 0; i <= v.n; i++ {
		o := v.offset(i)
		if o < prev || o > int64(dataLen) || (i == 0 && o < 0) {
			return fmt.Errorf("string offset %d (%d) is out of order or past the %d data bytes", i, o, dataLen)
		}
		prev = o
	}
	return nil
}

func (v *vector) offset(i int) int64 {
	if v.kind == vLargeUtf8 {
		return int64(binary.LittleEndian.Uint64(v.offs[8*i:]))
	}
	return int64(int32(binary.LittleEndian.Uint32(v.offs[4*i:])))
}

func (v *vector) isNull(r int) bool {
	return v.kind == vNull || (v.valid != nil && v.valid[r>>3]&(1<<(r&7)) == 0)
}

// intAt reads the integer at r, sign- or zero-extended.
func (v *vector) intAt(r int, signed bool) (int64, uint64) {
	switch v.width {
	case 1:
		if signed {
			return int64(int8(v.data[r])), 0
		}
		return 0, uint64(v.data[r])
	case 2:
		u := binary.LittleEndian.Uint16(v.data[2*r:])
		if signed {
			return int64(int16(u)), 0
		}
		return 0, uint64(u)
	case 4:
		u := binary.LittleEndian.Uint32(v.data[4*r:])
		if signed {
			return int64(int32(u)), 0
		}
		return 0, uint64(u)
	}
	u := binary.LittleEndian.Uint64(v.data[8*r:])
	if signed {
		return int64(u), 0
	}
	return 0, u
}

// Bounds of the time a timestamp may hold, in seconds: years 0001 to 9999.
const (
	minSeconds = schema.MinMicros / 1_000_000
	maxSeconds = schema.MaxMicros / 1_000_000
)

// appendTo hands value r to the builder as column col, typed as Arrow has it;
// the builder converts it to the column's type.
func (v *vector) appendTo(b *rows.Builder, t *schema.Table, col, r int) error {
	if v.isNull(r) {
		b.AppendNull(col)
		return nil
	}
	switch v.kind {
	case vInt:
		i, _ := v.intAt(r, true)
		return b.AppendInt64(col, i)
	case vUint:
		_, u := v.intAt(r, false)
		if u > math.MaxInt64 {
			f := t.Fields[col]
			return &rows.Error{Code: rows.CodeTypeMismatch, Column: f.Name, Value: strconv.FormatUint(u, 10),
				Msg: fmt.Sprintf("%d is out of range for %s", u, f.Type)}
		}
		return b.AppendInt64(col, int64(u))
	case vFloat16:
		return b.AppendFloat64(col, float64(half(binary.LittleEndian.Uint16(v.data[2*r:]))))
	case vFloat32:
		return b.AppendFloat64(col, float64(math.Float32frombits(binary.LittleEndian.Uint32(v.data[4*r:]))))
	case vFloat64:
		return b.AppendFloat64(col, math.Float64frombits(binary.LittleEndian.Uint64(v.data[8*r:])))
	case vBool:
		return b.AppendBool(col, v.data[r>>3]&(1<<(r&7)) != 0)
	case vUtf8, vLargeUtf8:
		return b.AppendString(col, v.str[v.offset(r):v.offset(r+1)])
	case vTimestamp, vDate32, vDate64:
		x, _ := v.intAt(r, true)
		var sec, nsec int64
		switch {
		case v.kind == vDate32:
			sec = x * 86400
		case v.kind == vDate64: // milliseconds, taken as the midnight UTC they fall on
			sec = floorDiv(x, 86_400_000) * 86400
		case v.unit == unitSecond:
			sec = x
		case v.unit == unitMilli:
			sec, nsec = floorDiv(x, 1e3), floorMod(x, 1e3)*1e6
		case v.unit == unitMicro:
			sec, nsec = floorDiv(x, 1e6), floorMod(x, 1e6)*1e3
		default:
			sec, nsec = floorDiv(x, 1e9), floorMod(x, 1e9)
		}
		if sec < minSeconds || sec > maxSeconds {
			f := t.Fields[col]
			return &rows.Error{Code: rows.CodeTimeOutOfRange, Column: f.Name, Value: strconv.FormatInt(x, 10),
				Msg: fmt.Sprintf("Arrow %s value %d is outside years 0001 to 9999", v.typeName(), x)}
		}
		return b.AppendTime(col, time.Unix(sec, nsec))
	case vDict:
		var idx int64
		if v.unsigned {
			_, u := v.intAt(r, false)
			idx = int64(min(u, math.MaxInt64))
		} else {
			idx, _ = v.intAt(r, true)
		}
		if idx < 0 || idx >= int64(v.dict.n) {
			return &rows.Error{Code: rows.CodeSyntax, Column: t.Fields[col].Name, Value: strconv.FormatInt(idx, 10),
				Msg: fmt.Sprintf("Arrow dictionary index %d is outside the dictionary's %d values", idx, v.dict.n)}
		}
		i := int(idx)
		for _, c := range v.dict.chunks {
			if i < c.n {
				return c.appendTo(b, t, col, i)
			}
			i -= c.n
		}
	}
	return nil
}

func (v *vector) typeName() string {
	switch v.kind {
	case vDate32:
		return "date32"
	case vDate64:
		return "date64"
	}
	return "timestamp[" + unitNames[v.unit] + "]"
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// half converts an IEEE 754 binary16 to float32.
func half(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1F
	frac := uint32(h & 0x3FF)
	switch {
	case exp == 0x1F: // Inf, NaN
		return math.Float32frombits(sign | 0x7F800000 | frac<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	case frac == 0:
		return math.Float32frombits(sign)
	}
	// subnormal: frac × 2^-24
	f := float32(frac) * (1.0 / (1 << 24))
	if sign != 0 {
		f = -f
	}
	return f
}
