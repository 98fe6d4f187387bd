package rows

import "github.com/timelake/timelake/schema"

// Column holds one column's values. Exactly one of the value slices is used,
// chosen by the field type:
//
//	Ints   long, int, timestamptz (microseconds since the epoch, UTC)
//	Floats double, float (a float is held widened; narrowing back is exact)
//	Bools  boolean
//	Strs   string; nested (map, list, struct: schema.Nested), each row's
//	       value as its compact JSON text (read from other engines' files,
//	       never built from input; docs/decisions/nested-columns.md)
//
// A null row keeps a zero value in the value slice and Nulls[i] == true.
// Nulls is nil when no row is null.
type Column struct {
	Ints   []int64
	Floats []float64
	Bools  []bool
	Strs   []string
	Nulls  []bool
}

// IsNull reports whether row i is null.
func (c *Column) IsNull(i int) bool { return c.Nulls != nil && c.Nulls[i] }

// Slice is rows [a, b) of c as a column of type t, sharing its memory.
func (c *Column) Slice(a, b int, t schema.Type) Column {
	var v Column
	switch {
	case t.IsInteger():
		v.Ints = c.Ints[a:b:b]
	case t.IsFloat():
		v.Floats = c.Floats[a:b:b]
	case t == schema.Boolean:
		v.Bools = c.Bools[a:b:b]
	default:
		v.Strs = c.Strs[a:b:b]
	}
	if c.Nulls != nil {
		v.Nulls = c.Nulls[a:b:b]
	}
	return v
}

// Len is the number of values c holds as a column of type t: the length of
// the slice that type uses.
func (c *Column) Len(t schema.Type) int {
	switch {
	case t.IsInteger():
		return len(c.Ints)
	case t.IsFloat():
		return len(c.Floats)
	case t == schema.Boolean:
		return len(c.Bools)
	}
	return len(c.Strs)
}

// NullColumn returns a column of n nulls: the _ingest_ts of rows of a table
// without that column (schema.Table.Ingest -1), for code that ranks rows.
func NullColumn(n int) *Column {
	nulls := make([]bool, n)
	for i := range nulls {
		nulls[i] = true
	}
	return &Column{Ints: make([]int64, n), Nulls: nulls}
}

// IngestColumn returns b's _ingest_ts column, or n nulls (NullColumn) in a
// table without it.
func (b *Batch) IngestColumn() *Column {
	if b.Schema.Ingest < 0 {
		return NullColumn(b.Len)
	}
	return &b.Cols[b.Schema.Ingest]
}

// Batch is a set of rows aligned to a table schema: Cols[i] holds the values
// of Schema.Fields[i], every column Len long.
type Batch struct {
	Schema *schema.Table
	Cols   []Column
	Len    int
	// checked: the batch is a Builder's (the readers', FromMaps'), whose
	// nested values it checked and made canonical as they came, so
	// CheckValueSizes need not parse them again
	checked bool
}
