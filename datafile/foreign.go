package datafile

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Data files other engines wrote (Spark's parquet-mr, pyiceberg's pyarrow,
// DuckDB, iceberg-go's arrow-go) differ from ours in ways the merge must
// not trip on:
//
//   - no page index: a row group's pages are found from their headers
//     (parquet.ScanPages) after fetching its column chunks, the whole row
//     group in one request when it fits the read budget, else each chunk
//     (a row group too large to hold so makes the file one to sort, below);
//   - not sorted by (series…, time), or sorted with duplicate keys: only a
//     file whose row groups all declare sorting_columns (series…, time) is
//     streamed (and checked while it is: a file that is not what it claims
//     restarts the merge with it sorted in memory); any other file is read
//     whole, sorted and deduplicated in memory, and enters the merge as a
//     sorted run. A file too large to sort under the limit (sortLimit)
//     leaves its merge out: the partition stays as it is and the result
//     says so (SortTooLargeError);
//   - columns matched by Parquet field id, or by the table's
//     schema.name-mapping.default where the file has none; a file without
//     either is UNSUPPORTED_TABLE. Matching by id is also what follows a
//     schema change, ours or another engine's: a renamed column
//     is found under its old name, a column the file lacks is null when the
//     table's field is optional (a column added since, or _ingest_ts in a
//     table where it is), a column the table dropped is not read, and int
//     and float columns are promoted to long and double as Iceberg allows.

// DataFileErr wraps an error about a data file's contents: UNSUPPORTED_TABLE
// when it is valid Parquet we do not read, else CORRUPT_TABLE.
func DataFileErr(key string, err error) error { return FileErr("data file "+key, err) }

// mapColumns finds each schema field's column by Iceberg field id (or the
// name mapping, for columns without one). A field the file lacks is -1.
func (f *File) mapColumns(sch *schema.Table, names map[string]int) error {
	ids := make([]int, len(f.Meta.Columns))
	anyID := false
	for c, col := range f.Meta.Columns {
		if col.InNested {
			// a leaf of a nested column: matched as its column (mapNested)
			anyID = anyID || col.FieldID != 0
			continue
		}
		if col.FieldID != 0 {
			ids[c], anyID = int(col.FieldID), true
		} else if id, ok := names[col.Name]; ok {
			ids[c] = id
		}
	}
	f.mapNested(sch, names)
	if !anyID && names == nil && len(f.Meta.Columns) > 0 {
		return fmt.Errorf("%w: data file %s has no Parquet field ids, and the table has no schema.name-mapping.default to match its columns by name", iceberg.ErrUnsupported, f.Key)
	}
	f.ColOf = make([]int, len(sch.Fields))
	for i, fld := range sch.Fields {
		f.ColOf[i] = -1
		for c, col := range f.Meta.Columns {
			if ids[c] != fld.ID {
				continue
			}
			// A timestamp with or without a zone: the same microseconds
			// (writers disagree on Parquet's isAdjustedToUTC).
			if !rows.Promotes(col.Type, fld.Type) && !(col.Type.IsTime() && fld.Type.IsTime()) {
				// not a promotion Iceberg allows: a type change this
				// reader does not follow
				return fmt.Errorf("%w: data file %s: column %q (field id %d) is %v, the table's %q is %v, which Timelake does not read it as (only int → long and float → double)", iceberg.ErrUnsupported, f.Key, col.Name, fld.ID, col.Type, fld.Name, fld.Type)
			}
			f.ColOf[i] = c
		}
		if f.ColOf[i] < 0 && f.NestedOf[i] < 0 && fld.Required {
			return fmt.Errorf("%w: data file %s: no column with field id %d (%q), which the table requires", ErrCorrupt, f.Key, fld.ID, fld.Name)
		}
	}
	return nil
}

// ClaimsSorted reports whether every row group declares sorting_columns
// (series…, time) ascending, as ours do. A file with nested columns is
// streamed too: they are read a row group at a time (Cursor.loadNested,
// FileScan.nestedRows).
func (f *File) ClaimsSorted(sch *schema.Table) bool {
	key := append(append([]int(nil), sch.Series...), sch.Time)
	for _, rg := range f.Meta.RowGroups {
		if len(rg.Sorting) < len(key) {
			return false
		}
		for k, s := range key {
			if rg.Sorting[k].Column != f.ColOf[s] || rg.Sorting[k].Descending {
				return false
			}
		}
	}
	return true
}

// UnindexedBytes is the most a streamed row group holds whole: the
// projected chunks of one without offset indexes, and its nested columns'
// rows (read a row group at a time, nestedBytes), whatever its indexes.
func (f *File) UnindexedBytes() int64 {
	var most int64
	for r, rg := range f.Meta.RowGroups {
		var n, nested int64
		indexed := true
		for _, c := range f.ColOf {
			if c >= 0 {
				n += rg.Columns[c].Meta.TotalCompressedSize
				indexed = indexed && f.offIdx[r][c] != nil
			}
		}
		for i := range f.NestedOf {
			nested += f.nestedBytes(rg, i)
		}
		if indexed {
			n = 0
		}
		most = max(most, n+nested)
	}
	return most
}

// SortBytes estimates the memory sorting the file takes: the file's bytes,
// the projected columns decoded (twice: before and after the permutation),
// the page bytes and the permutation.
func (f *File) SortBytes(sch *schema.Table) int64 {
	n := f.size
	for _, rg := range f.Meta.RowGroups {
		for i, fld := range sch.Fields {
			width := int64(1) // a null flag
			switch {
			case fld.Type.IsInteger(), fld.Type.IsFloat():
				width += 8
			case fld.Type == schema.Boolean:
				width++
			default:
				width += 16
			}
			n += 2 * width * rg.NumRows
			if c := f.ColOf[i]; c >= 0 {
				n += rg.Columns[c].Meta.TotalUncompressedSize
			}
			n += f.nestedBytes(rg, i)
		}
		n += 4 * rg.NumRows
	}
	return n
}

// SortTooLargeError: an input file must be sorted in memory and is too large
// to be; its merge is left out.
type SortTooLargeError struct {
	Key         string
	Need, Limit int64
}

func (e *SortTooLargeError) Error() string {
	return fmt.Sprintf("data file %s is not sorted by (series…, time) and needs about %d bytes to sort in memory, over the limit of %d", e.Key, e.Need, e.Limit)
}

// UnsortedError: a streamed input turned out not to be sorted (or to repeat a
// key); the merge restarts with it sorted in memory.
type UnsortedError struct {
	Input int // index in the merge's inputs
	err   error
}

func (e *UnsortedError) Error() string { return e.err.Error() }
func (e *UnsortedError) Unwrap() error { return e.err }

// SortLimit is the memory an input may take to be sorted: the build's
// limit (MaxSortBytes), and the maintain byte cap when it is lower.
func SortLimit(byteCap int64) int64 {
	if byteCap > 0 && byteCap < MaxSortBytes {
		return byteCap
	}
	return MaxSortBytes
}

// ReadSorted reads the whole file and returns its projected columns sorted
// (the rows del removes left out, counted in deleted)
// by (series…, time), one row per key: the greatest _ingest_ts (a null is
// lowest), then the later row of the file.
func (f *File) ReadSorted(ctx context.Context, sch *schema.Table, del *Deleted) (_ []rows.Column, n, deleted int, _ error) {
	data := f.tail
	if data == nil || f.tailOff != 0 {
		var err error
		if data, err = f.getRange(ctx, 0, f.size); err != nil {
			return nil, 0, 0, err
		}
	}
	pf, err := parquet.Open(data)
	if err != nil {
		return nil, 0, 0, DataFileErr(f.Key, err)
	}
	n = int(pf.NumRows())
	cols := make([]rows.Column, len(sch.Fields))
	for i, fld := range sch.Fields {
		if k := f.nestedOf(i); k >= 0 {
			if cols[i], err = readNested(pf, k, fld); err != nil {
				return nil, 0, 0, DataFileErr(f.Key, err)
			}
			continue
		}
		if f.ColOf[i] < 0 {
			cols[i] = rows.MissingOf(fld, n)
			continue
		}
		at := 0
		for rg := range pf.NumRowGroups() {
			part, err := pf.ReadColumnAs(rg, f.ColOf[i], fld.Type)
			if err != nil {
				return nil, 0, 0, DataFileErr(f.Key, err)
			}
			k := int(pf.Meta().RowGroups[rg].NumRows)
			appendColumn(&cols[i], &part, at, k, fld.Type)
			at += k
		}
		if err := checkRequired(&cols[i], fld); err != nil {
			return nil, 0, 0, DataFileErr(f.Key, err)
		}
	}
	f.tail = nil
	if l := f.Lineage; l != nil {
		// before the sort loses the positions; copied: fill's buffers are reused
		l.fill(cols, 0, n)
		for _, i := range [2]int{l.RowID, l.LastSeq} {
			cols[i] = rows.Column{Ints: append([]int64(nil), cols[i].Ints...), Nulls: cols[i].Nulls}
		}
		l.scratch = [2][]int64{}
	}
	// rows a position delete removed never enter the sort (positions are
	// the file's order, which the sort is about to lose)
	perm := make([]int32, 0, n)
	for r := range n {
		if del != nil && del.Has(int64(r)) {
			deleted++
			continue
		}
		perm = append(perm, int32(r))
	}
	var ing *rows.Column // nil in a table without _ingest_ts
	if sch.Ingest >= 0 {
		ing = &cols[sch.Ingest]
	}
	ingestOf := func(r int32) (int64, bool) {
		if ing == nil || ing.Nulls != nil && ing.Nulls[r] {
			return 0, false
		}
		return ing.Ints[r], true
	}
	keyCmp := func(a, b int32) int {
		for _, s := range sch.Series {
			var c int
			if sch.Fields[s].Type == schema.String {
				c = strings.Compare(cols[s].Strs[a], cols[s].Strs[b])
			} else {
				c = cmp.Compare(cols[s].Ints[a], cols[s].Ints[b])
			}
			if c != 0 {
				return c
			}
		}
		return cmp.Compare(cols[sch.Time].Ints[a], cols[sch.Time].Ints[b])
	}
	slices.SortFunc(perm, func(a, b int32) int {
		if c := keyCmp(a, b); c != 0 {
			return c
		}
		// the winner of a key first: greater _ingest_ts, then the later row
		x, okx := ingestOf(a)
		y, oky := ingestOf(b)
		if okx != oky {
			if okx {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(y, x); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})
	keep := perm[:0]
	for k, r := range perm {
		if k == 0 || keyCmp(keep[len(keep)-1], r) != 0 {
			keep = append(keep, r)
		}
	}
	for i, fld := range sch.Fields {
		cols[i] = gather(&cols[i], keep, fld.Type)
	}
	return cols, len(keep), deleted, nil
}

// checkRequired refuses a null in a required field (a file may declare an
// optional column for it) and drops the all-false null map.
func checkRequired(c *rows.Column, fld schema.Field) error {
	if !fld.Required || c.Nulls == nil {
		return nil
	}
	for r, null := range c.Nulls {
		if null {
			return fmt.Errorf("column %q, which the table requires, is null at row %d", fld.Name, r)
		}
	}
	c.Nulls = nil
	return nil
}

// appendColumn appends k rows of src to dst, which holds at rows.
func appendColumn(dst, src *rows.Column, at, k int, t schema.Type) {
	if src.Nulls != nil && dst.Nulls == nil {
		dst.Nulls = make([]bool, at, at+k)
	}
	if dst.Nulls != nil {
		if src.Nulls != nil {
			dst.Nulls = append(dst.Nulls, src.Nulls[:k]...)
		} else {
			dst.Nulls = append(dst.Nulls, make([]bool, k)...)
		}
	}
	switch {
	case t.IsInteger():
		dst.Ints = append(dst.Ints, src.Ints[:k]...)
	case t.IsFloat():
		dst.Floats = append(dst.Floats, src.Floats[:k]...)
	case t == schema.Boolean:
		dst.Bools = append(dst.Bools, src.Bools[:k]...)
	default:
		dst.Strs = append(dst.Strs, src.Strs[:k]...)
	}
}

// gather returns the rows of c at perm, in that order.
func gather(c *rows.Column, perm []int32, t schema.Type) rows.Column {
	var out rows.Column
	if c.Nulls != nil {
		out.Nulls = make([]bool, len(perm))
		for k, r := range perm {
			out.Nulls[k] = c.Nulls[r]
		}
	}
	switch {
	case t.IsInteger():
		out.Ints = gatherT(c.Ints, perm)
	case t.IsFloat():
		out.Floats = gatherT(c.Floats, perm)
	case t == schema.Boolean:
		out.Bools = gatherT(c.Bools, perm)
	default:
		out.Strs = gatherT(c.Strs, perm)
	}
	return out
}

func gatherT[T any](v []T, perm []int32) []T {
	out := make([]T, len(perm))
	for k, r := range perm {
		out[k] = v[r]
	}
	return out
}

// scanPages builds, from the page headers, the offset index of each
// projected chunk of the current row group that has none: the chunk comes
// from the row group's bytes when loadRowGroup fetched them (or the tail),
// else in one request of its own, kept as the column's pages ahead.
func (w *Cursor) scanPages(ctx context.Context) error {
	rg := &w.f.Meta.RowGroups[w.rg]
	for i := range w.cc {
		fc := w.f.ColOf[i]
		if fc < 0 || w.f.offIdx[w.rg][fc] != nil {
			continue
		}
		c := &w.cc[i]
		cc := &rg.Columns[fc]
		start, end := cc.Start(), cc.Start()+cc.Meta.TotalCompressedSize
		b, ok := cached(w.rgBytes, w.rgOff, start, end)
		if !ok {
			b, ok = cached(w.f.tail, w.f.tailOff, start, end)
		}
		if !ok {
			var err error
			if b, err = w.f.getRange(ctx, start, end-start); err != nil {
				return err
			}
			c.ahead, c.aheadOff = b, start
		}
		oi, err := parquet.ScanPages(c.chunk, b, start)
		if err != nil {
			return DataFileErr(w.f.Key, fmt.Errorf("row group %d: %w", w.rg, err))
		}
		if err := checkOffsetIndex(oi, rg.NumRows, start, end); err != nil {
			return fmt.Errorf("%w: data file %s: row group %d, column %q: pages: %v", ErrCorrupt, w.f.Key, w.rg, w.sch.Fields[i].Name, err)
		}
		if len(oi.Pages) > 0 && oi.Pages[0].Offset > start {
			// something (a dictionary page) precedes the first data page,
			// whatever the footer said of it
			cc.Meta.HasDictionaryPage, cc.Meta.DictionaryPageOffset = true, start
		}
		w.f.offIdx[w.rg][fc] = oi
	}
	return nil
}

// nullView is n rows of nulls for field i, which the file lacks.
func (w *Cursor) nullView(i, n int) rows.Column {
	c := &w.cc[i].buf
	if c.Len(w.sch.Fields[i].Type) < n {
		*c = rows.MissingOf(w.sch.Fields[i], max(n, int(w.windowRows)))
	}
	return c.Slice(0, n, w.sch.Fields[i].Type)
}

// nextInMemory serves the next window of a file sorted in memory.
func (w *Cursor) nextInMemory(lastKey *Cursor) (bool, error) {
	if w.memNext >= w.MemN {
		clear(w.Mem) // let the sorted columns go while the merge goes on
		clear(w.Cols)
		w.Mem = w.Mem[:0:0]
		return false, nil
	}
	end := min(w.memNext+int(w.windowRows), w.MemN)
	for i := range w.Cols {
		w.Cols[i] = w.Mem[i].Slice(w.memNext, end, w.sch.Fields[i].Type)
	}
	w.N, w.memNext = end-w.memNext, end
	w.Rows += int64(w.N)
	if err := w.checkSorted(lastKey); err != nil {
		return false, err
	}
	return true, nil
}

// unsorted is the error of an input found out of order at row r.
func (w *Cursor) unsorted(r int64) error {
	return &UnsortedError{Input: w.Input, err: fmt.Errorf("%w: data file %s is not sorted by (series…, time) at row %d", ErrCorrupt, w.f.Key, r)}
}
