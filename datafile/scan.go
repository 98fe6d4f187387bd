package datafile

import (
	"context"
	"fmt"
	"slices"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/scan"
	"github.com/timelake/timelake/schema"
)

// FileScan reads one data file's rows that pass the filter, in file order
// (its key order), a window at a time: scan.Input's Next.
type FileScan struct {
	ctx   context.Context
	key   string
	entry iceberg.ManifestEntry
	sch   *schema.Table // the read schema
	flt   *scan.Filter
	match func(b *rows.Batch, i int) bool
	del   *Deleted
	st    *ScanStats
	dec   *parquet.PageDecoder
	cs    *CountingStore
	names map[string]int

	opened bool
	f      *File
	plan   []rgPlan
	at     int // next plan entry
	win    int // next window of plan[at]

	dicts  []parquet.Dictionary // of the current row group, by read-schema field
	dictOK []bool
	dictRG int
	ahead  []aheadBuf // by field: pages fetched ahead of the window
	decd   []decoded  // by field: pages decoded and not yet passed
	// nested: by field, the current row group's rows of a nested column
	// (read whole, as a Cursor does: nested.go), row group nestedRG-1
	nested   []rows.Column
	nestedRG int

	mem      *rows.Batch // a file not sorted by key: its rows, sorted, filtered
	sortHeld *int64      // bytes of unsorted files the scan holds, shared

	windowRows int64 // rows decoded at a time
	readBudget int64 // compressed bytes of pages fetched ahead
}

// ScanShared is what the FileScans of one table scan share: the store that
// counts their requests, the stats they add to, the page decoder's scratch
// (pages are decoded one at a time), the bytes held by files sorted in
// memory, and each file's share of the windows and read-ahead.
type ScanShared struct {
	Store      *CountingStore
	Stats      *ScanStats
	Dec        *parquet.PageDecoder
	Names      map[string]int // the table's name mapping (nil: none)
	WindowRows int64          // rows decoded at a time
	ReadBudget int64          // compressed bytes of pages fetched ahead
	SortHeld   int64          // bytes of unsorted files held, across the scan
}

// NewFileScan reads the data file of entry e (store key key) through sh:
// the rows of read schema sch that pass flt, less the positions in del
// (nil: none). Nothing is read until the first Next.
func NewFileScan(ctx context.Context, sh *ScanShared, key string, e iceberg.ManifestEntry, sch *schema.Table, flt *scan.Filter, del *Deleted) *FileScan {
	return &FileScan{ctx: ctx, key: key, entry: e, sch: sch, flt: flt, match: flt.Matcher(sch),
		del: del, st: sh.Stats, dec: sh.Dec, cs: sh.Store, names: sh.Names, sortHeld: &sh.SortHeld,
		windowRows: sh.WindowRows, readBudget: sh.ReadBudget}
}

// rgPlan is the windows to read of one row group.
type rgPlan struct {
	rg      int
	start   int64 // the row group's first row in the file
	windows []scan.RowRange
	ranges  []scan.RowRange // the row ranges the windows split
	read    bool            // counted in RowGroupsRead
}

// rangeEnd is the end of the row range holding window w: how far the
// pages after w's are worth fetching with it.
func (p *rgPlan) rangeEnd(w scan.RowRange) int64 {
	for _, r := range p.ranges {
		if w.From >= r.From && w.From < r.To {
			return r.To
		}
	}
	return w.To
}

// Next returns the next window's rows that pass the filter; nil at the end.
func (fs *FileScan) Next() (*rows.Batch, error) {
	if !fs.opened {
		fs.opened = true
		if err := fs.open(); err != nil {
			return nil, err
		}
	}
	if fs.mem != nil {
		b := fs.mem
		fs.mem = nil
		if b.Len == 0 {
			return nil, nil
		}
		return b, nil
	}
	for fs.at < len(fs.plan) {
		p := &fs.plan[fs.at]
		if fs.win >= len(p.windows) {
			fs.at, fs.win = fs.at+1, 0
			continue
		}
		w := p.windows[fs.win]
		fs.win++
		if !p.read {
			p.read = true
			fs.st.RowGroupsRead++
		}
		b, err := fs.readWindow(p, w)
		if err != nil {
			return nil, err
		}
		if b != nil && b.Len > 0 {
			return b, nil // its order is checked by the merge
		}
	}
	fs.f = nil // let the footer and tail go
	return nil, nil
}

