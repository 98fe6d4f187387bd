package datafile

import (
	"fmt"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/scan"
)

// pageRead is a run of one column's pages (or its dictionary page) that a
// window needs.
type pageRead struct {
	field    int
	dict     bool
	at       scan.ByteRange
	firstRow int64  // the row group row of the run's first row (data pages)
	held     []byte // the bytes, when fetched ahead before
	fetchTo  int64  // fetch up to here: the pages after the run, kept ahead
}

// aheadBuf is a column's pages fetched ahead: file bytes from off.
type aheadBuf struct {
	off int64
	b   []byte
}

// readColumns sets b.Cols[i], for each field i of fields, to rows w of row
// group rg: the pages holding them (found in the offset index; the whole
// chunk without one), with the dictionary page the first time, fetched in
// coalesced requests and decoded one page at a time. The pages after them
// holding rows before aheadTo are fetched with them, within each column's
// share of fs.readBudget, and kept for the next windows.
func (fs *FileScan) readColumns(rg int, fields []int, w scan.RowRange, aheadTo int64, b *rows.Batch) error {
	f := fs.f
	n := int(w.To - w.From)
	var reads []pageRead
	for _, i := range fields {
		c := f.ColOf[i]
		if c < 0 {
			b.Cols[i] = rows.MissingOf(fs.sch.Fields[i], n)
			continue
		}
		cc := &f.Meta.RowGroups[rg].Columns[c]
		oi := f.offIdx[rg][c]
		if oi == nil {
			start, length := cc.Start(), cc.Meta.TotalCompressedSize
			if start < 4 || length <= 0 || length > f.size-start {
				return fmt.Errorf("%w: data file %s: column %q, row group %d: chunk at %d (+%d) outside the file", ErrCorrupt, fs.key, fs.sch.Fields[i].Name, rg, start, length)
			}
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
		if cc.Meta.HasDictionaryPage && !fs.dictOK[i] {
			from, to := cc.Meta.DictionaryPageOffset, pages[0].Offset
			if from < 4 || from >= to {
				return fmt.Errorf("%w: data file %s: column %q: dictionary page at %d, the first data page at %d", ErrCorrupt, fs.key, fs.sch.Fields[i].Name, from, to)
			}
			reads = append(reads, pageRead{field: i, dict: true, at: scan.ByteRange{Off: from, Len: to - from}})
		}
		from := pages[p0].Offset
		end := pages[p1-1].Offset + int64(pages[p1-1].CompressedPageSize)
		r := pageRead{field: i, at: scan.ByteRange{Off: from, Len: end - from}, firstRow: pages[p0].FirstRowIndex}
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
	if len(reads) == 0 {
		return nil
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
			if r.fetchTo > r.at.End() {
				fs.ahead[i] = aheadBuf{off: r.at.Off, b: bytesOf(scan.ByteRange{Off: r.at.Off, Len: r.fetchTo - r.at.Off})}
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
		var buf rows.Column
		for at := r.at.Off; len(data) > 0; {
			before := buf.Len(fld.Type)
			k, err := fs.dec.Decode(ch, data, &fs.dicts[i], &buf)
			if err != nil {
				return DataFileErr(fs.key, fmt.Errorf("column %q, row group %d, page at %d: %w", fld.Name, rg, at, err))
			}
			if buf.Len(fld.Type) > before {
				fs.st.PagesRead++
			}
			data, at = data[k:], at+int64(k)
		}
		if f.offIdx[rg][f.ColOf[i]] == nil {
			fs.dictOK[i] = true // a whole chunk holds its dictionary page
		}
		have := buf.Len(fld.Type)
		a, z := int(w.From-r.firstRow), int(w.To-r.firstRow)
		if a < 0 || have < z {
			return fmt.Errorf("%w: data file %s: column %q, row group %d: pages from row %d hold %d rows, rows [%d, %d) wanted", ErrCorrupt, fs.key, fld.Name, rg, r.firstRow, have, w.From, w.To)
		}
		if buf.Nulls != nil && len(buf.Nulls) < have {
			return fmt.Errorf("%w: data file %s: column %q: short null map", ErrCorrupt, fs.key, fld.Name)
		}
		col := buf.Slice(a, z, fld.Type)
		if err := checkRequired(&col, fld); err != nil {
			return err
		}
		b.Cols[i] = col
	}
	return nil
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
