package arrowipc

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// StreamWriter encodes batches of one table schema as an Arrow IPC stream,
// appending to buffers its caller gives and writes out (no I/O here):
//
//	w, err := arrowipc.NewStreamWriter(batchSchema)
//	for each batch b {
//		buf, err = w.Append(buf[:0], b) // the schema message first, then one record batch
//		write(buf)
//	}
//	write(w.End(nil))                   // the schema if no batch came, then the end marker
//
// Types, as pyarrow reads an Iceberg table (pyiceberg's to_arrow): long →
// int64, int → int32, double → float64, float → float32, boolean → bool,
// string → utf8, timestamptz → timestamp[us, tz=UTC] (timestamp → no zone,
// the _ns types → ns); maps, lists and structs as Arrow's (nested_write.go).
// A column is nullable
// unless the field is required, and carries its Iceberg field id as the
// field metadata PARQUET:field_id, as pyarrow does when it reads a Parquet
// file with field ids. Nulls are validity bitmaps (absent in a batch
// without nulls); every buffer starts 8-aligned and is zero-padded to 8
// bytes; bodies are not compressed.
type StreamWriter struct {
	t      *schema.Table
	schema []byte // the schema message, sent once
	sent   bool
	bufs   []buffer // scratch: the body layout of the batch being written
	nodes  []fieldNode
	// nested are the builders of the nested columns' arrays, by column
	// (nil for a flat one), and bodies their buffers of the batch being
	// written, in order (nested_write.go).
	nested []*arrNode
	bodies [][]byte
}

// bufCount is how many buffers a nested column's arrays have (each node's
// validity, then its offsets and values), fixed by its type.
func (a *arrNode) bufCount() int {
	k := 1
	switch {
	case a.t.Kind == schema.KindStruct:
	case a.isString():
		k = 3
	default:
		k = 2
	}
	for _, c := range a.kids {
		k += c.bufCount()
	}
	return k
}

// fieldIDKey is the field metadata key of an Iceberg field id, as Arrow's
// Parquet reader names it.
const fieldIDKey = "PARQUET:field_id"

// metadataV5 is MetadataVersion V5, the current one (Arrow 1.0 and later).
const metadataV5 = 4

// NewStreamWriter returns a writer of batches of schema t (a scan's batch
// schema: any subset of a table's columns).
func NewStreamWriter(t *schema.Table) (*StreamWriter, error) {
	fields := make(fbTabs, len(t.Fields))
	var nested []*arrNode
	for i, f := range t.Fields {
		if f.Type == schema.Nested {
			if f.Nested == nil {
				return nil, fmt.Errorf("arrowipc: column %q: a nested column without its type", f.Name)
			}
			tab, err := nestedField(f.Name, !f.Required, f.ID, f.Nested)
			if err != nil {
				return nil, err
			}
			fields[i] = tab
			if nested == nil {
				nested = make([]*arrNode, len(t.Fields))
			}
			nested[i] = newArrNode(f.Nested, f.Required)
			continue
		}
		typ, params, err := arrowTypeOf(f)
		if err != nil {
			return nil, err
		}
		md := fbTabs{fbTab{fbRef(fbStr(fieldIDKey)), fbRef(fbStr(strconv.Itoa(f.ID)))}}
		fields[i] = fbTab{
			0: fbRef(fbStr(f.Name)),
			1: fbBool(!f.Required),
			2: fbU8(uint8(typ)),
			3: fbRef(params),
			5: fbRef(fbTabs{}), // children: none, but readers expect the vector
			6: fbRef(md),
		}
	}
	sch := fbTab{0: fbI16(0), 1: fbRef(fields)} // little-endian
	return &StreamWriter{t: t, schema: appendMessage(nil, headerSchema, sch, 0), nested: nested}, nil
}

// arrowTypeOf is f's Arrow type: the Type union's tag and table.
func arrowTypeOf(f schema.Field) (typeID, fbTab, error) {
	switch f.Type {
	case schema.Long:
		return tInt, fbTab{fbI32(64), fbBool(true)}, nil
	case schema.Int:
		return tInt, fbTab{fbI32(32), fbBool(true)}, nil
	case schema.Double:
		return tFloatingPoint, fbTab{fbI16(2)}, nil
	case schema.Float:
		return tFloatingPoint, fbTab{fbI16(1)}, nil
	case schema.Boolean:
		return tBool, fbTab{}, nil
	case schema.String:
		return tUtf8, fbTab{}, nil
	case schema.Timestamptz:
		return tTimestamp, fbTab{fbI16(unitMicro), fbRef(fbStr("UTC"))}, nil
	case schema.Timestamp:
		return tTimestamp, fbTab{fbI16(unitMicro)}, nil // no zone
	case schema.TimestamptzNs:
		return tTimestamp, fbTab{fbI16(unitNano), fbRef(fbStr("UTC"))}, nil
	case schema.TimestampNs:
		return tTimestamp, fbTab{fbI16(unitNano)}, nil
	}
	return 0, nil, fmt.Errorf("arrowipc: column %q: type %v has no Arrow type here", f.Name, f.Type)
}

