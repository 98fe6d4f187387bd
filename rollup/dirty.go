package rollup

import (
	"encoding/binary"
	"maps"
	"slices"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// SeriesValues are row i's series values (int64 or string), in key order.
func SeriesValues(b *rows.Batch, i int) []any {
	out := make([]any, len(b.Schema.Series))
	for k, s := range b.Schema.Series {
		if b.Schema.Fields[s].Type == schema.String {
			out[k] = b.Cols[s].Strs[i]
		} else {
			out[k] = b.Cols[s].Ints[i]
		}
	}
	return out
}

// SeriesKey encodes series values as one comparable string.
func SeriesKey(vals []any) string {
	var b []byte
	for _, v := range vals {
		switch v := v.(type) {
		case string:
			b = binary.AppendUvarint(append(b, 's'), uint64(len(v)))
			b = append(b, v...)
		case int64:
			b = binary.BigEndian.AppendUint64(append(b, 'i'), uint64(v))
		}
	}
	return string(b)
}

// Dirty is a set of (series, bucket) keys a refresh recomputes, and
// spans of buckets in which every series is (from a file's time bounds,
// without reading its rows).
type Dirty struct {
	width  int64
	series map[string][]any          // series key → its values
	keys   map[string]map[int64]bool // series key → buckets
	n      int
	spans  [][2]int64 // [from, to), bucket-aligned
}

// AddSpan marks every series' buckets over [from, to] (times in
// microseconds, to inclusive: a file's time bounds).
func (d *Dirty) AddSpan(from, to int64) {
	d.spans = append(d.spans, [2]int64{Bucket(from, d.width), Bucket(to, d.width) + d.width})
}

// InSpan reports whether bucket lies in a span.
func (d *Dirty) InSpan(bucket int64) bool {
	for _, s := range d.spans {
		if bucket >= s[0] && bucket < s[1] {
			return true
		}
	}
	return false
}

// Spans is the number of spans.
func (d *Dirty) Spans() int { return len(d.spans) }

// NewDirty returns an empty set of buckets of width microseconds.
func NewDirty(width int64) *Dirty {
	return &Dirty{width: width, series: map[string][]any{}, keys: map[string]map[int64]bool{}}
}

// Len is the number of keys (spans not counted).
func (d *Dirty) Len() int { return d.n }

// AddRows adds the (series, bucket) of every row of b.
func (d *Dirty) AddRows(b *rows.Batch) {
	ts := b.Cols[b.Schema.Time].Ints
	var k string
	var vals []any
	last := int64(-1 << 63)
	for i := 0; i < b.Len; i++ {
		// Rows come sorted by series: a new key only where the series
		// changes, a new bucket where the time passes the last one's end.
		if vals == nil || !sameValues(b, i, vals) {
			vals = SeriesValues(b, i)
			k = SeriesKey(vals)
			last = -1 << 63
		}
		if bk := Bucket(ts[i], d.width); bk != last {
			d.add(k, vals, bk)
			last = bk
		}
	}
}

func sameValues(b *rows.Batch, i int, vals []any) bool {
	for k, s := range b.Schema.Series {
		if v, ok := vals[k].(string); ok {
			if b.Cols[s].Strs[i] != v {
				return false
			}
		} else if b.Cols[s].Ints[i] != vals[k].(int64) {
			return false
		}
	}
	return true
}

// Add adds one key.
func (d *Dirty) Add(series []any, bucket int64) {
	d.add(SeriesKey(series), series, Bucket(bucket, d.width))
}

func (d *Dirty) add(k string, vals []any, bucket int64) {
	m := d.keys[k]
	if m == nil {
		m = map[int64]bool{}
		d.keys[k] = m
		d.series[k] = vals
	}
	if !m[bucket] {
		m[bucket] = true
		d.n++
	}
}

// Has reports whether the key is in the set.
func (d *Dirty) Has(skey string, bucket int64) bool { return d.keys[skey][bucket] }

// Take removes a key, reporting whether it was there: what a refresh has
// not taken when its scans end are buckets with no rows left.
func (d *Dirty) Take(skey string, bucket int64) bool {
	m := d.keys[skey]
	if !m[bucket] {
		return false
	}
	delete(m, bucket)
	d.n--
	return true
}

// Each calls f for every key, sorted by series key then bucket.
func (d *Dirty) Each(f func(series []any, bucket int64)) {
	for _, k := range slices.Sorted(maps.Keys(d.keys)) {
		for _, b := range slices.Sorted(maps.Keys(d.keys[k])) {
			f(d.series[k], b)
		}
	}
}

// Range is a time range to scan, bucket-aligned, and the series values
// that may hold dirty keys in it (per column; nil: every series).
type Range struct {
	From, To int64
	Series   map[string][]any
}

// MaxRanges bounds the scans of one refresh; MaxSeriesValues the values of
// one series filter: past it the range reads every series (the filter's
// per-row lookups cost more than the few pages it would skip).
const (
	MaxRanges       = 64
	MaxSeriesValues = 64
)

// Ranges groups the dirty buckets into bucket-aligned time ranges to scan:
// buckets at most a few widths apart share a range (one scan reads them
// more cheaply than two), widened until there are at most MaxRanges.
// Each range filters the series that have dirty keys in it, by column.
func (d *Dirty) Ranges(sch *schema.Table) []Range {
	all := map[int64]bool{}
	for _, m := range d.keys {
		for b := range m {
			all[b] = true
		}
	}
	if len(all) == 0 && len(d.spans) == 0 {
		return nil
	}
	// Intervals: each key's bucket, each span; sorted by start.
	var ivs [][2]int64
	for _, b := range slices.Sorted(maps.Keys(all)) {
		ivs = append(ivs, [2]int64{b, b + d.width})
	}
	ivs = append(ivs, d.spans...)
	slices.SortFunc(ivs, func(a, b [2]int64) int { return cmpInt(a[0], b[0]) })
	gap := 8 * d.width
	var groups [][2]int64
	for {
		groups = groups[:0]
		for _, iv := range ivs {
			if n := len(groups); n > 0 && iv[0]-groups[n-1][1] <= gap {
				groups[n-1][1] = max(groups[n-1][1], iv[1])
			} else {
				groups = append(groups, iv)
			}
		}
		if len(groups) <= MaxRanges {
			break
		}
		gap *= 4
	}
	out := make([]Range, len(groups))
	for i, g := range groups {
		out[i] = Range{From: g[0], To: g[1]}
	}
	// The series of each range, per column.
	sets := make([][]map[any]bool, len(out))
	for i := range sets {
		sets[i] = make([]map[any]bool, len(sch.Series))
		for k := range sets[i] {
			sets[i][k] = map[any]bool{}
		}
	}
	for k, m := range d.keys {
		vals := d.series[k]
		for b := range m {
			i, _ := slices.BinarySearchFunc(out, b, func(r Range, t int64) int {
				switch {
				case r.To <= t:
					return -1
				case r.From > t:
					return 1
				}
				return 0
			})
			for c, v := range vals {
				sets[i][c][v] = true
			}
		}
	}
	// A range holding a span reads every series.
	spanned := make([]bool, len(out))
	for _, sp := range d.spans {
		for i, r := range out {
			if sp[0] < r.To && sp[1] > r.From {
				spanned[i] = true
			}
		}
	}
	for i := range out {
		if spanned[i] {
			continue
		}
		m := map[string][]any{}
		for c, s := range sch.Series {
			if len(sets[i][c]) > MaxSeriesValues {
				m = nil
				break
			}
			vals := slices.Collect(maps.Keys(sets[i][c]))
			slices.SortFunc(vals, func(a, b any) int {
				if x, ok := a.(string); ok {
					return cmpString(x, b.(string))
				}
				return cmpInt(a.(int64), b.(int64))
			})
			m[sch.Fields[s].Name] = vals
		}
		out[i].Series = m
	}
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
