package datafile

import (
	"context"
	"fmt"

	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
)

// A sorted data file read a window of rows at a time through GetRange,
// never whole unless it is small: the footer (one request for the tail, a
// second only for a footer past 64 KiB), the offset indexes (one request:
// the writer puts them together; none when they are in the tail), then the
// pages, with as few requests as a read budget allows:
//
//   - a row group whose column chunks lie in the tail is decoded from it:
//     a file of up to 64 KiB costs one request in all;
//   - a row group whose chunks fit in the cursor's budget is fetched in one
//     request when the cursor enters it;
//   - otherwise each column fetches the pages of the window (the first also
//     takes the dictionary page) and, in the same request, the pages after
//     them up to its share of the budget, which later windows decode from.
//
// The budget bounds the compressed bytes a cursor holds (besides the tail,
// and one window's pages when they alone exceed it), so a merge of many
// large files still holds only a window and a budget of each.
//
//	src, _ := Open(ctx, st, key, size, sch, names, &bytesRead)
//	cur := NewCursor(src, sch, &dec, seq, 8192, readBudget)
//	for { ok, err := cur.next(ctx); if !ok { break }; … cur.cols[c] rows [cur.pos, cur.n) … }

// tailGuess is how much of a file's end is fetched hoping it holds the footer.
const tailGuess = 64 << 10

// File is a data file's footer and offset indexes.
type File struct {
	st    store.Store
	Key   string
	size  int64
	Meta  *parquet.FileMeta
	ColOf []int // schema field index → file column
	// NestedOf is schema field index → the file's nested column
	// (parquet.FileMeta.Nested), -1 for a primitive field or one the file
	// lacks; a nested field's ColOf is -1.
	NestedOf []int
	offIdx   [][]*parquet.OffsetIndex // [row group][file column]
	read     *int64                   // bytes fetched, shared by a merge

	// The file's last tailGuess bytes (all of a small file), fetched for the
	// footer and kept: pages in it are not fetched again. Nil after a
	// footer longer than the guess, and once the cursor is done.
	tail    []byte
	tailOff int64

	// Lineage, when set, fills in the row lineage columns as rows are read
	// (lineage.go).
	Lineage *Lineage
}

// cached returns the file's bytes [from, to) when b, which starts at off,
// holds them.
func cached(b []byte, off, from, to int64) ([]byte, bool) {
	if b == nil || from < off || to > off+int64(len(b)) || from > to {
		return nil, false
	}
	return b[from-off : to-off : to-off], true
}

func (f *File) getRange(ctx context.Context, off, n int64) ([]byte, error) {
	b, err := f.st.GetRange(ctx, f.Key, off, n)
	if err != nil {
		return nil, fmt.Errorf("read %s [%d, +%d): %w", f.Key, off, n, err)
	}
	*f.read += int64(len(b))
	if int64(len(b)) != n {
		return nil, fmt.Errorf("read %s [%d, +%d): the store returned %d bytes", f.Key, off, n, len(b))
	}
	return b, nil
}

