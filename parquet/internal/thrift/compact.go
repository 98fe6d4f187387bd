// Package thrift is a small encoder and decoder for the Thrift compact
// protocol, just enough for Parquet metadata: structs, lists, i16/i32/i64,
// binary and bool. It does no I/O and never allocates by a length it has not
// checked against the bytes that remain.
//
// Wire format, as used here:
//
//	field header  one byte (delta<<4 | type) when 0 < delta <= 15, else the
//	              type byte followed by the field id as a zigzag varint
//	i16/i32/i64   zigzag varint
//	binary        uvarint length, then the bytes
//	bool field    carried in the header type (1 true, 2 false)
//	list          one byte (size<<4 | elem) when size < 15, else
//	              (0xF0 | elem) followed by the size as a uvarint
//	struct        fields, then a 0 byte (stop)
package thrift

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Type is a compact-protocol type code.
type Type uint8

// Compact-protocol type codes. persisted: must not change.
const (
	Stop   Type = 0
	True   Type = 1
	False  Type = 2
	Byte   Type = 3
	I16    Type = 4
	I32    Type = 5
	I64    Type = 6
	Double Type = 7
	Binary Type = 8
	List   Type = 9
	Set    Type = 10
	Map    Type = 11
	Struct Type = 12
)

// Bool is the element type of a list of booleans (written as one byte each).
const Bool = True

// maxDepth bounds nesting when skipping unknown fields.
const maxDepth = 64

// ErrCorrupt is returned (wrapped) for any malformed input.
var ErrCorrupt = errors.New("thrift: corrupt compact-protocol data")

// Writer appends compact-protocol bytes to Buf.
type Writer struct {
	Buf   []byte
	last  []int16 // last field id of each open struct
	field int16
}

// Reset empties the writer, keeping its buffer.
func (w *Writer) Reset() { w.Buf = w.Buf[:0]; w.last = w.last[:0]; w.field = 0 }

func (w *Writer) uvarint(v uint64) { w.Buf = binary.AppendUvarint(w.Buf, v) }
func (w *Writer) varint(v int64)   { w.uvarint(uint64(v<<1) ^ uint64(v>>63)) }

func (w *Writer) header(id int16, t Type) {
	d := int(id) - int(w.field)
	if d > 0 && d <= 15 {
		w.Buf = append(w.Buf, byte(d)<<4|byte(t))
	} else {
		w.Buf = append(w.Buf, byte(t))
		w.varint(int64(id))
	}
	w.field = id
}

// I32 writes field id as an i32.
func (w *Writer) I32(id int16, v int32) { w.header(id, I32); w.varint(int64(v)) }

// I16 writes field id as an i16.
func (w *Writer) I16(id int16, v int16) { w.header(id, I16); w.varint(int64(v)) }

// I64 writes field id as an i64.
func (w *Writer) I64(id int16, v int64) { w.header(id, I64); w.varint(v) }

// Bytes writes field id as binary.
func (w *Writer) Bytes(id int16, v []byte) {
	w.header(id, Binary)
	w.uvarint(uint64(len(v)))
	w.Buf = append(w.Buf, v...)
}

// String writes field id as binary.
func (w *Writer) String(id int16, v string) {
	w.header(id, Binary)
	w.uvarint(uint64(len(v)))
	w.Buf = append(w.Buf, v...)
}

// ByteField writes field id as an i8.
func (w *Writer) ByteField(id int16, v int8) { w.header(id, Byte); w.Buf = append(w.Buf, byte(v)) }

// BoolField writes field id as a bool.
func (w *Writer) BoolField(id int16, v bool) {
	if v {
		w.header(id, True)
	} else {
		w.header(id, False)
	}
}

// StructBegin opens field id as a struct; close it with StructEnd.
func (w *Writer) StructBegin(id int16) {
	w.header(id, Struct)
	w.last = append(w.last, w.field)
	w.field = 0
}

