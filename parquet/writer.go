package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/klauspost/compress/zstd"
	"github.com/timelake/timelake/parquet/internal/thrift"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// ColumnSpec describes one column to write.
type ColumnSpec struct {
	Name     string
	FieldID  int32 // Iceberg field id, written as SchemaElement.field_id
	Type     schema.Type
	Required bool
	// Nested is the type of a column of Type schema.Nested
	// (writer_nested.go): its rows are JSON text of that type.
	Nested *schema.NestedType
}

// Options tune the Writer. The zero value gives the defaults.
type Options struct {
	PageRowLimit int // rows per data page; 0 means 8,192 (Iceberg write.parquet.page-row-limit)
	// PageBytes closes a page before its string values pass this many
	// bytes (0 means DefaultPageBytes, Iceberg's write.parquet.page-size-bytes):
	// pages are cut by bytes as well as rows, so a page of large values stays
	// far below what readers accept (MaxPageBytes). A value longer than it
	// is a page of its own.
	PageBytes     int64
	RowGroupBytes int64 // a row group closes at the first page boundary past this many (uncompressed, encoded) bytes; 0 means 128 MiB
	// RowGroupRows closes a row group at the first page boundary at or past
	// this many rows; 0 means no row limit (bytes alone decide). A reader
	// decodes and plans a row group at a time, so this bounds its window
	// however well the columns compress (see docs/decisions/scan.md).
	RowGroupRows int64
	Codec        Codec // Zstd (the zero value), Uncompressed or Snappy
	ZstdLevel    int   // 0 means DefaultZstdLevel
	// Compat selects the compatibility mode for older vectorized readers:
	// v1 data pages, PLAIN numbers, PLAIN_DICTIONARY strings.
	Compat    bool
	Sorting   []SortingColumn // written as every RowGroup's sorting_columns
	KeyValue  []KeyValue      // file key/value metadata (e.g. "iceberg.schema")
	CreatedBy string
}

// Defaults.
const (
	DefaultPageRowLimit  = 8192
	DefaultRowGroupBytes = 128 << 20
	// DictionaryLimit caps a string column's dictionary (PLAIN bytes: 4 +
	// length per entry) within a row group. A page whose new values would
	// take the dictionary past it is written PLAIN, and so are the rest of
	// the chunk's pages; the next row group starts a new dictionary.
	DictionaryLimit = 1 << 20
	// DefaultPageBytes is Iceberg's default page size.
	DefaultPageBytes = 1 << 20
	// MaxValueBytes is the largest string value a writer of Timelake's
	// accepts (callers refuse longer ones before writing: table's
	// VALUE_TOO_LARGE). With pages cut at PageBytes, no page it writes
	// passes PageBytes + MaxValueBytes, well under MaxPageBytes.
	MaxValueBytes = rows.MaxValueBytes
	// MaxPageBytes is the largest page (uncompressed) this package reads,
	// and every reader we know of reads: the writer's limits keep under it.
	MaxPageBytes = maxPageBytes
)

// Writer writes one Parquet file. Write may be called many times; pages are
// encoded and compressed as they fill, so memory holds the file's bytes so
// far, the current row group's compressed chunks and one page per column.
// Finish must be called once to get the file. A Writer is not safe for
// concurrent use.
type Writer struct {
	opt       Options
	cols      []*colWriter
	enc       *zstd.Encoder
	out       []byte
	rowGroups []RowGroup
	exact     [][]exactness
	pageRows  int   // rows in the current page (same for every column)
	pageBytes int64 // string bytes (4 + length each) in the current page, all columns
	strCols   []int // the string columns, whose values decide pageBytes
	rgRows    int64 // rows in the current row group
	totalRows int64
	rgOffsets []int64
	colIdxBuf []byte // serialized column indexes of finished chunks
	offIdxBuf []byte // serialized offset indexes of finished chunks
	idxRefs   [][]idxRef
	hdr       thrift.Writer
	finished  bool
	err       error
}

// idxRef locates a chunk's serialized indexes in colIdxBuf/offIdxBuf.
type idxRef struct {
	colOff, colLen int // colLen 0: no column index
	offOff, offLen int
}

