package datafile

// Nested columns (maps, lists, structs) of files other engines wrote are
// read a row group at a time: its leaves' chunks are decoded together and
// the rows put together as JSON text (parquet.FileMeta.ReadNested), held
// while the row group's windows are read. A file read whole (ReadSorted)
// reads them so; a Cursor (the scan of a table without a key, a merge)
// reads each row group's as it enters it. A file with a nested column the
// scan projects never claims to be sorted, so a keyed scan reads it whole
// rather than by pages; and a table with one is not written
// (iceberg.WriteSupport).

import (
	"context"
	"fmt"

	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// mapNested sets f.NestedOf: each nested field's column in the file, by
// Iceberg field id, or by the name mapping for a file without ids.
func (f *File) mapNested(sch *schema.Table, names map[string]int) {
	f.NestedOf = make([]int, len(sch.Fields))
	for i, fld := range sch.Fields {
		f.NestedOf[i] = -1
		if fld.Nested == nil {
			continue
		}
		for k, nc := range f.Meta.Nested {
			id := int(nc.FieldID)
			if id == 0 {
				id = names[nc.Name]
			}
			if id == fld.ID {
				f.NestedOf[i] = k
			}
		}
	}
}

// nestedOf is NestedOf[i], -1 when f has no nested columns mapped.
func (f *File) nestedOf(i int) int {
	if i >= len(f.NestedOf) {
		return -1
	}
	return f.NestedOf[i]
}

// hasNested reports whether a field of the scan is read from a nested
// column of f.
func (f *File) hasNested() bool {
	for _, k := range f.NestedOf {
		if k >= 0 {
			return true
		}
	}
	return false
}

// nestedBytes is the uncompressed size of the leaves of field i's nested
// column in row group rg, three times over: the decoded levels and values,
// and the JSON text they become.
func (f *File) nestedBytes(rg parquet.RowGroup, i int) int64 {
	if f.nestedOf(i) < 0 {
		return 0
	}
	var n int64
	for _, c := range f.Meta.Nested[f.nestedOf(i)].Leaves() {
		n += 3 * rg.Columns[c].Meta.TotalUncompressedSize
	}
	return n
}

// heldBytes are file bytes a reader holds, from offset off.
type heldBytes struct {
	b   []byte
	off int64
}

// readNestedRG reads field i's nested column (k) in the cursor's row
// group, from the bytes it fetched where they hold the leaves.
func (w *Cursor) readNestedRG(ctx context.Context, i, k int) (rows.Column, error) {
	col, err := w.f.nestedColumn(ctx, w.rg, k, w.sch.Fields[i], heldBytes{w.rgBytes, w.rgOff})
	if err != nil {
		return rows.Column{}, err
	}
	return col, nil
}

// nestedColumn reads nested column k of row group rg as field fld. Its
// leaves' chunks lie side by side in a file (written one after the
// other): they are fetched in one request, unless held (in the file's
// tail, or in held) or spread with gaps larger than they are.
func (f *File) nestedColumn(ctx context.Context, rg, k int, fld schema.Field, held heldBytes) (rows.Column, error) {
	bad := func(start, n int64) error {
		return fmt.Errorf("%w: data file %s: column %q, row group %d: chunk at %d (+%d) outside the file", ErrCorrupt, f.Key, fld.Name, rg, start, n)
	}
	lo, hi, sum := f.size, int64(0), int64(0)
	for _, c := range f.Meta.Nested[k].Leaves() {
		cc := &f.Meta.RowGroups[rg].Columns[c]
		start, n := cc.Start(), cc.Meta.TotalCompressedSize
		if start < 4 || n <= 0 || n > f.size-start {
			return rows.Column{}, bad(start, n)
		}
		lo, hi, sum = min(lo, start), max(hi, start+n), sum+n
	}
	var span []byte
	chunk := func(start, n int64) ([]byte, error) {
		if start < 4 || n <= 0 || n > f.size-start {
			return nil, bad(start, n)
		}
		for _, h := range []heldBytes{held, {f.tail, f.tailOff}} {
			if b, ok := cached(h.b, h.off, start, start+n); ok {
				return b, nil
			}
		}
		if span == nil && hi-lo <= 2*sum {
			var err error
			if span, err = f.getRange(ctx, lo, hi-lo); err != nil {
				return nil, err
			}
		}
		if b, ok := cached(span, lo, start, start+n); ok {
			return b, nil
		}
		return f.getRange(ctx, start, n)
	}
	names := func(id int32) (string, bool) { return fld.Nested.NameOfID(int(id)) }
	col, err := f.Meta.ReadNested(rg, k, chunk, names)
	if err != nil {
		return rows.Column{}, DataFileErr(f.Key, err)
	}
	parquet.ConformNested(&col, &f.Meta.Nested[k], fld.Nested)
	if err := checkRequired(&col, fld); err != nil {
		return rows.Column{}, DataFileErr(f.Key, err)
	}
	return col, nil
}

// readNested reads nested column k of every row group of pf as field fld:
// JSON text per row, struct fields under the table's names (matched by
// field id, so a renamed field reads under its new name).
func readNested(pf *parquet.File, k int, fld schema.Field) (rows.Column, error) {
	names := func(id int32) (string, bool) { return fld.Nested.NameOfID(int(id)) }
	var out rows.Column
	at := 0
	for rg := range pf.NumRowGroups() {
		part, err := pf.ReadNested(rg, k, names)
		if err != nil {
			return rows.Column{}, err
		}
		parquet.ConformNested(&part, &pf.Meta().Nested[k], fld.Nested)
		n := len(part.Strs)
		appendColumn(&out, &part, at, n, schema.Nested)
		at += n
	}
	if err := checkRequired(&out, fld); err != nil {
		return rows.Column{}, err
	}
	return out, nil
}

// loadNested reads the current row group's nested columns (none in a file
// without them).
func (w *Cursor) loadNested(ctx context.Context) error {
	if !w.f.hasNested() {
		return nil
	}
	if w.nested == nil {
		w.nested = make([]rows.Column, len(w.sch.Fields))
	}
	for i := range w.sch.Fields {
		w.nested[i] = rows.Column{} // let the last row group's go first
		if k := w.f.nestedOf(i); k >= 0 {
			var err error
			if w.nested[i], err = w.readNestedRG(ctx, i, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// fetchNested is FetchValues of a nested field: its column of row group
// rg read whole, the rows of in taken from it.
func (f *File) fetchNested(ctx context.Context, rg, i, k int, fld schema.Field, in []WantRow, out *rows.Batch) error {
	col, err := f.nestedColumn(ctx, rg, k, fld, heldBytes{})
	if err != nil {
		return err
	}
	for _, w := range in {
		if w.Row < 0 || w.Row >= int64(len(col.Strs)) {
			return fmt.Errorf("%w: data file %s: column %q, row group %d: no row %d", ErrCorrupt, f.Key, fld.Name, rg, w.Row)
		}
		setValue(&out.Cols[i], w.Out, out.Len, &col, int(w.Row), schema.Nested)
	}
	return nil
}
