package table

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Pass 2 of the index catch-up: the columns other than time, series and
// _ingest_ts, of the winning rows only. With the page index, each column
// fetches the dictionary page and the runs of pages holding winners, one
// request a run; without it (pyarrow's files), the chunks of the row groups
// holding winners, whole.

// keySchema is t restricted to time, the series and _ingest_ts (in field
// order), and the index in t of each of its fields.
func keySchema(t *schema.Table) (*schema.Table, []int) {
	ks := &schema.Table{Partition: t.Partition}
	var from []int
	at := map[int]int{}
	for i, f := range t.Fields {
		if i == t.Time || i == t.Ingest || slices.Contains(t.Series, i) {
			at[i] = len(ks.Fields)
			ks.Fields = append(ks.Fields, f)
			from = append(from, i)
		}
	}
	ks.Time, ks.Ingest = at[t.Time], -1
	if t.Ingest >= 0 {
		ks.Ingest = at[t.Ingest]
	}
	for _, s := range t.Series {
		ks.Series = append(ks.Series, at[s])
	}
	return ks, from
}

// get returns the file's bytes [off, off+n): from the tail when it holds
// them, else in one request.
func (f *rangeFile) get(ctx context.Context, off, n int64) ([]byte, error) {
	if b, ok := cached(f.tail, f.tailOff, off, off+n); ok {
		return b, nil
	}
	return f.getRange(ctx, off, n)
}

// wantRow is a winning row: its row in the row group (or file) and its row
// in the result.
type wantRow struct {
	row int64
	out int
}

// winnerRows builds the full rows of the winners: keys (of schema keySchema)
// holds their key columns, tags say where each came from (file << fileTagShift
// | row), files are the data files read in pass 1.
func (tb *Table) winnerRows(ctx context.Context, files []iceberg.ManifestEntry, names map[string]int, keys *rows.Batch, tags []int64, keyFields []int, dec *parquet.PageDecoder, read *int64) (*rows.Batch, error) {
	t := tb.schema
	n := keys.Len
	out := &rows.Batch{Schema: t, Cols: make([]rows.Column, len(t.Fields)), Len: n}
	isKey := make([]bool, len(t.Fields))
	for j, i := range keyFields {
		out.Cols[i], isKey[i] = keys.Cols[j], true
	}
	var others []int
	for i, f := range t.Fields {
		if isKey[i] {
			continue
		}
		others = append(others, i)
		switch c := &out.Cols[i]; {
		case f.Type.IsInteger():
			c.Ints = make([]int64, n)
		case f.Type.IsFloat():
			c.Floats = make([]float64, n)
		case f.Type == schema.Boolean:
			c.Bools = make([]bool, n)
		default:
			c.Strs = make([]string, n)
		}
	}
	if len(others) == 0 || n == 0 {
		return out, nil
	}
	byFile := map[int][]wantRow{}
	for k, tag := range tags {
		fi := int(tag >> fileTagShift)
		byFile[fi] = append(byFile[fi], wantRow{row: tag & (1<<fileTagShift - 1), out: k})
	}
	fis := make([]int, 0, len(byFile))
	for fi := range byFile {
		fis = append(fis, fi)
	}
	slices.Sort(fis)
	for _, fi := range fis {
		// The footer again, with the offset indexes of every column now.
		key, err := tb.keyOf(files[fi].DataFile.Path)
		if err != nil {
			return nil, err
		}
		f, err := openRangeFile(ctx, tb.st, key, files[fi].DataFile.FileSize, t, names, read)
		if err != nil {
			return nil, err
		}
		ws := byFile[fi]
		slices.SortFunc(ws, func(a, b wantRow) int { return cmp.Compare(a.row, b.row) })
		var start int64 // the row group's first row in the file
		w := 0
		for rg := range f.meta.RowGroups {
			nr := f.meta.RowGroups[rg].NumRows
			var in []wantRow
			for ; w < len(ws) && ws[w].row < start+nr; w++ {
				in = append(in, wantRow{row: ws[w].row - start, out: ws[w].out})
			}
			for _, i := range others {
				if len(in) == 0 {
					break
				}
				if err := tb.fetchValues(ctx, f, rg, i, in, out, dec); err != nil {
					return nil, err
				}
			}
			start += nr
		}
		if w != len(ws) {
			return nil, fmt.Errorf("%w: data file %s: row %d is past its %d rows", ErrCorruptTable, f.key, ws[w].row, start)
		}
	}
	return out, nil
}

