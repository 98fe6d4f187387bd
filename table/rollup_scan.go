package table

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/scan"
	"github.com/timelake/timelake/schema"
)

// The recompute's reads. A scan merges every file it reads at once and
// holds a window (up to 8,192 decoded rows) of each: a day of 24 appends
// recomputed in one scan held 24 windows, whichever buckets it was after.
// A refresh does not need the rows of a time range in one merge, only the
// rows of each bucket together, in order: so each time range is cut at
// the bucket boundaries no file's time bounds cross, and each piece (a
// cluster of files whose bucket spans overlap) is merged on its own. Rows
// of one key are in files whose bounds hold its time, so they meet in one
// piece and are deduplicated as a whole-range scan would; pieces are read
// in time order, each file at most once per range. Files whose time
// ranges overlap (late rows, a compacted day) still merge together: what
// the merge holds is then what a scan of them holds. The snapshot's
// manifests are read once for all the ranges (a Scan reads them per call).

// rawReader reads the raw rows of one snapshot, range by range.
type rawReader struct {
	tb    *Table
	at    *iceberg.Snapshot
	cols  []string
	width int64
	files []iceberg.ManifestEntry // live data files of at in the extent, in scan order
	dels  []iceberg.ManifestEntry // its position delete files
	st    ScanStats
	out   *scan.Out // the batches, reused: the aggregator keeps none
	each  func(*rows.Batch) error
}

// newRawReader lists the data files of snapshot at that may hold rows in
// [from, to) (nil: unbounded); its reads hand batches of cols to each.
func (w *walk) newRawReader(ctx context.Context, at *iceberg.Snapshot, cols []string, from, to *int64, each func(*rows.Batch) error) (*rawReader, error) {
	r := &rawReader{tb: w.raw, at: at, cols: cols, width: w.d.Width, each: each}
	opt := ScanOptions{Columns: cols, FromUS: from, ToUS: to}
	flt, readSch, outSch, err := w.raw.scanSchemas(opt)
	if err != nil {
		return nil, err
	}
	r.out = scan.NewOut(outSch, readSch, batchRows(opt))
	r.out.Reuse()
	r.files, r.dels, err = w.raw.scanFiles(ctx, at, flt, &r.st)
	return r, err
}

