package datafile

import (
	"fmt"
	"slices"

	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/scan"
	"github.com/timelake/timelake/schema"
)

// pageRead is a run of one column's pages (or its dictionary page) that a
// window needs and the column has not decoded yet.
type pageRead struct {
	field   int
	dict    bool
	at      scan.ByteRange
	held    []byte // the bytes, when fetched ahead before
	fetchTo int64  // fetch up to here: the pages after the run, kept ahead
	next    int    // the page after the run (offset index), for decoded.next
}

// aheadBuf is a column's pages fetched ahead: file bytes from off.
type aheadBuf struct {
	off int64
	b   []byte
}

// decoded is a column's rows decoded from its pages and not yet passed by
// the windows: rows [from, from+len) of the row group in buf, then the
// rest of the page being read (st, a parquet.PageStream), then the pages
// fetched and not yet opened (pend); next is the first page (offset
// index) not fetched. A page holds up to write.parquet.page-row-limit rows
// (8,192) and a window fewer when the scan reads many files (scanShares):
// each page is fetched once (without it each window fetched its pages
// again: 40 MB read for a 16.5 MB table of 211 files) and decoded a window
// at a time, the stream keeping its place between windows, so a column
// holds its page's bytes and a window's rows, not the page decoded (a
// keyed scan merging many files holds a page of each column of each file:
// see docs/decisions/scan.md, "Pages are decoded a window at a time").
//
// The rows handed out are views of buf (rows.Column.Slice caps them), and
// buf only ever grows at its end or is resliced from its start: a view
// handed out is never written again.
//
// A string column with a dictionary is decoded as indexes (idx: buf.Ints,
// Open with indexes), 8 bytes a row and no pointers for the collector to
// follow, and the strings of each window looked up. A page not
// dictionary-encoded (a writer's fallback to PLAIN) turns the rest of the
// row group into strings (materialize).
type decoded struct {
	from int64
	next int
	buf  rows.Column
	idx  bool
	st   parquet.PageStream
	pend []pendPages
}

// pendPages are fetched pages not yet opened, from file offset off.
type pendPages struct {
	off int64
	b   []byte
}

// typ is the type buf holds of a column of type t.
func (d *decoded) typ(t schema.Type) schema.Type {
	if d.idx {
		return schema.Long
	}
	return t
}

// materialize turns indexes into the strings of dict.
func (d *decoded) materialize(dict []string) {
	strs := make([]string, len(d.buf.Ints))
	for k, x := range d.buf.Ints {
		if d.buf.Nulls == nil || !d.buf.Nulls[k] {
			strs[k] = dict[x]
		}
	}
	d.buf = rows.Column{Strs: strs, Nulls: d.buf.Nulls}
	d.idx = false
}

// window returns rows [a, z) of buf as values of type t.
func (d *decoded) window(a, z int, t schema.Type, dict []string) rows.Column {
	if !d.idx {
		return d.buf.Slice(a, z, t)
	}
	col := rows.Column{Strs: make([]string, z-a)}
	for k, x := range d.buf.Ints[a:z] {
		if d.buf.Nulls == nil || !d.buf.Nulls[a+k] {
			col.Strs[k] = dict[x]
		}
	}
	if d.buf.Nulls != nil {
		col.Nulls = d.buf.Nulls[a:z:z]
	}
	return col
}