// Open reads the footer and the offset indexes of the file's
// projected chunks; names is the table's name mapping (nil without one). A
// chunk without an offset index has a nil entry in offIdx, built from its
// page headers when the cursor enters its row group.
func Open(ctx context.Context, st store.Store, key string, size int64, sch *schema.Table, names map[string]int, read *int64) (*File, error) {
	f := &File{st: st, Key: key, size: size, read: read}
	if size < 12 {
		return nil, fmt.Errorf("%w: data file %s: %d bytes is too small for Parquet", ErrCorrupt, key, size)
	}
	tailOff := max(size-tailGuess, 0)
	tail, err := f.getRange(ctx, tailOff, size-tailOff)
	if err != nil {
		return nil, err
	}
	n, err := parquet.FooterSize(tail, size)
	if err != nil {
		return nil, fmt.Errorf("%w: data file %s: %v", ErrCorrupt, key, err)
	}
	f.tail, f.tailOff = tail, tailOff
	if int64(n)+8 > int64(len(tail)) {
		// The footer is longer than the guess: the tail fetched is only its
		// end, and the footer (however long) is not worth keeping.
		f.tail = nil
		tailOff = size - int64(n) - 8
		if tail, err = f.getRange(ctx, tailOff, int64(n)+8); err != nil {
			return nil, err
		}
	}
	if f.Meta, err = parquet.ParseFooter(tail, size); err != nil {
		return nil, DataFileErr(key, err)
	}
	if err := f.mapColumns(sch, names); err != nil {
		return nil, err
	}
	// The offset indexes of the projected chunks, in one request (or none
	// when the tail already holds them).
	lo, hi := size, int64(0)
	for r := range f.Meta.RowGroups {
		for _, c := range f.ColOf {
			if c < 0 {
				continue
			}
			cc := f.Meta.RowGroups[r].Columns[c]
			if !cc.HasOffsetIndex {
				continue
			}
			if cc.OffsetIndexLength <= 0 || cc.OffsetIndexOffset < 4 || cc.OffsetIndexOffset+int64(cc.OffsetIndexLength) > size {
				return nil, fmt.Errorf("%w: data file %s: column chunk %s in row group %d has no usable offset index", ErrCorrupt, key, cc.Meta.Path, r)
			}
			lo, hi = min(lo, cc.OffsetIndexOffset), max(hi, cc.OffsetIndexOffset+int64(cc.OffsetIndexLength))
		}
	}
	var idx []byte
	if hi > lo {
		if lo >= tailOff {
			idx = tail[lo-tailOff : hi-tailOff]
		} else if idx, err = f.getRange(ctx, lo, hi-lo); err != nil {
			return nil, err
		}
	}
	f.offIdx = make([][]*parquet.OffsetIndex, len(f.Meta.RowGroups))
	for r := range f.Meta.RowGroups {
		rg := &f.Meta.RowGroups[r]
		f.offIdx[r] = make([]*parquet.OffsetIndex, len(rg.Columns))
		for _, c := range f.ColOf {
			if c < 0 || !rg.Columns[c].HasOffsetIndex || f.offIdx[r][c] != nil {
				continue
			}
			cc := rg.Columns[c]
			oi, err := parquet.ParseOffsetIndex(idx[cc.OffsetIndexOffset-lo : cc.OffsetIndexOffset-lo+int64(cc.OffsetIndexLength)])
			if err != nil {
				return nil, fmt.Errorf("%w: data file %s: row group %d, column %q: %v", ErrCorrupt, key, r, f.Meta.Columns[c].Name, err)
			}
			if err := checkOffsetIndex(oi, rg.NumRows, cc.Start(), cc.Start()+cc.Meta.TotalCompressedSize); err != nil {
				return nil, fmt.Errorf("%w: data file %s: row group %d, column %q: offset index: %v", ErrCorrupt, key, r, f.Meta.Columns[c].Name, err)
			}
			f.offIdx[r][c] = oi
		}
	}
	return f, nil
}

// checkOffsetIndex makes sure the pages lie in their chunk, in order, and
// cover the row group's rows from row 0.
func checkOffsetIndex(oi *parquet.OffsetIndex, numRows, start, end int64) error {
	if len(oi.Pages) == 0 {
		if numRows == 0 {
			return nil
		}
		return fmt.Errorf("no pages for %d rows", numRows)
	}
	prevEnd, prevRow := start, int64(-1)
	for i, p := range oi.Pages {
		if p.Offset < prevEnd || p.CompressedPageSize <= 0 || p.Offset+int64(p.CompressedPageSize) > end {
			return fmt.Errorf("page %d at %d (+%d) is outside the chunk [%d, %d) or overlaps the previous one", i, p.Offset, p.CompressedPageSize, start, end)
		}
		if (i == 0 && p.FirstRowIndex != 0) || p.FirstRowIndex <= prevRow || p.FirstRowIndex >= numRows {
			return fmt.Errorf("page %d starts at row %d", i, p.FirstRowIndex)
		}
		prevEnd, prevRow = p.Offset+int64(p.CompressedPageSize), p.FirstRowIndex
	}
	return nil
}

