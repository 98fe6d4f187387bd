package table

import (
	"cmp"
	"context"
	"errors"
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

// A scan reads the rows of a snapshot that pass a filter, sorted by
// (series…, time), deduplicated by the rule of README "Duplicates" unless
// raw, with position deletes applied. The decisions are package scan's
// (filter, pruning, coalescing, merge); this file and package datafile drive
// them over the store:
//
//   - the manifest list's partition summaries, then each entry's
//     partition and column bounds (time, filtered series), pick the files;
//   - each file's footer: row-group statistics pick its row groups;
//   - the column indexes of the time and filtered series columns pick
//     pages, as row ranges (scan.PageRanges), read a window at a time;
//   - a window reads the key columns' pages first, then the other
//     projected columns' pages only over the rows that passed, each
//     column's pages found in the offset index and fetched in coalesced
//     requests (scan.Coalesce); a file without a page index is read a row
//     group at a time, a file not sorted by key (another engine's) whole;
//   - scan.Merge merges the files' rows by key and applies the dedup rule.

// ScanOptions say what a scan reads.
type ScanOptions struct {
	FromUS, ToUS *int64 // time range in microseconds, from inclusive, to exclusive
	// FromNS and ToNS, where set, replace FromUS and ToUS for a table whose
	// time column is timestamp_ns or timestamptz_ns (a bound finer than a
	// microsecond); other tables ignore them. The CLI and the bridge set
	// both from the same text.
	FromNS, ToNS *int64
	Series       map[string][]any // equality / IN filters on series columns: string or int64 values
	// Where are label filters on map and struct columns (scan.ParseWheres:
	// tags[env]=prod, tags[env]!=prod, attrs.b=x), all of which a row must
	// pass: evaluated on each answered row's value (no statistics prune by
	// them), after the dedup.
	Where        []string
	Columns      []string // projection (user columns; the time and series columns are always included); empty = all columns except _ingest_ts
	AsOfSnapshot *int64   // time travel: this snapshot
	AsOfMs       *int64   // or: the snapshot current at this time (ms)
	Raw          bool     // no dedup (every stored row; delete files still applied)
	Limit        int      // 0 = no limit
	BatchRows    int      // rows per batch handed to each (default 8192)
	// Reuse makes the batches share their memory: a batch is each's only
	// until each returns (the next one overwrites it). For a consumer that
	// copies each batch out (the WebAssembly bridge into JavaScript): the
	// scan then allocates its output once, not per batch.
	Reuse bool
	// Files, when not nil, limits the scan to these data files (paths as
	// the manifests spell them) of the snapshot: a rollup refresh reads the
	// rows a snapshot added.
	Files map[string]bool
}

// ScanStats are a scan's plan and cost (package datafile counts them).
type ScanStats = datafile.ScanStats

// DefaultScanBatchRows is the rows of a batch when ScanOptions.BatchRows is 0.
const DefaultScanBatchRows = 8192

// scanWindowRows is the rows of a file a scan decodes at a time, when it
// reads few files; the merge holds a window of every file it reads, so
// past 32 files the windows shrink (to scanMinWindowRows), and the pages
// fetched ahead share scanTotalReadBudget.
var (
	scanWindowRows      int64 = 8192
	scanMinWindowRows   int64 = 1024
	scanTotalReadBudget int64 = 32 << 20
)

// scanReadBudget is the compressed bytes of pages a file's scan fetches
// ahead of its window (shared by the columns), for the windows after it
// in the same row range: fewer, larger requests for a long range (less
// when the scan reads many files: scanShares).
var scanReadBudget int64 = 2 << 20

// scanShares are the window rows and read-ahead budget of each of n files.
func scanShares(n int) (windowRows, readBudget int64) {
	n = max(n, 1)
	windowRows = max(scanMinWindowRows, min(scanWindowRows, scanWindowRows*32/int64(n)))
	return windowRows, min(scanReadBudget, scanTotalReadBudget/int64(n))
}

// scanDeleteLimits bound the position deletes a scan holds.
var scanDeleteLimits = datafile.DeleteLimits{Positions: 4 << 20, FileBytes: MaxFileBytes, What: "a scan"}

// Scan reads the rows opt selects and hands them to each in batches of
// the projected schema (time, series, the projected columns, in table
// order), sorted by (series…, time). A batch is each's to keep (unless
// opt.Reuse: until each returns). An error —
// a bad option (a coded *rows.Error), a store fault, a corrupt file — ends
// the scan: the rows handed over before it are not the whole answer.
func (tb *Table) Scan(ctx context.Context, opt ScanOptions, each func(*rows.Batch) error) (*ScanStats, error) {
	if !tb.schema.HasKey() {
		return tb.scanStored(ctx, opt, each)
	}
	st := &ScanStats{}
	flt, readSch, outSch, err := tb.scanSchemas(opt)
	if err != nil {
		return st, err
	}
	if opt.Limit < 0 || opt.BatchRows < 0 {
		return st, &rows.Error{Code: scan.CodeBadOption, Msg: fmt.Sprintf("limit %d and batch rows %d must not be negative", opt.Limit, opt.BatchRows)}
	}
	snap, err := tb.scanSnapshot(opt)
	if err != nil || snap == nil {
		return st, err
	}
	st.SnapshotID = snap.SnapshotID
	files, dels, err := tb.scanFiles(ctx, snap, flt, st)
	if err != nil {
		return st, err
	}
	if opt.Files != nil {
		files = slices.DeleteFunc(files, func(e iceberg.ManifestEntry) bool { return !opt.Files[e.DataFile.Path] })
	}
	deleted, err := tb.scanDeletes(ctx, files, dels, st)
	if err != nil {
		return st, err
	}
	out := scan.NewOut(outSch, readSch, batchRows(opt))
	if opt.Reuse {
		out.Reuse()
	}
	return st, tb.scanEntries(ctx, opt, flt, readSch, files, deleted, st, out, each)
}

// scanDeletes reads the position deletes of dels that apply to files.
func (tb *Table) scanDeletes(ctx context.Context, files, dels []iceberg.ManifestEntry, st *ScanStats) (map[string]*datafile.Deleted, error) {
	if len(dels) == 0 {
		return nil, nil
	}
	st.Requests += len(dels)
	return datafile.PositionDeletes(ctx, tb.st, tb.keyOf, entryFiles(files), entryFiles(dels), scanDeleteLimits, &st.BytesRead)
}

// scanEntries merges the rows of the data files files (entries of the
// scanned snapshot, their position deletes in deleted) that pass flt and
// hands them to each in batches gathered by out (of batchRows(opt) rows,
// from readSch): Scan's second half, which a rollup refresh also runs over
// a few files at a time.
func (tb *Table) scanEntries(ctx context.Context, opt ScanOptions, flt *scan.Filter, readSch *schema.Table, files []iceberg.ManifestEntry, deleted map[string]*datafile.Deleted, st *ScanStats, out *scan.Out, each func(*rows.Batch) error) error {
	batchRows := batchRows(opt)
	names, err := nameMapping(tb.meta.Properties)
	if err != nil {
		return err
	}
	var dec parquet.PageDecoder
	windowRows, readBudget := scanShares(len(files))
	shared := &datafile.ScanShared{Store: &datafile.CountingStore{Store: tb.st, Stats: st}, Stats: st, Dec: &dec,
		Names: names, WindowRows: windowRows, ReadBudget: readBudget}
	inputs := make([]scan.Input, 0, len(files))
	for _, e := range files {
		key, err := tb.keyOf(e.DataFile.Path)
		if err != nil {
			return err
		}
		fs := datafile.NewFileScan(ctx, shared, key, e, readSch, flt, deleted[key])
		inputs = append(inputs, scan.Input{Name: "data file " + key, Seq: e.SequenceNumber, Next: fs.Next})
	}
	rowsBefore := st.Rows
	where := flt.Where.Matcher(readSch)
	flush := func() error {
		if out.Len() == 0 {
			return nil
		}
		b := out.Take()
		st.Rows += int64(b.Len)
		return each(b)
	}
	add := func(b *rows.Batch, i, j int) error {
		for i < j {
			k := min(j, i+batchRows-out.Len())
			if opt.Limit > 0 {
				k = min(k, i+opt.Limit-int(st.Rows-rowsBefore)-out.Len())
			}
			out.Add(b, i, k)
			i = k
			if opt.Limit > 0 && int(st.Rows-rowsBefore)+out.Len() >= opt.Limit {
				if err := flush(); err != nil {
					return err
				}
				return scan.ErrStop
			}
			if out.Len() >= batchRows {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err = scan.Merge(readSch, inputs, opt.Raw, func(b *rows.Batch, i, j int) error {
		if where == nil {
			return add(b, i, j)
		}
		// the label filter, on the rows the merge kept: runs of passing rows
		for i < j {
			for i < j && !where(b, i) {
				i++
			}
			k := i
			for k < j && where(b, k) {
				k++
			}
			if k > i {
				if err := add(b, i, k); err != nil {
					return err
				}
			}
			i = k
		}
		return nil
	})
	if errors.Is(err, scan.ErrUnsorted) {
		err = fmt.Errorf("%w: %v: it declares it is sorted by (series…, time) (sorting_columns) and is not; a compaction sorts it", ErrCorruptTable, err)
	}
	if err != nil {
		return err
	}
	return flush()
}

// batchRows is the rows of the batches a scan hands over.
func batchRows(opt ScanOptions) int {
	if opt.BatchRows == 0 {
		return DefaultScanBatchRows
	}
	return opt.BatchRows
}

// scanSchemas checks the filter and projection: the filter, the schema
// files are read with (time, series, _ingest_ts and the projected
// columns, in table order) and the schema of the batches handed out.
func (tb *Table) scanSchemas(opt ScanOptions) (*scan.Filter, *schema.Table, *schema.Table, error) {
	t := tb.schema
	from, to := tb.usBounds(opt.FromUS, opt.ToUS, opt.FromNS, opt.ToNS)
	flt, err := scan.NewFilter(t, from, to, opt.Series)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := flt.SetNanos(opt.FromNS, opt.ToNS); err != nil {
		return nil, nil, nil, err
	}
	if flt.Where, err = scan.ParseWheres(t, opt.Where); err != nil {
		return nil, nil, nil, err
	}
	want := make([]bool, len(t.Fields))
	want[t.Time] = true
	for _, s := range t.Series {
		want[s] = true
	}
	if len(opt.Columns) == 0 {
		for i := range want {
			want[i] = i != t.Ingest
		}
	}
	for _, c := range opt.Columns {
		i := t.Index(c)
		if i < 0 {
			var all []string
			for _, f := range t.Fields {
				all = append(all, f.Name)
			}
			return nil, nil, nil, &rows.Error{Code: scan.CodeUnknownColumn, Column: c, Msg: fmt.Sprintf("no such column to project (columns: %s)", strings.Join(all, ", "))}
		}
		want[i] = true
	}
	read := slices.Clone(want)
	for _, c := range flt.Where.Columns() { // read, but not handed out unless projected
		read[t.Index(c)] = true
	}
	readSch := scan.Subset(t, func(i int) bool { return read[i] || i == t.Ingest })
	outSch := scan.Subset(t, func(i int) bool { return want[i] })
	return flt, readSch, outSch, nil
}

// scanSnapshot is the snapshot a scan reads: the current one, or the one
// opt's as-of names. Nil for a table without snapshots.
func (tb *Table) scanSnapshot(opt ScanOptions) (*iceberg.Snapshot, error) {
	m := tb.meta
	switch {
	case opt.AsOfSnapshot != nil && opt.AsOfMs != nil:
		return nil, &rows.Error{Code: scan.CodeBadOption, Msg: "as-of a snapshot and as-of a time: give one"}
	case opt.AsOfSnapshot != nil:
		s := m.SnapshotByID(*opt.AsOfSnapshot)
		if s == nil {
			return nil, scan.NoSnapshot(fmt.Sprintf("no snapshot %d in the table (%d retained)", *opt.AsOfSnapshot, len(m.Snapshots)))
		}
		return s, nil
	case opt.AsOfMs != nil:
		// The last snapshot to become current at or before the time; one
		// expired since is refused, not answered by an older one.
		var best *iceberg.Snapshot
		for _, l := range m.SnapshotLog {
			if l.TimestampMs <= *opt.AsOfMs {
				if best = m.SnapshotByID(l.SnapshotID); best == nil {
					return nil, scan.NoSnapshot(fmt.Sprintf("snapshot %d, current at %s, is expired", l.SnapshotID, formatMillis(*opt.AsOfMs)))
				}
			}
		}
		if best == nil && len(m.SnapshotLog) == 0 {
			for i := range m.Snapshots {
				if s := &m.Snapshots[i]; s.TimestampMs <= *opt.AsOfMs && (best == nil || s.TimestampMs >= best.TimestampMs) {
					best = s
				}
			}
		}
		if best == nil {
			return nil, scan.NoSnapshot(fmt.Sprintf("no retained snapshot was current at %s", formatMillis(*opt.AsOfMs)))
		}
		return best, nil
	}
	return m.CurrentSnapshot(), nil
}

// scanFiles lists the live data files of s that may hold rows passing flt
// (manifest partition summaries, entry partitions and bounds) and its live
// position delete files; equality deletes and deletion vectors are refused.
func (tb *Table) scanFiles(ctx context.Context, s *iceberg.Snapshot, flt *scan.Filter, st *ScanStats) (data, dels []iceberg.ManifestEntry, err error) {
	t := tb.schema
	tr := t.Partition
	// Partitions prune by time when they are ours: one transform of the
	// time column (t.Partition), in the default spec.
	ours := func(mf iceberg.ManifestFile) bool {
		return t.Partition != 0 && int(mf.PartitionSpecID) == tb.meta.DefaultSpecID
	}
	skip := func(mf iceberg.ManifestFile) bool {
		if mf.Content != iceberg.ContentData {
			return false
		}
		st.Manifests++
		if p := mf.Partitions; ours(mf) && len(p) == 1 && !flt.PartitionsMayMatch(tr, p[0].LowerBound, p[0].UpperBound) {
			st.Files += int(mf.AddedFilesCount + mf.ExistingFilesCount)
			return true
		}
		st.ManifestsRead++
		return false
	}
	refuse := deleteRefusal{it: "a scan cannot apply it yet", them: "a scan cannot apply them yet"}
	err = tb.walkLive(ctx, s, refuse, skip, func(mf iceberg.ManifestFile, e iceberg.ManifestEntry) error {
		df := &e.DataFile
		if df.IsDelete() {
			dels = append(dels, e)
			return nil
		}
		st.Files++
		if ours(mf) && !df.OtherPartition && !flt.PartitionMayMatch(tr, df.Partition) {
			return nil
		}
		if !flt.MayMatch(datafile.FileBound(df, t.Fields[t.Time].ID), datafile.SeriesBounds(t, flt, func(id int) scan.Bound { return datafile.FileBound(df, id) })) {
			return nil
		}
		data = append(data, e)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// A stable input order: by data sequence number, then path.
	slices.SortFunc(data, func(a, b iceberg.ManifestEntry) int {
		if a.SequenceNumber != b.SequenceNumber {
			return cmp.Compare(a.SequenceNumber, b.SequenceNumber)
		}
		return strings.Compare(a.DataFile.Path, b.DataFile.Path)
	})
	return data, dels, nil
}
