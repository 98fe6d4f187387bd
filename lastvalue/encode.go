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
		specs[i] = parquet.ColumnSpec{Name: f.Name, FieldID: int32(f.ID), Type: f.Type, Required: f.Required}
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

// Decode reads an index written by Encode for table t; columns are matched by
// field id, and a file whose columns differ from t is an error.
func Decode(data []byte, t *schema.Table) (*rows.Batch, error) {
	f, err := parquet.Open(data)
	if err != nil {
		return nil, err
	}
	cols := f.Schema()
	if len(cols) != len(t.Fields) {
		return nil, fmt.Errorf("last-value index has %d columns, the table %d", len(cols), len(t.Fields))
	}
	for i, c := range cols {
		want := t.Fields[i]
		if int(c.FieldID) != want.ID || c.Type != want.Type {
			return nil, fmt.Errorf("last-value index column %d is %q (id %d, %v), want %q (id %d, %v)",
				i, c.Name, c.FieldID, c.Type, want.Name, want.ID, want.Type)
		}
	}
	out := &rows.Batch{Schema: t, Cols: make([]rows.Column, len(t.Fields)), Len: int(f.NumRows())}
	for rg := 0; rg < f.NumRowGroups(); rg++ {
		for i := range cols {
			c, err := f.ReadColumn(rg, i)
			if err != nil {
				return nil, err
			}
			appendColumn(&out.Cols[i], &c)
		}
	}
	return out, nil
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