// colCursor decodes one column's pages of the current row group.
type colCursor struct {
	chunk    *parquet.Chunk
	dict     parquet.Dictionary
	nextPage int         // next page (offset index) to fetch
	buf      rows.Column // decoded rows from the window start on
	have     int         // rows in buf

	ahead    []byte // pages fetched ahead of the window (file bytes from aheadOff)
	aheadOff int64
}

// Cursor walks a file's rows in windows, in file order.
type Cursor struct {
	f          *File
	Seq        int64 // data sequence number, to break ties between duplicates
	windowRows int64
	sch        *schema.Table
	dec        *parquet.PageDecoder // scratch shared by every cursor of a merge (pages are decoded one at a time)
	readBudget int64                // compressed bytes the cursor may hold ahead of its window

	rg      int   // current row group
	rgNext  int64 // next row of the row group to load into a window
	cc      []colCursor
	rgBytes []byte // the row group's column chunks, when fetched whole (file bytes from rgOff)
	rgOff   int64

	Cols   []rows.Column // the window, by schema field: views into cc[…].buf
	N, Pos int           // window rows; next row to merge
	Rows   int64         // rows loaded so far
	order  []int8        // checkSorted's scratch
	Input  int           // index of the file among the merge's inputs

	// A file sorted in memory (readSorted): its columns, rows, next row.
	Mem           []rows.Column
	MemN, memNext int

	AnyOrder bool // rows may come in any order (no checkSorted): the index catch-up

	// nested holds, by schema field, the current row group's rows of a
	// nested column (nested.go); the windows are views into it.
	nested []rows.Column
}

// File is the data file the cursor reads.
func (w *Cursor) File() *File { return w.f }

func NewCursor(f *File, sch *schema.Table, dec *parquet.PageDecoder, seq, windowRows, readBudget int64) *Cursor {
	return &Cursor{f: f, Seq: seq, windowRows: windowRows, sch: sch, dec: dec, readBudget: readBudget, rg: -1,
		cc: make([]colCursor, len(sch.Fields)), Cols: make([]rows.Column, len(sch.Fields))}
}

// Next drops the current window and loads the Next; false at the end.
func (w *Cursor) Next(ctx context.Context) (bool, error) {
	var lastKey *Cursor // compare the new window's first row with the old last one
	if w.N > 0 && !w.AnyOrder {
		lastKey = w.keepLast()
	}
	if w.Mem != nil {
		w.N, w.Pos = 0, 0
		return w.nextInMemory(lastKey)
	}
	for i := range w.cc {
		if w.f.ColOf[i] >= 0 { // a missing column's nulls are not consumed
			w.cc[i].drop(w.N, w.sch.Fields[i].Type)
		}
	}
	w.N, w.Pos = 0, 0
	for w.rg < 0 || w.rgNext >= w.f.Meta.RowGroups[w.rg].NumRows {
		w.rg++
		w.rgBytes = nil
		if w.rg >= len(w.f.Meta.RowGroups) {
			// Done: let the fetched bytes go while the merge goes on.
			w.f.tail = nil
			for i := range w.cc {
				w.cc[i].ahead = nil
			}
			return false, nil
		}
		w.rgNext = 0
		for i := range w.cc {
			if w.f.ColOf[i] < 0 {
				continue
			}
			ch, err := w.f.Meta.Chunk(w.rg, w.f.ColOf[i])
			if err != nil {
				return false, err
			}
			ch.As(w.sch.Fields[i].Type)
			w.cc[i] = colCursor{chunk: ch, buf: w.cc[i].buf}
			w.cc[i].drop(w.cc[i].have, w.sch.Fields[i].Type)
		}
		if err := w.loadRowGroup(ctx); err != nil {
			return false, err
		}
		if err := w.scanPages(ctx); err != nil {
			return false, err
		}
		if err := w.loadNested(ctx); err != nil {
			return false, err
		}
	}
	rgRows := w.f.Meta.RowGroups[w.rg].NumRows
	end := min(w.rgNext+w.windowRows, rgRows)
	for i := range w.cc {
		if w.f.ColOf[i] < 0 {
			continue
		}
		if err := w.fill(ctx, i, end); err != nil {
			return false, err
		}
	}
	n := int(end - w.rgNext)
	for i := range w.cc {
		if w.nested != nil && w.f.nestedOf(i) >= 0 {
			w.Cols[i] = w.nested[i].Slice(int(w.rgNext), int(end), schema.Nested)
			continue
		}
		if w.f.ColOf[i] < 0 {
			w.Cols[i] = w.nullView(i, n)
			continue
		}
		w.Cols[i] = w.cc[i].buf.Slice(0, n, w.sch.Fields[i].Type)
	}
	w.N, w.rgNext = n, end
	w.Rows += int64(n)
	if l := w.f.Lineage; l != nil {
		l.fill(w.Cols, w.Rows-int64(n), n)
	}
	if w.AnyOrder {
		return true, nil
	}
	if err := w.checkSorted(lastKey); err != nil {
		return false, err
	}
	return true, nil
}

