package parquet

import (
	"fmt"
	"slices"
	"sync"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// A column's writer (writer.go drives them): its current page and chunk,
// the pooled buffers, and the checks and appends of a Write.

// colWriter holds one column's current page and current chunk.
type colWriter struct {
	w    *Writer
	spec ColumnSpec
	phys PhysicalType
	in   int // the input column (a nested column's leaves share it)

	// a nested column's leaf (writer_nested.go): leafHead or leafTail,
	// its column, its maximum definition and repetition levels, its path,
	// the page's repetition levels (its definition levels are in defs,
	// always stored), the chunk's level entries
	leaf           uint8
	nest           *nestedCol
	maxDef, maxRep uint32
	leafPath       []string
	reps           []uint32
	chunkLevels    int64

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
		return cw.nest.check(c, n, firstRow)
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
		if cw.leaf == leafHead {
			cw.nest.add(c, a, b) // for all its leaves
		}
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
	cw.addValues(c, a, b, nulls)
}

// addValues appends the non-null values of rows [a,b) of c to the page
// and its bounds (nulls nil: none is null).
func (cw *colWriter) addValues(c *rows.Column, a, b int, nulls []bool) {
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
