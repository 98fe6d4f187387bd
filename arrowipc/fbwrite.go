package arrowipc

import "encoding/binary"

// A small flatbuffer writer for the Message and Schema tables the stream
// writer sends, the mirror of flatbuf.go.
//
// Design note: front to back. The flatbuffers runtime builds back to front
// so that children come first; here a message is a small tree known in
// full before it is written, so it is laid out top down instead: a table,
// then the objects its fields point to, each reference patched once its
// target's position is known. uoffsets then point forward, as the reader
// (and every flatbuffers verifier) requires. Every scalar is aligned to
// its size from the start of the buffer, every vector's elements to
// theirs, and strings end with a NUL: Arrow C++ verifies all three.

// fbObj is a node of the tree: a table, a vector or a string.
type fbObj interface {
	// put writes the object at the end of b.buf and returns the position
	// a reference to it points at.
	put(b *fbBuilder) int
}

// fbField is one field of a table: a scalar of size bytes (1, 2, 4 or 8),
// or a reference to obj. The zero fbField is an absent field.
type fbField struct {
	size int
	v    uint64
	obj  fbObj
}

func fbU8(v uint8) fbField  { return fbField{size: 1, v: uint64(v)} }
func fbI16(v int16) fbField { return fbField{size: 2, v: uint64(uint16(v))} }
func fbI32(v int32) fbField { return fbField{size: 4, v: uint64(uint32(v))} }
func fbI64(v int64) fbField { return fbField{size: 8, v: uint64(v)} }
func fbRef(o fbObj) fbField { return fbField{size: 4, obj: o} }
func fbBool(v bool) fbField {
	if v {
		return fbU8(1)
	}
	return fbU8(0)
}

// fbTab is a table; fields[i] is field i of its schema.
type fbTab []fbField

// fbStr is a string.
type fbStr string

// fbTabs is a vector of tables.
type fbTabs []fbObj

// fbStructs is a vector of n structs of size bytes each, aligned to align.
type fbStructs struct {
	n, align int
	data     []byte
}

type fbBuilder struct{ buf []byte }

func (b *fbBuilder) pad(align int) {
	for len(b.buf)%align != 0 {
		b.buf = append(b.buf, 0)
	}
}

// fbFinish appends root as a flatbuffer to dst, whose length must be a
// multiple of 8 (the buffer is aligned from dst's start).
func fbFinish(dst []byte, root fbObj) []byte {
	start := len(dst)
	b := &fbBuilder{buf: dst[start:]}
	b.buf = append(b.buf, 0, 0, 0, 0)
	at := root.put(b)
	binary.LittleEndian.PutUint32(b.buf[0:], uint32(at))
	return append(dst[:start], b.buf...)
}

func (t fbTab) put(b *fbBuilder) int {
	// vtable: size, table size, then one offset per field.
	b.pad(2)
	vt := len(b.buf)
	b.buf = append(b.buf, make([]byte, 4+2*len(t))...)
	// the table: soffset, then the fields each at its own alignment
	// (the start is 8-aligned, so alignment within it is alignment in the buffer).
	b.pad(8)
	pos := len(b.buf)
	b.buf = binary.LittleEndian.AppendUint32(b.buf, uint32(int32(pos-vt)))
	fieldAt := make([]int, len(t))
	for _, size := range []int{8, 4, 2, 1} { // largest first: least padding
		for i, f := range t {
			if f.size != size {
				continue
			}
			b.pad(size)
			fieldAt[i] = len(b.buf)
			switch size {
			case 1:
				b.buf = append(b.buf, byte(f.v))
			case 2:
				b.buf = binary.LittleEndian.AppendUint16(b.buf, uint16(f.v))
			case 4:
				b.buf = binary.LittleEndian.AppendUint32(b.buf, uint32(f.v))
			case 8:
				b.buf = binary.LittleEndian.AppendUint64(b.buf, f.v)
			}
		}
	}
	binary.LittleEndian.PutUint16(b.buf[vt:], uint16(4+2*len(t)))
	binary.LittleEndian.PutUint16(b.buf[vt+2:], uint16(len(b.buf)-pos))
	for i, at := range fieldAt {
		if at != 0 {
			binary.LittleEndian.PutUint16(b.buf[vt+4+2*i:], uint16(at-pos))
		}
	}
	// the objects the fields point to, after the table
	for i, f := range t {
		if f.obj != nil {
			target := f.obj.put(b)
			binary.LittleEndian.PutUint32(b.buf[fieldAt[i]:], uint32(target-fieldAt[i]))
		}
	}
	return pos
}

func (s fbStr) put(b *fbBuilder) int {
	b.pad(4)
	pos := len(b.buf)
	b.buf = binary.LittleEndian.AppendUint32(b.buf, uint32(len(s)))
	b.buf = append(append(b.buf, s...), 0)
	return pos
}

func (v fbTabs) put(b *fbBuilder) int {
	b.pad(4)
	pos := len(b.buf)
	b.buf = binary.LittleEndian.AppendUint32(b.buf, uint32(len(v)))
	first := len(b.buf)
	b.buf = append(b.buf, make([]byte, 4*len(v))...)
	for i, o := range v {
		target := o.put(b)
		p := first + 4*i
		binary.LittleEndian.PutUint32(b.buf[p:], uint32(target-p))
	}
	return pos
}

func (v fbStructs) put(b *fbBuilder) int {
	// the length sits just before the elements, which start aligned
	b.pad(4)
	for (len(b.buf)+4)%v.align != 0 {
		b.buf = append(b.buf, 0)
	}
	pos := len(b.buf)
	b.buf = binary.LittleEndian.AppendUint32(b.buf, uint32(v.n))
	b.buf = append(b.buf, v.data...)
	return pos
}
