package lastvalue

import (
	"fmt"

	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Encode writes the index as a Parquet file with the table's columns and
// field ids, sorted by the series columns (and so declared).
func Encode(idx *rows.Batch) ([]byte, error) {
	t := idx.Schema
	specs := make([]parquet.ColumnSpec, len(t.Fields))
	for i, f := range t.Fields {
		specs[i] = parquet.SpecOf(f)
	}
	var sorting []parquet.SortingColumn
	for _, s := range t.Series {
		sorting = append(sorting, parquet.SortingColumn{Column: s, NullsFirst: true})
	}
	w, err := parquet.NewWriter(specs, parquet.Options{Sorting: sorting, CreatedBy: "timelake last-value index"})
	if err != nil {
		return nil, err
	}
	if idx.Len > 0 {
		if err := w.Write(idx.Cols, idx.Len); err != nil {
			return nil, err
		}
	}
	data, _, err := w.Finish()
	return data, err
}

// Decode reads an index written by Encode for table t. Columns are matched
// by field id, as in data files, so an index written before a schema change
// follows it: a renamed column keeps its values, a promoted one (int → long,
// float → double) is widened, a column added since is null, a dropped one
// is let go. A column whose type t cannot read, or a key column (time,
// series) missing, is an error.
func Decode(data []byte, t *schema.Table) (*rows.Batch, error) {
	f, err := parquet.Open(data)
	if err != nil {
		return nil, err
	}
	cols := f.Schema()
	written := &schema.Table{Partition: t.Partition, Time: -1, Ingest: -1}
	var read []int // the file's column of each field of written
	for c, col := range cols {
		if col.InNested {
			continue // a leaf of a map, read below as its column
		}
		i := fieldIndex(t, int(col.FieldID))
		if i < 0 {
			continue // dropped since the index was written
		}
		want := t.Fields[i]
		if !rows.Promotes(col.Type, want.Type) && !(col.Type.IsTime() && want.Type.IsTime()) {
			return nil, fmt.Errorf("last-value index column %d is %q (id %d, %v), the table's %q is %v",
				c, col.Name, col.FieldID, col.Type, want.Name, want.Type)
		}
		switch i {
		case t.Time:
			written.Time = len(written.Fields)
		case t.Ingest:
			written.Ingest = len(written.Fields)
		}
		written.Fields = append(written.Fields, schema.Field{ID: want.ID, Name: want.Name, Type: col.Type, Required: col.Required})
		read = append(read, c)
	}
	// nested columns, by id
	nested := map[int]int{} // written's field → the file's nested column
	for k, nc := range f.Meta().Nested {
		if i := fieldIndex(t, int(nc.FieldID)); i >= 0 && t.Fields[i].Type == schema.Nested {
			nested[len(written.Fields)] = k
			written.Fields = append(written.Fields, t.Fields[i])
		}
	}
	for _, s := range t.Series {
		k := fieldIndex(written, t.Fields[s].ID)
		if k < 0 {
			return nil, fmt.Errorf("last-value index has no column %q (id %d)", t.Fields[s].Name, t.Fields[s].ID)
		}
		written.Series = append(written.Series, k)
	}
	if written.Time < 0 {
		return nil, fmt.Errorf("last-value index has no column %q (id %d)", t.TimeField().Name, t.TimeField().ID)
	}
	out := &rows.Batch{Schema: written, Cols: make([]rows.Column, len(written.Fields)), Len: int(f.NumRows())}
	for rg := 0; rg < f.NumRowGroups(); rg++ {
		for i, c := range read {
			col, err := f.ReadColumn(rg, c)
			if err != nil {
				return nil, err
			}
			appendColumn(&out.Cols[i], &col)
		}
		for i, k := range nested {
			// struct fields by the table's names (renamed since) and its
			// type (fields added or dropped since the index was written)
			nt := written.Fields[i].Nested
			col, err := f.ReadNested(rg, k, func(id int32) (string, bool) { return nt.NameOfID(int(id)) })
			if err != nil {
				return nil, err
			}
			parquet.ConformNested(&col, &f.Meta().Nested[k], nt)
			appendColumn(&out.Cols[i], &col)
		}
	}
	return rows.Follow(out, t)
}

func fieldIndex(t *schema.Table, id int) int {
	for i, f := range t.Fields {
		if f.ID == id {
			return i
		}
	}
	return -1
}

func appendColumn(dst, src *rows.Column) {
	n := len(dst.Ints) + len(dst.Floats) + len(dst.Bools) + len(dst.Strs)
	m := len(src.Ints) + len(src.Floats) + len(src.Bools) + len(src.Strs)
	dst.Ints = append(dst.Ints, src.Ints...)
	dst.Floats = append(dst.Floats, src.Floats...)
	dst.Bools = append(dst.Bools, src.Bools...)
	dst.Strs = append(dst.Strs, src.Strs...)
	if src.Nulls != nil || dst.Nulls != nil {
		if dst.Nulls == nil {
			dst.Nulls = make([]bool, n, n+m)
		}
		if src.Nulls != nil {
			dst.Nulls = append(dst.Nulls, src.Nulls...)
		} else {
			dst.Nulls = append(dst.Nulls, make([]bool, m)...)
		}
	}
}
