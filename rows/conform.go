package rows

import (
	"fmt"

	"github.com/timelake/timelake/schema"
)

// Conform returns b re-targeted to schema to, its columns matched by field
// id as Iceberg matches a data file's columns after a schema change:
//
//   - a column renamed in to keeps its values (same id, new name);
//   - a column promoted (int → long, float → double) keeps its values: Column
//     already holds ints as int64 and floats as float64;
//   - a column to adds (an id b lacks) is all null, and must be optional;
//   - a column of b that to dropped (an id to lacks) must hold only nulls,
//     else its values would be lost;
//   - a column to requires must hold no null (a column made optional is
//     always fine);
//   - a nested column whose type changed (a struct field added, dropped or
//     renamed) has its texts re-printed as the new type, fields matched by
//     id (nestedfollow.go);
//   - the time and series columns must be the same ids in both, since they
//     are the row key.
//
// b is returned as is when it is already aligned to to. The columns are
// shared with b, not copied. An error names the column that does not
// conform and why; the caller decides its code (an append's rebase over
// another writer's schema change reports SCHEMA_MISMATCH).
func Conform(b *Batch, to *schema.Table) (*Batch, error) { return conform(b, to, false) }

// Follow is Conform for rows derived from the table's data (the last-value
// index): a dropped column's values are let go, not refused, since the data
// files still hold them for any schema that has the column.
func Follow(b *Batch, to *schema.Table) (*Batch, error) { return conform(b, to, true) }

func conform(b *Batch, to *schema.Table, dropValues bool) (*Batch, error) {
	if b.Schema == to {
		return b, nil
	}
	from := b.Schema
	if err := SameKey(from, to); err != nil {
		return nil, err
	}
	out := &Batch{Schema: to, Cols: make([]Column, len(to.Fields)), Len: b.Len}
	used := make([]bool, len(from.Fields))
	for i, f := range to.Fields {
		j := fieldByID(from, f.ID)
		if j < 0 {
			if f.Required {
				return nil, fmt.Errorf("column %q (field id %d) is required, and these rows were aligned to a schema without it", f.Name, f.ID)
			}
			out.Cols[i] = NullsOf(f.Type, b.Len)
			continue
		}
		used[j] = true
		old := from.Fields[j]
		if !Promotes(old.Type, f.Type) {
			return nil, fmt.Errorf("column %q (field id %d) is %v, and these rows hold %v (%q) for it", f.Name, f.ID, f.Type, old.Type, old.Name)
		}
		c := b.Cols[j]
		if f.Required && c.Nulls != nil {
			for r, null := range c.Nulls[:b.Len] {
				if null {
					return nil, fmt.Errorf("column %q (field id %d) is required, and row %d is null", f.Name, f.ID, r+1)
				}
			}
			c.Nulls = nil
		}
		if f.Type == schema.Nested && old.Type == schema.Nested && f.Nested != nil && old.Nested != nil {
			nc, err := followNested(c, b.Len, old.Nested, f.Nested)
			if err != nil {
				return nil, fmt.Errorf("column %q (field id %d): %v", f.Name, f.ID, err)
			}
			c = nc
		}
		out.Cols[i] = c
	}
	for j, f := range from.Fields {
		if used[j] || j == from.Ingest || dropValues {
			continue
		}
		if c := &b.Cols[j]; nonNull(c, b.Len) {
			return nil, fmt.Errorf("column %q (field id %d) is no longer in the table's schema, and these rows have values for it", f.Name, f.ID)
		}
	}
	if from.Ingest >= 0 && to.Ingest >= 0 && from.Fields[from.Ingest].ID != to.Fields[to.Ingest].ID {
		return nil, fmt.Errorf("column %s is field id %d in the table, %d in these rows", schema.IngestColumn, to.Fields[to.Ingest].ID, from.Fields[from.Ingest].ID)
	}
	return out, nil
}

// SameKey says whether rows of schema a have the row key of schema b: the
// time column and the series columns, in order, as the same field ids
// (renamed or not; a series column of a may be promoted in b, int → long,
// which keeps its values and their order). An error names the first that
// differs.
func SameKey(a, b *schema.Table) error {
	if !a.HasKey() || !b.HasKey() {
		if a.HasKey() != b.HasKey() {
			return fmt.Errorf("the table's key was given or taken away (adopted, or its timelake.* properties removed)")
		}
		return nil
	}
	if a.TimeField().ID != b.TimeField().ID {
		return fmt.Errorf("time column %q (field id %d) was %q (field id %d)", b.TimeField().Name, b.TimeField().ID, a.TimeField().Name, a.TimeField().ID)
	}
	if len(a.Series) != len(b.Series) {
		return fmt.Errorf("the series columns changed: %d, were %d", len(b.Series), len(a.Series))
	}
	for k := range a.Series {
		x, y := a.Fields[a.Series[k]], b.Fields[b.Series[k]]
		if x.ID != y.ID || !Promotes(x.Type, y.Type) {
			return fmt.Errorf("series column %q (field id %d, %v) was %q (field id %d, %v)", y.Name, y.ID, y.Type, x.Name, x.ID, x.Type)
		}
	}
	return nil
}

// Promotes reports whether values of type from are read as type to: the
// same type, or a promotion Iceberg allows (int → long, float → double).
func Promotes(from, to schema.Type) bool {
	return from == to || from == schema.Int && to == schema.Long || from == schema.Float && to == schema.Double
}

func fieldByID(t *schema.Table, id int) int {
	for i, f := range t.Fields {
		if f.ID == id {
			return i
		}
	}
	return -1
}

// nonNull reports whether any of the first n rows of c is not null.
func nonNull(c *Column, n int) bool {
	if c.Nulls == nil {
		return n > 0
	}
	for _, null := range c.Nulls[:n] {
		if !null {
			return true
		}
	}
	return false
}

// NullsOf is a column of n nulls of type t (NullColumn: of _ingest_ts).
func NullsOf(t schema.Type, n int) Column {
	c := Column{Nulls: make([]bool, n)}
	for r := range c.Nulls {
		c.Nulls[r] = true
	}
	switch {
	case t.IsInteger():
		c.Ints = make([]int64, n)
	case t.IsFloat():
		c.Floats = make([]float64, n)
	case t == schema.Boolean:
		c.Bools = make([]bool, n)
	default:
		c.Strs = make([]string, n)
	}
	return c
}
