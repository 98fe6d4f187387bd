package rollup

import (
	"math"

	"github.com/timelake/timelake/rows"
)

// Folding: when the rows added to a key are all later than every row the
// key had, the key's new aggregate is its stored rollup row folded with
// the new rows, and the old rows need not be read again. The Aggregator
// then starts the key from the stored row instead of from nothing (Seed)
// and adds the new rows as usual:
//
//	count      the stored count, plus the new non-null values
//	sum        the stored sum, plus the new values (a float sum goes on
//	           with the compensated sum from the stored, rounded value: equal
//	           to the recompute's within an ulp or so of the sum; ±Inf and
//	           NaN stay what they are, as in the recompute)
//	min, max   the stored extreme, against the new values (the same
//	           comparison, NaN above every number; on a tie the stored one
//	           stays, as the earlier row does in a recompute)
//	first      the stored first (the key's earliest row is an old one)
//	last       the new last (the key's latest row is a new one)
//	row_count  the stored count plus the new rows
//
// A key whose stored row has row_count 0 (a tombstone) starts from nothing.
// The caller must make sure that the new rows add no duplicate of an old
// row and that the stored row is the key's aggregate as of the rows before
// (package table checks both, else recomputes).

// SeedFunc finds the stored rollup row of a key: a batch of the rollup
// schema (the Aggregator's out) and the row's index; ok false when there
// is none.
type SeedFunc func(skey string, bucket int64) (b *rows.Batch, i int, ok bool)

// Seed makes every key start from the stored row seed finds (nil: none).
func (a *Aggregator) Seed(seed SeedFunc) { a.seedFn = seed }

// seed starts the open key (bucket bk) from its stored row, if any.
func (a *Aggregator) seed(bk int64) {
	b, i, ok := a.seedFn(a.skey, bk)
	if !ok {
		return
	}
	n := b.Cols[a.out.Index(CountColumn)].Ints[i]
	if n <= 0 {
		return // a tombstone: the bucket had no rows
	}
	a.nrows = n
	for k := range a.cols {
		c := &a.cols[k]
		col := &b.Cols[a.outCols[k]]
		st := &a.st[k]
		null := col.IsNull(i)
		switch c.Func {
		case Count:
			st.n = col.Ints[i]
		case Sum:
			if null {
				break // no non-null value yet
			}
			st.n = 1 // only n > 0 matters to a sum
			if c.SourceType.IsFloat() {
				st.sumF = col.Floats[i]
			} else {
				st.sumI = col.Ints[i]
			}
		case Min, Max:
			if !null {
				st.n = 1 // the next value is compared with ext
				st.ext = valueAt(col, c.Type, i)
			}
		case First:
			st.first = valueAt(col, c.Type, i)
			st.rows = n
		case Last:
			st.last = valueAt(col, c.Type, i)
			st.rows = n
		}
	}
}

// FoldLossy says whether row j of got (a folded key's row) lost precision
// to a float sum's cancellation against its stored row i: a fold adds the
// new values to the stored, rounded sum, whose rounding (half an ulp of
// the stored sum) stays within 1e-12 of the result unless the result is
// far smaller than the stored sum. Then the key must be recomputed.
func (a *Aggregator) FoldLossy(got *rows.Batch, j int, stored *rows.Batch, i int) bool {
	for k := range a.cols {
		c := &a.cols[k]
		if c.Func != Sum || !c.SourceType.IsFloat() {
			continue
		}
		s, g := &stored.Cols[a.outCols[k]], &got.Cols[a.outCols[k]]
		if s.IsNull(i) || g.IsNull(j) {
			continue
		}
		sv, gv := math.Abs(s.Floats[i]), math.Abs(g.Floats[j])
		if !math.IsInf(sv, 0) && !math.IsNaN(sv) && gv*0x1p10 < sv {
			return true
		}
	}
	return false
}
