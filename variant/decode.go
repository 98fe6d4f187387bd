package variant

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/timelake/timelake/internal/core/civil"
	"github.com/timelake/timelake/internal/core/jsonstr"
)

// MaxDepth bounds how deeply objects and arrays nest, in a variant read
// and in JSON encoded: readers recurse over them.
const MaxDepth = 64

// MaxJSON bounds the JSON text one variant prints (the largest value a
// Timelake row holds).
const MaxJSON = 16 << 20

// ErrCorrupt marks bytes that are not a variant (an offset past the end, a
// type id that does not exist, a key out of order…).
var ErrCorrupt = errors.New("variant: corrupt")

// Type ids of primitives (basic type 0).
const (
	tNull = iota
	tTrue
	tFalse
	tInt8
	tInt16
	tInt32
	tInt64
	tDouble
	tDecimal4
	tDecimal8
	tDecimal16
	tDate
	tTimestamp
	tTimestampNTZ
	tFloat
	tBinary
	tString
	tTime
	tTimestampNanos
	tTimestampNTZNanos
	tUUID
)

// Basic types (the low two bits of a value's header byte).
const (
	basicPrimitive = iota
	basicShortString
	basicObject
	basicArray
)

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// Metadata is a variant's parsed metadata: its key dictionary.
type Metadata struct {
	b          []byte // the whole metadata
	size       int    // keys in the dictionary
	offSize    int
	offs, data int // where the offsets and the key bytes start in b
	sorted     bool
}

// ParseMetadata checks the metadata's header and the bounds of its
// dictionary; each key is checked when it is looked up.
func ParseMetadata(b []byte) (Metadata, error) {
	if len(b) == 0 {
		return Metadata{}, corrupt("empty metadata")
	}
	if v := b[0] & 0x0f; v != 1 {
		return Metadata{}, corrupt("metadata version %d, want 1", v)
	}
	m := Metadata{b: b, offSize: int(b[0]>>6) + 1, sorted: b[0]&0x10 != 0}
	if len(b) < 1+m.offSize {
		return Metadata{}, corrupt("metadata of %d bytes has no dictionary size", len(b))
	}
	m.size = int(readUint(b[1:], m.offSize))
	m.offs = 1 + m.offSize
	if m.size > (len(b)-m.offs)/m.offSize-1 {
		return Metadata{}, corrupt("dictionary of %d keys in %d bytes", m.size, len(b))
	}
	m.data = m.offs + (m.size+1)*m.offSize
	if last := int(readUint(b[m.offs+m.size*m.offSize:], m.offSize)); last > len(b)-m.data {
		return Metadata{}, corrupt("dictionary bytes end at %d, past the metadata's %d", last, len(b)-m.data)
	}
	return m, nil
}

// Len is the number of keys in the dictionary.
func (m *Metadata) Len() int { return m.size }

// Key returns dictionary key id.
func (m *Metadata) Key(id int) ([]byte, error) {
	if id < 0 || id >= m.size {
		return nil, corrupt("field id %d past the dictionary's %d keys", id, m.size)
	}
	lo := int(readUint(m.b[m.offs+id*m.offSize:], m.offSize))
	hi := int(readUint(m.b[m.offs+(id+1)*m.offSize:], m.offSize))
	if lo > hi || hi > len(m.b)-m.data {
		return nil, corrupt("key %d at bytes %d to %d of %d", id, lo, hi, len(m.b)-m.data)
	}
	k := m.b[m.data+lo : m.data+hi]
	if !utf8.Valid(k) {
		return nil, corrupt("key %d is not UTF-8", id)
	}
	return k, nil
}

// readUint reads an n-byte (1 to 4) little-endian unsigned integer; b
// holds at least n bytes.
func readUint(b []byte, n int) uint32 {
	var v uint32
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint32(b[i])
	}
	return v
}

// ToJSON is AppendJSON into a new string.
func ToJSON(metadata, value []byte) (string, error) {
	b, err := AppendJSON(make([]byte, 0, 2*len(value)), metadata, value)
	return string(b), err
}

// AppendJSON appends the variant's JSON text (see the package doc) to dst.
func AppendJSON(dst, metadata, value []byte) ([]byte, error) {
	m, err := ParseMetadata(metadata)
	if err != nil {
		return dst, err
	}
	d := decoder{m: &m, out: dst, limit: len(dst) + MaxJSON}
	n, err := d.value(value, 0)
	if err != nil {
		return dst, err
	}
	if n != len(value) {
		return dst, corrupt("%d bytes after the value", len(value)-n)
	}
	return d.out, nil
}