// NewWriter starts a file with the given columns.
func NewWriter(cols []ColumnSpec, opt Options) (*Writer, error) {
	if len(cols) == 0 {
		return nil, errors.New("parquet: no columns")
	}
	if opt.PageRowLimit == 0 {
		opt.PageRowLimit = DefaultPageRowLimit
	}
	if opt.PageRowLimit < 1 || opt.PageRowLimit > maxPageValues {
		return nil, fmt.Errorf("parquet: page row limit %d is outside 1..%d", opt.PageRowLimit, maxPageValues)
	}
	if opt.PageBytes == 0 {
		opt.PageBytes = DefaultPageBytes
	}
	if opt.PageBytes < 1 || opt.PageBytes > MaxPageBytes/2 {
		return nil, fmt.Errorf("parquet: page size %d bytes is outside 1..%d", opt.PageBytes, MaxPageBytes/2)
	}
	if opt.RowGroupBytes == 0 {
		opt.RowGroupBytes = DefaultRowGroupBytes
	}
	if opt.RowGroupBytes < 0 {
		return nil, fmt.Errorf("parquet: row group size %d is negative", opt.RowGroupBytes)
	}
	if opt.RowGroupRows < 0 {
		return nil, fmt.Errorf("parquet: row group rows %d is negative", opt.RowGroupRows)
	}
	if opt.ZstdLevel == 0 {
		opt.ZstdLevel = DefaultZstdLevel
	}
	w := &Writer{opt: opt, out: append(make([]byte, 0, 64<<10), magic...)}
	switch opt.Codec {
	case Zstd:
		e, err := zstdEncoder(opt.ZstdLevel)
		if err != nil {
			return nil, err
		}
		w.enc = e
	case Uncompressed, Snappy:
	default:
		return nil, fmt.Errorf("parquet: the writer does not support codec %v", opt.Codec)
	}
	seen := map[string]bool{}
	leafAt := make([]int, len(cols)) // input column → its first leaf
	for i, c := range cols {
		leafAt[i] = len(w.cols)
		if c.Name == "" {
			return nil, fmt.Errorf("parquet: column %d has no name", i)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("parquet: column %q appears twice", c.Name)
		}
		seen[c.Name] = true
		cw := &colWriter{spec: c, w: w, in: i, bufs: bufPool.Get().(*bufs)}
		if c.Type == schema.Nested {
			if err := w.addNestedColumn(cw); err != nil {
				return nil, err
			}
			continue
		}
		switch c.Type {
		case schema.Long, schema.Timestamptz, schema.Timestamp, schema.TimestamptzNs, schema.TimestampNs:
			cw.phys = TypeInt64
		case schema.Int:
			cw.phys = TypeInt32
		case schema.Double:
			cw.phys = TypeDouble
		case schema.Float:
			cw.phys = TypeFloat
		case schema.Boolean:
			cw.phys = TypeBoolean
		case schema.String:
			cw.phys = TypeByteArray
			cw.dict = map[string]uint32{}
			w.strCols = append(w.strCols, i)
		default:
			return nil, fmt.Errorf("parquet: column %q has unsupported type %v", c.Name, c.Type)
		}
		w.cols = append(w.cols, cw)
	}
	for _, s := range opt.Sorting {
		if s.Column < 0 || s.Column >= len(cols) {
			return nil, fmt.Errorf("parquet: sorting column %d is not a column index (0..%d)", s.Column, len(cols)-1)
		}
	}
	if len(w.cols) != len(cols) {
		// sorting_columns name leaves: a nested column's shift those after it
		w.opt.Sorting = append([]SortingColumn(nil), opt.Sorting...)
		for k := range w.opt.Sorting {
			w.opt.Sorting[k].Column = leafAt[w.opt.Sorting[k].Column]
		}
	}
	return w, nil
}

var magic = []byte("PAR1")

// Write appends n rows; cols[i] holds the values of column i (see
// rows.Column). Nothing is written if an error is returned: a null in a
// required column, an int out of the 32-bit range, a short column. A
// nested value that does not parse as its column's type is the exception:
// it is found as the value is written, and fails the Writer (its callers
// check values before: rows' readers, CheckValueSizes).
func (w *Writer) Write(cols []rows.Column, n int) error {
	if w.err != nil {
		return w.err
	}
	if w.finished {
		return errors.New("parquet: Write after Finish")
	}
	if len(w.cols) > 0 && len(cols) != w.cols[len(w.cols)-1].in+1 {
		return fmt.Errorf("parquet: got %d columns, the writer has %d", len(cols), w.cols[len(w.cols)-1].in+1)
	}
	for _, cw := range w.cols {
		if cw.leaf == leafTail {
			continue // checked with its column's first leaf
		}
		if err := cw.check(&cols[cw.in], n, w.totalRows+w.rgRowsPending()); err != nil {
			return err
		}
	}
	limit := w.opt.PageRowLimit
	for off := 0; off < n; {
		seg := min(n-off, limit-w.pageRows)
		seg, bytes := w.fitPage(cols, off, seg)
		if seg == 0 { // the next value does not fit: close the page first
			if err := w.closePage(); err != nil {
				return w.fail(err)
			}
			continue
		}
		for _, cw := range w.cols {
			cw.add(&cols[cw.in], off, off+seg)
			if cw.leaf == leafHead && cw.nest.err != nil {
				return w.fail(cw.nest.err)
			}
		}
		w.pageRows += seg
		w.pageBytes += bytes
		off += seg
		if w.pageRows == limit || w.pageBytes >= w.opt.PageBytes {
			if err := w.closePage(); err != nil {
				return w.fail(err)
			}
		}
	}
	return nil
}

func (w *Writer) rgRowsPending() int64 { return w.rgRows + int64(w.pageRows) }

func (w *Writer) fail(err error) error {
	w.err = err
	return err
}

func (w *Writer) flushPages() error {
	if w.pageRows == 0 {
		return nil
	}
	for _, cw := range w.cols {
		if err := cw.flushPage(); err != nil {
			return err
		}
	}
	w.rgRows += int64(w.pageRows)
	w.pageRows, w.pageBytes = 0, 0
	return nil
}

