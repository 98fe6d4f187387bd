package table

import (
	"context"
	"fmt"
	"strconv"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// A rollup refresh (package rollup has the definitions and the maths):
//
//  1. The rollup table's current snapshot names the raw snapshot it
//     reflects (rollup.SummarySource, carried forward by the rollup's own
//     compactions and retention).
//  2. The raw snapshots after it, oldest first, say what changed: the rows
//     of the data files a snapshot added (read as of that snapshot: key
//     columns only), of the files an overwrite removed (as of its parent)
//     and of the partitions a delete file touches (as of its parent) give
//     the (series, bucket) keys to recompute. A replace (compaction)
//     changes no deduplicated row; a snapshot that only removes whole
//     files (retention, a metadata-only DELETE) leaves the rollup as it is:
//     rollups outlive their raw data.
//  3. Those buckets are recomputed from the deduplicated raw rows as of the
//     last snapshot walked, one scan per group of nearby buckets, and
//     appended to the rollup table with that snapshot's id and sequence
//     number in the summary. The rollup table has no _ingest_ts: its later
//     commit of a key wins, in every reader that applies Timelake's rule
//     and after a compaction in every reader.
//
// The walk stops once it has read RefreshOptions.ByteCap bytes, counting
// the files whose buckets it marked from their bounds at their size (after
// one snapshot at least): the commit then reflects that snapshot and the next
// refresh goes on from it. When the snapshot the rollup reflects is no
// longer an ancestor of the current one (expired), the live files whose
// data sequence number is past its sequence number are read instead;
// without either (a rollup never refreshed) every bucket is computed.

// RefreshOptions bound a refresh.
type RefreshOptions struct {
	// ByteCap: the change detection stops at the first snapshot after
	// which it has read this many bytes of data files (0: no cap).
	ByteCap int64
	// OnBatch, when set, is called before each batch of raw rows the
	// refresh reads is used (a driver whose garbage collector is off, the
	// WASM bridge, collects there: a refresh reads as much as a scan).
	OnBatch func()
}

// RefreshResult reports a refresh.
type RefreshResult struct {
	Rollup     string `json:"rollup"`
	Mode       string `json:"mode"` // up-to-date, full, incremental, by-sequence, empty, fold (rollup_fold.go)
	Previous   int64  `json:"previous-snapshot,string"`
	Source     int64  `json:"source-snapshot,string"` // the raw snapshot the rollup reflects now
	Snapshots  int    `json:"snapshots"`              // raw snapshots walked
	Buckets    int    `json:"buckets"`                // (series, bucket) keys recomputed; 0 in a full refresh
	Rows       int    `json:"rows"`                   // rollup rows written
	Tombstones int    `json:"tombstones"`             // of them: buckets left with no rows (row_count 0)
	Spans      int    `json:"spans"`                  // time spans recomputed for every series (from files' bounds)
	Skipped    int    `json:"skipped"`                // keys older than the raw retention, left as they are
	BytesRead  int64  `json:"bytes-read"`             // data and delete files of the raw table
	CapReached bool   `json:"cap-reached"`
	Left       int    `json:"snapshots-left"` // raw snapshots the next refresh walks
	Version    int    `json:"version"`        // the rollup table's metadata version
	Committed  bool   `json:"committed"`
}

// RollupSource is the raw snapshot id and sequence number the rollup
// snapshot s reflects; ok is false when s is nil or does not say.
func RollupSource(s *iceberg.Snapshot) (id, seq int64, ok bool) {
	if s == nil {
		return 0, 0, false
	}
	id, err := strconv.ParseInt(s.Summary[rollup.SummarySource], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	seq, _ = strconv.ParseInt(s.Summary[rollup.SummarySourceSeq], 10, 64)
	return id, seq, true
}

// RefreshRollup brings the rollup table ru of definition d up to date with
// the raw table raw (both reloaded to their newest versions first) — or,
// right after raw's own append, with that append when it folds into the
// rollup as the two Tables hold it (rollup_fold.go: an inline refresh).
func RefreshRollup(ctx context.Context, raw, ru *Table, d rollup.Def, opt RefreshOptions) (*RefreshResult, error) {
	if foldInPlace(raw, ru) {
		res, err := refreshRollup(ctx, raw, ru, d, opt, false)
		if !refreshAgain(err) {
			return res, err
		}
	}
	return refreshRollup(ctx, raw, ru, d, opt, true)
}

// refreshRollup is RefreshRollup; without reload, from the versions the
// Tables hold, and only a fold (else errNoFold).
func refreshRollup(ctx context.Context, raw, ru *Table, d rollup.Def, opt RefreshOptions, reload bool) (*RefreshResult, error) {
	res := &RefreshResult{Rollup: d.Name}
	for _, t := range []*Table{raw, ru} {
		if reload {
			if err := t.loadLatestAfter(ctx); err != nil {
				return res, err
			}
		}
	}
	d, err := followSchema(ctx, raw, ru, d)
	if err != nil {
		return res, err
	}
	res.Version = ru.version.N
	cur := raw.meta.CurrentSnapshot()
	prev, prevSeq, hasPrev := RollupSource(ru.meta.CurrentSnapshot())
	res.Previous, res.Source = prev, prev
	if cur == nil || (hasPrev && prev == cur.SnapshotID) {
		res.Mode = "up-to-date"
		return res, nil
	}
	w := &walk{raw: raw, d: d, dirty: rollup.NewDirty(d.Width), gone: rollup.NewDirty(d.Width), onBatch: opt.OnBatch}
	if ms, err := maintenance.ParseSettings(raw.meta.Properties); err == nil && ms.Retention > 0 {
		w.cut, w.hasCut = raw.env.Now().Add(-ms.Retention).UnixMicro(), true
	}
	target := cur
	batch, err := w.fold(ctx, ru, cur, prev, hasPrev, res) // rollup_fold.go; nil: recompute
	if err == nil && batch == nil && !reload {
		err = errNoFold
	}
	if err != nil {
		return res, err
	}
	switch chain := raw.chainAfter(cur, prev); {
	case batch != nil: // folded: one append of later rows
	case !hasPrev:
		res.Mode = "full"
		w.dirty = nil
	case chain != nil:
		res.Mode = "incremental"
		for i, s := range chain {
			if err := w.snapshot(ctx, s); err != nil {
				return res, err
			}
			res.Snapshots++
			target = s
			if opt.ByteCap > 0 && w.read+w.planned >= opt.ByteCap && i < len(chain)-1 {
				res.CapReached, res.Left = true, len(chain)-1-i
				break
			}
		}
	case prevSeq > 0:
		res.Mode = "by-sequence"
		if err := w.bySequence(ctx, cur, prevSeq); err != nil {
			return res, err
		}
	default:
		res.Mode = "full"
		w.dirty = nil
	}
	if w.dirty != nil && batch == nil {
		if res.Skipped, err = w.dropRetained(ctx, raw, ru); err != nil {
			return res, err
		}
		res.Buckets = w.dirty.Len()
		res.Spans = w.dirty.Spans()
	}
	if batch == nil {
		if batch, err = w.recompute(ctx, target, ru.schema, res); err != nil {
			return res, err
		}
	}
	res.BytesRead = w.read
	res.Rows = batch.Len
	id, seq := target.SnapshotID, target.SequenceNumber
	ar, err := ru.AppendWith(ctx, batch, AppendOptions{
		Summary:    map[string]string{rollup.SummarySource: strconv.FormatInt(id, 10), rollup.SummarySourceSeq: strconv.FormatInt(seq, 10)},
		AllowEmpty: true,
		Check: func(parent *iceberg.Snapshot) error {
			// Another refresh committed since this one read the rollup:
			// its rows may be newer than ours; run again.
			if p, _, ok := RollupSource(parent); ok != hasPrev || p != prev {
				return &rollup.Error{Code: rollup.CodeConflict, Key: d.Name, Msg: fmt.Sprintf("another refresh committed raw snapshot %d first; run the refresh again", p)}
			}
			return nil
		},
	})
	if err != nil {
		return res, rollup.Named(d.Name, err)
	}
	res.Version, res.Committed, res.Source = ar.Version, true, id
	if batch.Len == 0 && res.Mode != "incremental" {
		res.Mode = "empty"
	}
	return res, nil
}

// chainAfter is the snapshots after prev up to cur, oldest first, when
// prev is an ancestor of cur still in the metadata; else nil.
func (tb *Table) chainAfter(cur *iceberg.Snapshot, prev int64) []*iceberg.Snapshot {
	var rev []*iceberg.Snapshot
	for s := cur; s != nil; {
		if s.SnapshotID == prev {
			out := make([]*iceberg.Snapshot, len(rev))
			for i, x := range rev {
				out[len(rev)-1-i] = x
			}
			return out
		}
		rev = append(rev, s)
		if s.ParentSnapshotID == nil {
			return nil
		}
		s = tb.meta.SnapshotByID(*s.ParentSnapshotID)
	}
	return nil
}

// walk collects the keys a refresh recomputes.
type walk struct {
	raw    *Table
	d      rollup.Def
	cut    int64 // the raw retention cut-off, when hasCut
	hasCut bool
	dirty  *rollup.Dirty // nil: every key (a full refresh)
	gone   *rollup.Dirty // keys whose rows something removed: may end with no rows
	read   int64
	// planned: bytes of the files whose buckets were marked from their
	// bounds, counted toward the byte cap (their rows are read by the
	// recompute, not by the walk).
	planned int64
	onBatch func() // RefreshOptions.OnBatch
}

// snapshot adds the keys snapshot s changed.
func (w *walk) snapshot(ctx context.Context, s *iceberg.Snapshot) error {
	tb := w.raw
	if s.Summary["operation"] == "replace" {
		return nil // a compaction: the same deduplicated rows
	}
	ml, err := tb.readManifestList(ctx, s)
	if err != nil {
		return err
	}
	var added []iceberg.DataFile
	removed := map[string]bool{}
	var deletes []iceberg.DataFile
	for _, mf := range ml.Files {
		if mf.AddedSnapshotID != s.SnapshotID {
			continue // carried from an earlier snapshot
		}
		m, err := tb.readManifest(ctx, mf)
		if err != nil {
			return err
		}
		for _, e := range m.Entries {
			if e.SnapshotID != s.SnapshotID {
				continue
			}
			switch {
			case e.Status == iceberg.StatusAdded && e.DataFile.IsDelete():
				deletes = append(deletes, e.DataFile)
			case e.Status == iceberg.StatusAdded:
				added = append(added, e.DataFile)
			case e.Status == iceberg.StatusDeleted && !e.DataFile.IsDelete():
				removed[e.DataFile.Path] = true
			}
		}
	}
	if len(added) == 0 && len(deletes) == 0 {
		return nil // whole files removed only: retention keeps the rollup
	}
	// A file whose time bounds span few buckets marks them from its bounds
	// alone (every series, or the one series its bounds allow); the others'
	// rows are read, key columns only.
	read := map[string]bool{}
	for _, df := range added {
		if !w.fromBounds(&df) {
			read[df.Path] = true
		} else {
			w.planned += df.FileSize // what its recompute will read, about
		}
	}
	if len(read) > 0 {
		if err := w.keys(ctx, s.SnapshotID, read, nil, nil, w.dirty); err != nil {
			return err
		}
	}
	if s.ParentSnapshotID == nil {
		return nil
	}
	parent := *s.ParentSnapshotID
	if len(removed) > 0 {
		if err := w.keys(ctx, parent, removed, nil, nil, w.dirty, w.gone); err != nil {
			return err
		}
	}
	return w.deleteKeys(ctx, parent, deletes)
}

// maxSpanBuckets: a file spanning more buckets than this (late rows mixed
// with current ones) has its rows read instead, so that a few late rows do
// not make a refresh recompute every series over days.
const maxSpanBuckets = 48

// fromBounds marks the buckets of data file df from its bounds, when they
// are narrow enough and none is before the raw retention cut-off (whose
// keys must be known one by one, see dropRetained); false: read its rows.
func (w *walk) fromBounds(df *iceberg.DataFile) bool {
	sch := w.raw.schema
	lo, err1 := iceberg.DecodeValue(schema.Timestamptz, df.Lower[int32(sch.TimeField().ID)])
	hi, err2 := iceberg.DecodeValue(schema.Timestamptz, df.Upper[int32(sch.TimeField().ID)])
	if err1 != nil || err2 != nil {
		return false
	}
	from, to := lo.(int64), hi.(int64)
	width := w.d.Width
	if to < from || (rollup.Bucket(to, width)-rollup.Bucket(from, width))/width >= maxSpanBuckets || (w.hasCut && from < w.cut) {
		return false
	}
	// One series (lower bound = upper bound on every series column): its keys.
	one := make([]any, len(sch.Series))
	for k, c := range sch.Series {
		f := sch.Fields[c]
		l, u := df.Lower[int32(f.ID)], df.Upper[int32(f.ID)]
		if l == nil || string(l) != string(u) {
			one = nil
			break
		}
		v, err := iceberg.DecodeValue(f.Type, l)
		if err != nil {
			one = nil
			break
		}
		one[k] = v
	}
	if one == nil {
		w.dirty.AddSpan(from, to)
		return true
	}
	for b := rollup.Bucket(from, width); b <= to; b += width {
		w.dirty.Add(one, b)
	}
	return true
}

// deleteKeys adds every key of the partitions the delete files touch, as
// of snapshot at (before the deletes).
func (w *walk) deleteKeys(ctx context.Context, at int64, deletes []iceberg.DataFile) error {
	tr := w.raw.schema.Partition
	done := map[int32]bool{}
	for _, df := range deletes {
		if df.OtherPartition {
			return w.keys(ctx, at, nil, nil, nil, w.dirty, w.gone)
		}
		if done[df.Partition] {
			continue
		}
		done[df.Partition] = true
		lo, hi := tr.Range(df.Partition)
		if err := w.keys(ctx, at, nil, &lo, &hi, w.dirty, w.gone); err != nil {
			return err
		}
	}
	return nil
}

// bySequence adds the keys of the live files of cur whose data sequence
// number is past seq (the snapshots between were expired).
func (w *walk) bySequence(ctx context.Context, cur *iceberg.Snapshot, seq int64) error {
	data, dels, err := w.raw.liveEntries(ctx, cur)
	if err != nil {
		return err
	}
	// As in a walk: a newer file of narrow time bounds marks its buckets
	// from them (its rows are read by the recompute anyway); the others'
	// keys are read.
	files := map[string]bool{}
	for _, e := range data {
		if e.SequenceNumber <= seq {
			continue
		}
		if w.fromBounds(&e.DataFile) {
			w.planned += e.DataFile.FileSize
		} else {
			files[e.DataFile.Path] = true
		}
	}
	if len(files) > 0 {
		if err := w.keys(ctx, cur.SnapshotID, files, nil, nil, w.dirty); err != nil {
			return err
		}
	}
	var newer []iceberg.DataFile
	for _, e := range dels {
		if e.SequenceNumber > seq {
			newer = append(newer, e.DataFile)
		}
	}
	return w.deleteKeys(ctx, cur.SnapshotID, newer)
}

// keys adds the (series, bucket) of every stored row of the files (nil:
// all) of snapshot at in [from, to) to each set: one file at a time
// (eachFileRaw), whatever their number.
func (w *walk) keys(ctx context.Context, at int64, files map[string]bool, from, to *int64, sets ...*rollup.Dirty) error {
	return w.eachFileRaw(ctx, at, files, from, to, func(b *rows.Batch) error {
		if w.onBatch != nil {
			w.onBatch()
		}
		for _, s := range sets {
			s.AddRows(b)
		}
		return nil
	})
}

// dropRetained leaves out the changed keys of buckets that start before
// the raw table's retention cut-off and that the rollup already holds:
// their raw partitions may be gone (wholly or in part: a late row for a
// dropped day), and the rollup's row, computed while they were there, is
// better than a recompute from what is left. Such a key the rollup does
// not hold yet is computed from what the raw table has (rows waiting for
// their first refresh while the raw retention waits for the rollups).
func (w *walk) dropRetained(ctx context.Context, raw, ru *Table) (int, error) {
	if !w.hasCut {
		return 0, nil
	}
	cut := w.cut
	old := rollup.NewDirty(w.d.Width)
	w.dirty.Each(func(series []any, bucket int64) {
		if bucket < cut {
			old.Add(series, bucket)
		}
	})
	if old.Len() == 0 {
		return 0, nil
	}
	n := 0
	for _, r := range old.Ranges(ru.schema) {
		from, to := r.From, r.To
		st, err := ru.Scan(ctx, ScanOptions{FromUS: &from, ToUS: &to, Series: r.Series, Columns: []string{rollup.CountColumn}}, func(b *rows.Batch) error {
			ts := b.Cols[b.Schema.Time].Ints
			for i := 0; i < b.Len; i++ {
				if k := rollup.SeriesKey(rollup.SeriesValues(b, i)); old.Has(k, ts[i]) && w.dirty.Take(k, ts[i]) {
					n++
				}
			}
			return nil
		})
		if st != nil {
			w.read += st.BytesRead
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// recompute aggregates the dirty buckets (every bucket when dirty is nil)
// from the deduplicated raw rows as of target.
func (w *walk) recompute(ctx context.Context, target *iceberg.Snapshot, out *schema.Table, res *RefreshResult) (*rows.Batch, error) {
	tb := w.raw
	cols, err := rollup.SourceColumns(tb.schema, w.d) // their names now
	if err != nil {
		return nil, err
	}
	_, _, outSch, err := tb.scanSchemas(ScanOptions{Columns: cols})
	if err != nil {
		return nil, err
	}
	agg, err := rollup.NewAggregator(outSch, out, w.d)
	if err != nil {
		return nil, err
	}
	each := agg.Add
	if w.onBatch != nil {
		each = func(b *rows.Batch) error {
			w.onBatch()
			return agg.Add(b)
		}
	}
	// The files are listed once, over the extent of the ranges; each range
	// is read a few files at a time (rawReader).
	var ranges []rollup.Range
	var from, to *int64
	if w.dirty != nil {
		ranges = w.dirty.Ranges(tb.schema)
		if len(ranges) > 0 {
			from, to = &ranges[0].From, &ranges[len(ranges)-1].To
		}
	}
	var rr *rawReader
	if w.dirty == nil || len(ranges) > 0 {
		if rr, err = w.newRawReader(ctx, target, cols, from, to, each); err != nil {
			return nil, err
		}
		defer func() { w.read += rr.st.BytesRead }()
	}
	if w.dirty == nil {
		if err := rr.read(ctx, nil, nil, nil); err != nil {
			return nil, err
		}
		return agg.Finish()
	}
	agg.Keep(func(k string, b int64) bool { return w.dirty.Take(k, b) || w.dirty.InSpan(b) })
	for _, r := range ranges {
		from, to := r.From, r.To
		if err := rr.read(ctx, &from, &to, r.Series); err != nil {
			return nil, err
		}
	}
	// What is left had no rows: a bucket whose rows were removed gets a
	// row_count 0 row (a key only ever added, then removed, gets none).
	w.dirty.Each(func(series []any, bucket int64) {
		if w.gone.Has(rollup.SeriesKey(series), bucket) {
			agg.Tombstone(series, bucket)
			res.Tombstones++
		}
	})
	return agg.Finish()
}
