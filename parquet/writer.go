package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

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
	// Map makes a column of Type schema.Nested a map<string, string>
	// (writer_map.go); no other nested column is written.
	Map *MapSpec
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
			if err := w.addMapColumn(cw); err != nil {
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
		// sorting_columns name leaves: a map's two shift those after it
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
// required column, an int out of the 32-bit range, a short column.
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
		if cw.leaf == leafValue {
			continue // checked with its key leaf
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
			st.Columns = mapStats(st.Columns, cw, w.totalRows)
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
		case leafKey:
			els = append(els, mapSchema(cw)...)
			continue
		case leafValue:
			continue
		}
		e := schemaElement{
			Name: cw.spec.Name, Type: cw.phys, HasType: true,
			HasRepetition: true, Repetition: repOptional,
			FieldID: cw.spec.FieldID, HasFieldID: true,
		}
		if cw.spec.Required {
			e.Repetition = repRequired
		}
		switch cw.spec.Type {
		case schema.Timestamptz:
			e.Logical = logicalType{Kind: logicalTimestamp, UTC: true, Unit: unitMicros}
			e.Converted, e.HasConverted = convTimestampMicros, true
		case schema.Timestamp:
			// No converted type: TIMESTAMP_MICROS means adjusted to UTC.
			e.Logical = logicalType{Kind: logicalTimestamp, UTC: false, Unit: unitMicros}
		case schema.TimestamptzNs, schema.TimestampNs:
			// No converted type: the old ones have no nanoseconds.
			e.Logical = logicalType{Kind: logicalTimestamp, UTC: cw.spec.Type.Zoned(), Unit: unitNanos}
		case schema.String:
			e.Logical = logicalType{Kind: logicalString}
			e.Converted, e.HasConverted = convUTF8, true
		}
		els = append(els, e)
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

// colWriter holds one column's current page and current chunk.
type colWriter struct {
	w    *Writer
	spec ColumnSpec
	phys PhysicalType
	in   int // the input column (a map's two leaves share it)

	// a map's leaf (writer_map.go): leafKey or leafValue, its maximum
	// definition level, the page's repetition levels (its definition
	// levels are in defs, always stored), the chunk's level entries
	leaf        uint8
	maxDef      uint32
	reps        []uint32
	chunkLevels int64

	*bufs // page values, levels, scratch and the chunk's bytes; pooled

	// current page
	nStrs     int // non-null strings in the page
	lastStr   string
	lastIdx   uint32
	pageDict0 int // dictionary entries before this page
	pageNulls int
	pageNaNs  int
	page      bounds

	// current chunk
	pages             []PageLocation
	ci                ColumnIndex
	noColumnIndex     bool // a page had only NaNs: it has no bounds to give
	chunkBounds       bounds
	chunkExact        exactness
	chunkUncompressed int64
	chunkNulls        int64
	chunkRows         int64
	dictPages         int32 // data pages encoded with the dictionary
	plainPages        int32
	usedEncoding      [10]bool

	// dictionary (strings)
	dict     map[string]uint32
	fallback bool

	// whole file
	file       ColumnStats
	fileBounds bounds
}

// bufs are a column writer's growable buffers. They are pooled across
// Writers: in a WASM instance the heap never shrinks, so reusing them keeps
// the high-water mark at one file's worth.
type bufs struct {
	// current page: non-null values, and definition levels if optional
	ints   []int64
	floats []float64
	bools  []bool
	idx    []uint32 // strings' dictionary indexes (dictionary mode)
	plain  []byte   // strings' PLAIN encoding (after fallback)
	defs   []uint32
	// current chunk: data pages; offsets relative to the first data page
	chunk []byte
	// dictionary (strings)
	dictBuf []byte   // PLAIN encoding of the entries, in index order
	dictOff []uint32 // offset of each entry in dictBuf
	// scratch, reused across pages
	raw, levels, comp []byte
	delta             deltaScratch
}

var bufPool = sync.Pool{New: func() any { return new(bufs) }}

// maxPooledChunk bounds the chunk buffer kept in the pool.
const maxPooledChunk = 8 << 20

func (b *bufs) release() {
	if cap(b.chunk) > maxPooledChunk {
		b.chunk = nil
	}
	if cap(b.dictBuf) > 2*DictionaryLimit {
		b.dictBuf = nil
	}
	b.ints, b.floats, b.bools, b.idx, b.plain, b.defs = b.ints[:0], b.floats[:0], b.bools[:0], b.idx[:0], b.plain[:0], b.defs[:0]
	b.chunk, b.dictBuf, b.dictOff = b.chunk[:0], b.dictBuf[:0], b.dictOff[:0]
	bufPool.Put(b)
}

// check validates rows [0,n) of c before anything is written.
func (cw *colWriter) check(c *rows.Column, n int, firstRow int64) error {
	name := cw.spec.Name
	if cw.leaf != leafFlat {
		if len(c.Strs) < n || (c.Nulls != nil && len(c.Nulls) < n) {
			return fmt.Errorf("parquet: column %q has %d values, want %d", name, len(c.Strs), n)
		}
		return cw.checkMap(c, n, firstRow)
	}
	var have int
	switch {
	case cw.spec.Type.IsInteger():
		have = len(c.Ints)
	case cw.spec.Type.IsFloat():
		have = len(c.Floats)
	case cw.spec.Type == schema.Boolean:
		have = len(c.Bools)
	default:
		have = len(c.Strs)
	}
	if have < n {
		return fmt.Errorf("parquet: column %q has %d values, want %d", name, have, n)
	}
	if c.Nulls != nil {
		if len(c.Nulls) < n {
			return fmt.Errorf("parquet: column %q has %d null flags, want %d", name, len(c.Nulls), n)
		}
		if cw.spec.Required && hasNull(c.Nulls[:n]) {
			for i, null := range c.Nulls[:n] {
				if null {
					return fmt.Errorf("parquet: row %d: column %q is required but null", firstRow+int64(i), name)
				}
			}
		}
	}
	if cw.spec.Type == schema.Int {
		for i, v := range c.Ints[:n] {
			if v != int64(int32(v)) && !c.IsNull(i) {
				return fmt.Errorf("parquet: row %d: column %q value %d does not fit an int (32 bits)", firstRow+int64(i), name, v)
			}
		}
	}
	return nil
}

// add appends rows [a,b) of c to the current page.
//
// Definition levels are stored only once the page has a null: until then
// they are all ones (pageNulls == 0), which flushPage writes as one run
// without a slice to fill and scan.
func (cw *colWriter) add(c *rows.Column, a, b int) {
	if cw.leaf != leafFlat {
		cw.addMap(c, a, b)
		return
	}
	nulls := c.Nulls
	if nulls != nil {
		nulls = nulls[a:b]
		if !hasNull(nulls) {
			nulls = nil
		}
	}
	if nulls != nil {
		cw.addNulls(nulls)
	} else if cw.pageNulls > 0 {
		var ones []uint32
		cw.defs, ones = grow(cw.defs, b-a)
		for i := range ones {
			ones[i] = 1
		}
	}
	p := &cw.page
	switch {
	case cw.spec.Type.IsInteger():
		var vs []int64
		if nulls == nil {
			start := len(cw.ints)
			cw.ints = append(cw.ints, c.Ints[a:b]...)
			vs = cw.ints[start:]
		} else {
			cw.ints, vs = appendNonNull(cw.ints, c.Ints[a:b], nulls)
		}
		if len(vs) == 0 {
			return
		}
		lo, hi := vs[0], vs[0]
		if p.has {
			lo, hi = p.minI, p.maxI
		}
		p.minI, p.maxI = minMaxInts(vs, lo, hi)
		p.has = true
	case cw.spec.Type.IsFloat():
		var vs []float64
		if nulls == nil {
			start := len(cw.floats)
			cw.floats = append(cw.floats, c.Floats[a:b]...)
			vs = cw.floats[start:]
		} else {
			cw.floats, vs = appendNonNull(cw.floats, c.Floats[a:b], nulls)
		}
		if cw.spec.Type == schema.Float {
			// what is written is the float32; bounds must be of that
			for i, v := range vs {
				vs[i] = float64(float32(v))
			}
		}
		if !p.has {
			// the first non-NaN value starts the bounds
			for i, v := range vs {
				if v == v {
					p.minF, p.maxF, p.has = v, v, true
					cw.pageNaNs += i
					vs = vs[i:]
					break
				}
			}
			if !p.has {
				cw.pageNaNs += len(vs)
				return
			}
		}
		var nans int
		p.minF, p.maxF, nans = minMaxFloats(vs, p.minF, p.maxF)
		cw.pageNaNs += nans
	case cw.spec.Type == schema.Boolean:
		var vs []bool
		if nulls == nil {
			start := len(cw.bools)
			cw.bools = append(cw.bools, c.Bools[a:b]...)
			vs = cw.bools[start:]
		} else {
			cw.bools, vs = appendNonNull(cw.bools, c.Bools[a:b], nulls)
		}
		if len(vs) == 0 {
			return
		}
		if !p.has {
			p.minB, p.maxB, p.has = vs[0], vs[0], true
		}
		// false is below true: the bounds are whether all are true and
		// whether any is
		for _, v := range vs {
			p.minB = p.minB && v
			p.maxB = p.maxB || v
		}
	default:
		cw.addStrings(c.Strs[a:b], nulls)
	}
}

// addNulls appends the definition levels of a segment with nulls, storing
// the page's levels so far (all ones) first if this is its first null.
func (cw *colWriter) addNulls(nulls []bool) {
	if cw.pageNulls == 0 {
		cw.defs = slices.Grow(cw.defs[:0], cw.w.pageRows+len(nulls))[:cw.w.pageRows]
		for i := range cw.defs {
			cw.defs[i] = 1
		}
	}
	var levels []uint32
	cw.defs, levels = grow(cw.defs, len(nulls))
	levels = levels[:len(nulls)]
	n := 0
	for i, null := range nulls {
		l := uint32(1)
		if null {
			l = 0
			n++
		}
		levels[i] = l
	}
	cw.pageNulls += n
}
