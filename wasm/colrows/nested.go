package colrows

import (
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// A nested column's values arrive as JSON texts (tag Json: the client's
// objects, Maps and arrays; or strings). Labels repeat: the client sends a
// column of few distinct texts as a dictionary, and each entry is checked
// and put in the stored form once, its rows sharing the one string — where
// going row by row through the builder (buildSlow) cost eleven allocations
// a row and a string per row. The conversion is rows.Builder's, the one
// NDJSON and CSV take, so the fast path stores what the slow one would; a
// text it refuses sends the batch to buildSlow, which reports it in order.

// fastNested fills strs with the n rows of nested field fld from c (every
// non-null row's tag Json, or every one String); false when a text is
// refused.
func fastNested(strs []string, c *Column, n int, fld schema.Field) bool {
	norm := newNestedText(fld)
	null := func(r int) bool { return c.Tag == Mixed && isNull(Tag(c.Tags[r])) }
	if c.Idx != nil {
		dict := make([]string, len(c.Off)-1)
		for k := range dict {
			s, ok := norm.text(c.Str[c.Off[k]:c.Off[k+1]])
			if !ok {
				return false
			}
			dict[k] = s
		}
		for r, k := range c.Idx[:n] {
			if !null(r) {
				strs[r] = dict[k]
			}
		}
		return true
	}
	for r := range strs {
		if null(r) {
			continue
		}
		s, ok := norm.text(c.str(r))
		if !ok {
			return false
		}
		strs[r] = s
	}
	return true
}

// nestedText converts JSON texts for one nested field through a builder of
// that field alone.
type nestedText struct{ b *rows.Builder }

func newNestedText(fld schema.Field) *nestedText {
	fld.Required, fld.WriteDefault = false, nil // a row here is the value alone
	t := &schema.Table{Fields: []schema.Field{fld}, Time: -1, Ingest: -1}
	return &nestedText{b: rows.NewBuilder(t, rows.Options{})}
}

func (n *nestedText) text(s string) (string, bool) {
	n.b.Reset()
	if n.b.AppendString(0, s) != nil || n.b.EndRow() != nil {
		return "", false
	}
	return n.b.Batch().Cols[0].Strs[0], true
}