// ElemBegin opens a struct that is a list element; close it with StructEnd.
func (w *Writer) ElemBegin() {
	w.last = append(w.last, w.field)
	w.field = 0
}

// StructEnd writes the stop byte of the innermost open struct.
func (w *Writer) StructEnd() {
	w.Buf = append(w.Buf, 0)
	n := len(w.last) - 1
	w.field = w.last[n]
	w.last = w.last[:n]
}

// ListBegin writes field id as a list of n elements of type elem; the
// elements follow, written with the Elem* methods or ElemBegin/StructEnd.
func (w *Writer) ListBegin(id int16, elem Type, n int) {
	w.header(id, List)
	if n < 15 {
		w.Buf = append(w.Buf, byte(n)<<4|byte(elem))
	} else {
		w.Buf = append(w.Buf, 0xF0|byte(elem))
		w.uvarint(uint64(n))
	}
}

// ElemI32 writes an i32 list element.
func (w *Writer) ElemI32(v int32) { w.varint(int64(v)) }

// ElemI64 writes an i64 list element.
func (w *Writer) ElemI64(v int64) { w.varint(v) }

// ElemBytes writes a binary list element.
func (w *Writer) ElemBytes(v []byte) { w.uvarint(uint64(len(v))); w.Buf = append(w.Buf, v...) }

// ElemString writes a binary list element.
func (w *Writer) ElemString(v string) { w.uvarint(uint64(len(v))); w.Buf = append(w.Buf, v...) }

// ElemBool writes a bool list element (1 true, 2 false, as the reference
// implementations do; readers take anything but 1 as false).
func (w *Writer) ElemBool(v bool) {
	if v {
		w.Buf = append(w.Buf, 1)
	} else {
		w.Buf = append(w.Buf, 2)
	}
}

// Reader decodes compact-protocol bytes. The first error sticks: every later
// call returns zero values, and Err reports it.
type Reader struct {
	b     []byte
	pos   int
	err   error
	last  []int16
	field int16
	bool  Type // value of the bool field just read (True/False)
}

// NewReader reads from b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Pos is the number of bytes consumed.
func (r *Reader) Pos() int { return r.pos }

// Err returns the first error met.
func (r *Reader) Err() error { return r.err }

// Fail records err (wrapping ErrCorrupt) unless an error is already recorded.
func (r *Reader) Fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format+" (at byte %d)", append([]any{ErrCorrupt}, append(args, r.pos)...)...)
	}
}

func (r *Reader) byte1() byte {
	if r.err != nil {
		return 0
	}
	if r.pos >= len(r.b) {
		r.Fail("unexpected end")
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

func (r *Reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.pos:])
	if n <= 0 {
		r.Fail("bad varint")
		return 0
	}
	r.pos += n
	return v
}

func (r *Reader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// FieldHeader reads the next field header of the current struct. It returns
// Stop at the end of the struct (or on error).
func (r *Reader) FieldHeader() (int16, Type) {
	c := r.byte1()
	if r.err != nil || c == 0 {
		return 0, Stop
	}
	t := Type(c & 0x0F)
	if d := c >> 4; d != 0 {
		r.field += int16(d)
	} else {
		id := r.varint()
		if id < math.MinInt16 || id > math.MaxInt16 {
			r.Fail("field id %d out of range", id)
			return 0, Stop
		}
		r.field = int16(id)
	}
	if t == True || t == False {
		r.bool = t
	}
	if t > Struct {
		r.Fail("unknown type %d", t)
		return 0, Stop
	}
	return r.field, t
}

// StructBegin enters a struct (a field or a list element).
func (r *Reader) StructBegin() {
	if len(r.last) >= maxDepth {
		r.Fail("nesting deeper than %d", maxDepth)
		return
	}
	r.last = append(r.last, r.field)
	r.field = 0
}

// StructEnd leaves a struct whose Stop has been read by FieldHeader.
func (r *Reader) StructEnd() {
	if n := len(r.last) - 1; n >= 0 {
		r.field = r.last[n]
		r.last = r.last[:n]
	}
}

// BoolValue returns the value of the bool field just read by FieldHeader.
func (r *Reader) BoolValue() bool { return r.bool == True }

// ByteValue reads a byte (i8).
func (r *Reader) ByteValue() byte { return r.byte1() }

// ElemBool reads a bool list element.
func (r *Reader) ElemBool() bool { return r.byte1() == 1 }

// I32 reads an i32 (or i16 / byte widened: callers check their own ranges).
func (r *Reader) I32() int32 {
	v := r.varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.Fail("i32 %d out of range", v)
		return 0
	}
	return int32(v)
}