// appendMessage appends an encapsulated message: the continuation marker, the
// metadata length, the Message flatbuffer padded so that the body that
// follows (bodyLen bytes, written by the caller) starts 8-aligned.
func appendMessage(dst []byte, kind uint8, header fbTab, bodyLen int64) []byte {
	at := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, continuation)
	dst = append(dst, 0, 0, 0, 0) // the metadata length, below
	meta := len(dst)
	dst = fbFinish(dst, fbTab{0: fbI16(metadataV5), 1: fbU8(kind), 2: fbRef(header), 3: fbI64(bodyLen)})
	for (len(dst)-at)%8 != 0 {
		dst = append(dst, 0)
	}
	binary.LittleEndian.PutUint32(dst[meta-4:], uint32(len(dst)-meta))
	return dst
}

// Append appends to dst the schema message, if not sent yet, and b as one
// record batch. b must have the writer's schema (its fields, in order).
func (w *StreamWriter) Append(dst []byte, b *rows.Batch) ([]byte, error) {
	if err := w.check(b); err != nil {
		return dst, err
	}
	n := b.Len
	// the body's layout: per column a validity bitmap, then offsets and
	// data (utf8) or the values
	w.bufs, w.nodes, w.bodies = w.bufs[:0], w.nodes[:0], w.bodies[:0]
	var off int64
	add := func(size int64) {
		w.bufs = append(w.bufs, buffer{offset: off, length: size})
		off += pad8(size)
	}
	for c, f := range w.t.Fields {
		col := &b.Cols[c]
		if f.Type == schema.Nested {
			a := w.nested[c]
			if err := a.build(f.Name, col, n); err != nil {
				return dst, err
			}
			from := len(w.bodies)
			w.nodes, w.bodies = a.layout(w.nodes, w.bodies)
			for _, p := range w.bodies[from:] {
				add(int64(len(p)))
			}
			continue
		}
		nulls := nullCount(col, n)
		w.nodes = append(w.nodes, fieldNode{length: int64(n), nulls: int64(nulls)})
		if nulls > 0 {
			add(bitmapLen(n))
		} else {
			add(0)
		}
		switch f.Type {
		case schema.Long, schema.Timestamptz, schema.Timestamp, schema.TimestamptzNs, schema.TimestampNs, schema.Double:
			add(8 * int64(n))
		case schema.Int, schema.Float:
			add(4 * int64(n))
		case schema.Boolean:
			add(bitmapLen(n))
		case schema.String:
			size := int64(0)
			for i := 0; i < n && i < len(col.Strs); i++ {
				if !isNull(col, i) {
					size += int64(len(col.Strs[i]))
				}
			}
			if size > math.MaxInt32 {
				return dst, fmt.Errorf("arrowipc: column %q: %d bytes of strings in one batch, past utf8's 2 GiB (fewer rows per batch)", f.Name, size)
			}
			add(4 * int64(n+1))
			add(size)
		}
	}
	if !w.sent { // after the checks: a refused batch leaves the stream as it was
		w.sent = true
		dst = append(dst, w.schema...)
	}
	nodes := make([]byte, 0, 16*len(w.nodes))
	for _, x := range w.nodes {
		nodes = binary.LittleEndian.AppendUint64(nodes, uint64(x.length))
		nodes = binary.LittleEndian.AppendUint64(nodes, uint64(x.nulls))
	}
	bufs := make([]byte, 0, 16*len(w.bufs))
	for _, x := range w.bufs {
		bufs = binary.LittleEndian.AppendUint64(bufs, uint64(x.offset))
		bufs = binary.LittleEndian.AppendUint64(bufs, uint64(x.length))
	}
	rb := fbTab{
		0: fbI64(int64(n)),
		1: fbRef(fbStructs{n: len(w.nodes), align: 8, data: nodes}),
		2: fbRef(fbStructs{n: len(w.bufs), align: 8, data: bufs}),
	}
	dst = appendMessage(dst, headerRecordBatch, rb, off)
	body := len(dst)
	dst = grow(dst, int(off))
	k := 0
	next := func() []byte { // the next buffer's bytes in dst, zeroed
		x := w.bufs[k]
		k++
		p := dst[body+int(x.offset) : body+int(x.offset)+int(x.length)]
		clear(p)
		return p
	}
	nb := 0
	for c, f := range w.t.Fields {
		col := &b.Cols[c]
		if f.Type == schema.Nested {
			for range w.nested[c].bufCount() {
				copy(next(), w.bodies[nb])
				nb++
			}
			continue
		}
		valid := next()
		if len(valid) > 0 {
			for i := range n {
				if !isNull(col, i) {
					valid[i>>3] |= 1 << (i & 7)
				}
			}
		}
		switch f.Type {
		case schema.Long, schema.Timestamptz, schema.Timestamp, schema.TimestamptzNs, schema.TimestampNs:
			p := next()
			for i, v := range col.Ints[:min(n, len(col.Ints))] {
				binary.LittleEndian.PutUint64(p[8*i:], uint64(v))
			}
		case schema.Int:
			p := next()
			for i, v := range col.Ints[:min(n, len(col.Ints))] {
				binary.LittleEndian.PutUint32(p[4*i:], uint32(int32(v)))
			}
		case schema.Double:
			p := next()
			for i, v := range col.Floats[:min(n, len(col.Floats))] {
				binary.LittleEndian.PutUint64(p[8*i:], math.Float64bits(v))
			}
		case schema.Float:
			p := next()
			for i, v := range col.Floats[:min(n, len(col.Floats))] {
				binary.LittleEndian.PutUint32(p[4*i:], math.Float32bits(float32(v)))
			}
		case schema.Boolean:
			p := next()
			for i, v := range col.Bools[:min(n, len(col.Bools))] {
				if v {
					p[i>>3] |= 1 << (i & 7)
				}
			}
		case schema.String:
			offs, data := next(), next()
			pos := 0
			for i := range n {
				if i < len(col.Strs) && !isNull(col, i) {
					pos += copy(data[pos:], col.Strs[i])
				}
				binary.LittleEndian.PutUint32(offs[4*(i+1):], uint32(pos))
			}
		}
	}
	// the padding between buffers: zeros, not what dst held before
	for i, x := range w.bufs {
		end := x.offset + x.length
		next := off
		if i+1 < len(w.bufs) {
			next = w.bufs[i+1].offset
		}
		clear(dst[body+int(end) : body+int(next)])
	}
	return dst, nil
}