// loadRowGroup takes the current row group's column chunks whole when they
// lie in the tail, or fetches them in one request when they fit in the read
// budget. Otherwise (or when the chunks' extents are not plausible: fill
// then checks each page range it needs) the columns fetch their own pages.
func (w *Cursor) loadRowGroup(ctx context.Context) error {
	rg := &w.f.Meta.RowGroups[w.rg]
	lo, hi := w.f.size, int64(0)
	for i := range w.cc {
		if w.f.ColOf[i] < 0 {
			continue
		}
		cc := &rg.Columns[w.f.ColOf[i]]
		start, n := cc.Start(), cc.Meta.TotalCompressedSize
		if start < 4 || n <= 0 || n > w.f.size-start {
			return nil
		}
		lo, hi = min(lo, start), max(hi, start+n)
	}
	if b, ok := cached(w.f.tail, w.f.tailOff, lo, hi); ok {
		w.rgBytes, w.rgOff = b, lo
		return nil
	}
	if hi-lo > w.readBudget {
		return nil
	}
	b, err := w.f.getRange(ctx, lo, hi-lo)
	if err != nil {
		return err
	}
	w.rgBytes, w.rgOff = b, lo
	return nil
}

// heldPages returns the bytes from `from` to the end of page k-1 for the
// largest k ≤ last such that a buffer the cursor holds (the row group's
// chunks, the column's pages fetched ahead, the tail) has them all, pages
// from first on following `from`; k == first when none does.
func (w *Cursor) heldPages(c *colCursor, pages []parquet.PageLocation, first, last int, from int64) ([]byte, int) {
	var best []byte
	k := first
	for _, h := range [...]struct {
		b   []byte
		off int64
	}{{w.rgBytes, w.rgOff}, {c.ahead, c.aheadOff}, {w.f.tail, w.f.tailOff}} {
		if h.b == nil || from < h.off {
			continue
		}
		hEnd := h.off + int64(len(h.b))
		j := k
		for j < last && pages[j].Offset+int64(pages[j].CompressedPageSize) <= hEnd {
			j++
		}
		if j > k {
			k = j
			best = h.b[from-h.off : pages[j-1].Offset+int64(pages[j-1].CompressedPageSize)-h.off]
		}
	}
	return best, k
}

// fetchPages fetches the file's bytes from `from` to the end of page
// last-1, and in the same request the pages after them that fit in the
// column's share of the read budget, kept in c.ahead for the next windows.
func (w *Cursor) fetchPages(ctx context.Context, c *colCursor, pages []parquet.PageLocation, last int, from int64) ([]byte, error) {
	to := pages[last-1].Offset + int64(pages[last-1].CompressedPageSize)
	end := to
	share := w.readBudget / int64(len(w.cc))
	for k := last; k < len(pages) && pages[k].Offset+int64(pages[k].CompressedPageSize)-from <= share; k++ {
		end = pages[k].Offset + int64(pages[k].CompressedPageSize)
	}
	c.ahead = nil // before fetching: the old and the new are never both held
	b, err := w.f.getRange(ctx, from, end-from)
	if err != nil {
		return nil, err
	}
	if end > to {
		c.ahead, c.aheadOff = b, from
	}
	return b[: to-from : to-from], nil
}

