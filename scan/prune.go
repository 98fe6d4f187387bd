package scan

import (
	"cmp"
	"slices"
	"time"
)

func formatNanos(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.999999999Z07:00")
}

func formatMicros(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.999999Z07:00")
}

// RowRange is rows [From, To) of a row group.
type RowRange struct{ From, To int64 }

// PageColumn is what a row group's page index says of one column: each
// page's first row (offset index) and bounds (column index; a nil bound is
// unknown), and which pages hold only nulls.
type PageColumn struct {
	Name      string // a series column's name; "" for the time column
	FirstRows []int64
	Min, Max  [][]byte
	NullPages []bool
}

// PageRanges returns the rows of a row group of numRows rows that may pass
// the filter by the page indexes of cols (the time column, series
// columns): the rows of pages every column's bounds allow, in order,
// adjacent ranges joined. A column whose index is inconsistent is ignored.
func (f *Filter) PageRanges(numRows int64, cols []PageColumn) []RowRange {
	out := []RowRange{{0, numRows}}
	for _, pc := range cols {
		n := len(pc.FirstRows)
		if n == 0 || len(pc.Min) != n || len(pc.Max) != n || (pc.NullPages != nil && len(pc.NullPages) != n) {
			continue
		}
		var sf *SeriesFilter
		if pc.Name != "" {
			for k := range f.Series {
				if f.Series[k].Name == pc.Name {
					sf = &f.Series[k]
				}
			}
			if sf == nil {
				continue
			}
		}
		var keep []RowRange
		for p := 0; p < n; p++ {
			from, to := pc.FirstRows[p], numRows
			if p+1 < n {
				to = pc.FirstRows[p+1]
			}
			if to <= from {
				continue
			}
			ok := true
			switch b := (Bound{pc.Min[p], pc.Max[p]}); {
			case pc.NullPages != nil && pc.NullPages[p]:
				ok = false // time and series columns are required: no row of a null page passes
			case b.Lo == nil || b.Hi == nil:
			case sf != nil:
				ok = sf.mayMatch(b)
			default:
				ok = f.MayMatch(b, nil)
			}
			if ok && sf == nil && f.OneSeries && f.outsideRun(numRows, cols, pc, p) {
				ok = false
			}
			if ok {
				keep = appendRange(keep, RowRange{from, to})
			}
		}
		out = intersect(out, keep)
	}
	return out
}

// outsideRun reports, for a one-series filter, whether time page p (of
// column tc) holds no row of the series within the time range, judged by
// the pages next to it: when the time page after p holds only the series
// (every series column's pages over it say so), the series' rows in p come
// before that page's first row, so their times are at most its minimum;
// likewise, when the page before p holds only the series, the series' rows
// in p have times at least its maximum. This drops the page where the
// series starts (or ends) that min/max alone keep: it holds the previous
// series' late times and this one's early times.
func (f *Filter) outsideRun(numRows int64, cols []PageColumn, tc PageColumn, p int) bool {
	n := len(tc.FirstRows)
	end := func(q int) int64 {
		if q+1 < n {
			return tc.FirstRows[q+1]
		}
		return numRows
	}
	if q := p + 1; q < n && tc.Min[q] != nil && f.HasFrom && f.only(cols, tc.FirstRows[q], end(q)) {
		if lo, ok := decodeInt(tc.Min[q]); ok && lo < f.From {
			return true
		}
	}
	if q := p - 1; q >= 0 && tc.Max[q] != nil && f.HasTo && f.only(cols, tc.FirstRows[q], end(q)) {
		if hi, ok := decodeInt(tc.Max[q]); ok && hi >= f.To {
			return true
		}
	}
	return false
}