// fetchValues sets column i of out's rows in from row group rg of f.
func (tb *Table) fetchValues(ctx context.Context, f *rangeFile, rg, i int, in []wantRow, out *rows.Batch, dec *parquet.PageDecoder) error {
	fld := tb.schema.Fields[i]
	if f.colOf[i] < 0 { // a column the file lacks (optional: mapColumns checked): nulls
		dst := &out.Cols[i]
		if dst.Nulls == nil {
			dst.Nulls = make([]bool, out.Len)
		}
		for _, w := range in {
			dst.Nulls[w.out] = true
		}
		return nil
	}
	ch, err := f.meta.Chunk(rg, f.colOf[i])
	if err != nil {
		return fmt.Errorf("%w: data file %s: %v", ErrCorruptTable, f.key, err)
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: data file %s: column %q, row group %d: %s", ErrCorruptTable, f.key, fld.Name, rg, fmt.Sprintf(format, args...))
	}
	var dict parquet.Dictionary
	var buf rows.Column
	// decodePick decodes the pages in b (from file offset at; their first
	// row is base) one at a time, taking the values of ws (in row order,
	// all in these pages): one page's values are held at a time.
	decodePick := func(b []byte, at, base int64, ws []wantRow) error {
		for len(b) > 0 {
			buf = rows.Column{Ints: buf.Ints[:0], Floats: buf.Floats[:0], Bools: buf.Bools[:0], Strs: buf.Strs[:0]}
			k, err := dec.Decode(ch, b, &dict, &buf)
			if err != nil {
				return fail("page at %d: %v", at, err)
			}
			b, at = b[k:], at+int64(k)
			have := colLen(&buf, fld.Type)
			if buf.Nulls != nil && len(buf.Nulls) < have {
				return fail("page at %d: short null map", at-int64(k))
			}
			for ; len(ws) > 0 && ws[0].row < base+int64(have); ws = ws[1:] {
				if ws[0].row < base {
					return fail("row %d is before the pages read (from row %d)", ws[0].row, base)
				}
				setValue(&out.Cols[i], ws[0].out, out.Len, &buf, int(ws[0].row-base), fld.Type)
			}
			base += int64(have)
		}
		if len(ws) > 0 {
			return fail("row %d is not in the pages read (up to row %d)", ws[0].row, base)
		}
		return nil
	}
	cc := &f.meta.RowGroups[rg].Columns[f.colOf[i]]
	if f.offIdx[rg][f.colOf[i]] == nil { // no page index: the whole chunk
		start, length := cc.Start(), cc.Meta.TotalCompressedSize
		if start < 4 || length <= 0 || length > f.size-start {
			return fail("chunk at %d (+%d) outside the file", start, length)
		}
		b, err := f.get(ctx, start, length)
		if err != nil {
			return err
		}
		return decodePick(b, start, 0, in)
	}
	pages := f.offIdx[rg][f.colOf[i]].Pages
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
		b, err := f.get(ctx, from, to-from)
		if err != nil {
			return err
		}
		if _, err := dec.Decode(ch, b, &dict, &buf); err != nil {
			return fail("dictionary page at %d: %v", from, err)
		}
	}
	// Runs of adjacent pages holding winners: one request and decode each.
	for k := 0; k < len(in); {
		p0 := pageOf(in[k].row)
		p1, j := p0, k
		for ; j < len(in); j++ {
			p := pageOf(in[j].row)
			if p > p1+1 {
				break
			}
			p1 = max(p1, p)
		}
		if p0 < 0 {
			return fail("no page holds row %d", in[k].row)
		}
		from := pages[p0].Offset
		to := pages[p1].Offset + int64(pages[p1].CompressedPageSize)
		b, err := f.get(ctx, from, to-from)
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
