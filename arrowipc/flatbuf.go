package arrowipc

import (
	"encoding/binary"
	"fmt"
)

// A small read-only flatbuffer reader, enough for Arrow's Message, Schema and
// Footer tables.
//
// Design note: why by hand. The flatbuffers Go runtime trusts its input (an
// offset past the end panics) and would add a dependency to the WebAssembly
// build for the handful of tables Arrow needs. Here every offset is checked
// against the buffer before it is followed, and an error says which one.
//
// Flatbuffer layout, as far as it matters here (all little-endian):
//
//	buf[0:4]            uoffset of the root table (relative to 0)
//	table at t          int32 soffset: the vtable is at t - soffset
//	vtable at v         uint16 vtable size, uint16 table size, then one uint16
//	                    per field: the field's offset from t, 0 when absent
//	scalar field        stored inline at t + field offset
//	table/vector/string uint32 at p = t + field offset; the object is at p + uint32
//	vector/string       uint32 count, then the elements (strings: bytes, no NUL needed)
//	union               two fields: a uint8 type, then a table reference
//
// References only point forward (uoffsets are unsigned), so following them
// always ends; depth is bounded anyway.

type fbTable struct {
	buf   []byte
	pos   int // the table's start
	vt    int // its vtable
	vtLen int // vtable size in bytes
	tLen  int // table size in bytes
}

// fbError is a malformed flatbuffer; wrapped with what was being read.
type fbError struct{ msg string }

func (e *fbError) Error() string { return "flatbuffer: " + e.msg }

func fbErr(format string, a ...any) error { return &fbError{fmt.Sprintf(format, a...)} }

func fbRoot(buf []byte) (fbTable, error) {
	if len(buf) < 8 {
		return fbTable{}, fbErr("%d bytes is too short for a root table", len(buf))
	}
	return fbTableAt(buf, int(binary.LittleEndian.Uint32(buf)))
}

func fbTableAt(buf []byte, pos int) (fbTable, error) {
	if pos < 0 || pos > len(buf)-4 {
		return fbTable{}, fbErr("table offset %d past the end (%d bytes)", pos, len(buf))
	}
	vt := int64(pos) - int64(int32(binary.LittleEndian.Uint32(buf[pos:])))
	if vt < 0 || vt > int64(len(buf)-4) {
		return fbTable{}, fbErr("vtable offset %d of the table at %d is outside the buffer", vt, pos)
	}
	t := fbTable{buf: buf, pos: pos, vt: int(vt)}
	t.vtLen = int(binary.LittleEndian.Uint16(buf[t.vt:]))
	t.tLen = int(binary.LittleEndian.Uint16(buf[t.vt+2:]))
	if t.vtLen < 4 || t.vtLen%2 != 0 || t.vt+t.vtLen > len(buf) {
		return fbTable{}, fbErr("vtable at %d: size %d is odd, too small or past the end", t.vt, t.vtLen)
	}
	if t.tLen < 4 || t.pos+t.tLen > len(buf) {
		return fbTable{}, fbErr("table at %d: size %d is too small or past the end", t.pos, t.tLen)
	}
	return t, nil
}

// field returns the absolute position of field i holding size bytes, or 0
// when the field is absent.
func (t fbTable) field(i, size int) (int, error) {
	o := 4 + 2*i
	if o+2 > t.vtLen {
		return 0, nil
	}
	off := int(binary.LittleEndian.Uint16(t.buf[t.vt+o:]))
	if off == 0 {
		return 0, nil
	}
	if off < 4 || off+size > t.tLen {
		return 0, fbErr("table at %d: field %d at offset %d (%d bytes) is outside the table (%d bytes)", t.pos, i, off, size, t.tLen)
	}
	return t.pos + off, nil
}

func (t fbTable) uint8(i int, def uint8) (uint8, error) {
	p, err := t.field(i, 1)
	if p == 0 || err != nil {
		return def, err
	}
	return t.buf[p], nil
}

func (t fbTable) bool(i int) (bool, error) {
	v, err := t.uint8(i, 0)
	return v != 0, err
}

func (t fbTable) int16(i int, def int16) (int16, error) {
	p, err := t.field(i, 2)
	if p == 0 || err != nil {
		return def, err
	}
	return int16(binary.LittleEndian.Uint16(t.buf[p:])), nil
}

func (t fbTable) int32(i int, def int32) (int32, error) {
	p, err := t.field(i, 4)
	if p == 0 || err != nil {
		return def, err
	}
	return int32(binary.LittleEndian.Uint32(t.buf[p:])), nil
}

func (t fbTable) int64(i int, def int64) (int64, error) {
	p, err := t.field(i, 8)
	if p == 0 || err != nil {
		return def, err
	}
	return int64(binary.LittleEndian.Uint64(t.buf[p:])), nil
}

// ref follows the uoffset in field i; 0 when the field is absent.
func (t fbTable) ref(i int) (int, error) {
	p, err := t.field(i, 4)
	if p == 0 || err != nil {
		return 0, err
	}
	target := int64(p) + int64(binary.LittleEndian.Uint32(t.buf[p:]))
	if target > int64(len(t.buf)-4) {
		return 0, fbErr("table at %d: field %d points to %d, past the end (%d bytes)", t.pos, i, target, len(t.buf))
	}
	return int(target), nil
}

// table returns the sub-table in field i; ok is false when it is absent.
func (t fbTable) table(i int) (sub fbTable, ok bool, err error) {
	p, err := t.ref(i)
	if p == 0 || err != nil {
		return fbTable{}, false, err
	}
	sub, err = fbTableAt(t.buf, p)
	return sub, err == nil, err
}

// vector returns the start and length of the vector in field i whose
// elements are elem bytes each; n is 0 when the field is absent.
func (t fbTable) vector(i, elem int) (start, n int, err error) {
	p, err := t.ref(i)
	if p == 0 || err != nil {
		return 0, 0, err
	}
	count := int64(binary.LittleEndian.Uint32(t.buf[p:]))
	start = p + 4
	if count*int64(elem) > int64(len(t.buf)-start) {
		return 0, 0, fbErr("table at %d: field %d: %d elements of %d bytes run past the end", t.pos, i, count, elem)
	}
	return start, int(count), nil
}

// string returns the string in field i ("" when absent).
func (t fbTable) string(i int) (string, error) {
	start, n, err := t.vector(i, 1)
	if err != nil {
		return "", err
	}
	return string(t.buf[start : start+n]), nil
}

// tableAt returns element j of a vector of tables starting at start.
func (t fbTable) tableAt(start, j int) (fbTable, error) {
	p := start + 4*j
	target := int64(p) + int64(binary.LittleEndian.Uint32(t.buf[p:]))
	if target > int64(len(t.buf)) {
		return fbTable{}, fbErr("vector element %d points past the end", j)
	}
	return fbTableAt(t.buf, int(target))
}