// open reads the footer and plans the row groups and their windows.
func (fs *FileScan) open() error {
	e := fs.entry
	f, err := Open(fs.ctx, fs.cs, fs.key, e.DataFile.FileSize, fs.sch, fs.names, &fs.st.BytesRead)
	if err != nil {
		return err
	}
	if f.Meta.NumRows != e.DataFile.RecordCount {
		return fmt.Errorf("%w: data file %s holds %d rows, its manifest entry says %d", ErrCorrupt, fs.key, f.Meta.NumRows, e.DataFile.RecordCount)
	}
	fs.f = f
	fs.st.FilesRead++
	fs.st.RowGroups += len(f.Meta.RowGroups)
	for r := range f.Meta.RowGroups {
		for _, c := range f.ColOf {
			if c < 0 {
				continue
			}
			if oi := f.offIdx[r][c]; oi != nil {
				fs.st.Pages += len(oi.Pages)
			} else {
				fs.st.Pages++
			}
		}
	}
	if !f.ClaimsSorted(fs.sch) {
		return fs.readUnsorted()
	}
	cis, err := fs.columnIndexes()
	if err != nil {
		return err
	}
	var start int64
	for r := range f.Meta.RowGroups {
		rg := &f.Meta.RowGroups[r]
		p := rgPlan{rg: r, start: start}
		start += rg.NumRows
		if rg.NumRows == 0 || !fs.flt.MayMatch(fs.chunkBound(r, fs.sch.Time), SeriesBounds(fs.sch, fs.flt, func(id int) scan.Bound {
			return fs.chunkBound(r, fs.sch.IndexOfID(id))
		})) {
			continue
		}
		indexed := true
		for _, c := range f.ColOf {
			indexed = indexed && (c < 0 || f.offIdx[r][c] != nil)
		}
		if !indexed { // no page index: the row group at once
			p.windows = []scan.RowRange{{From: 0, To: rg.NumRows}}
			p.ranges = p.windows
			fs.plan = append(fs.plan, p)
			continue
		}
		ranges := []scan.RowRange{{From: 0, To: rg.NumRows}}
		if cis != nil {
			ranges = fs.flt.PageRanges(rg.NumRows, cis[r])
		}
		p.windows, p.ranges = scan.Windows(ranges, fs.windowRows), ranges
		if len(p.windows) > 0 {
			fs.plan = append(fs.plan, p)
		}
	}
	return nil
}

// chunkBound is the statistics of field i's chunk in row group r, when
// they bound its values as read.
func (fs *FileScan) chunkBound(r, i int) scan.Bound {
	if i < 0 {
		return scan.Bound{}
	}
	c := fs.f.ColOf[i]
	if c < 0 || !fs.f.Meta.ComparableAs(c, fs.sch.Fields[i].Type) {
		return scan.Bound{}
	}
	s := &fs.f.Meta.RowGroups[r].Columns[c].Meta.Stats
	if !s.HasMin || !s.HasMax {
		return scan.Bound{}
	}
	return scan.Bound{Lo: s.Min, Hi: s.Max}
}

// columnIndexes reads the column indexes of the time column and the
// filtered series columns (one request, or none when the tail holds them)
// and returns them per row group as scan.PageColumns; nil when there is
// nothing to prune by.
func (fs *FileScan) columnIndexes() ([][]scan.PageColumn, error) {
	f := fs.f
	type want struct {
		field int
		name  string
	}
	var ws []want
	if fs.flt.HasFrom || fs.flt.HasTo {
		ws = append(ws, want{fs.sch.Time, ""})
	}
	for _, sf := range fs.flt.Series {
		ws = append(ws, want{fs.sch.Index(sf.Name), sf.Name})
	}
	lo, hi := f.size, int64(0)
	for r := range f.Meta.RowGroups {
		for _, w := range ws {
			c := f.ColOf[w.field]
			if c < 0 || !f.Meta.ComparableAs(c, fs.sch.Fields[w.field].Type) {
				continue
			}
			cc := &f.Meta.RowGroups[r].Columns[c]
			if !cc.HasColumnIndex || cc.ColumnIndexLength <= 0 || cc.ColumnIndexOffset < 4 || cc.ColumnIndexOffset+int64(cc.ColumnIndexLength) > f.size {
				continue
			}
			lo, hi = min(lo, cc.ColumnIndexOffset), max(hi, cc.ColumnIndexOffset+int64(cc.ColumnIndexLength))
		}
	}
	if hi <= lo {
		return nil, nil
	}
	b, err := f.Get(fs.ctx, lo, hi-lo)
	if err != nil {
		return nil, err
	}
	out := make([][]scan.PageColumn, len(f.Meta.RowGroups))
	for r := range f.Meta.RowGroups {
		for _, w := range ws {
			c := f.ColOf[w.field]
			if c < 0 || !f.Meta.ComparableAs(c, fs.sch.Fields[w.field].Type) || f.offIdx[r][c] == nil {
				continue
			}
			cc := &f.Meta.RowGroups[r].Columns[c]
			if !cc.HasColumnIndex || cc.ColumnIndexOffset < lo || cc.ColumnIndexOffset+int64(cc.ColumnIndexLength) > hi || cc.ColumnIndexLength <= 0 {
				continue
			}
			ci, err := parquet.ParseColumnIndex(b[cc.ColumnIndexOffset-lo : cc.ColumnIndexOffset-lo+int64(cc.ColumnIndexLength)])
			if err != nil {
				return nil, fmt.Errorf("%w: data file %s: row group %d, column %q: column index: %v", ErrCorrupt, fs.key, r, fs.sch.Fields[w.field].Name, err)
			}
			pages := f.offIdx[r][c].Pages
			if len(ci.MinValues) != len(pages) {
				continue // an index that does not match the pages: not used
			}
			pc := scan.PageColumn{Name: w.name, Min: ci.MinValues, Max: ci.MaxValues, NullPages: ci.NullPages}
			for _, pg := range pages {
				pc.FirstRows = append(pc.FirstRows, pg.FirstRowIndex)
			}
			out[r] = append(out[r], pc)
		}
	}
	return out, nil
}

