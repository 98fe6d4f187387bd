package datafile

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Get returns the file's bytes [off, off+n): from the tail when it holds
// them, else in one request.
func (f *File) Get(ctx context.Context, off, n int64) ([]byte, error) {
	if b, ok := cached(f.tail, f.tailOff, off, off+n); ok {
		return b, nil
	}
	return f.getRange(ctx, off, n)
}

// WantRow is a winning row: its row in the row group (or file) and its row
// in the result.
type WantRow struct {
	Row int64 // in the row group
	Out int   // in the result
}

// FetchValues sets column i of out's rows in from row group rg of f.
// fld is field i of out's schema.
func (f *File) FetchValues(ctx context.Context, rg, i int, fld schema.Field, in []WantRow, out *rows.Batch, dec *parquet.PageDecoder) error {
	if k := f.nestedOf(i); k >= 0 {
		return f.fetchNested(ctx, rg, i, k, fld, in, out)
	}
	if f.ColOf[i] < 0 { // a column the file lacks (optional: mapColumns checked): nulls
		dst := &out.Cols[i]
		if dst.Nulls == nil {
			dst.Nulls = make([]bool, out.Len)
		}
		for _, w := range in {
			dst.Nulls[w.Out] = true
		}
		return nil
	}
	ch, err := f.Meta.Chunk(rg, f.ColOf[i])
	if err != nil {
		return fmt.Errorf("%w: data file %s: %v", ErrCorrupt, f.Key, err)
	}
	ch.As(fld.Type)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: data file %s: column %q, row group %d: %s", ErrCorrupt, f.Key, fld.Name, rg, fmt.Sprintf(format, args...))
	}
	var dict parquet.Dictionary
	var buf rows.Column
	// decodePick decodes the pages in b (from file offset at; their first
	// row is base) one at a time, taking the values of ws (in row order,
	// all in these pages): one page's values are held at a time.
	decodePick := func(b []byte, at, base int64, ws []WantRow) error {
		for len(b) > 0 {
			buf = rows.Column{Ints: buf.Ints[:0], Floats: buf.Floats[:0], Bools: buf.Bools[:0], Strs: buf.Strs[:0]}
			k, err := dec.Decode(ch, b, &dict, &buf)
			if err != nil {
				return fail("page at %d: %v", at, err)
			}
			b, at = b[k:], at+int64(k)
			have := buf.Len(fld.Type)
			if buf.Nulls != nil && len(buf.Nulls) < have {
				return fail("page at %d: short null map", at-int64(k))
			}
			for ; len(ws) > 0 && ws[0].Row < base+int64(have); ws = ws[1:] {
				if ws[0].Row < base {
					return fail("row %d is before the pages read (from row %d)", ws[0].Row, base)
				}
				setValue(&out.Cols[i], ws[0].Out, out.Len, &buf, int(ws[0].Row-base), fld.Type)
			}
			base += int64(have)
		}
		if len(ws) > 0 {
			return fail("row %d is not in the pages read (up to row %d)", ws[0].Row, base)
		}
		return nil
	}
	cc := &f.Meta.RowGroups[rg].Columns[f.ColOf[i]]
	if f.offIdx[rg][f.ColOf[i]] == nil { // no page index: the whole chunk
		start, length := cc.Start(), cc.Meta.TotalCompressedSize
		if start < 4 || length <= 0 || length > f.size-start {
			return fail("chunk at %d (+%d) outside the file", start, length)
		}
		b, err := f.Get(ctx, start, length)
		if err != nil {
			return err
		}
		return decodePick(b, start, 0, in)
	}
	pages := f.offIdx[rg][f.ColOf[i]].Pages
	pageOf := func(r int64) int {
		return sort.Search(len(pages), func(p int) bool { return pages[p].FirstRowIndex > r }) - 1
	}
	if len(pages) == 0 {
		return fail("no pages")
	}
	if cc.Meta.HasDictionaryPage {
		from, to := cc.Meta.DictionaryPageOffset, pages[0].Offset
		if from < 4 || from >= to {
			return fail("dictionary page at %d, the first data page at %d", from, to)
		}
		b, err := f.Get(ctx, from, to-from)
		if err != nil {
			return err
		}
		if _, err := dec.Decode(ch, b, &dict, &buf); err != nil {
			return fail("dictionary page at %d: %v", from, err)
		}
	}
	// Runs of adjacent pages holding winners: one request and decode each.
	for k := 0; k < len(in); {
		p0 := pageOf(in[k].Row)
		p1, j := p0, k
		for ; j < len(in); j++ {
			p := pageOf(in[j].Row)
			if p > p1+1 {
				break
			}
			p1 = max(p1, p)
		}
		if p0 < 0 {
			return fail("no page holds row %d", in[k].Row)
		}
		from := pages[p0].Offset
		to := pages[p1].Offset + int64(pages[p1].CompressedPageSize)
		b, err := f.Get(ctx, from, to-from)
		if err != nil {
			return err
		}
		if err := decodePick(b, from, pages[p0].FirstRowIndex, in[k:j]); err != nil {
			return err
		}
		k = j
	}
	return nil
}

// setValue copies value j of src to row at of dst (n rows), strings
// copied out of the page.
func setValue(dst *rows.Column, at, n int, src *rows.Column, j int, t schema.Type) {
	switch {
	case t.IsInteger():
		dst.Ints[at] = src.Ints[j]
	case t.IsFloat():
		dst.Floats[at] = src.Floats[j]
	case t == schema.Boolean:
		dst.Bools[at] = src.Bools[j]
	default:
		dst.Strs[at] = strings.Clone(src.Strs[j])
	}
	if src.IsNull(j) {
		if dst.Nulls == nil {
			dst.Nulls = make([]bool, n)
		}
		dst.Nulls[at] = true
	}
}