// fill decodes column i up to row end of the row group: its pages (with the
// dictionary page before the first) from the bytes the cursor holds, and
// what it lacks in one request, with the pages after them that fit the
// column's share of the read budget.
func (w *Cursor) fill(ctx context.Context, i int, end int64) error {
	c := &w.cc[i]
	fc := w.f.ColOf[i]
	oi := w.f.offIdx[w.rg][fc]
	need := int(end - w.rgNext)
	if c.have >= need {
		return nil
	}
	first := c.nextPage
	last := first
	for last < len(oi.Pages) && oi.Pages[last].FirstRowIndex < end {
		last++
	}
	if last == first {
		return fmt.Errorf("%w: data file %s: column %q, row group %d: no page holds row %d", ErrCorrupt, w.f.Key, w.sch.Fields[i].Name, w.rg, w.rgNext+int64(c.have))
	}
	from := oi.Pages[first].Offset
	withDict := first == 0 && c.chunk.Meta.HasDictionaryPage
	if withDict {
		from = c.chunk.Meta.DictionaryPageOffset
		if from < 4 || from > oi.Pages[0].Offset {
			return fmt.Errorf("%w: data file %s: column %q: dictionary page at %d after the first data page at %d", ErrCorrupt, w.f.Key, w.sch.Fields[i].Name, from, oi.Pages[0].Offset)
		}
	}
	// Pages the cursor holds are decoded from memory; the rest (all of
	// them, usually, or none) in one request.
	typ := w.sch.Fields[i].Type
	for p := first; p < last; {
		b, k := w.heldPages(c, oi.Pages, p, last, from)
		if k == p {
			var err error
			if b, err = w.fetchPages(ctx, c, oi.Pages, last, from); err != nil {
				return err
			}
			k = last
		}
		for at := from; len(b) > 0; {
			n, err := w.dec.Decode(c.chunk, b, &c.dict, &c.buf)
			if err != nil {
				return DataFileErr(w.f.Key, fmt.Errorf("column %q, row group %d, page at %d: %w", w.sch.Fields[i].Name, w.rg, at, err))
			}
			b, at = b[n:], at+int64(n)
		}
		if p = k; p < last {
			from = oi.Pages[p].Offset
		}
	}
	c.nextPage = last
	c.have = c.buf.Len(typ)
	// The pages end where the next page's first row is (or the row group).
	want := int(w.f.Meta.RowGroups[w.rg].NumRows - w.rgNext)
	if last < len(oi.Pages) {
		want = int(oi.Pages[last].FirstRowIndex - w.rgNext)
	}
	if c.have != want {
		return fmt.Errorf("%w: data file %s: column %q, row group %d: pages hold %d rows from row %d, the offset index says %d", ErrCorrupt, w.f.Key, w.sch.Fields[i].Name, w.rg, c.have, w.rgNext, want)
	}
	if c.buf.Nulls != nil && len(c.buf.Nulls) < c.have {
		return fmt.Errorf("%w: data file %s: column %q: short null map", ErrCorrupt, w.f.Key, w.sch.Fields[i].Name)
	}
	// a file may declare a column optional that the table requires
	return checkRequired(&c.buf, w.sch.Fields[i])
}

// drop removes the first k rows of the buffer, keeping the rest at its start
// (the same backing arrays: a cursor's memory stays one window and a page).
func (c *colCursor) drop(k int, t schema.Type) {
	if k == 0 {
		return
	}
	switch {
	case t.IsInteger():
		c.buf.Ints = c.buf.Ints[:copy(c.buf.Ints, c.buf.Ints[k:])]
	case t.IsFloat():
		c.buf.Floats = c.buf.Floats[:copy(c.buf.Floats, c.buf.Floats[k:])]
	case t == schema.Boolean:
		c.buf.Bools = c.buf.Bools[:copy(c.buf.Bools, c.buf.Bools[k:])]
	default:
		n := copy(c.buf.Strs, c.buf.Strs[k:])
		clear(c.buf.Strs[n:]) // let the dropped strings go
		c.buf.Strs = c.buf.Strs[:n]
	}
	if c.buf.Nulls != nil {
		c.buf.Nulls = c.buf.Nulls[:copy(c.buf.Nulls, c.buf.Nulls[k:])]
	}
	c.have -= k
}