// readColumns sets b.Cols[i], for each field i of fields, to rows w of row
// group rg: from the rows the column decoded for the windows before, and
// the pages after them (found in the offset index; the whole chunk without
// one) fetched, with the dictionary page the first time, in coalesced
// requests and decoded one page at a time. The pages after them holding
// rows before aheadTo are fetched with them, within each column's share of
// fs.readBudget, and kept for the next windows. Windows come in row order,
// so each page is fetched and decoded at most once.
func (fs *FileScan) readColumns(rg int, fields []int, w scan.RowRange, aheadTo int64, b *rows.Batch) error {
	f := fs.f
	n := int(w.To - w.From)
	var reads []pageRead
	for _, i := range fields {
		if k := f.nestedOf(i); k >= 0 {
			col, err := fs.nestedRows(rg, i, k)
			if err != nil {
				return err
			}
			b.Cols[i] = col.Slice(int(w.From), int(w.To), schema.Nested)
			continue
		}
		c := f.ColOf[i]
		if c < 0 {
			b.Cols[i] = rows.MissingOf(fs.sch.Fields[i], n)
			continue
		}
		typ := fs.sch.Fields[i].Type
		cc := &f.Meta.RowGroups[rg].Columns[c]
		oi := f.offIdx[rg][c]
		d := &fs.decd[i]
		if oi == nil {
			// one window, the row group (a chunk without a page index)
			start, length := cc.Start(), cc.Meta.TotalCompressedSize
			if start < 4 || length <= 0 || length > f.size-start {
				return fmt.Errorf("%w: data file %s: column %q, row group %d: chunk at %d (+%d) outside the file", ErrCorrupt, fs.key, fs.sch.Fields[i].Name, rg, start, length)
			}
			d.reset(0, 0, false)
			reads = append(reads, pageRead{field: i, at: scan.ByteRange{Off: start, Len: length}})
			continue
		}
		pages := oi.Pages
		firstRows := make([]int64, len(pages))
		for k, p := range pages {
			firstRows[k] = p.FirstRowIndex
		}
		p0, p1 := scan.Pages(firstRows, w.From, w.To)
		if p1 > len(pages) || p0 >= p1 {
			return fmt.Errorf("%w: data file %s: column %q, row group %d: no page holds rows [%d, %d)", ErrCorrupt, fs.key, fs.sch.Fields[i].Name, rg, w.From, w.To)
		}
		fetched := f.Meta.RowGroups[rg].NumRows // the rows of the pages before next
		if d.next < len(pages) {
			fetched = pages[d.next].FirstRowIndex
		}
		if have := d.buf.Len(d.typ(typ)); w.From >= d.from && w.From < fetched {
			// the rows before the window are passed: let them go
			k := min(int(w.From-d.from), have)
			d.buf = d.buf.Slice(k, have, d.typ(typ))
			d.from += int64(k)
		} else {
			d.reset(pages[p0].FirstRowIndex, p0, typ == schema.String && cc.Meta.HasDictionaryPage)
		}
		if d.next >= p1 {
			continue // decoded for the windows before
		}
		if cc.Meta.HasDictionaryPage && !fs.dictOK[i] {
			from, to := cc.Meta.DictionaryPageOffset, pages[0].Offset
			if from < 4 || from >= to {
				return fmt.Errorf("%w: data file %s: column %q: dictionary page at %d, the first data page at %d", ErrCorrupt, fs.key, fs.sch.Fields[i].Name, from, to)
			}
			reads = append(reads, pageRead{field: i, dict: true, at: scan.ByteRange{Off: from, Len: to - from}})
		}
		from := pages[d.next].Offset
		end := pages[p1-1].Offset + int64(pages[p1-1].CompressedPageSize)
		r := pageRead{field: i, at: scan.ByteRange{Off: from, Len: end - from}, next: p1}
		if a := fs.ahead[i]; a.b != nil && from >= a.off && end <= a.off+int64(len(a.b)) {
			r.held = a.b[from-a.off : end-a.off]
		} else {
			fs.ahead[i] = aheadBuf{}
			share := fs.readBudget / int64(len(fs.sch.Fields))
			for k := p1; k < len(pages) && pages[k].FirstRowIndex < aheadTo && pages[k].Offset+int64(pages[k].CompressedPageSize)-from <= share; k++ {
				r.fetchTo = pages[k].Offset + int64(pages[k].CompressedPageSize)
			}
		}
		reads = append(reads, r)
	}
	var ranges []scan.ByteRange
	for _, r := range reads {
		if r.held == nil {
			ranges = append(ranges, scan.ByteRange{Off: r.at.Off, Len: max(r.at.End(), r.fetchTo) - r.at.Off})
		}
	}
	runs := scan.CoalesceBounded(ranges, ScanGapBytes)
	bufs := make([][]byte, len(runs))
	fs.st.PageRequests += len(runs)
	for _, r := range runs {
		fs.st.PageReadBytes += r.Len
	}
	for _, r := range reads {
		fs.st.PageBytes += r.at.Len
	}
	for k, r := range runs {
		var err error
		if bufs[k], err = fs.fetch(r); err != nil {
			return err
		}
	}
	bytesOf := func(r scan.ByteRange) []byte {
		for k, run := range runs {
			if r.Off >= run.Off && r.End() <= run.End() {
				return bufs[k][r.Off-run.Off : r.End()-run.Off]
			}
		}
		return nil // not reached: the runs cover every read
	}
	for _, r := range reads {
		i := r.field
		fld := fs.sch.Fields[i]
		ch, err := f.Meta.Chunk(rg, f.ColOf[i])
		if err != nil {
			return fmt.Errorf("%w: data file %s: %v", ErrCorrupt, fs.key, err)
		}
		ch.As(fld.Type)
		data := r.held
		if data == nil {
			data = bytesOf(r.at)
			if to := fs.aheadEnd(rg, i, r, aheadTo, runs); to > r.at.End() {
				fs.ahead[i] = aheadBuf{off: r.at.Off, b: bytesOf(scan.ByteRange{Off: r.at.Off, Len: to - r.at.Off})}
			}
		}
		if r.dict {
			var scratch rows.Column
			if _, err := fs.dec.Decode(ch, data, &fs.dicts[i], &scratch); err != nil {
				return DataFileErr(fs.key, fmt.Errorf("column %q, row group %d, dictionary page at %d: %w", fld.Name, rg, r.at.Off, err))
			}
			fs.dictOK[i] = true
			continue
		}
		d := &fs.decd[i]
		d.pend = append(d.pend, pendPages{off: r.at.Off, b: data})
		d.next = r.next
		if f.offIdx[rg][f.ColOf[i]] == nil {
			fs.dictOK[i] = true // a whole chunk holds its dictionary page
		}
	}
	// every column's rows now start at or before the window: cut it out
	for _, i := range fields {
		if f.ColOf[i] < 0 {
			continue
		}
		fld := fs.sch.Fields[i]
		d := &fs.decd[i]
		a, z := int(w.From-d.from), int(w.To-d.from)
		if err := fs.decodeTo(rg, i, z); err != nil {
			return err
		}
		have := d.buf.Len(d.typ(fld.Type))
		if a < 0 || have < z {
			return fmt.Errorf("%w: data file %s: column %q, row group %d: pages from row %d hold %d rows, rows [%d, %d) wanted", ErrCorrupt, fs.key, fld.Name, rg, d.from, have, w.From, w.To)
		}
		if d.buf.Nulls != nil && len(d.buf.Nulls) < have {
			return fmt.Errorf("%w: data file %s: column %q: short null map", ErrCorrupt, fs.key, fld.Name)
		}
		col := d.window(a, z, fld.Type, fs.dicts[i].Strings())
		if err := checkRequired(&col, fld); err != nil {
			return err
		}
		b.Cols[i] = col
	}
	return nil
}