type decoder struct {
	m     *Metadata
	out   []byte
	limit int
	// field, when set, takes the top object's fields one by one
	// (ObjectFields) instead of out printing the object
	field func(key, json []byte) error
}

// value appends the JSON of the value at the start of b and returns its
// size in bytes.
func (d *decoder) value(b []byte, depth int) (int, error) {
	if len(b) == 0 {
		return 0, corrupt("a value ends before its header")
	}
	if len(d.out) > d.limit {
		return 0, fmt.Errorf("variant: its JSON is over %d bytes", MaxJSON)
	}
	h := b[0]
	switch h & 3 {
	case basicShortString:
		n := int(h >> 2)
		if len(b) < 1+n {
			return 0, corrupt("short string of %d bytes in %d", n, len(b)-1)
		}
		return 1 + n, d.str(b[1 : 1+n])
	case basicObject, basicArray:
		if depth >= MaxDepth {
			return 0, corrupt("nested deeper than %d", MaxDepth)
		}
		return d.container(b, depth)
	}
	return d.primitive(b)
}

func (d *decoder) str(s []byte) error {
	if !utf8.Valid(s) {
		return corrupt("a string is not UTF-8")
	}
	d.out = jsonstr.Append(d.out, s)
	return nil
}

// container appends an object or an array.
func (d *decoder) container(b []byte, depth int) (int, error) {
	h := b[0] >> 2
	obj := b[0]&3 == basicObject
	offSize := int(h&3) + 1
	idSize, large := 0, h&4 != 0
	if obj {
		idSize, large = int(h>>2&3)+1, h&16 != 0
	}
	p := 1
	countSize := 1
	if large {
		countSize = 4
	}
	if len(b) < p+countSize {
		return 0, corrupt("container ends before its size")
	}
	n := int(readUint(b[p:], countSize))
	p += countSize
	// ids and offsets must fit in b before anything is allocated
	if n > (len(b)-p)/(idSize+offSize) {
		return 0, corrupt("container of %d elements in %d bytes", n, len(b))
	}
	ids := p
	offs := ids + n*idSize
	vals := offs + (n+1)*offSize
	if vals > len(b) {
		return 0, corrupt("container of %d elements in %d bytes", n, len(b))
	}
	size := int(readUint(b[offs+n*offSize:], offSize))
	if size > len(b)-vals {
		return 0, corrupt("container values of %d bytes in %d", size, len(b)-vals)
	}
	data := b[vals : vals+size]
	open, closing := byte('['), byte(']')
	if obj {
		open, closing = '{', '}'
	}
	field := d.field
	d.field = nil // only the top object's
	d.out = append(d.out, open)
	var prev []byte
	for i := range n {
		if i > 0 {
			d.out = append(d.out, ',')
		}
		if obj {
			k, err := d.m.Key(int(readUint(b[ids+i*idSize:], idSize)))
			if err != nil {
				return 0, err
			}
			if i > 0 && string(prev) >= string(k) {
				return 0, corrupt("object key %q after %q: keys must be unique and sorted", k, prev)
			}
			prev = k
			if err := d.str(k); err != nil {
				return 0, err
			}
			d.out = append(d.out, ':')
		}
		at := len(d.out) // where the element's JSON starts
		off := int(readUint(b[offs+i*offSize:], offSize))
		if off >= size {
			return 0, corrupt("element %d at offset %d of %d value bytes", i, off, size)
		}
		if _, err := d.value(data[off:], depth+1); err != nil {
			return 0, err
		}
		if field != nil {
			if err := field(prev, d.out[at:]); err != nil {
				return 0, err
			}
			d.out = d.out[:0]
		}
	}
	d.out = append(d.out, closing)
	return vals + size, nil
}

