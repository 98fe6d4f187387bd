package main

import (
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Nested columns (maps, lists, structs; read as JSON text per row) are
// printed by the CSV output as a JSON text cell and by NDJSON as JSON
// values; the Parquet output writes them in Parquet's nested layouts but
// for those Timelake does not write (a map keyed by a nested type,
// schema.NestedType.Writable), which it leaves out.

// flatOnly drops the nested columns Timelake does not write from batches,
// for the Parquet output. The projected schema is built once per schema
// seen.
type flatOnly struct {
	from *schema.Table
	to   *schema.Table
	keep []int
}

// schemaOf is s without its nested columns (s itself when it has none).
func (f *flatOnly) schemaOf(s *schema.Table) *schema.Table {
	if s == f.from {
		return f.to
	}
	f.from, f.to, f.keep = s, s, nil
	nested := false
	for _, fl := range s.Fields {
		nested = nested || unwritten(fl)
	}
	if !nested {
		return s
	}
	t := *s
	t.Fields = nil
	at := make([]int, len(s.Fields))
	for i, fl := range s.Fields {
		at[i] = -1
		if !unwritten(fl) {
			at[i] = len(t.Fields)
			f.keep = append(f.keep, i)
			t.Fields = append(t.Fields, fl)
		}
	}
	remap := func(i int) int {
		if i < 0 {
			return i
		}
		return at[i]
	}
	t.Time, t.Ingest = remap(s.Time), remap(s.Ingest)
	t.Series = nil
	for _, i := range s.Series {
		t.Series = append(t.Series, remap(i))
	}
	f.to = &t
	return f.to
}

// batch is b without its nested columns.
func (f *flatOnly) batch(b *rows.Batch) *rows.Batch {
	s := f.schemaOf(b.Schema)
	if s == b.Schema {
		return b
	}
	out := &rows.Batch{Schema: s, Len: b.Len, Cols: make([]rows.Column, len(f.keep))}
	for j, i := range f.keep {
		out.Cols[j] = b.Cols[i]
	}
	return out
}

// unwritten reports a nested column the Parquet writer does not take.
func unwritten(f schema.Field) bool {
	return f.Type == schema.Nested && (f.Nested == nil || f.Nested.Writable() != nil)
}