// reset starts d over at row from, page next.
func (d *decoded) reset(from int64, next int, idx bool) {
	d.from, d.next, d.buf, d.idx, d.pend = from, next, rows.Column{}, idx, nil
	d.st = parquet.PageStream{}
}

// grow makes room in buf for z rows of a column of type t at once: it is
// appended to a window at a time, and growing by appends would hold up to
// twice the window in every column of every file merged.
func (d *decoded) grow(z int, t schema.Type) {
	have := d.buf.Len(d.typ(t))
	if z <= have {
		return
	}
	switch t := d.typ(t); {
	case t.IsInteger():
		d.buf.Ints = slices.Grow(d.buf.Ints, z-have)
	case t.IsFloat():
		d.buf.Floats = slices.Grow(d.buf.Floats, z-have)
	case t == schema.Boolean:
		d.buf.Bools = slices.Grow(d.buf.Bools, z-have)
	default:
		d.buf.Strs = slices.Grow(d.buf.Strs, z-have)
	}
	if d.buf.Nulls != nil {
		d.buf.Nulls = slices.Grow(d.buf.Nulls, z-have)
	}
}

// decodeTo decodes field i's rows until buf holds z (or the pages fetched
// run out: the caller reports the rows missing), a page at a time from
// pend, each a window at a time.
func (fs *FileScan) decodeTo(rg, i, z int) error {
	f := fs.f
	fld := fs.sch.Fields[i]
	d := &fs.decd[i]
	var ch *parquet.Chunk
	d.grow(z, fld.Type)
	for d.buf.Len(d.typ(fld.Type)) < z {
		if left := d.st.Left(); left > 0 {
			if err := d.st.Next(min(left, z-d.buf.Len(d.typ(fld.Type))), &d.buf); err != nil {
				return DataFileErr(fs.key, fmt.Errorf("column %q, row group %d: %w", fld.Name, rg, err))
			}
			continue
		}
		if len(d.pend) == 0 {
			return nil
		}
		if ch == nil {
			var err error
			if ch, err = f.Meta.Chunk(rg, f.ColOf[i]); err != nil {
				return fmt.Errorf("%w: data file %s: %v", ErrCorrupt, fs.key, err)
			}
			ch.As(fld.Type)
		}
		p := &d.pend[0]
		k, err := d.st.Open(fs.dec, ch, p.b, &fs.dicts[i], d.idx)
		if err != nil {
			return DataFileErr(fs.key, fmt.Errorf("column %q, row group %d, page at %d: %w", fld.Name, rg, p.off, err))
		}
		p.b, p.off = p.b[k:], p.off+int64(k)
		if len(p.b) == 0 {
			d.pend = d.pend[1:]
		}
		if d.st.Left() > 0 {
			fs.st.PagesRead++
			if d.idx && !d.st.Indexes() {
				d.materialize(fs.dicts[i].Strings())
			}
		}
	}
	return nil
}