// primitive appends a primitive value.
func (d *decoder) primitive(b []byte) (int, error) {
	id := int(b[0] >> 2)
	need := func(n int) ([]byte, error) {
		if len(b) < 1+n {
			return nil, corrupt("primitive type %d needs %d bytes, has %d", id, n, len(b)-1)
		}
		return b[1 : 1+n], nil
	}
	fixed := [...]int{tInt8: 1, tInt16: 2, tInt32: 4, tInt64: 8, tDouble: 8, tDecimal4: 5, tDecimal8: 9, tDecimal16: 17,
		tDate: 4, tTimestamp: 8, tTimestampNTZ: 8, tFloat: 4, tTime: 8, tTimestampNanos: 8, tTimestampNTZNanos: 8, tUUID: 16, tBinary: 4, tString: 4}
	if id > tUUID {
		return 0, corrupt("primitive type id %d", id)
	}
	v, err := need(fixed[id])
	if err != nil {
		return 0, err
	}
	le := binary.LittleEndian
	switch id {
	case tNull:
		d.out = append(d.out, "null"...)
	case tTrue:
		d.out = append(d.out, "true"...)
	case tFalse:
		d.out = append(d.out, "false"...)
	case tInt8:
		d.out = strconv.AppendInt(d.out, int64(int8(v[0])), 10)
	case tInt16:
		d.out = strconv.AppendInt(d.out, int64(int16(le.Uint16(v))), 10)
	case tInt32:
		d.out = strconv.AppendInt(d.out, int64(int32(le.Uint32(v))), 10)
	case tInt64:
		d.out = strconv.AppendInt(d.out, int64(le.Uint64(v)), 10)
	case tDouble:
		d.out = appendFloat(d.out, math.Float64frombits(le.Uint64(v)), 64)
	case tFloat:
		d.out = appendFloat(d.out, float64(math.Float32frombits(le.Uint32(v))), 32)
	case tDecimal4, tDecimal8, tDecimal16:
		scale := int(v[0])
		if scale > 38 {
			return 0, corrupt("decimal scale %d over 38", scale)
		}
		var hi, lo uint64
		switch id {
		case tDecimal4:
			lo = uint64(int64(int32(le.Uint32(v[1:]))))
			hi = uint64(int64(lo) >> 63)
		case tDecimal8:
			lo = le.Uint64(v[1:])
			hi = uint64(int64(lo) >> 63)
		default:
			lo, hi = le.Uint64(v[1:]), le.Uint64(v[9:])
		}
		var ok bool
		if d.out, ok = appendDecimal(d.out, hi, lo, scale); !ok {
			return 0, corrupt("decimal of more than 38 digits")
		}
	case tDate:
		d.out = append(d.out, '"')
		d.out = civil.AppendDate(d.out, int64(int32(le.Uint32(v))))
		d.out = append(d.out, '"')
	case tTimestamp, tTimestampNTZ, tTimestampNanos, tTimestampNTZNanos:
		per := int64(1_000_000)
		if id == tTimestampNanos || id == tTimestampNTZNanos {
			per = 1_000_000_000
		}
		d.out = appendTimestamp(d.out, int64(le.Uint64(v)), per, id == tTimestamp || id == tTimestampNanos)
	case tTime:
		us := int64(le.Uint64(v))
		if us < 0 || us >= 86_400_000_000 {
			return 0, corrupt("time of %d microseconds is not within a day", us)
		}
		d.out = append(d.out, '"')
		d.out = civil.AppendClock(d.out, us, 1_000_000)
		d.out = append(d.out, '"')
	case tUUID:
		const hex = "0123456789abcdef"
		d.out = append(d.out, '"')
		for i, c := range v {
			if i == 4 || i == 6 || i == 8 || i == 10 {
				d.out = append(d.out, '-')
			}
			d.out = append(d.out, hex[c>>4], hex[c&15])
		}
		d.out = append(d.out, '"')
	case tBinary, tString:
		n := le.Uint32(v)
		if uint64(n) > uint64(len(b)-5) {
			return 0, corrupt("%d bytes of string or binary in %d", n, len(b)-5)
		}
		s := b[5 : 5+int(n)]
		if id == tString {
			return 5 + int(n), d.str(s)
		}
		if base64.StdEncoding.EncodedLen(len(s)) > d.limit-len(d.out) {
			return 0, fmt.Errorf("variant: its JSON is over %d bytes", MaxJSON)
		}
		d.out = append(d.out, '"')
		d.out = base64.StdEncoding.AppendEncode(d.out, s)
		d.out = append(d.out, '"')
		return 5 + int(n), nil
	}
	return 1 + fixed[id], nil
}

// ObjectFields calls fn with each key of the object value (in the
// encoding's order) and the JSON text of its value (valid only during the
// call), for a reader merging a shredded object's fields with the rest
// stored as a variant. ok is false when the value is not an object.
func ObjectFields(metadata, value []byte, fn func(key, json []byte) error) (ok bool, err error) {
	m, err := ParseMetadata(metadata)
	if err != nil {
		return false, err
	}
	if len(value) == 0 || value[0]&3 != basicObject {
		return false, nil
	}
	d := decoder{m: &m, limit: MaxJSON}
	d.field = fn
	if _, err := d.container(value, 0); err != nil {
		return true, err
	}
	return true, nil
}
