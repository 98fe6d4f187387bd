package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Limits on what a file may claim; anything larger is refused before
// memory is allocated for it.
const (
	maxPageBytes  = 64 << 20 // uncompressed size of one page
	maxPageValues = 1 << 20  // values (rows) in one data page
	maxColumns    = 1 << 14
)

// ErrCorrupt is wrapped by errors about malformed files.
var ErrCorrupt = errors.New("parquet: corrupt file")

// ErrUnsupported is wrapped by errors about valid Parquet this package does
// not read (nested columns, types without a Timelake equivalent, codecs).
var ErrUnsupported = errors.New("parquet: unsupported")

// ColumnInfo describes a column of a file.
type ColumnInfo struct {
	Name     string
	FieldID  int32 // 0 when the file has none
	Type     schema.Type
	Required bool
	Physical PhysicalType
	// Path is the column's path in the file's schema: [Name] for a
	// top-level column.
	Path []string
	// InNested marks a leaf of a nested column (FileMeta.Nested), Name
	// being its dotted path: read through ReadNested, never alone.
	InNested bool
	// MaxDef and MaxRep are a nested leaf's definition and repetition
	// levels when present.
	MaxDef, MaxRep uint8
}

// conversion says how a leaf's physical values become Timelake values.
type conversion uint8

const (
	convNone        conversion = iota
	convUnsigned32             // INT32 holding uint32: zero-extend
	convMillis                 // INT64 millis → micros
	convNanos                  // INT64 nanos → micros (floor)
	convInt96                  // INT96 (Julian day + nanos of day) → micros
	convMillisNanos            // INT64 millis → nanos (Chunk.As)
	convMicrosNanos            // INT64 micros (or INT96 decoded to micros) → nanos (Chunk.As)
)

// FileMeta is a parsed footer.
type FileMeta struct {
	Version   int32
	NumRows   int64
	RowGroups []RowGroup
	KeyValue  []KeyValue
	CreatedBy string
	Columns   []ColumnInfo
	// Nested are the file's top-level nested columns (maps, lists,
	// structs), whose leaves are among Columns.
	Nested []NestedColumn
	schema []schemaElement
	convs  []conversion
}

// FooterSize reads the last 8 bytes of a file (footer length and magic) and
// returns the footer's length: the caller then fetches the last
// FooterSize+8 bytes for ParseFooter.
func FooterSize(last8 []byte, fileSize int64) (int, error) {
	if len(last8) < 8 {
		return 0, fmt.Errorf("%w: want the last 8 bytes, got %d", ErrCorrupt, len(last8))
	}
	last8 = last8[len(last8)-8:]
	if string(last8[4:]) != "PAR1" {
		if string(last8[4:]) == "PARE" {
			return 0, fmt.Errorf("%w: encrypted footer", ErrUnsupported)
		}
		return 0, fmt.Errorf("%w: no PAR1 magic at the end", ErrCorrupt)
	}
	n := int64(binary.LittleEndian.Uint32(last8))
	if n+12 > fileSize || n > maxFooterBytes {
		return 0, fmt.Errorf("%w: footer of %d bytes in a file of %d", ErrCorrupt, n, fileSize)
	}
	return int(n), nil
}