// I64 reads an i64.
func (r *Reader) I64() int64 { return r.varint() }

// Bytes reads binary; the result aliases the input.
func (r *Reader) Bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.pos) {
		r.Fail("binary of %d bytes with %d left", n, len(r.b)-r.pos)
		return nil
	}
	v := r.b[r.pos : r.pos+int(n) : r.pos+int(n)]
	r.pos += int(n)
	return v
}

// String reads binary as a string (a copy).
func (r *Reader) String() string { return string(r.Bytes()) }

// ListHeader reads a list (or set) header. The size is checked against the
// bytes that remain (every element takes at least one byte), so it is safe
// to allocate by.
func (r *Reader) ListHeader() (Type, int) {
	c := r.byte1()
	if r.err != nil {
		return Stop, 0
	}
	t := Type(c & 0x0F)
	n := uint64(c >> 4)
	if n == 15 {
		n = r.uvarint()
	}
	if r.err != nil {
		return Stop, 0
	}
	if n > uint64(len(r.b)-r.pos) {
		r.Fail("list of %d elements with %d bytes left", n, len(r.b)-r.pos)
		return Stop, 0
	}
	if t == Stop || t > Struct {
		if n == 0 {
			return t, 0
		}
		r.Fail("list of unknown type %d", t)
		return Stop, 0
	}
	return t, int(n)
}

// Skip skips a value of type t.
func (r *Reader) Skip(t Type) { r.skip(t, 0) }

func (r *Reader) skip(t Type, depth int) {
	if r.err != nil {
		return
	}
	if depth > maxDepth {
		r.Fail("nesting deeper than %d", maxDepth)
		return
	}
	switch t {
	case True, False:
		// value is in the header (field) or one byte (list element, handled by caller)
	case Byte:
		r.byte1()
	case I16, I32, I64:
		r.uvarint()
	case Double:
		if len(r.b)-r.pos < 8 {
			r.Fail("unexpected end in double")
			return
		}
		r.pos += 8
	case Binary:
		r.Bytes()
	case List, Set:
		et, n := r.ListHeader()
		for i := 0; i < n && r.err == nil; i++ {
			if et == True || et == False {
				r.byte1()
			} else {
				r.skip(et, depth+1)
			}
		}
	case Map:
		n := r.uvarint()
		if r.err != nil || n == 0 {
			return
		}
		if n > uint64(len(r.b)-r.pos) {
			r.Fail("map of %d entries with %d bytes left", n, len(r.b)-r.pos)
			return
		}
		kv := r.byte1()
		kt, vt := Type(kv>>4), Type(kv&0x0F)
		for i := uint64(0); i < n && r.err == nil; i++ {
			for _, et := range [2]Type{kt, vt} {
				if et == True || et == False {
					r.byte1()
				} else {
					r.skip(et, depth+1)
				}
			}
		}
	case Struct:
		r.StructBegin()
		for r.err == nil {
			_, ft := r.FieldHeader()
			if ft == Stop {
				break
			}
			r.skip(ft, depth+1)
		}
		r.StructEnd()
	default:
		r.Fail("cannot skip type %d", t)
	}
}