// only reports whether rows [from, to) hold only the filter's one series,
// by the series columns' page bounds.
func (f *Filter) only(cols []PageColumn, from, to int64) bool {
	if to <= from {
		return false
	}
	for k := range f.Series {
		sf := &f.Series[k]
		var pc *PageColumn
		for c := range cols {
			if cols[c].Name == sf.Name {
				pc = &cols[c]
			}
		}
		if pc == nil || len(pc.Min) != len(pc.FirstRows) || len(pc.Max) != len(pc.FirstRows) || len(pc.FirstRows) == 0 {
			return false
		}
		first, last := Pages(pc.FirstRows, from, to)
		for q := first; q < last && q < len(pc.FirstRows); q++ {
			if !sf.only(Bound{pc.Min[q], pc.Max[q]}) {
				return false
			}
		}
	}
	return true
}

func appendRange(rs []RowRange, r RowRange) []RowRange {
	if k := len(rs); k > 0 && rs[k-1].To >= r.From {
		rs[k-1].To = max(rs[k-1].To, r.To)
		return rs
	}
	return append(rs, r)
}

// intersect is the rows in both sorted, disjoint range lists.
func intersect(a, b []RowRange) []RowRange {
	var out []RowRange
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i].From, b[j].From), min(a[i].To, b[j].To)
		if lo < hi {
			out = appendRange(out, RowRange{lo, hi})
		}
		if a[i].To < b[j].To {
			i++
		} else {
			j++
		}
	}
	return out
}

// Windows splits row ranges into windows of at most n rows.
func Windows(rs []RowRange, n int64) []RowRange {
	var out []RowRange
	for _, r := range rs {
		for a := r.From; a < r.To; a += n {
			out = append(out, RowRange{a, min(a+n, r.To)})
		}
	}
	return out
}

// ByteRange is bytes [Off, Off+Len) of a file.
type ByteRange struct{ Off, Len int64 }

// End is the offset after the range.
func (r ByteRange) End() int64 { return r.Off + r.Len }

// Coalesce sorts the ranges and joins those that overlap or lie at most gap
// bytes apart: each result is one request.
func Coalesce(rs []ByteRange, gap int64) []ByteRange {
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b ByteRange) int { return cmp.Compare(a.Off, b.Off) })
	var out []ByteRange
	for _, r := range s {
		if r.Len <= 0 {
			continue
		}
		if k := len(out); k > 0 && r.Off <= out[k-1].End()+gap {
			out[k-1].Len = max(out[k-1].End(), r.End()) - out[k-1].Off
			continue
		}
		out = append(out, r)
	}
	return out
}

// CoalesceBounded is Coalesce bounded by the bytes the requests carry
// that no range asked for: gaps of at most gap bytes are joined, the
// smallest first, while the gap bytes joined stay within the ranges' own
// bytes, so the requests carry at most twice what was asked. Joining
// saves a round trip; past that bound, the bytes cost more than it.
func CoalesceBounded(rs []ByteRange, gap int64) []ByteRange {
	runs := Coalesce(rs, 0)
	if len(runs) < 2 {
		return runs
	}
	var asked int64
	for _, r := range runs {
		asked += r.Len
	}
	idx := make([]int, len(runs)-1) // gap k lies between runs k and k+1
	for k := range idx {
		idx[k] = k
	}
	gapOf := func(k int) int64 { return runs[k+1].Off - runs[k].End() }
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(gapOf(a), gapOf(b)) })
	join := make([]bool, len(runs)-1)
	var spent int64
	for _, k := range idx {
		g := gapOf(k)
		if g > gap || spent+g > asked {
			break
		}
		spent += g
		join[k] = true
	}
	out := []ByteRange{runs[0]}
	for k := 1; k < len(runs); k++ {
		if join[k-1] {
			out[len(out)-1].Len = runs[k].End() - out[len(out)-1].Off
			continue
		}
		out = append(out, runs[k])
	}
	return out
}

// Pages returns the pages [first, last) of a column chunk holding rows
// [from, to), given each page's first row.
func Pages(firstRows []int64, from, to int64) (first, last int) {
	first, _ = slices.BinarySearch(firstRows, from+1)
	first = max(first-1, 0)
	last, _ = slices.BinarySearch(firstRows, to)
	return first, max(last, first+1)
}