// aheadEnd is where the bytes of field i's pages after read r, fetched
// with it, end: those it asked for (r.fetchTo) and those the coalesced run
// holding r brought along (the gaps between columns are fetched, not
// skipped), pages of rows before aheadTo. They are kept for the next
// windows: without them a page the run had fetched was fetched again.
func (fs *FileScan) aheadEnd(rg, i int, r pageRead, aheadTo int64, runs []scan.ByteRange) int64 {
	to := r.fetchTo
	oi := fs.f.offIdx[rg][fs.f.ColOf[i]]
	if oi == nil || r.dict {
		return to
	}
	for _, run := range runs {
		if r.at.Off < run.Off || r.at.End() > run.End() {
			continue
		}
		for k := r.next; k < len(oi.Pages); k++ {
			p := oi.Pages[k]
			if p.FirstRowIndex >= aheadTo || p.Offset+int64(p.CompressedPageSize) > run.End() {
				break
			}
			to = max(to, p.Offset+int64(p.CompressedPageSize))
		}
		break
	}
	return to
}

// fetch returns the file's bytes r: what the tail kept from opening the
// file is not fetched again (a run reaching into it is fetched up to it).
func (fs *FileScan) fetch(r scan.ByteRange) ([]byte, error) {
	f := fs.f
	if f.tail == nil || r.End() <= f.tailOff || r.Off >= f.tailOff {
		return f.Get(fs.ctx, r.Off, r.Len)
	}
	head, err := f.getRange(fs.ctx, r.Off, f.tailOff-r.Off)
	if err != nil {
		return nil, err
	}
	rest, ok := cached(f.tail, f.tailOff, f.tailOff, r.End())
	if !ok {
		return f.Get(fs.ctx, r.Off, r.Len)
	}
	return append(head, rest...), nil
}

// nestedRows is field i's nested column (the file's k) in row group rg,
// read whole once per row group.
func (fs *FileScan) nestedRows(rg, i, k int) (rows.Column, error) {
	if fs.nestedRG != rg+1 {
		fs.nestedRG, fs.nested = rg+1, make([]rows.Column, len(fs.sch.Fields))
	}
	if fs.nested[i].Strs == nil {
		col, err := fs.f.nestedColumn(fs.ctx, rg, k, fs.sch.Fields[i], heldBytes{})
		if err != nil {
			return rows.Column{}, err
		}
		if col.Strs == nil {
			col.Strs = []string{}
		}
		fs.nested[i] = col
	}
	return fs.nested[i], nil
}