// readUnsorted reads a file not sorted by key whole, sorted in memory.
func (fs *FileScan) readUnsorted() error {
	f := fs.f
	need := f.SortBytes(fs.sch)
	if need > MaxSortBytes {
		return fmt.Errorf("%w: data file %s is not sorted by (series…, time) and needs about %d bytes to sort in memory, over the limit of %d; a compaction sorts it", iceberg.ErrUnsupported, fs.key, need, int64(MaxSortBytes))
	}
	// the merge holds every unsorted file it reads at once
	if *fs.sortHeld += need; *fs.sortHeld > MaxSortBytes {
		return fmt.Errorf("%w: the scan reads files not sorted by (series…, time) (%s and others) that need about %d bytes to sort in memory together, over the limit of %d; a compaction sorts them, or a narrower scan reads fewer", iceberg.ErrUnsupported, fs.key, *fs.sortHeld, int64(MaxSortBytes))
	}
	cols, n, _, err := f.ReadSorted(fs.ctx, fs.sch, fs.del)
	if err != nil {
		return err
	}
	fs.st.RowGroupsRead += len(f.Meta.RowGroups)
	fs.st.PagesRead += fs.st.Pages // approximate: the whole file
	b := &rows.Batch{Schema: fs.sch, Cols: cols, Len: n}
	var keep []int32
	for i := 0; i < n; i++ {
		if fs.match(b, i) {
			keep = append(keep, int32(i))
		}
	}
	fs.mem = rows.Take(b, keep)
	fs.f = nil
	return nil
}

// deleted reports whether file row x is deleted.
func (fs *FileScan) deleted(x int64) bool {
	if fs.del == nil {
		return false
	}
	return fs.del.Contains(x)
}

// readWindow reads rows w of row group p: the key columns first, then the
// others over the rows between the first and last that pass; it returns
// the rows that pass (nil when none).
func (fs *FileScan) readWindow(p *rgPlan, w scan.RowRange) (*rows.Batch, error) {
	if fs.dictRG != p.rg+1 {
		fs.dictRG = p.rg + 1
		fs.dicts = make([]parquet.Dictionary, len(fs.sch.Fields))
		fs.dictOK = make([]bool, len(fs.sch.Fields))
		fs.ahead = make([]aheadBuf, len(fs.sch.Fields))
		fs.decd = make([]decoded, len(fs.sch.Fields))
	}
	sch := fs.sch
	isKey := func(i int) bool { return i == sch.Time || slices.Contains(sch.Series, i) }
	var keys, others []int
	for i := range sch.Fields {
		if isKey(i) {
			keys = append(keys, i)
		} else {
			others = append(others, i)
		}
	}
	n := int(w.To - w.From)
	b := &rows.Batch{Schema: sch, Cols: make([]rows.Column, len(sch.Fields)), Len: n}
	if err := fs.readColumns(p.rg, keys, w, p.rangeEnd(w), b); err != nil {
		return nil, err
	}
	first, last := -1, -1
	for i := 0; i < n; i++ {
		if fs.match(b, i) && !fs.deleted(p.start+w.From+int64(i)) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil, nil
	}
	span := scan.RowRange{From: w.From + int64(first), To: w.From + int64(last) + 1}
	m := last + 1 - first
	for _, i := range keys {
		b.Cols[i] = b.Cols[i].Slice(first, last+1, sch.Fields[i].Type)
	}
	b.Len = m
	// every row passed (a scan of whole row ranges): read ahead as for the keys
	ahead := span.To
	if span == w {
		ahead = p.rangeEnd(w)
	}
	if err := fs.readColumns(p.rg, others, span, ahead, b); err != nil {
		return nil, err
	}
	keep := make([]int32, 0, m)
	for i := 0; i < m; i++ {
		if fs.match(b, i) && !fs.deleted(p.start+span.From+int64(i)) {
			keep = append(keep, int32(i))
		}
	}
	if len(keep) == m {
		return b, nil
	}
	return rows.Take(b, keep), nil
}