// ParseFooter parses the footer from the tail of a file (at least its last
// FooterSize+8 bytes) of fileSize bytes. Offsets in the result are checked
// against fileSize. The result does not alias tail.
func ParseFooter(tail []byte, fileSize int64) (*FileMeta, error) {
	n, err := FooterSize(tail, fileSize)
	if err != nil {
		return nil, err
	}
	if len(tail) < n+8 {
		return nil, fmt.Errorf("parquet: footer of %d bytes needs the last %d bytes, got %d", n, n+8, len(tail))
	}
	footer := tail[len(tail)-8-n : len(tail)-8]
	m, err := readFileMeta(footer)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	// readFileMeta aliases its input for Statistics; copy what we keep.
	for r := range m.RowGroups {
		for c := range m.RowGroups[r].Columns {
			st := &m.RowGroups[r].Columns[c].Meta.Stats
			st.Min, st.Max = clone(st.Min), clone(st.Max)
		}
	}
	if err := m.check(fileSize - int64(n) - 8); err != nil {
		return nil, err
	}
	return m, nil
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// check builds the column list and validates the row groups; dataEnd is the
// offset where the footer starts.
func (m *FileMeta) check(dataEnd int64) error {
	if len(m.schema) == 0 {
		return fmt.Errorf("%w: empty schema", ErrCorrupt)
	}
	if len(m.schema)-1 > maxColumns {
		return fmt.Errorf("%w: %d columns (limit %d)", ErrUnsupported, len(m.schema)-1, maxColumns)
	}
	if m.NumRows < 0 {
		return fmt.Errorf("%w: negative row count", ErrCorrupt)
	}
	if err := m.columns(); err != nil {
		return err
	}
	var total int64
	for r := range m.RowGroups {
		rg := &m.RowGroups[r]
		if len(rg.Columns) != len(m.Columns) {
			return fmt.Errorf("%w: row group %d has %d column chunks, want %d", ErrCorrupt, r, len(rg.Columns), len(m.Columns))
		}
		if rg.NumRows < 0 || rg.NumRows > math.MaxInt64-total {
			return fmt.Errorf("%w: row group %d has %d rows", ErrCorrupt, r, rg.NumRows)
		}
		total += rg.NumRows
		for c := range rg.Columns {
			cm := &rg.Columns[c].Meta
			col := m.Columns[c]
			if !slices.Equal(cm.Path, col.Path) {
				return fmt.Errorf("%w: row group %d chunk %d has path %q, want %q", ErrCorrupt, r, c, cm.Path, col.Path)
			}
			if cm.Type != col.Physical {
				return fmt.Errorf("%w: column %q chunk in row group %d has type %v, schema says %v", ErrCorrupt, col.Name, r, cm.Type, col.Physical)
			}
			start := rg.Columns[c].Start()
			if start < 4 || cm.TotalCompressedSize < 0 || start > dataEnd || cm.TotalCompressedSize > dataEnd-start {
				return fmt.Errorf("%w: column %q chunk in row group %d lies outside the file (offset %d, %d bytes)", ErrCorrupt, col.Name, r, start, cm.TotalCompressedSize)
			}
			if cm.NumValues < 0 {
				return fmt.Errorf("%w: column %q chunk in row group %d has %d values", ErrCorrupt, col.Name, r, cm.NumValues)
			}
		}
	}
	if total != m.NumRows {
		return fmt.Errorf("%w: row groups hold %d rows, footer says %d", ErrCorrupt, total, m.NumRows)
	}
	return nil
}

// columnInfo maps a leaf to a Timelake type, or explains why it cannot.
func columnInfo(e *schemaElement) (ColumnInfo, conversion, error) {
	info := ColumnInfo{Name: e.Name, Physical: e.Type}
	if e.HasFieldID {
		info.FieldID = e.FieldID
	}
	if !e.HasType {
		return info, 0, fmt.Errorf("%w: column %q has no type", ErrCorrupt, e.Name)
	}
	switch e.Repetition {
	case repRequired:
		info.Required = true
	case repOptional:
	case repRepeated:
		return info, 0, fmt.Errorf("%w: column %q is repeated: nested columns are not supported", ErrUnsupported, e.Name)
	default:
		return info, 0, fmt.Errorf("%w: column %q has repetition %d", ErrCorrupt, e.Name, e.Repetition)
	}
	lt := e.Logical
	unsupported := func(what string) (ColumnInfo, conversion, error) {
		return info, 0, fmt.Errorf("%w: column %q: %s is not supported", ErrUnsupported, e.Name, what)
	}
	conv := convNone
	switch e.Type {
	case TypeBoolean:
		info.Type = schema.Boolean
	case TypeInt32:
		info.Type = schema.Int
		switch {
		case lt.Kind == logicalInteger && !lt.Signed && lt.BitWidth == 32, lt.Kind == logicalNone && e.HasConverted && e.Converted == convUint32:
			info.Type, conv = schema.Long, convUnsigned32
		case lt.Kind == logicalInteger:
		case lt.Kind == logicalDate || e.HasConverted && e.Converted == convDate:
			return unsupported("DATE")
		case lt.Kind == logicalDecimal || e.HasConverted && e.Converted == convDecimal:
			return unsupported("DECIMAL")
		case lt.Kind == logicalTime || e.HasConverted && e.Converted == convTimeMillis:
			return unsupported("TIME")
		case lt.Kind != logicalNone:
			return unsupported(fmt.Sprintf("INT32 with logical type %d", lt.Kind))
		}
	case TypeInt64:
		info.Type = schema.Long
		switch {
		case lt.Kind == logicalTimestamp:
			info.Type = schema.Timestamptz
			if !lt.UTC { // a wall clock without a zone
				info.Type = schema.Timestamp
			}
			switch lt.Unit {
			case unitMillis:
				conv = convMillis
			case unitMicros:
			case unitNanos:
				// read as written; Chunk.As floors them for a
				// microsecond column
				info.Type = info.Type.InNanos()
			default:
				return unsupported("TIMESTAMP without a unit")
			}
		case lt.Kind == logicalNone && e.HasConverted && e.Converted == convTimestampMillis:
			info.Type, conv = schema.Timestamptz, convMillis
		case lt.Kind == logicalNone && e.HasConverted && e.Converted == convTimestampMicros:
			info.Type = schema.Timestamptz
		case lt.Kind == logicalInteger && !lt.Signed, lt.Kind == logicalNone && e.HasConverted && e.Converted == convUint64:
			return unsupported("UINT64")
		case lt.Kind == logicalInteger:
		case lt.Kind == logicalDecimal || e.HasConverted && e.Converted == convDecimal:
			return unsupported("DECIMAL")
		case lt.Kind == logicalTime || e.HasConverted && e.Converted == convTimeMicros:
			return unsupported("TIME")
		case lt.Kind != logicalNone:
			return unsupported(fmt.Sprintf("INT64 with logical type %d", lt.Kind))
		}
	case TypeInt96:
		info.Type, conv = schema.Timestamptz, convInt96
	case TypeFloat:
		info.Type = schema.Float
	case TypeDouble:
		info.Type = schema.Double
	case TypeByteArray:
		switch {
		case lt.Kind == logicalString, lt.Kind == logicalEnum, lt.Kind == logicalJSON:
		case lt.Kind == logicalNone && e.HasConverted && (e.Converted == convUTF8 || e.Converted == convEnum || e.Converted == convJSON):
		default:
			return unsupported("BYTE_ARRAY without a string annotation (binary)")
		}
		info.Type = schema.String
	case TypeFixedLenByteArray:
		return unsupported("FIXED_LEN_BYTE_ARRAY")
	default:
		return info, 0, fmt.Errorf("%w: column %q has physical type %d", ErrCorrupt, e.Name, e.Type)
	}
	return info, conv, nil
}

// Chunk describes one column chunk for decoding its pages.
type Chunk struct {
	Column  ColumnInfo
	Meta    *ColumnMeta
	NumRows int64 // rows of the row group
	conv    conversion
}

// Chunk returns the description of column col in row group rg.
func (m *FileMeta) Chunk(rg, col int) (*Chunk, error) {
	if rg < 0 || rg >= len(m.RowGroups) {
		return nil, fmt.Errorf("parquet: row group %d out of range (%d row groups)", rg, len(m.RowGroups))
	}
	if col < 0 || col >= len(m.Columns) {
		return nil, fmt.Errorf("parquet: column %d out of range (%d columns)", col, len(m.Columns))
	}
	g := &m.RowGroups[rg]
	return &Chunk{Column: m.Columns[col], Meta: &g.Columns[col].Meta, NumRows: g.NumRows, conv: m.convs[col]}, nil
}

// As makes the chunk's time values come out in the unit of time type t
// (the table's column) whatever unit the file wrote them in: a file's
// nanoseconds are floored to a microsecond column's microseconds, its
// milliseconds or microseconds (INT96 too) scaled to a nanosecond
// column's nanoseconds. Other types, and a matching unit, are unchanged.
func (c *Chunk) As(t schema.Type) {
	ft := c.Column.Type
	if !ft.IsTime() || !t.IsTime() || ft.Nanos() == t.Nanos() {
		return
	}
	switch {
	case !t.Nanos(): // the file's nanoseconds
		c.conv = convNanos
	case c.conv == convMillis:
		c.conv = convMillisNanos
	default: // micros as written, or INT96 decoded to micros
		c.conv = convMicrosNanos
	}
	if t.Nanos() {
		c.Column.Type = ft.InNanos()
	} else {
		c.Column.Type = ft.InMicros()
	}
}

// File is a Parquet file held in memory.
type File struct {
	data []byte      // the whole file (Open), or nil
	ra   io.ReaderAt // where chunks are read from otherwise (OpenReaderAt)
	size int64
	meta *FileMeta
	dec  PageDecoder
}

// Open parses the footer of a whole file.
func Open(data []byte) (*File, error) {
	if len(data) < 12 || string(data[:4]) != "PAR1" {
		return nil, fmt.Errorf("%w: no PAR1 magic at the start", ErrCorrupt)
	}
	m, err := ParseFooter(data, int64(len(data)))
	if err != nil {
		return nil, err
	}
	return &File{data: data, size: int64(len(data)), meta: m}, nil
}

// OpenReaderAt parses the footer of a file of size bytes read through r,
// reading its head, its tail and then one column chunk at a time as
// ReadColumn asks: a file on disk is never held whole.
func OpenReaderAt(r io.ReaderAt, size int64) (*File, error) {
	if size < 12 {
		return nil, fmt.Errorf("%w: %d bytes is too small for Parquet", ErrCorrupt, size)
	}
	head := make([]byte, 4)
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if string(head) != "PAR1" {
		return nil, fmt.Errorf("%w: no PAR1 magic at the start", ErrCorrupt)
	}
	last8 := make([]byte, 8)
	if _, err := r.ReadAt(last8, size-8); err != nil {
		return nil, err
	}
	n, err := FooterSize(last8, size)
	if err != nil {
		return nil, err
	}
	tail := make([]byte, n+8)
	if _, err := r.ReadAt(tail, size-int64(n)-8); err != nil {
		return nil, err
	}
	m, err := ParseFooter(tail, size)
	if err != nil {
		return nil, err
	}
	return &File{ra: r, size: size, meta: m}, nil
}

// bytes returns the file's bytes [off, off+n): a slice of the whole file,
// or a new buffer read through ra (decoded values may alias it).
func (f *File) bytes(off, n int64) ([]byte, error) {
	if f.data != nil {
		return f.data[off : off+n], nil
	}
	b := make([]byte, n)
	if _, err := f.ra.ReadAt(b, off); err != nil {
		return nil, fmt.Errorf("parquet: read %d bytes at %d: %w", n, off, err)
	}
	return b, nil
}

// Meta returns the parsed footer.
func (f *File) Meta() *FileMeta { return f.meta }

// Schema returns the file's columns.
func (f *File) Schema() []ColumnInfo { return f.meta.Columns }

// NumRows returns the number of rows in the file.
func (f *File) NumRows() int64 { return f.meta.NumRows }

// NumRowGroups returns the number of row groups.
func (f *File) NumRowGroups() int { return len(f.meta.RowGroups) }

// ReadColumn decodes column col of row group rg.
func (f *File) ReadColumn(rg, col int) (rows.Column, error) {
	return f.ReadColumnAs(rg, col, 0)
}

// ReadColumnAs is ReadColumn with time values in the unit of time type t
// (Chunk.As); t 0 reads them as written.
func (f *File) ReadColumnAs(rg, col int, t schema.Type) (rows.Column, error) {
	c, err := f.meta.Chunk(rg, col)
	if err != nil {
		return rows.Column{}, err
	}
	if c.Column.InNested {
		return rows.Column{}, fmt.Errorf("parquet: column %q is a leaf of a nested column, read with ReadNested", c.Column.Name)
	}
	c.As(t)
	cc := &f.meta.RowGroups[rg].Columns[col]
	start, end := cc.Start(), cc.Start()+c.Meta.TotalCompressedSize
	b, err := f.bytes(start, end-start)
	if err != nil {
		return rows.Column{}, err
	}
	var out rows.Column
	var dict Dictionary
	var got int64
	for len(b) > 0 && got < c.NumRows {
		n, err := f.dec.Decode(c, b, &dict, &out)
		if err != nil {
			return rows.Column{}, fmt.Errorf("parquet: column %q, row group %d, page at offset %d: %w", c.Column.Name, rg, end-int64(len(b)), err)
		}
		b = b[n:]
		got = int64(out.Len(c.Column.Type))
		if got > c.NumRows {
			break // reported below, before more pages are decoded
		}
	}
	if got != c.NumRows {
		return rows.Column{}, fmt.Errorf("%w: column %q, row group %d: pages hold %d rows, want %d", ErrCorrupt, c.Column.Name, rg, got, c.NumRows)
	}
	return out, nil
}

func (f *File) indexBytes(rg, col int, column bool) ([]byte, error) {
	if _, err := f.meta.Chunk(rg, col); err != nil {
		return nil, err
	}
	cc := &f.meta.RowGroups[rg].Columns[col]
	off, n, has := cc.OffsetIndexOffset, int64(cc.OffsetIndexLength), cc.HasOffsetIndex
	what := "offset index"
	if column {
		off, n, has = cc.ColumnIndexOffset, int64(cc.ColumnIndexLength), cc.HasColumnIndex
		what = "column index"
	}
	if !has {
		return nil, nil
	}
	if off < 4 || n <= 0 || off > f.size || n > f.size-off {
		return nil, fmt.Errorf("%w: %s of column %d, row group %d lies outside the file", ErrCorrupt, what, col, rg)
	}
	return f.bytes(off, n)
}

// OffsetIndex returns the parsed offset index of a chunk, or nil if it has
// none.
func (f *File) OffsetIndex(rg, col int) (*OffsetIndex, error) {
	b, err := f.indexBytes(rg, col, false)
	if b == nil || err != nil {
		return nil, err
	}
	return ParseOffsetIndex(b)
}

// ColumnIndex returns the parsed column index of a chunk, or nil if it has
// none.
func (f *File) ColumnIndex(rg, col int) (*ColumnIndex, error) {
	b, err := f.indexBytes(rg, col, true)
	if b == nil || err != nil {
		return nil, err
	}
	return ParseColumnIndex(b)
}

// Comparable reports whether column col's statistics and page bounds are in
// the units of its decoded values (no conversion: not a timestamp in millis
// or nanos, INT96 or an unsigned int), so they bound the values as read.
func (m *FileMeta) Comparable(col int) bool {
	return col >= 0 && col < len(m.convs) && m.convs[col] == convNone
}

// ComparableAs is Comparable for the column read as type t (Chunk.As): a
// file's nanosecond bounds do not bound a microsecond column's values, nor
// its microseconds a nanosecond column's.
func (m *FileMeta) ComparableAs(col int, t schema.Type) bool {
	if !m.Comparable(col) {
		return false
	}
	ft := m.Columns[col].Type
	return !ft.IsTime() || !t.IsTime() || ft.Nanos() == t.Nanos()
}