// End appends the schema message, if no batch was appended, and the
// end-of-stream marker.
func (w *StreamWriter) End(dst []byte) []byte {
	if !w.sent {
		w.sent = true
		dst = append(dst, w.schema...)
	}
	return binary.LittleEndian.AppendUint64(dst, continuation) // 0xFFFFFFFF, then a zero length
}

// check says whether b's columns are the writer's and hold b.Len rows.
func (w *StreamWriter) check(b *rows.Batch) error {
	if b.Schema == nil || len(b.Schema.Fields) != len(w.t.Fields) || len(b.Cols) != len(w.t.Fields) {
		return fmt.Errorf("arrowipc: a batch of another schema than the stream's (%d columns)", len(w.t.Fields))
	}
	for i, f := range b.Schema.Fields {
		if g := w.t.Fields[i]; f.Name != g.Name || f.Type != g.Type {
			return fmt.Errorf("arrowipc: batch column %d is %q %v, the stream's %q %v", i, f.Name, f.Type, g.Name, g.Type)
		}
	}
	if b.Len < 0 || b.Len > math.MaxInt32 {
		return fmt.Errorf("arrowipc: a batch of %d rows", b.Len)
	}
	return nil
}

func nullCount(c *rows.Column, n int) int {
	k := 0
	for i := 0; i < n && i < len(c.Nulls); i++ {
		if c.Nulls[i] {
			k++
		}
	}
	return k
}

func bitmapLen(n int) int64 { return (int64(n) + 7) / 8 }

func pad8(n int64) int64 { return (n + 7) &^ 7 }

// grow extends dst by n bytes (their content is the caller's to set).
func grow(dst []byte, n int) []byte {
	l := len(dst)
	return slices.Grow(dst, n)[:l+n]
}

// isNull is c.IsNull for a Nulls that may be shorter than the batch.
func isNull(c *rows.Column, i int) bool { return i < len(c.Nulls) && c.Nulls[i] }
