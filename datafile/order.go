package datafile

import (
	"cmp"
	"slices"
	"strings"
	"unsafe"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// The merge order: (series…, time), checked on every row a cursor serves.

// keepLast returns a one-row cursor holding the window's last key, to check
// order across windows.
func (w *Cursor) keepLast() *Cursor {
	last := &Cursor{sch: w.sch, Cols: make([]rows.Column, len(w.Cols)), N: 1}
	for _, s := range append(append([]int(nil), w.sch.Series...), w.sch.Time) {
		c := &w.Cols[s]
		if w.sch.Fields[s].Type == schema.String {
			last.Cols[s].Strs = []string{c.Strs[w.N-1]}
		} else {
			last.Cols[s].Ints = []int64{c.Ints[w.N-1]}
		}
	}
	return last
}

// checkSorted refuses a file whose rows are not strictly increasing in
// (series…, time): merging it would put rows out of order. It runs over
// every row the merge reads, so it compares column by column rather than
// row by row through compareKeys.
func (w *Cursor) checkSorted(prev *Cursor) error {
	if prev != nil && CompareKeys(w.sch, prev, 0, w, 0) >= 0 {
		return w.unsorted(w.Rows - int64(w.N))
	}
	if w.N < 2 {
		return nil
	}
	t := w.Cols[w.sch.Time].Ints[:w.N]
	if len(w.sch.Series) == 1 && w.sch.Fields[w.sch.Series[0]].Type == schema.String {
		// One string series column (the usual table): one pass, no scratch.
		v := w.Cols[w.sch.Series[0]].Strs[:w.N]
		for r := 1; r < len(t); r++ {
			if x, y := v[r-1], v[r]; sameString(x, y) {
				if t[r-1] < t[r] {
					continue
				}
			} else if c := strings.Compare(x, y); c < 0 || (c == 0 && t[r-1] < t[r]) {
				continue
			}
			return w.unsorted(w.Rows - int64(w.N) + int64(r))
		}
		return nil
	}
	// order[r-1] is how row r-1 compares with row r on the series so far:
	// 0 while they are equal. The first series column sets it; the others
	// only where it is still 0.
	order := slices.Grow(w.order[:0], w.N-1)[:w.N-1]
	w.order = order
	for k, s := range w.sch.Series {
		if w.sch.Fields[s].Type == schema.String {
			v := w.Cols[s].Strs[:w.N]
			for r := 1; r < len(v); r++ {
				if k > 0 && order[r-1] != 0 {
					continue
				}
				var o int8
				if x, y := v[r-1], v[r]; !sameString(x, y) {
					o = int8(strings.Compare(x, y))
				}
				order[r-1] = o
			}
		} else {
			v := w.Cols[s].Ints[:w.N]
			for r := 1; r < len(v); r++ {
				if k == 0 || order[r-1] == 0 {
					order[r-1] = int8(cmp.Compare(v[r-1], v[r]))
				}
			}
		}
	}
	if len(w.sch.Series) == 0 {
		clear(order)
	}
	for r := 1; r < len(t); r++ {
		if o := order[r-1]; o > 0 || (o == 0 && t[r-1] >= t[r]) {
			return w.unsorted(w.Rows - int64(w.N) + int64(r))
		}
	}
	return nil
}

// CompareKeys orders row i of a and row j of b by (series…, time).
func CompareKeys(sch *schema.Table, a *Cursor, i int, b *Cursor, j int) int {
	for _, s := range sch.Series {
		var c int
		if sch.Fields[s].Type == schema.String {
			x, y := a.Cols[s].Strs[i], b.Cols[s].Strs[j]
			if sameString(x, y) {
				continue
			}
			c = strings.Compare(x, y)
		} else {
			c = cmp.Compare(a.Cols[s].Ints[i], b.Cols[s].Ints[j])
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(a.Cols[sch.Time].Ints[i], b.Cols[sch.Time].Ints[j])
}

// sameString reports whether a and b are the same bytes: equal strings of
// one dictionary page share them, and this sees it without the call (and, in
// WebAssembly, the byte loop) behind ==. Strings from different dictionaries
// still need strings.Compare.
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}
