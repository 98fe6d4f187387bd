package table

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/scan"
	"github.com/timelake/timelake/schema"
)

// A scan of a table without a key (another engine's, not adopted: no time
// column Timelake knows) reads the rows as they are stored: file by file
// in data sequence number order, each in its own row order, position
// deletes applied, nothing merged or deduplicated (a key to do that by is
// what adopting gives). Its filter is equality / IN on any string, long or
// int column (ScanOptions.Series by column name), pruned by the files'
// column bounds; a time range needs a time column and is refused.

// scanStored is Scan for a table without a key.
func (tb *Table) scanStored(ctx context.Context, opt ScanOptions, each func(*rows.Batch) error) (*ScanStats, error) {
	st := &ScanStats{}
	if opt.FromUS != nil || opt.ToUS != nil {
		return st, &rows.Error{Code: scan.CodeBadOption, Msg: "the table has no time column Timelake knows (another engine created it), so there is no time range to filter by: filter on columns (--series COL=V), or adopt the table (timelake adopt TABLE --time COL)"}
	}
	if opt.Limit < 0 || opt.BatchRows < 0 {
		return st, &rows.Error{Code: scan.CodeBadOption, Msg: fmt.Sprintf("limit %d and batch rows %d must not be negative", opt.Limit, opt.BatchRows)}
	}
	t := tb.schema
	// The filter's columns act as the series of a filter schema.
	fs := *t
	fs.Series = nil
	for name := range opt.Series {
		i := t.Index(name)
		if i >= 0 && t.Fields[i].Type != schema.String && t.Fields[i].Type != schema.Long && t.Fields[i].Type != schema.Int {
			return st, &rows.Error{Code: scan.CodeBadFilter, Column: name, Msg: fmt.Sprintf("column is %v: filters are on string, long or int columns", t.Fields[i].Type)}
		}
		if i >= 0 {
			fs.Series = append(fs.Series, i)
		}
	}
	slices.Sort(fs.Series)
	flt, err := scan.NewFilter(&fs, nil, nil, opt.Series)
	if err != nil {
		return st, err
	}
	if flt.Where, err = scan.ParseWheres(t, opt.Where); err != nil {
		return st, err
	}
	want := make([]bool, len(t.Fields))
	for _, i := range fs.Series {
		want[i] = true
	}
	for _, c := range flt.Where.Columns() { // read, handed out only when projected (outSch)
		want[t.Index(c)] = true
	}
	if len(opt.Columns) == 0 { // every column but _ingest_ts, as a keyed scan
		for i := range want {
			want[i] = want[i] || i != t.Ingest
		}
	}
	for _, c := range opt.Columns {
		i := t.Index(c)
		if i < 0 {
			return st, &rows.Error{Code: scan.CodeUnknownColumn, Column: c, Msg: fmt.Sprintf("no such column to project (columns: %s)", columnList(t))}
		}
		want[i] = true
	}
	readSch := scan.Subset(&fs, func(i int) bool { return want[i] })
	outCols := map[string]bool{}
	for _, c := range opt.Columns {
		outCols[c] = true
	}
	outSch := scan.Subset(t, func(i int) bool {
		return len(opt.Columns) == 0 && i != t.Ingest || outCols[t.Fields[i].Name]
	})
	snap, err := tb.scanSnapshot(opt)
	if err != nil || snap == nil {
		return st, err
	}
	st.SnapshotID = snap.SnapshotID
	files, dels, err := tb.storedFiles(ctx, snap, &fs, flt, st)
	if err != nil {
		return st, err
	}
	deleted, err := tb.scanDeletes(ctx, files, dels, st)
	if err != nil {
		return st, err
	}
	names, err := nameMapping(tb.meta.Properties)
	if err != nil {
		return st, err
	}
	out := scan.NewOut(outSch, readSch, batchRows(opt))
	if opt.Reuse {
		out.Reuse()
	}
	match := flt.Matcher(readSch)
	if where := flt.Where.Matcher(readSch); where != nil { // no merge here: every row is answered as stored
		series := match
		match = func(b *rows.Batch, i int) bool { return series(b, i) && where(b, i) }
	}
	r := storedReader{tb: tb, opt: opt, st: st, out: out, each: each, names: names, match: match, sch: readSch,
		store: &datafile.CountingStore{Store: tb.st, Stats: st}}
	for _, e := range files {
		if done, err := r.file(ctx, e, deleted); err != nil || done {
			return st, err
		}
	}
	return st, r.flush()
}

