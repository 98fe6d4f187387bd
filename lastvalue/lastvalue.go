// Package lastvalue maintains the last-value index: for every series, its
// latest row (greatest time, then greatest _ingest_ts). The index is a small
// Parquet file with the table's columns, one row per series sorted by the
// series columns, immutable, written by each snapshot that changes it (as
// the blob of a Puffin file listed in the table's statistics: package table)
// and named in that snapshot's summary, so "latest value of each series" is
// one read.
//
//	idx := lastvalue.Merge(prev, appended) // prev may be nil
//	data, err := lastvalue.Encode(idx, opts)
package lastvalue

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// SummaryKey is the snapshot-summary property naming the index in force
// (read after the table's statistics entry; kept for older versions).
// persisted: must not change.
const SummaryKey = "timelake.last-value-index"

type pick struct {
	b *rows.Batch
	i int
}

// Merge returns the index after appended: prev's rows and appended's, one per
// series, the latest winning: the greater time, then rows.Rank with the
// appended rows' data sequence numbers above prev's (both with _ingest_ts:
// the greater, a tie to the appended row; either without: the appended
// row, the later commit). Within a batch (one sequence number) a row with
// _ingest_ts beats one without, and rows of equal rank keep the last. prev may be nil. Both batches must
// share a schema.
func Merge(prev, appended *rows.Batch) *rows.Batch {
	// Both in series order, the usual case (an index is written sorted, and
	// an append's rows are sorted by series before they reach here): one
	// pass, no keys built, no sort.
	pw, aw := winnersOf(prev, false), winnersOf(appended, true)
	if inSeriesOrder(prev, pw) && inSeriesOrder(appended, aw) {
		return mergeInOrder(prev, pw, appended, aw)
	}
	return mergeByKey(prev, pw, appended, aw)
}

// mergeByKey is Merge for batches in any order, given their runs' winners
// (pw, aw): each winner by its series key in a map, the picks sorted by
// series at the end.
func mergeByKey(prev *rows.Batch, pw []int, appended *rows.Batch, aw []int) *rows.Batch {
	t := appended.Schema
	// Keys are built in a reused buffer; a lookup with string(kb) does not
	// allocate, so only a new series does.
	best := map[string]*pick{}
	var kb []byte
	wins := func(b *rows.Batch, i int, cur *pick, later bool) bool {
		return replaces(t, b, i, cur.b, cur.i, later)
	}
	consider := func(b *rows.Batch, ws []int, later bool) {
		// A sorted batch holds each series in runs of consecutive rows: the
		// run's own winner is found first, by the same rule, so the key is
		// built and looked up once per run, not once per row (the rule is a
		// maximum with a fixed tie-break, so folding a run first gives the
		// same pick as row by row).
		for _, w := range ws {
			kb = appendSeriesKey(kb[:0], b, w)
			cur := best[string(kb)]
			if cur == nil {
				best[string(kb)] = &pick{b, w}
			} else if wins(b, w, cur, later) {
				*cur = pick{b, w}
			}
		}
	}
	consider(prev, pw, false)
	consider(appended, aw, true)
	picks := make([]pick, 0, len(best))
	for _, p := range best {
		picks = append(picks, *p)
	}
	slices.SortFunc(picks, func(a, b pick) int { return CompareSeries(a.b, a.i, b.b, b.i) })
	out := &rows.Batch{Schema: t, Cols: make([]rows.Column, len(t.Fields))}
	for _, p := range picks {
		appendRow(out, p.b, p.i)
	}
	return out
}

// replaces says whether row i of b replaces row j of cur as its series'
// latest: a later time, then a later _ingest_ts; on a full tie the later
// batch's row (later: b is the later batch).
func replaces(t *schema.Table, b *rows.Batch, i int, cur *rows.Batch, j int, later bool) bool {
	c := cmp.Compare(b.Cols[t.Time].Ints[i], cur.Cols[t.Time].Ints[j])
	if c == 0 && t.Ingest >= 0 {
		if bi, ci := &b.Cols[t.Ingest], &cur.Cols[t.Ingest]; !bi.IsNull(i) && !ci.IsNull(j) {
			c = cmp.Compare(bi.Ints[i], ci.Ints[j])
		}
	} // either without _ingest_ts (or a table without it): the later commit (rows.Rank by sequence number)
	return c > 0 || (c == 0 && later)
}

// winnersOf is runWinners(b, later); none for a nil batch.
func winnersOf(b *rows.Batch, later bool) []int {
	if b == nil {
		return nil
	}
	return runWinners(b, later)
}

// inSeriesOrder says whether each of b's run winners ws sorts strictly after
// the one before: b in series order, each series once.
func inSeriesOrder(b *rows.Batch, ws []int) bool {
	for k := 1; k < len(ws); k++ {
		if CompareSeries(b, ws[k-1], b, ws[k]) >= 0 {
			return false
		}
	}
	return true
}