// Finish writes the page indexes and the footer and returns the file with
// its statistics. The Writer cannot be used afterwards.
func (w *Writer) Finish() ([]byte, *FileStats, error) {
	if w.err != nil {
		return nil, nil, w.err
	}
	if w.finished {
		return nil, nil, errors.New("parquet: Finish called twice")
	}
	w.finished = true
	if err := w.flushPages(); err != nil {
		return nil, nil, w.fail(err)
	}
	if w.rgRows > 0 {
		w.flushRowGroup()
	}
	// Page indexes: all column indexes, then all offset indexes, between the
	// row groups and the footer.
	base := int64(len(w.out))
	w.out = append(w.out, w.colIdxBuf...)
	offBase := int64(len(w.out))
	w.out = append(w.out, w.offIdxBuf...)
	for r := range w.rowGroups {
		for c := range w.rowGroups[r].Columns {
			cc, ref := &w.rowGroups[r].Columns[c], w.idxRefs[r][c]
			if ref.colLen > 0 {
				cc.HasColumnIndex = true
				cc.ColumnIndexOffset, cc.ColumnIndexLength = base+int64(ref.colOff), int32(ref.colLen)
			}
			cc.HasOffsetIndex = true
			cc.OffsetIndexOffset, cc.OffsetIndexLength = offBase+int64(ref.offOff), int32(ref.offLen)
		}
	}
	fm := fileMetaOut{
		version:   2,
		schema:    w.schema(),
		numRows:   w.totalRows,
		rowGroups: w.rowGroups,
		kv:        w.opt.KeyValue,
		createdBy: w.opt.CreatedBy,
		exact:     w.exact,
	}
	if w.opt.Compat {
		fm.version = 1
	}
	w.hdr.Reset()
	w.hdr.Buf = w.out
	footerStart := len(w.out)
	writeFileMeta(&w.hdr, &fm)
	w.out = w.hdr.Buf
	w.hdr.Buf = nil
	w.out = binary.LittleEndian.AppendUint32(w.out, uint32(len(w.out)-footerStart))
	w.out = append(w.out, magic...)

	st := &FileStats{Rows: w.totalRows, RowGroupOffsets: w.rgOffsets}
	for _, cw := range w.cols {
		fs := cw.file
		if cw.leaf != leafFlat {
			st.Columns = nestedStats(st.Columns, cw, w.totalRows)
			continue
		}
		b := &cw.fileBounds
		if b.has {
			fs.HasBounds = true
			switch {
			case cw.spec.Type.IsInteger():
				fs.MinInt, fs.MaxInt = b.minI, b.maxI
			case cw.spec.Type.IsFloat():
				fs.MinFloat, fs.MaxFloat = b.minF, b.maxF
				if fs.MinFloat == 0 {
					fs.MinFloat = math.Copysign(0, -1)
				}
				if fs.MaxFloat == 0 {
					fs.MaxFloat = 0
				}
			case cw.spec.Type == schema.Boolean:
				fs.MinBool, fs.MaxBool = b.minB, b.maxB
			default:
				fs.MinStr, fs.MaxStr = b.minS, b.maxS
			}
		}
		st.Columns = append(st.Columns, fs)
	}
	for _, cw := range w.cols {
		cw.bufs.release()
		cw.bufs = nil
	}
	out := w.out
	w.out = nil
	return out, st, nil
}

// schema builds the schema elements: the root "table", then one leaf per
// column with its field id and logical type.
func (w *Writer) schema() []schemaElement {
	els := []schemaElement{{Name: "table", NumChildren: int32(w.cols[len(w.cols)-1].in + 1)}}
	for _, cw := range w.cols {
		switch cw.leaf {
		case leafHead:
			els = append(els, nestedSchema(cw.nest)...)
			continue
		case leafTail:
			continue
		}
		rep := repOptional
		if cw.spec.Required {
			rep = repRequired
		}
		els = append(els, leafElement(cw.spec.Name, cw.spec.Type, rep, cw.spec.FieldID))
	}
	return els
}

// flushRowGroup appends every column's chunk (dictionary page first) to the
// file and records the row group.
func (w *Writer) flushRowGroup() {
	rg := RowGroup{NumRows: w.rgRows, FileOffset: int64(len(w.out)), Ordinal: int16(min(len(w.rowGroups), math.MaxInt16))}
	rg.Sorting = w.opt.Sorting
	ex := make([]exactness, len(w.cols))
	refs := make([]idxRef, len(w.cols))
	w.rgOffsets = append(w.rgOffsets, rg.FileOffset)
	for i, cw := range w.cols {
		cc, e, ref := cw.flushChunk()
		rg.Columns = append(rg.Columns, cc)
		rg.TotalByteSize += cc.Meta.TotalUncompressedSize
		rg.TotalCompressedSize += cc.Meta.TotalCompressedSize
		ex[i], refs[i] = e, ref
	}
	w.rowGroups = append(w.rowGroups, rg)
	w.exact = append(w.exact, ex)
	w.idxRefs = append(w.idxRefs, refs)
	w.totalRows += w.rgRows
	w.rgRows = 0
}
