package table

import (
	"context"
	"errors"
	"strings"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// The fold: a refresh right after an append (an inline refresh) whose rows
// are, series by series, all later than the series' last row before it —
// the usual time-series append — need not read the raw table at all. No
// new row duplicates an old one, so a bucket's new aggregate is its stored
// rollup row folded with the new rows (rollup.Aggregator.Seed), and only
// one stored row can be touched per series: that of the bucket of the
// series' last row before the append, which is the series' latest bucket
// in the rollup table, so the rollup table's own last-value index holds it
// (Latest: kept in memory by the Table that committed the last refresh). A
// bucket after it had no rows: its aggregate is the new rows'.
//
// The rows come from memory: the Table that appended keeps them (its
// sorted, deduplicated batch, as written) with the raw last-value index of
// the snapshot it appended to, until its next append, when the table
// defines a rollup. Whatever else happened falls back to the recompute:
// a refresh from another Table or process, another snapshot since the
// rollup's source (another writer's, a compaction, a delete), a row at or
// before its series' last one (late, or a duplicate), a bucket before the
// raw retention cut-off (dropRetained's rule), a rollup table whose latest
// bucket of a series is not the one expected, a float sum the fold would
// round differently (Aggregator.FoldLossy).

// An inline refresh — by the raw Table right after its append, into a
// rollup Table whose snapshot reflects the append's parent — folds from
// the versions the two Tables hold, without asking the store for newer
// ones: the rollup then reflects the append (a later refresh takes what
// other writers committed since). Its commit checks, as every refresh's,
// that the rollup still reflects that parent; when another refresh came
// first (ROLLUP_CONFLICT), or the append does not fold, the refresh runs
// again from the newest versions.

// errNoFold: a refresh from the versions held found no fold to make.
var errNoFold = errors.New("rollup refresh: not a fold")

// foldInPlace says whether raw's last append is its current snapshot and
// ru reflects the snapshot before it.
func foldInPlace(raw, ru *Table) bool {
	m, cur := raw.lastAppend, raw.meta.CurrentSnapshot()
	if m == nil || cur == nil || cur.SnapshotID != m.snapID {
		return false
	}
	prev, _, ok := RollupSource(ru.meta.CurrentSnapshot())
	return ok && prev == m.parentID
}

// refreshAgain says whether a refresh from the versions held must run
// again from the newest ones.
func refreshAgain(err error) bool {
	return errors.Is(err, errNoFold) || isRollupConflict(err)
}

// isRollupConflict says whether err is a refresh that lost to another
// refresh of the same rollup (ROLLUP_CONFLICT): run again, it starts from
// the winner.
func isRollupConflict(err error) bool {
	var re *rollup.Error
	return errors.As(err, &re) && re.Code == rollup.CodeConflict
}

// appendMemo is what a Table's last append committed, for a fold.
type appendMemo struct {
	snapID, parentID int64
	parentIdx        *rows.Batch // the last-value index in force at the parent
	rows             *rows.Batch // the appended rows, sorted by (partition, series, time), deduplicated
}

// newAppendMemo is the memo of an append of sorted as snapshot snapID on
// parent, whose index is parentIdx (noIndex: why there is none); nil when
// no fold could use it: the table defines no rollup, or the index is not
// known.
func newAppendMemo(tb *Table, parent *iceberg.Snapshot, parentIdx *rows.Batch, noIndex error, sorted *rows.Batch, snapID int64) *appendMemo {
	if parent == nil || parentIdx == nil || noIndex != nil || sorted == nil || sorted.Len == 0 || !definesRollup(tb.meta.Properties) {
		return nil
	}
	return &appendMemo{snapID: snapID, parentID: parent.SnapshotID, parentIdx: parentIdx, rows: sorted}
}

// KeepsAppendRows says whether tb keeps rows of its last append for a fold.
func (tb *Table) KeepsAppendRows() bool { return tb.lastAppend != nil }

// DropAppendRows forgets the rows tb keeps from its last append for a
// fold (a refresh after it recomputes instead) and returns about how many
// bytes of them this frees: the WASM bridge, whose collector runs only when
// told, drops them before decoding the next batch and collects them once
// they are worth it, so that they do not sit under that batch's peak.
func (tb *Table) DropAppendRows() int64 {
	m := tb.lastAppend
	if m == nil {
		return 0
	}
	tb.lastAppend = nil
	return batchBytes(m.rows) + batchBytes(m.parentIdx)
}

// batchBytes is about what b's value slices take (string contents, often
// shared, not counted).
func batchBytes(b *rows.Batch) int64 {
	var n int64
	for i := range b.Cols {
		c := &b.Cols[i]
		n += int64(cap(c.Ints))*8 + int64(cap(c.Floats))*8 + int64(cap(c.Strs))*16 + int64(cap(c.Bools)) + int64(cap(c.Nulls))
	}
	return n
}

// definesRollup says whether props define a rollup (its bucket width).
func definesRollup(props map[string]string) bool {
	for k := range props {
		if strings.HasPrefix(k, rollup.PropPrefix) && strings.HasSuffix(k, "."+rollup.SuffixEvery) {
			return true
		}
	}
	return false
}

// fold returns the rollup rows of the refresh from the rollup's source
// prev to cur by folding the append cur into the stored rows; nil when
// the fold does not apply (the recompute runs).
func (w *walk) fold(ctx context.Context, ru *Table, cur *iceberg.Snapshot, prev int64, hasPrev bool, res *RefreshResult) (*rows.Batch, error) {
	raw := w.raw
	m := raw.lastAppend
	if !hasPrev || m == nil || m.snapID != cur.SnapshotID || m.parentID != prev ||
		cur.ParentSnapshotID == nil || *cur.ParentSnapshotID != prev || !sameSchema(m.rows.Schema, raw.schema) {
		return nil, nil
	}
	need, ok := w.foldable(m)
	if !ok {
		return nil, nil
	}
	// The stored rows of the buckets the series had rows in already.
	var stored *rows.Batch
	at := map[string]int{}
	if len(need) > 0 {
		idx, err := ru.Latest(ctx)
		if errors.Is(err, ErrUnsupportedTable) {
			return nil, nil // no index over the rollup table (another engine's deletes)
		}
		if err != nil {
			return nil, err
		}
		bt, counts := idx.Cols[idx.Schema.Time].Ints, idx.Cols[idx.Schema.Index(rollup.CountColumn)].Ints
		for i := 0; i < idx.Len; i++ {
			k := rollup.SeriesKey(rollup.SeriesValues(idx, i))
			if bk, ok := need[k]; ok {
				if bt[i] != bk || counts[i] <= 0 {
					return nil, nil // not the bucket of the series' last row: the rollup lags or was trimmed
				}
				at[k] = i
			}
		}
		if len(at) != len(need) {
			return nil, nil
		}
		stored = idx
	}
	agg, err := rollup.NewAggregator(m.rows.Schema, ru.schema, w.d)
	if err != nil {
		return nil, err
	}
	agg.Seed(func(skey string, bucket int64) (*rows.Batch, int, bool) {
		i, ok := at[skey]
		if !ok || need[skey] != bucket {
			return nil, 0, false
		}
		return stored, i, true
	})
	if err := agg.Add(m.rows); err != nil {
		return nil, nil // an overflowing sum: the recompute says so
	}
	out, err := agg.Finish()
	if err != nil {
		return nil, nil
	}
	if stored != nil {
		bt := out.Cols[out.Schema.Time].Ints
		for j := 0; j < out.Len; j++ {
			k := rollup.SeriesKey(rollup.SeriesValues(out, j))
			if i, ok := at[k]; ok && need[k] == bt[j] && agg.FoldLossy(out, j, stored, i) {
				return nil, nil
			}
		}
	}
	res.Mode, res.Snapshots, res.Buckets = "fold", 1, out.Len
	return out, nil
}

// foldable checks the appended rows: each series' rows later than its last
// row before the append, each (series, bucket) in one run of rows (the
// batch is sorted by partition first), no bucket before the retention
// cut-off. need maps each series whose first new row falls in the bucket
// of its last row before to that bucket: the stored row to fold into.
func (w *walk) foldable(m *appendMemo) (need map[string]int64, ok bool) {
	b, idx, width := m.rows, m.parentIdx, w.d.Width
	last := make(map[string]int64, idx.Len)
	it := idx.Cols[idx.Schema.Time].Ints
	for i := 0; i < idx.Len; i++ {
		last[rollup.SeriesKey(rollup.SeriesValues(idx, i))] = it[i]
	}
	need = map[string]int64{}
	lastBucket := map[string]int64{} // the last bucket of each series' earlier runs
	ts := b.Cols[b.Schema.Time].Ints[:b.Len]
	for i := 0; i < b.Len; {
		j := i + 1
		for j < b.Len && sameSeriesRow(b, i, j) {
			if ts[j] <= ts[j-1] {
				return nil, false // not sorted and deduplicated: never from an append
			}
			j++
		}
		first := rollup.Bucket(ts[i], width)
		if w.hasCut && first < w.cut {
			return nil, false
		}
		k := rollup.SeriesKey(rollup.SeriesValues(b, i))
		if lb, seen := lastBucket[k]; seen {
			if first <= lb {
				return nil, false // a bucket split over two runs
			}
		} else if l, had := last[k]; had {
			if ts[i] <= l {
				return nil, false // a late row or a duplicate
			}
			if lb := rollup.Bucket(l, width); lb == first {
				need[k] = lb
			}
		}
		lastBucket[k] = rollup.Bucket(ts[j-1], width)
		i = j
	}
	return need, true
}

// sameSeriesRow says whether rows i and j of b are of one series.
func sameSeriesRow(b *rows.Batch, i, j int) bool {
	for _, s := range b.Schema.Series {
		c := &b.Cols[s]
		if b.Schema.Fields[s].Type == schema.String {
			if c.Strs[i] != c.Strs[j] {
				return false
			}
		} else if c.Ints[i] != c.Ints[j] {
			return false
		}
	}
	return true
}
