package arrowipc

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// The Arrow IPC messages as flatbuffers (format/Message.fbs, Schema.fbs,
// File.fbs of the Arrow project), reduced to the fields read here. Field
// numbers are the order of declaration in those schemas (a union takes two:
// its type, then its value).

// Message header types (union MessageHeader).
const (
	headerSchema          = 1
	headerDictionaryBatch = 2
	headerRecordBatch     = 3
)

// typeID is the union Type tag of a Field.
type typeID uint8

const (
	tNull typeID = iota + 1
	tInt
	tFloatingPoint
	tBinary
	tUtf8
	tBool
	tDecimal
	tDate
	tTime
	tTimestamp
	tInterval
	tList
	tStruct
	tUnion
	tFixedSizeBinary
	tFixedSizeList
	tMap
	tDuration
	tLargeBinary
	tLargeUtf8
	tLargeList
	tRunEndEncoded
	tBinaryView
	tUtf8View
	tListView
	tLargeListView
)

var typeNames = [...]string{tNull: "null", tInt: "int", tFloatingPoint: "float", tBinary: "binary", tUtf8: "utf8",
	tBool: "bool", tDecimal: "decimal", tDate: "date", tTime: "time", tTimestamp: "timestamp", tInterval: "interval",
	tList: "list", tStruct: "struct", tUnion: "union", tFixedSizeBinary: "fixed_size_binary",
	tFixedSizeList: "fixed_size_list", tMap: "map", tDuration: "duration", tLargeBinary: "large_binary",
	tLargeUtf8: "large_utf8", tLargeList: "large_list", tRunEndEncoded: "run_end_encoded",
	tBinaryView: "binary_view", tUtf8View: "utf8_view", tListView: "list_view", tLargeListView: "large_list_view"}

// Time units of Timestamp (and Time, Duration).
const (
	unitSecond = iota
	unitMilli
	unitMicro
	unitNano
)

var unitNames = [...]string{"s", "ms", "us", "ns"}

// arrowType is a Field's type, with the parameters of the types read here.
type arrowType struct {
	id       typeID
	bitWidth int    // Int, Decimal
	signed   bool   // Int
	prec     int    // FloatingPoint: 0 half, 1 single, 2 double; Decimal precision
	unit     int    // Date: 0 day, 1 ms; Timestamp, Time, Duration: unitSecond…
	tz       string // Timestamp
	mode     int    // Union: 0 sparse, 1 dense
}

func (t arrowType) String() string {
	switch t.id {
	case tInt:
		if t.signed {
			return fmt.Sprintf("int%d", t.bitWidth)
		}
		return fmt.Sprintf("uint%d", t.bitWidth)
	case tFloatingPoint:
		return [...]string{"float16", "float32", "float64"}[min(max(t.prec, 0), 2)]
	case tDate:
		if t.unit == 0 {
			return "date32"
		}
		return "date64"
	case tTimestamp:
		u := "?"
		if t.unit >= 0 && t.unit < len(unitNames) {
			u = unitNames[t.unit]
		}
		if t.tz != "" {
			return fmt.Sprintf("timestamp[%s, tz=%s]", u, t.tz)
		}
		return fmt.Sprintf("timestamp[%s]", u)
	case tDecimal:
		return fmt.Sprintf("decimal%d", t.bitWidth)
	}
	if int(t.id) < len(typeNames) && typeNames[t.id] != "" {
		return typeNames[t.id]
	}
	return fmt.Sprintf("type #%d", t.id)
}

// field is a Field of the schema.
type field struct {
	name     string
	nullable bool
	typ      arrowType
	dict     *dictEncoding // dictionary-encoded: the batch holds indices
	children []field
}

func (f *field) typeString() string {
	if f.dict != nil {
		return fmt.Sprintf("dictionary<values=%s, indices=%s>", f.typ, f.dict.index)
	}
	return f.typ.String()
}

