package arrowipc

import (
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Nested columns (maps, lists, structs, read as JSON text per row) are
// left out of the stream for now: they would need Arrow's nested layouts
// (child arrays and offsets), which this writer does not write yet. The
// stream's schema is the batch schema without them; the CLI's
// --format arrow and the WebAssembly client's Arrow scans both leave them
// out so.

// withoutNested is t without its nested columns and the indexes of the
// columns kept; t itself and nil when it has none.
func withoutNested(t *schema.Table) (*schema.Table, []int) {
	nested := false
	for _, f := range t.Fields {
		nested = nested || f.Type == schema.Nested
	}
	if !nested {
		return t, nil
	}
	out := *t
	out.Fields = nil
	at := make([]int, len(t.Fields))
	var keep []int
	for i, f := range t.Fields {
		at[i] = -1
		if f.Type != schema.Nested {
			at[i] = len(out.Fields)
			keep = append(keep, i)
			out.Fields = append(out.Fields, f)
		}
	}
	remap := func(i int) int {
		if i < 0 {
			return i
		}
		return at[i]
	}
	out.Time, out.Ingest = remap(t.Time), remap(t.Ingest)
	out.Series = nil
	for _, i := range t.Series {
		out.Series = append(out.Series, remap(i))
	}
	return &out, keep
}

// flat is b without the nested columns the stream leaves out.
func (w *StreamWriter) flat(b *rows.Batch) *rows.Batch {
	if w.keep == nil || b.Schema == nil || len(b.Cols) != len(w.keep)+w.dropped {
		return b // no nested column, or a batch check will refuse
	}
	out := &rows.Batch{Schema: w.t, Len: b.Len, Cols: make([]rows.Column, len(w.keep))}
	for j, i := range w.keep {
		out.Cols[j] = b.Cols[i]
	}
	return out
}