// mergeInOrder merges two lists of winners in series order (prev's rows pw,
// appended's aw) by Merge's rule.
func mergeInOrder(prev *rows.Batch, pw []int, appended *rows.Batch, aw []int) *rows.Batch {
	t := appended.Schema
	out := &rows.Batch{Schema: t, Cols: make([]rows.Column, len(t.Fields))}
	i, j := 0, 0
	for i < len(pw) || j < len(aw) {
		c := 1 // only appended's left
		if j == len(aw) {
			c = -1
		} else if i < len(pw) {
			c = CompareSeries(prev, pw[i], appended, aw[j])
		}
		switch {
		case c < 0:
			appendRow(out, prev, pw[i])
			i++
		case c > 0:
			appendRow(out, appended, aw[j])
			j++
		default:
			if replaces(t, appended, aw[j], prev, pw[i], true) {
				appendRow(out, appended, aw[j])
			} else {
				appendRow(out, prev, pw[i])
			}
			i, j = i+1, j+1
		}
	}
	return out
}

// Drop returns idx without the series whose latest time is before cutoff
// (microseconds): retention forgets them.
func Drop(idx *rows.Batch, cutoff int64) *rows.Batch {
	out := &rows.Batch{Schema: idx.Schema, Cols: make([]rows.Column, len(idx.Schema.Fields))}
	for i := 0; i < idx.Len; i++ {
		if idx.Cols[idx.Schema.Time].Ints[i] >= cutoff {
			appendRow(out, idx, i)
		}
	}
	return out
}

// CompareSeries orders rows by their series columns, in key order.
func CompareSeries(a *rows.Batch, i int, b *rows.Batch, j int) int {
	t := a.Schema
	for _, s := range t.Series {
		var c int
		if t.Fields[s].Type == schema.String {
			c = strings.Compare(a.Cols[s].Strs[i], b.Cols[s].Strs[j])
		} else {
			c = cmp.Compare(a.Cols[s].Ints[i], b.Cols[s].Ints[j])
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// runWinners splits b into runs of consecutive rows of one series and
// returns each run's winner by Merge's rule: the greatest time, then
// _ingest_ts; on a full tie the later row when later is set, else the
// earlier. It works a column at a time in tight loops with no call per
// row, which WebAssembly pays dearly for.
func runWinners(b *rows.Batch, later bool) []int {
	n := b.Len
	if n == 0 {
		return nil
	}
	t := b.Schema
	newRun := make([]bool, n)
	for _, s := range t.Series {
		if t.Fields[s].Type == schema.String {
			col := b.Cols[s].Strs[:n]
			for j := 1; j < n; j++ {
				x, y := col[j-1], col[j]
				// Equal series values mostly share their bytes (interned or
				// sliced from one dictionary): the pointers are compared
				// before the bytes, sparing a memequal call.
				if len(x) != len(y) || (unsafe.StringData(x) != unsafe.StringData(y) && x != y) {
					newRun[j] = true
				}
			}
		} else {
			col := b.Cols[s].Ints[:n]
			for j := 1; j < n; j++ {
				if col[j-1] != col[j] {
					newRun[j] = true
				}
			}
		}
	}
	times := b.Cols[t.Time].Ints[:n]
	var out []int
	w := 0
	if ic := b.IngestColumn(); ic.Nulls != nil {
		// Some _ingest_ts are null (another writer's rows, or every row of a
		// table without the column): they rank below any value.
		for j := 1; j < n; j++ {
			if newRun[j] {
				out = append(out, w)
				w = j
				continue
			}
			if tj, tw := times[j], times[w]; tj > tw || (tj == tw && func() bool { c := compareIngest(ic, j, ic, w); return c > 0 || (c == 0 && later) }()) {
				w = j
			}
		}
		return append(out, w)
	}
	ingest := b.Cols[t.Ingest].Ints[:n]
	for j := 1; j < n; j++ {
		if newRun[j] {
			out = append(out, w)
			w = j
			continue
		}
		if tj, tw := times[j], times[w]; tj > tw || (tj == tw && (ingest[j] > ingest[w] || (ingest[j] == ingest[w] && later))) {
			w = j
		}
	}
	return append(out, w)
}

// appendSeriesKey renders row i's series values as a map key (length-prefixed,
// so no two different keys collide).
func appendSeriesKey(kb []byte, b *rows.Batch, i int) []byte {
	for _, s := range b.Schema.Series {
		if b.Schema.Fields[s].Type == schema.String {
			v := b.Cols[s].Strs[i]
			kb = strconv.AppendInt(kb, int64(len(v)), 10)
			kb = append(kb, ':')
			kb = append(kb, v...)
		} else {
			kb = strconv.AppendInt(kb, b.Cols[s].Ints[i], 10)
			kb = append(kb, ';')
		}
	}
	return kb
}

// appendRow copies row i of src to the end of dst.
func appendRow(dst, src *rows.Batch, i int) {
	for c, f := range src.Schema.Fields {
		d, s := &dst.Cols[c], &src.Cols[c]
		null := s.IsNull(i)
		switch {
		case f.Type.IsInteger():
			d.Ints = append(d.Ints, s.Ints[i])
		case f.Type.IsFloat():
			d.Floats = append(d.Floats, s.Floats[i])
		case f.Type == schema.Boolean:
			d.Bools = append(d.Bools, s.Bools[i])
		default:
			d.Strs = append(d.Strs, s.Strs[i])
		}
		if null && d.Nulls == nil {
			d.Nulls = make([]bool, dst.Len, dst.Len+1)
		}
		if d.Nulls != nil {
			d.Nulls = append(d.Nulls, null)
		}
	}
	dst.Len++
}