type dictEncoding struct {
	id    int64
	index arrowType // an Int
}

// maxDepth bounds nested fields, so a hostile schema cannot exhaust the stack.
const maxDepth = 64

func readSchema(t fbTable) ([]field, error) {
	end, err := t.int16(0, 0)
	if err != nil {
		return nil, err
	}
	if end != 0 {
		return nil, fmt.Errorf("the schema is big-endian; only little-endian Arrow data is read")
	}
	return readFields(t, 1, 0)
}

func readFields(t fbTable, i, depth int) ([]field, error) {
	start, n, err := t.vector(i, 4)
	if err != nil || n == 0 {
		return nil, err
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("fields nested more than %d deep", maxDepth)
	}
	out := make([]field, n)
	for j := range out {
		ft, err := t.tableAt(start, j)
		if err != nil {
			return nil, err
		}
		if out[j], err = readField(ft, depth); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func readField(t fbTable, depth int) (field, error) {
	var f field
	var err error
	if f.name, err = t.string(0); err != nil {
		return f, err
	}
	if f.nullable, err = t.bool(1); err != nil {
		return f, err
	}
	tag, err := t.uint8(2, 0)
	if err != nil {
		return f, err
	}
	f.typ.id = typeID(tag)
	if sub, ok, err := t.table(3); err != nil {
		return f, err
	} else if ok {
		if err := readTypeParams(sub, &f.typ); err != nil {
			return f, fmt.Errorf("field %q: %w", f.name, err)
		}
	}
	if d, ok, err := t.table(4); err != nil {
		return f, err
	} else if ok {
		f.dict = &dictEncoding{index: arrowType{id: tInt, bitWidth: 32, signed: true}}
		if f.dict.id, err = d.int64(0, 0); err != nil {
			return f, err
		}
		if it, ok, err := d.table(1); err != nil {
			return f, err
		} else if ok {
			if err := readTypeParams(it, &f.dict.index); err != nil {
				return f, err
			}
		}
	}
	if f.children, err = readFields(t, 5, depth+1); err != nil {
		return f, err
	}
	return f, nil
}

// readTypeParams reads the table of the Type union member into a.
func readTypeParams(t fbTable, a *arrowType) error {
	var err error
	var v16 int16
	var v32 int32
	switch a.id {
	case tInt:
		if v32, err = t.int32(0, 0); err != nil {
			return err
		}
		a.bitWidth = int(v32)
		a.signed, err = t.bool(1)
	case tFloatingPoint:
		v16, err = t.int16(0, 0)
		a.prec = int(v16)
	case tDate:
		v16, err = t.int16(0, 1)
		a.unit = int(v16)
	case tTimestamp:
		if v16, err = t.int16(0, 0); err != nil {
			return err
		}
		a.unit = int(v16)
		a.tz, err = t.string(1)
	case tTime, tDuration:
		v16, err = t.int16(0, 1)
		a.unit = int(v16)
	case tDecimal:
		if v32, err = t.int32(0, 0); err != nil {
			return err
		}
		a.prec = int(v32)
		v32, err = t.int32(2, 128)
		a.bitWidth = int(v32)
	case tUnion:
		v16, err = t.int16(0, 0)
		a.mode = int(v16)
	}
	return err
}

// fieldNode and buffer are the structs of a RecordBatch.
type fieldNode struct{ length, nulls int64 }

type buffer struct{ offset, length int64 }

// Compression codecs (enum CompressionType).
const (
	codecNone = -1
	codecLZ4  = 0
	codecZstd = 1
)

// recordBatch is a RecordBatch message header.
type recordBatch struct {
	length   int64
	nodes    []fieldNode
	buffers  []buffer
	codec    int
	variadic []int64 // buffer counts of view-typed fields, in order
}

func readRecordBatch(t fbTable) (*recordBatch, error) {
	rb := &recordBatch{codec: codecNone}
	var err error
	if rb.length, err = t.int64(0, 0); err != nil {
		return nil, err
	}
	start, n, err := t.vector(1, 16)
	if err != nil {
		return nil, err
	}
	rb.nodes = make([]fieldNode, n)
	for j := range rb.nodes {
		p := t.buf[start+16*j:]
		rb.nodes[j] = fieldNode{int64(binary.LittleEndian.Uint64(p)), int64(binary.LittleEndian.Uint64(p[8:]))}
	}
	if start, n, err = t.vector(2, 16); err != nil {
		return nil, err
	}
	rb.buffers = make([]buffer, n)
	for j := range rb.buffers {
		p := t.buf[start+16*j:]
		rb.buffers[j] = buffer{int64(binary.LittleEndian.Uint64(p)), int64(binary.LittleEndian.Uint64(p[8:]))}
	}
	if c, ok, err := t.table(3); err != nil {
		return nil, err
	} else if ok {
		codec, err := c.uint8(0, codecLZ4)
		if err != nil {
			return nil, err
		}
		method, err := c.uint8(1, 0)
		if err != nil {
			return nil, err
		}
		if method != 0 {
			return nil, fmt.Errorf("body compression method %d is not supported (only per-buffer)", method)
		}
		if codec != codecLZ4 && codec != codecZstd {
			return nil, fmt.Errorf("body compression codec %d is not supported (LZ4_FRAME or ZSTD)", codec)
		}
		rb.codec = int(codec)
	}
	if start, n, err = t.vector(4, 8); err != nil {
		return nil, err
	}
	rb.variadic = make([]int64, n)
	for j := range rb.variadic {
		rb.variadic[j] = int64(binary.LittleEndian.Uint64(t.buf[start+8*j:]))
	}
	return rb, nil
}

// dictionaryBatch is a DictionaryBatch message header.
type dictionaryBatch struct {
	id    int64
	data  *recordBatch
	delta bool
}

func readDictionaryBatch(t fbTable) (*dictionaryBatch, error) {
	d := &dictionaryBatch{}
	var err error
	if d.id, err = t.int64(0, 0); err != nil {
		return nil, err
	}
	rt, ok, err := t.table(1)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("dictionary batch %d has no data", d.id)
	}
	if d.data, err = readRecordBatch(rt); err != nil {
		return nil, err
	}
	d.delta, err = t.bool(2)
	return d, err
}

// message is an encapsulated IPC message: its header table and its body.
type message struct {
	kind   uint8
	header fbTable
	body   []byte
	at     int // byte offset of the message in the input, for errors
}

// Encapsulated message framing:
//
//	0xFFFFFFFF             continuation marker (absent before Arrow 0.15)
//	int32 metaLen          flatbuffer Message plus padding to 8 bytes
//	Message                version, header (union), bodyLength
//	body                   bodyLength bytes: the buffers, each 8-aligned
//
// 0xFFFFFFFF 0x00000000 (or a bare 0x00000000) ends a stream.
const continuation = 0xFFFFFFFF

// readMessage reads the message at data[pos:]; next is where the following
// one starts. At the end of the stream (an end marker or no more bytes) m is nil.
func readMessage(data []byte, pos int) (m *message, next int, err error) {
	if pos == len(data) {
		return nil, pos, nil
	}
	if pos > len(data)-4 {
		return nil, 0, fmt.Errorf("%d stray bytes where a message should start", len(data)-pos)
	}
	at := pos
	n := binary.LittleEndian.Uint32(data[pos:])
	pos += 4
	if n == continuation {
		if pos > len(data)-4 {
			return nil, 0, fmt.Errorf("a message at byte %d is cut off after its continuation marker", at)
		}
		n = binary.LittleEndian.Uint32(data[pos:])
		pos += 4
	}
	if n == 0 {
		return nil, len(data), nil
	}
	if int64(n) > int64(len(data)-pos) || n > 1<<31 {
		return nil, 0, fmt.Errorf("message at byte %d declares %d metadata bytes, only %d remain", at, n, len(data)-pos)
	}
	meta := data[pos : pos+int(n)]
	pos += int(n)
	root, err := fbRoot(meta)
	if err != nil {
		return nil, 0, fmt.Errorf("message at byte %d: %w", at, err)
	}
	version, err := root.int16(0, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("message at byte %d: %w", at, err)
	}
	if version < 3 { // V4 (Arrow 0.8) and later share this layout
		return nil, 0, fmt.Errorf("message at byte %d: metadata version V%d is too old (V4 or later)", at, version+1)
	}
	kind, err := root.uint8(1, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("message at byte %d: %w", at, err)
	}
	hdr, ok, err := root.table(2)
	if err != nil {
		return nil, 0, fmt.Errorf("message at byte %d: %w", at, err)
	}
	if !ok {
		return nil, 0, fmt.Errorf("message at byte %d has no header", at)
	}
	bodyLen, err := root.int64(3, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("message at byte %d: %w", at, err)
	}
	if bodyLen < 0 || bodyLen > int64(len(data)-pos) {
		return nil, 0, fmt.Errorf("message at byte %d declares a body of %d bytes, only %d remain", at, bodyLen, len(data)-pos)
	}
	body := data[pos : pos+int(bodyLen)]
	return &message{kind: kind, header: hdr, body: body, at: at}, pos + int(bodyLen), nil
}

// File format:
//
//	"ARROW1" 0 0           magic, padded to 8
//	stream                 schema, dictionary and record batch messages
//	Footer                 flatbuffer: version, schema, dictionaries [Block], recordBatches [Block]
//	int32 footerLen
//	"ARROW1"
//
// Block is a struct {offset int64; metaDataLength int32; (pad); bodyLength int64}:
// where each message starts.
const fileMagic = "ARROW1"

type footer struct {
	schema  []field
	dicts   []int64 // message offsets
	batches []int64
}

func readFooter(data []byte) (*footer, error) {
	if len(data) < 8+4+6 || string(data[len(data)-6:]) != fileMagic {
		return nil, fmt.Errorf("an Arrow file must end with %q after its footer", fileMagic)
	}
	n := int64(int32(binary.LittleEndian.Uint32(data[len(data)-10:])))
	start := int64(len(data)) - 10 - n
	if n <= 0 || start < 8 {
		return nil, fmt.Errorf("footer length %d does not fit in a file of %d bytes", n, len(data))
	}
	root, err := fbRoot(data[start : len(data)-10])
	if err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	st, ok, err := root.table(1)
	if err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("footer has no schema")
	}
	f := &footer{}
	if f.schema, err = readSchema(st); err != nil {
		return nil, fmt.Errorf("footer schema: %w", err)
	}
	blocks := func(i int) ([]int64, error) {
		s, n, err := root.vector(i, 24)
		if err != nil {
			return nil, fmt.Errorf("footer: %w", err)
		}
		out := make([]int64, n)
		for j := range out {
			out[j] = int64(binary.LittleEndian.Uint64(root.buf[s+24*j:]))
			if out[j] < 8 || out[j] >= start {
				return nil, fmt.Errorf("footer: block %d at byte %d is outside the file's messages", j, out[j])
			}
		}
		return out, nil
	}
	if f.dicts, err = blocks(2); err != nil {
		return nil, err
	}
	if f.batches, err = blocks(3); err != nil {
		return nil, err
	}
	return f, nil
}

// IsArrow reports whether head, the first bytes of an input, starts an Arrow
// IPC stream (a continuation marker) or file ("ARROW1").
func IsArrow(head []byte) bool {
	return strings.HasPrefix(string(head), fileMagic) ||
		(len(head) >= 4 && binary.LittleEndian.Uint32(head) == continuation)
}