// read hands over the rows in [from, to) (nil: unbounded; bucket-aligned)
// of the series given (nil: every series), sorted by (series…, time) and
// deduplicated within each piece (see above).
func (r *rawReader) read(ctx context.Context, from, to *int64, series map[string][]any) error {
	tb := r.tb
	t := tb.schema
	opt := ScanOptions{Columns: r.cols, FromUS: from, ToUS: to, Series: series}
	flt, _, _, err := tb.scanSchemas(opt)
	if err != nil {
		return err
	}
	var files []iceberg.ManifestEntry
	for _, e := range r.files {
		df := &e.DataFile
		if flt.MayMatch(datafile.FileBound(df, t.Fields[t.Time].ID), datafile.SeriesBounds(t, flt, func(id int) scan.Bound { return datafile.FileBound(df, id) })) {
			files = append(files, e)
		}
	}
	if len(files) == 0 {
		return nil
	}
	deleted, err := tb.scanDeletes(ctx, files, r.dels, &r.st)
	if err != nil {
		return err
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if from != nil {
		lo = *from
	}
	if to != nil {
		hi = *to
	}
	for _, p := range pieces(files, r.width, t.Fields[t.Time].ID, lo, hi) {
		popt := opt
		popt.FromUS, popt.ToUS = nil, nil
		if p.from != math.MinInt64 {
			popt.FromUS = &p.from
		}
		if p.to != math.MaxInt64 {
			popt.ToUS = &p.to
		}
		pflt, readSch, _, err := tb.scanSchemas(popt)
		if err != nil {
			return err
		}
		if err := tb.scanEntries(ctx, popt, pflt, readSch, p.files, deleted, &r.st, r.out, r.each); err != nil {
			return err
		}
	}
	return nil
}

// piece is a time range, bucket-aligned (math.MinInt64, math.MaxInt64:
// unbounded), and the files that may hold rows in it, in scan order.
type piece struct {
	from, to int64
	files    []iceberg.ManifestEntry
}

// pieces cuts [lo, hi) at the bucket boundaries (of width) that no file's
// time bounds (field id timeID) cross; a file without bounds crosses
// every one. Each piece keeps its files in the order given (the merge
// breaks ties by input order), and pieces come in time order.
func pieces(files []iceberg.ManifestEntry, width int64, timeID int, lo, hi int64) []piece {
	type span struct {
		from, to int64 // bucket-aligned, to exclusive
		i        int   // index in files
	}
	spans := make([]span, 0, len(files))
	for i := range files {
		s := span{from: math.MinInt64, to: math.MaxInt64, i: i}
		b := datafile.FileBound(&files[i].DataFile, timeID)
		if l, err := iceberg.DecodeValue(schema.Timestamptz, b.Lo); err == nil && b.Lo != nil {
			s.from = rollup.Bucket(l.(int64), width)
		}
		if u, err := iceberg.DecodeValue(schema.Timestamptz, b.Hi); err == nil && b.Hi != nil {
			if end := rollup.Bucket(u.(int64), width); end <= math.MaxInt64-width {
				s.to = end + width
			}
		}
		if s.to <= s.from { // bounds that say nothing sensible: every bucket
			s.from, s.to = math.MinInt64, math.MaxInt64
		}
		s.from, s.to = max(s.from, lo), min(s.to, hi)
		if s.from < s.to { // else no row of it is in the range
			spans = append(spans, s)
		}
	}
	slices.SortStableFunc(spans, func(a, b span) int { return cmp.Compare(a.from, b.from) })
	var out []piece
	var idx []int
	cur := span{from: math.MinInt64, to: math.MinInt64}
	flush := func() {
		if len(idx) == 0 {
			return
		}
		slices.Sort(idx)
		p := piece{from: cur.from, to: cur.to}
		for _, i := range idx {
			p.files = append(p.files, files[i])
		}
		out = append(out, p)
		idx = idx[:0]
	}
	for _, s := range spans {
		if len(idx) > 0 && s.from < cur.to {
			cur.to = max(cur.to, s.to)
		} else {
			flush()
			cur = s
		}
		idx = append(idx, s.i)
	}
	flush()
	return out
}

// eachFileRaw hands each the time and series columns of every stored row
// of the files (nil: all) of snapshot at in [from, to) (nil: unbounded),
// delete files applied, a file at a time: rows taken raw need no merge, so
// one window is held however many files a walk reads (a delete file's
// partition, a compacted day). The batches are reused: each must not keep
// them.
func (w *walk) eachFileRaw(ctx context.Context, at int64, files map[string]bool, from, to *int64, each func(*rows.Batch) error) error {
	tb := w.raw
	opt := ScanOptions{AsOfSnapshot: &at, Files: files, Raw: true, FromUS: from, ToUS: to, Columns: []string{tb.schema.TimeField().Name}}
	flt, readSch, outSch, err := tb.scanSchemas(opt)
	if err != nil {
		return err
	}
	snap, err := tb.scanSnapshot(opt)
	if err != nil || snap == nil {
		return err
	}
	var st ScanStats
	defer func() { w.read += st.BytesRead }()
	data, dels, err := tb.scanFiles(ctx, snap, flt, &st)
	if err != nil {
		return err
	}
	if files != nil {
		data = slices.DeleteFunc(data, func(e iceberg.ManifestEntry) bool { return !files[e.DataFile.Path] })
	}
	deleted, err := tb.scanDeletes(ctx, data, dels, &st)
	if err != nil {
		return err
	}
	out := scan.NewOut(outSch, readSch, batchRows(opt))
	out.Reuse()
	for _, e := range data {
		if err := tb.scanEntries(ctx, opt, flt, readSch, []iceberg.ManifestEntry{e}, deleted, &st, out, each); err != nil {
			return err
		}
	}
	return nil
}
