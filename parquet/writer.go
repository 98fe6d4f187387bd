package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/s2"
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
}

// Options tune the Writer. The zero value gives the defaults.
type Options struct {
	PageRowLimit  int   // rows per data page; 0 means 8,192 (Iceberg write.parquet.page-row-limit)
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
	for i, c := range cols {
		if c.Name == "" {
			return nil, fmt.Errorf("parquet: column %d has no name", i)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("parquet: column %q appears twice", c.Name)
		}
		seen[c.Name] = true
		cw := &colWriter{spec: c, w: w, bufs: bufPool.Get().(*bufs)}
		switch c.Type {
		case schema.Long, schema.Timestamptz:
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
	if len(cols) != len(w.cols) {
		return fmt.Errorf("parquet: got %d columns, the writer has %d", len(cols), len(w.cols))
	}
	for i, cw := range w.cols {
		if err := cw.check(&cols[i], n, w.totalRows+w.rgRowsPending()); err != nil {
			return err
		}
	}
	limit := w.opt.PageRowLimit
	for off := 0; off < n; {
		seg := min(n-off, limit-w.pageRows)
		for i, cw := range w.cols {
			cw.add(&cols[i], off, off+seg)
		}
		w.pageRows += seg
		off += seg
		if w.pageRows == limit {
			if err := w.flushPages(); err != nil {
				return w.fail(err)
			}
			var size int64
			for _, cw := range w.cols {
				size += cw.chunkUncompressed + int64(len(cw.dictBuf))
			}
			if size >= w.opt.RowGroupBytes || (w.opt.RowGroupRows > 0 && w.rgRows >= w.opt.RowGroupRows) {
				w.flushRowGroup()
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
	w.pageRows = 0
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
	els := []schemaElement{{Name: "table", NumChildren: int32(len(w.cols))}}
	for _, cw := range w.cols {
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

// appendNonNull appends the values of vs whose null flag is false to dst,
// grown once and filled by position, and returns dst and what was added.
func appendNonNull[T any](dst, vs []T, nulls []bool) ([]T, []T) {
	start := len(dst)
	dst, out := grow(dst, len(vs))
	out = out[:len(vs)]
	k := 0
	for i, null := range nulls {
		if !null {
			out[k] = vs[i]
			k++
		}
	}
	dst = dst[:start+k]
	return dst, dst[start:]
}

// hasNull reports whether any of nulls is true. A bool is one byte of 0 or
// 1, so eight flags are tested a load: the flags of a column without nulls
// are still scanned once per segment, in WebAssembly at a branch per flag.
func hasNull(nulls []bool) bool {
	i := 0
	for ; i+8 <= len(nulls); i += 8 {
		if *(*uint64)(unsafe.Pointer(&nulls[i])) != 0 {
			return true
		}
	}
	for _, null := range nulls[i:] {
		if null {
			return true
		}
	}
	return false
}

// appendAllDefined appends the definition levels of a page of n rows without
// nulls, as appendHybrid writes n ones at width 1: one RLE run from 8 on.
func appendAllDefined(dst []byte, n int) []byte {
	if n < 8 {
		var ones [8]uint32
		for i := range n {
			ones[i] = 1
		}
		return appendHybrid(dst, ones[:n], 1)
	}
	dst = binary.AppendUvarint(dst, uint64(n)<<1)
	return append(dst, 1)
}

// minMaxInts returns the least and greatest of lo, hi and vs. Unrolled by
// four: in WebAssembly each loop iteration goes through the function's
// dispatch.
func minMaxInts(vs []int64, lo, hi int64) (int64, int64) {
	lo1, hi1 := lo, hi
	for len(vs) >= 4 {
		v := (*[4]int64)(vs)
		lo, hi = min(lo, v[0]), max(hi, v[0])
		lo1, hi1 = min(lo1, v[1]), max(hi1, v[1])
		lo, hi = min(lo, v[2]), max(hi, v[2])
		lo1, hi1 = min(lo1, v[3]), max(hi1, v[3])
		vs = vs[4:]
	}
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	return min(lo, lo1), max(hi, hi1)
}

// minMaxFloats returns the least and greatest of lo, hi and the non-NaN
// values of vs (-0 below +0, as min and max order them), and how many of vs
// are NaN. The builtin min and max on floats are calls in WebAssembly; these
// comparisons are instructions.
func minMaxFloats(vs []float64, lo, hi float64) (float64, float64, int) {
	nans := 0
	for _, v := range vs {
		if v != v {
			nans++
			continue
		}
		if v <= lo && (v < lo || math.Signbit(v)) {
			lo = v
		}
		if v >= hi && (v > hi || !math.Signbit(v)) {
			hi = v
		}
	}
	return lo, hi, nans
}

// addStrings adds the non-null strings of vs to the page: as dictionary
// indexes, or PLAIN bytes once the column has fallen back. No reference to
// the caller's strings is kept beyond the page bounds.
//
// The common case, a dictionary column without nulls in vs, has a loop of
// its own: sorted data is mostly runs, and a run is recognised by its
// strings sharing the bytes of the last new value (a pointer comparison,
// where == would be a memequal call per row in WebAssembly). An equal string
// with other bytes (the same value from another input file, say) becomes the
// new reference, so the rest of its run is again a pointer comparison.
func (cw *colWriter) addStrings(vs []string, nulls []bool) {
	if nulls != nil || cw.fallback || len(vs) == 0 {
		cw.addStringsGeneral(vs, nulls)
		return
	}
	if cw.nStrs == 0 {
		// the page's first value starts its bounds and its run
		cw.addStringsGeneral(vs[:1], nil)
		vs = vs[1:]
		if cw.fallback {
			cw.addStringsGeneral(vs, nil)
			return
		}
	}
	// indexes are stored by position in a buffer grown once
	n0 := len(cw.idx)
	idx := slices.Grow(cw.idx, len(vs))[:n0+len(vs)]
	out := idx[n0:]
	last, lastIdx := cw.lastStr, cw.lastIdx
	lastPtr, lastLen := unsafe.StringData(last), len(last)
	for i := 0; i < len(vs); i++ {
		v := vs[i]
		if len(v) == lastLen {
			if unsafe.StringData(v) == lastPtr {
				out[i] = lastIdx
				continue
			}
			if v == last {
				last, lastPtr = v, unsafe.StringData(v)
				out[i] = lastIdx
				continue
			}
		}
		k, ok := cw.newString(v)
		if !ok {
			// the dictionary is full: the page so far becomes PLAIN and so
			// does the rest of vs
			cw.idx, cw.nStrs = idx[:n0+i], cw.nStrs+i
			cw.lastStr, cw.lastIdx = last, lastIdx
			cw.fallBack()
			cw.appendPlain(v)
			cw.nStrs++
			cw.lastStr = v
			cw.addStringsGeneral(vs[i+1:], nil)
			return
		}
		last, lastPtr, lastLen, lastIdx = v, unsafe.StringData(v), len(v), k
		out[i] = k
	}
	cw.idx, cw.nStrs = idx, cw.nStrs+len(vs)
	cw.lastStr, cw.lastIdx = last, lastIdx
}

// newString takes v, which differs from the previous value, into the page
// bounds and the dictionary, and returns its index. ok is false if v took
// the dictionary past DictionaryLimit: then v is in neither the dictionary
// nor the page's values (but in its bounds), and the caller falls back.
func (cw *colWriter) newString(v string) (k uint32, ok bool) {
	p := &cw.page
	if !p.has {
		p.minS, p.maxS, p.has = v, v, true
	} else if v < p.minS {
		p.minS = v
	} else if v > p.maxS {
		p.maxS = v
	}
	k, ok = cw.dict[v]
	if ok {
		return k, true
	}
	k = uint32(len(cw.dictOff))
	cw.dict[strings.Clone(v)] = k
	cw.dictOff = append(cw.dictOff, uint32(len(cw.dictBuf)))
	cw.dictBuf = binary.LittleEndian.AppendUint32(cw.dictBuf, uint32(len(v)))
	cw.dictBuf = append(cw.dictBuf, v...)
	return k, len(cw.dictBuf) <= DictionaryLimit
}

func (cw *colWriter) appendPlain(v string) {
	cw.plain = binary.LittleEndian.AppendUint32(cw.plain, uint32(len(v)))
	cw.plain = append(cw.plain, v...)
}

// addStringsGeneral is addStrings for values with nulls, after the fallback
// and for a page's first value.
func (cw *colWriter) addStringsGeneral(vs []string, nulls []bool) {
	p := &cw.page
	last, lastIdx := cw.lastStr, cw.lastIdx
	idx, nStrs := cw.idx, cw.nStrs
	if !cw.fallback {
		idx = slices.Grow(idx, len(vs))
	}
	for i, v := range vs {
		if nulls != nil && nulls[i] {
			continue
		}
		nStrs++
		if nStrs > 1 && len(v) == len(last) && (unsafe.StringData(v) == unsafe.StringData(last) || v == last) {
			last = v // its bytes are the likelier ones to come next
			if cw.fallback {
				cw.appendPlain(v)
			} else {
				idx = append(idx, lastIdx)
			}
			continue
		}
		last = v
		if cw.fallback {
			if !p.has {
				p.minS, p.maxS, p.has = v, v, true
			} else if v < p.minS {
				p.minS = v
			} else if v > p.maxS {
				p.maxS = v
			}
			cw.appendPlain(v)
			continue
		}
		k, ok := cw.newString(v)
		if !ok {
			cw.idx = idx
			cw.fallBack()
			idx = cw.idx
			cw.appendPlain(v)
			continue
		}
		idx = append(idx, k)
		lastIdx = k
	}
	cw.idx, cw.nStrs = idx, nStrs
	cw.lastStr, cw.lastIdx = last, lastIdx
}

// fallBack switches the column to PLAIN for the rest of the row group: the
// page's indexes so far become PLAIN bytes and the entries the page added
// leave the dictionary, so it never passes DictionaryLimit.
func (cw *colWriter) fallBack() {
	for _, k := range cw.idx {
		off := cw.dictOff[k]
		n := binary.LittleEndian.Uint32(cw.dictBuf[off:])
		cw.plain = append(cw.plain, cw.dictBuf[off:off+4+n]...)
	}
	cw.idx = cw.idx[:0]
	for _, off := range cw.dictOff[cw.pageDict0:] {
		n := binary.LittleEndian.Uint32(cw.dictBuf[off:])
		delete(cw.dict, string(cw.dictBuf[off+4:off+4+n]))
	}
	if cw.pageDict0 < len(cw.dictOff) {
		cw.dictBuf = cw.dictBuf[:cw.dictOff[cw.pageDict0]]
	}
	cw.dictOff = cw.dictOff[:cw.pageDict0]
	cw.fallback = true
}

// valueCount is the number of non-null values in the current page.
func (cw *colWriter) valueCount() int {
	switch {
	case cw.spec.Type.IsInteger():
		return len(cw.ints)
	case cw.spec.Type.IsFloat():
		return len(cw.floats)
	case cw.spec.Type == schema.Boolean:
		return len(cw.bools)
	}
	return cw.nStrs
}

// encodeValues writes the page's values into cw.raw and returns the
// encoding used.
func (cw *colWriter) encodeValues() Encoding {
	compat := cw.w.opt.Compat
	raw := cw.raw[:0]
	enc := EncPlain
	switch cw.spec.Type {
	case schema.Long, schema.Timestamptz:
		if compat {
			for _, v := range cw.ints {
				raw = binary.LittleEndian.AppendUint64(raw, uint64(v))
			}
		} else {
			raw, enc = appendDelta(raw, cw.ints, false, &cw.delta), EncDeltaBinaryPacked
		}
	case schema.Int:
		if compat {
			for _, v := range cw.ints {
				raw = binary.LittleEndian.AppendUint32(raw, uint32(int32(v)))
			}
		} else {
			raw, enc = appendDelta(raw, cw.ints, true, &cw.delta), EncDeltaBinaryPacked
		}
	case schema.Double:
		// stored into a buffer grown once: an append per value is a call
		// per value in WebAssembly
		n := len(raw)
		raw = slices.Grow(raw, 8*len(cw.floats))[:n+8*len(cw.floats)]
		out := raw[n:]
		for i, v := range cw.floats {
			binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(v))
		}
	case schema.Float:
		for _, v := range cw.floats {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(v)))
		}
	case schema.Boolean:
		var acc byte
		for i, v := range cw.bools {
			if v {
				acc |= 1 << (i & 7)
			}
			if i&7 == 7 {
				raw = append(raw, acc)
				acc = 0
			}
		}
		if len(cw.bools)&7 != 0 {
			raw = append(raw, acc)
		}
	case schema.String:
		if cw.nStrs > 0 && !cw.fallback {
			width := uint(bits.Len(uint(len(cw.dictOff) - 1)))
			raw = append(raw, byte(width))
			raw = appendHybrid(raw, cw.idx, width)
			enc = EncRLEDictionary
			if compat {
				enc = EncPlainDictionary
			}
		} else {
			raw = append(raw, cw.plain...)
		}
	}
	cw.raw = raw
	return enc
}

// compress returns the compressed form of src (src itself when
// uncompressed), in a reused buffer.
func (cw *colWriter) compress(src []byte) []byte {
	switch cw.w.opt.Codec {
	case Zstd:
		cw.comp = cw.w.enc.EncodeAll(src, cw.comp[:0])
	case Snappy:
		if n := s2.MaxEncodedLen(len(src)); cap(cw.comp) < n {
			cw.comp = make([]byte, n)
		}
		cw.comp = s2.EncodeSnappy(cw.comp[:cap(cw.comp)], src)
	default:
		return src
	}
	return cw.comp
}

// flushPage encodes, compresses and appends the current page to the chunk.
func (cw *colWriter) flushPage() error {
	w := cw.w
	rowsInPage := w.pageRows
	values := cw.valueCount()
	enc := cw.encodeValues()
	// definition levels: RLE/bit-packed hybrid at width 1
	levels := cw.levels[:0]
	if !cw.spec.Required {
		if w.opt.Compat {
			levels = append(levels, 0, 0, 0, 0) // length prefix, set below
		}
		if cw.pageNulls == 0 {
			levels = appendAllDefined(levels, rowsInPage)
		} else {
			levels = appendHybrid(levels, cw.defs, 1)
		}
		if w.opt.Compat {
			binary.LittleEndian.PutUint32(levels, uint32(len(levels)-4))
		}
	}
	cw.levels = levels
	h := pageHeader{NumValues: int32(rowsInPage), Encoding: enc}
	var body, prefix []byte // prefix is stored uncompressed before body
	uncompressed := 0
	if w.opt.Compat {
		h.Type = pageData
		h.DefEncoding, h.RepEncoding = EncRLE, EncRLE
		page := append(levels, cw.raw...)
		cw.levels = page
		uncompressed = len(page)
		body = cw.compress(page)
	} else {
		h.Type = pageDataV2
		h.NumNulls = int32(cw.pageNulls)
		h.NumRows = int32(rowsInPage)
		h.DefLen = int32(len(levels))
		// an all-null page has no values to compress
		h.Compressed = w.opt.Codec != Uncompressed && len(cw.raw) > 0
		prefix = levels
		uncompressed = len(levels) + len(cw.raw)
		body = cw.raw
		if h.Compressed {
			body = cw.compress(cw.raw)
		}
	}
	if uncompressed > math.MaxInt32 || len(prefix)+len(body) > math.MaxInt32 {
		return fmt.Errorf("parquet: column %q: page of %d bytes is too large", cw.spec.Name, uncompressed)
	}
	h.UncompressedSize = int32(uncompressed)
	h.CompressedSize = int32(len(prefix) + len(body))
	w.hdr.Reset()
	writePageHeader(&w.hdr, &h)

	offset := len(cw.chunk)
	cw.chunk = append(cw.chunk, w.hdr.Buf...)
	cw.chunk = append(cw.chunk, prefix...)
	cw.chunk = append(cw.chunk, body...)
	size := len(cw.chunk) - offset
	cw.pages = append(cw.pages, PageLocation{Offset: int64(offset), CompressedPageSize: int32(size), FirstRowIndex: cw.chunkRows})
	cw.chunkUncompressed += int64(len(w.hdr.Buf) + uncompressed)
	cw.usedEncoding[enc] = true
	if enc == EncRLEDictionary || enc == EncPlainDictionary {
		cw.dictPages++
	} else {
		cw.plainPages++
	}

	// column index entry
	nullPage := values == 0
	cw.ci.NullPages = append(cw.ci.NullPages, nullPage)
	cw.ci.NullCounts = append(cw.ci.NullCounts, int64(cw.pageNulls))
	if nullPage {
		cw.ci.MinValues = append(cw.ci.MinValues, nil)
		cw.ci.MaxValues = append(cw.ci.MaxValues, nil)
	} else if !cw.page.has {
		cw.noColumnIndex = true // only NaNs
		cw.ci.MinValues = append(cw.ci.MinValues, nil)
		cw.ci.MaxValues = append(cw.ci.MaxValues, nil)
	} else {
		var lo, hi []byte
		lo, _ = appendBound(nil, cw.spec.Type, &cw.page, false)
		hi, _ = appendBound(nil, cw.spec.Type, &cw.page, true)
		cw.ci.MinValues = append(cw.ci.MinValues, lo)
		cw.ci.MaxValues = append(cw.ci.MaxValues, hi)
	}

	cw.chunkBounds.merge(&cw.page, true)
	cw.chunkNulls += int64(cw.pageNulls)
	cw.chunkRows += int64(rowsInPage)
	cw.file.NaNs += int64(cw.pageNaNs)

	// reset the page
	cw.ints, cw.floats, cw.bools = cw.ints[:0], cw.floats[:0], cw.bools[:0]
	cw.defs, cw.idx, cw.plain = cw.defs[:0], cw.idx[:0], cw.plain[:0]
	cw.nStrs, cw.lastStr, cw.pageDict0 = 0, "", len(cw.dictOff)
	cw.pageNulls, cw.pageNaNs = 0, 0
	cw.page = bounds{}
	return nil
}

// flushChunk appends the chunk (dictionary page, then data pages) to the
// file and returns its metadata, resetting the chunk state.
func (cw *colWriter) flushChunk() (ColumnChunk, exactness, idxRef) {
	w := cw.w
	start := int64(len(w.out))
	m := ColumnMeta{
		Type:  cw.phys,
		Path:  []string{cw.spec.Name},
		Codec: w.opt.Codec,
	}
	var encStats []PageEncodingStats
	if cw.dictPages > 0 {
		h := pageHeader{Type: pageDictionary, NumValues: int32(len(cw.dictOff)), Encoding: EncPlain}
		if w.opt.Compat {
			h.Encoding = EncPlainDictionary
		}
		body := cw.compress(cw.dictBuf)
		h.UncompressedSize, h.CompressedSize = int32(len(cw.dictBuf)), int32(len(body))
		w.hdr.Reset()
		writePageHeader(&w.hdr, &h)
		w.out = append(w.out, w.hdr.Buf...)
		w.out = append(w.out, body...)
		m.HasDictionaryPage, m.DictionaryPageOffset = true, start
		m.TotalUncompressedSize += int64(len(w.hdr.Buf) + len(cw.dictBuf))
		encStats = append(encStats, PageEncodingStats{PageType: int32(pageDictionary), Encoding: h.Encoding, Count: 1})
		m.Encodings = append(m.Encodings, h.Encoding)
	}
	dataStart := int64(len(w.out))
	w.out = append(w.out, cw.chunk...)
	m.DataPageOffset = dataStart
	m.TotalUncompressedSize += cw.chunkUncompressed
	m.TotalCompressedSize = int64(len(w.out)) - start
	m.NumValues = cw.chunkRows
	if !cw.spec.Required {
		m.Encodings = appendEncoding(m.Encodings, EncRLE)
	}
	for e, used := range cw.usedEncoding {
		if used {
			m.Encodings = appendEncoding(m.Encodings, Encoding(e))
		}
	}
	dataType := int32(pageDataV2)
	if w.opt.Compat {
		dataType = int32(pageData)
	}
	if cw.dictPages > 0 {
		e := EncRLEDictionary
		if w.opt.Compat {
			e = EncPlainDictionary
		}
		encStats = append(encStats, PageEncodingStats{PageType: dataType, Encoding: e, Count: cw.dictPages})
	}
	if cw.plainPages > 0 {
		for e, used := range cw.usedEncoding {
			if used && Encoding(e) != EncRLEDictionary && Encoding(e) != EncPlainDictionary {
				encStats = append(encStats, PageEncodingStats{PageType: dataType, Encoding: Encoding(e), Count: cw.plainPages})
			}
		}
	}
	m.EncodingStats = encStats

	// statistics
	m.HasStats = true
	m.Stats.HasNullCount, m.Stats.NullCount = true, cw.chunkNulls
	var ex exactness
	if cw.chunkBounds.has {
		m.Stats.HasMin, m.Stats.HasMax = true, true
		m.Stats.Min, ex.min = appendBound(nil, cw.spec.Type, &cw.chunkBounds, false)
		m.Stats.Max, ex.max = appendBound(nil, cw.spec.Type, &cw.chunkBounds, true)
	}

	// page indexes
	var ref idxRef
	for i := range cw.pages {
		cw.pages[i].Offset += dataStart
	}
	w.hdr.Reset()
	writeOffsetIndex(&w.hdr, &OffsetIndex{Pages: cw.pages})
	ref.offOff, ref.offLen = len(w.offIdxBuf), len(w.hdr.Buf)
	w.offIdxBuf = append(w.offIdxBuf, w.hdr.Buf...)
	if !cw.noColumnIndex {
		cw.ci.BoundaryOrder = boundaryOrder(cw.spec.Type, &cw.ci)
		w.hdr.Reset()
		writeColumnIndex(&w.hdr, &cw.ci)
		ref.colOff, ref.colLen = len(w.colIdxBuf), len(w.hdr.Buf)
		w.colIdxBuf = append(w.colIdxBuf, w.hdr.Buf...)
	}

	// file statistics
	cw.file.CompressedSize += m.TotalCompressedSize
	cw.file.Values += cw.chunkRows
	cw.file.Nulls += cw.chunkNulls
	cw.fileBounds.merge(&cw.chunkBounds, false)

	// reset the chunk
	cw.chunk = cw.chunk[:0]
	cw.pages = cw.pages[:0]
	cw.ci = ColumnIndex{NullPages: cw.ci.NullPages[:0], MinValues: cw.ci.MinValues[:0], MaxValues: cw.ci.MaxValues[:0], NullCounts: cw.ci.NullCounts[:0]}
	cw.noColumnIndex = false
	cw.chunkBounds = bounds{}
	cw.chunkUncompressed, cw.chunkNulls, cw.chunkRows = 0, 0, 0
	cw.dictPages, cw.plainPages = 0, 0
	cw.usedEncoding = [10]bool{}
	if cw.dict != nil {
		clear(cw.dict)
		cw.dictBuf, cw.dictOff, cw.fallback, cw.pageDict0 = cw.dictBuf[:0], cw.dictOff[:0], false, 0
	}
	return ColumnChunk{FileOffset: start, Meta: m}, ex, ref
}

func appendEncoding(list []Encoding, e Encoding) []Encoding {
	for _, x := range list {
		if x == e {
			return list
		}
	}
	return append(list, e)
}

// boundaryOrder finds whether the non-null pages' bounds ascend or descend.
func boundaryOrder(t schema.Type, ci *ColumnIndex) BoundaryOrder {
	asc, desc := true, true
	prev := -1
	for i, null := range ci.NullPages {
		if null {
			continue
		}
		if prev >= 0 {
			cmin := compareBound(t, ci.MinValues[prev], ci.MinValues[i])
			cmax := compareBound(t, ci.MaxValues[prev], ci.MaxValues[i])
			if cmin > 0 || cmax > 0 {
				asc = false
			}
			if cmin < 0 || cmax < 0 {
				desc = false
			}
		}
		prev = i
	}
	switch {
	case asc:
		return Ascending
	case desc:
		return Descending
	}
	return Unordered
}
