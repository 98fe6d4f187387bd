package table

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/timelake/timelake/datafile"
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
	byFile := map[int][]datafile.WantRow{}
	for k, tag := range tags {
		fi := int(tag >> fileTagShift)
		byFile[fi] = append(byFile[fi], datafile.WantRow{Row: tag & (1<<fileTagShift - 1), Out: k})
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
		f, err := datafile.Open(ctx, tb.st, key, files[fi].DataFile.FileSize, t, names, read)
		if err != nil {
			return nil, err
		}
		ws := byFile[fi]
		slices.SortFunc(ws, func(a, b datafile.WantRow) int { return cmp.Compare(a.Row, b.Row) })
		var start int64 // the row group's first row in the file
		w := 0
		for rg := range f.Meta.RowGroups {
			nr := f.Meta.RowGroups[rg].NumRows
			var in []datafile.WantRow
			for ; w < len(ws) && ws[w].Row < start+nr; w++ {
				in = append(in, datafile.WantRow{Row: ws[w].Row - start, Out: ws[w].Out})
			}
			for _, i := range others {
				if len(in) == 0 {
					break
				}
				if err := f.FetchValues(ctx, rg, i, tb.schema.Fields[i], in, out, dec); err != nil {
					return nil, err
				}
			}
			start += nr
		}
		if w != len(ws) {
			return nil, fmt.Errorf("%w: data file %s: row %d is past its %d rows", ErrCorruptTable, f.Key, ws[w].Row, start)
		}
	}
	return out, nil
}