// storedFiles lists the live data files of s whose column bounds may hold
// rows passing flt (fs: the filter's schema), and its live delete files.
func (tb *Table) storedFiles(ctx context.Context, s *iceberg.Snapshot, fs *schema.Table, flt *scan.Filter, st *ScanStats) (data, dels []iceberg.ManifestEntry, err error) {
	refuse := deleteRefusal{it: "a scan cannot apply it yet", them: "a scan cannot apply them yet"}
	count := func(mf iceberg.ManifestFile) bool {
		if mf.Content == iceberg.ContentData {
			st.Manifests++
			st.ManifestsRead++
		}
		return false
	}
	err = tb.walkLive(ctx, s, refuse, count, func(mf iceberg.ManifestFile, e iceberg.ManifestEntry) error {
		df := &e.DataFile
		if df.IsDelete() {
			dels = append(dels, e)
			return nil
		}
		st.Files++
		if !flt.MayMatch(scan.Bound{}, datafile.SeriesBounds(fs, flt, func(id int) scan.Bound { return datafile.FileBound(df, id) })) {
			return nil
		}
		data = append(data, e)
		return nil
	})
	slices.SortFunc(data, func(a, b iceberg.ManifestEntry) int {
		if a.SequenceNumber != b.SequenceNumber {
			return cmp.Compare(a.SequenceNumber, b.SequenceNumber)
		}
		return strings.Compare(a.DataFile.Path, b.DataFile.Path)
	})
	return data, dels, err
}

// storedReader reads the files of a scan without a key, one after another.
type storedReader struct {
	tb    *Table
	opt   ScanOptions
	st    *ScanStats
	out   *scan.Out
	each  func(*rows.Batch) error
	names map[string]int
	match func(*rows.Batch, int) bool
	sch   *schema.Table
	store *datafile.CountingStore
	dec   parquet.PageDecoder
}

func (r *storedReader) flush() error {
	if r.out.Len() == 0 {
		return nil
	}
	b := r.out.Take()
	r.st.Rows += int64(b.Len)
	return r.each(b)
}

// file reads the rows of one data file that pass; done when the limit is reached.
func (r *storedReader) file(ctx context.Context, e iceberg.ManifestEntry, deleted map[string]*datafile.Deleted) (done bool, err error) {
	key, err := r.tb.keyOf(e.DataFile.Path)
	if err != nil {
		return false, err
	}
	f, err := datafile.Open(ctx, r.store, key, e.DataFile.FileSize, r.sch, r.names, &r.st.BytesRead)
	if err != nil {
		return false, datafile.DataFileErr(key, err)
	}
	r.st.FilesRead++
	cur := datafile.NewCursor(f, r.sch, &r.dec, e.SequenceNumber, scanWindowRows, scanReadBudget)
	cur.AnyOrder = true
	del := deleted[key]
	limit := func() int { return r.opt.Limit - int(r.st.Rows) - r.out.Len() }
	for {
		ok, err := cur.Next(ctx)
		if err != nil {
			return false, datafile.DataFileErr(key, err)
		}
		if !ok {
			return false, nil
		}
		b := &rows.Batch{Schema: r.sch, Cols: cur.Cols, Len: cur.N}
		first := cur.Rows - int64(cur.N) // the file position of the window's row 0
		for i := 0; i < cur.N; {
			if (del != nil && del.Has(first+int64(i))) || !r.match(b, i) {
				i++
				continue
			}
			j := i + 1
			for j < cur.N && !(del != nil && del.Has(first+int64(j))) && r.match(b, j) {
				j++
			}
			if r.opt.Limit > 0 {
				j = min(j, i+limit())
			}
			r.out.Add(b, i, j)
			i = j
			if r.opt.Limit > 0 && limit() <= 0 {
				return true, r.flush()
			}
			if r.out.Len() >= batchRows(r.opt) {
				if err := r.flush(); err != nil {
					return false, err
				}
			}
		}
	}
}

// columnList names the schema's columns, for errors.
func columnList(t *schema.Table) string {
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}
