// Package scan is the pure part of a table scan: the filter (its parsing
// and validation), the pruning decisions over partitions, bounds,
// statistics and page indexes, the coalescing of byte ranges, and the
// k-way merge of sorted inputs that applies the dedup rule. It does no
// I/O: package table drives it over a store.
package scan

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Error codes of bad scan input, as rows.Error codes. persisted (in user
// scripts): must not change.
const (
	CodeUnknownColumn = rows.CodeUnknownColumn // a projected or filtered column not in the schema
	CodeBadFilter     = "BAD_FILTER"           // a filter on a non-series column, of the wrong type, or empty
	CodeBadTime       = rows.CodeBadTime       // a time that does not parse
	CodeBadRange      = "BAD_RANGE"            // from ≥ to
	CodeNoSnapshot    = "NO_SNAPSHOT"          // an as-of snapshot id or time that names no snapshot
	CodeBadOption     = "BAD_OPTION"           // a negative limit or batch size
)

func fail(code, col, value, format string, args ...any) error {
	return &rows.Error{Code: code, Column: col, Value: value, Msg: fmt.Sprintf(format, args...)}
}

// NoSnapshot is the error of an as-of that names no snapshot.
func NoSnapshot(what string) error {
	return fail(CodeNoSnapshot, "", "", "%s", what)
}

// SeriesFilter keeps the rows whose series column is one of the values
// (sorted, unique; Ints for integer columns, Strs for strings).
type SeriesFilter struct {
	Name string
	Type schema.Type
	Ints []int64
	Strs []string
}

// Filter is a scan's row filter: a time range and equality / IN filters
// on series columns, all of which a row must pass.
type Filter struct {
	From, To       int64 // in the time column's unit (microseconds, nanoseconds for timestamp_ns); From inclusive, To exclusive
	HasFrom, HasTo bool
	// per is the time column's units per microsecond (1, or 1000 for a
	// nanosecond column): partition ranges, in microseconds, are scaled.
	per    int64
	Series []SeriesFilter // in the schema's series order
	// OneSeries: every series column is filtered to one value, so the
	// rows that pass lie in one run of the file's key order, their times
	// increasing (PageRanges uses it).
	OneSeries bool
	// Where is the label filter (where.go): evaluated on the rows a scan
	// answers, after the merge, never by Matcher (a value column's older
	// version must not stand in for a newer one that does not match).
	Where Wheres
}

// NewFilter checks a scan's filters against the schema: from < to, every
// filtered column a series column, every value of its type.
func NewFilter(sch *schema.Table, from, to *int64, series map[string][]any) (*Filter, error) {
	f := &Filter{}
	if from != nil {
		f.From, f.HasFrom = *from, true
	}
	if to != nil {
		f.To, f.HasTo = *to, true
	}
	if f.HasFrom && f.HasTo && f.From >= f.To {
		return nil, fail(CodeBadRange, "", "", "the time range is empty: from %s is not before to %s", FormatTime(f.From), FormatTime(f.To))
	}
	// from and to are microseconds; a nanosecond time column compares
	// nanoseconds. A bound past what int64 nanoseconds hold bounds nothing
	// (to) or everything (from) on its side.
	f.per = 1
	if sch.HasKey() {
		f.per = sch.TimeField().Type.PerMicro()
	}
	if f.per != 1 {
		f.From = schema.ScaleMicros(f.From, f.per)
		if f.HasTo && f.To > math.MaxInt64/f.per {
			f.HasTo = false
		}
		f.To = schema.ScaleMicros(f.To, f.per)
	}
	names := make([]string, 0, len(series))
	for n := range series {
		names = append(names, n)
	}
	slices.Sort(names)
	byName := map[string]SeriesFilter{}
	for _, name := range names {
		i := sch.Index(name)
		if i < 0 {
			return nil, fail(CodeUnknownColumn, name, "", "no such column to filter on (series columns: %s)", seriesList(sch))
		}
		if !slices.Contains(sch.Series, i) {
			return nil, fail(CodeBadFilter, name, "", "not a series column: filters are on series columns (%s)", seriesList(sch))
		}
		vals := series[name]
		if len(vals) == 0 {
			return nil, fail(CodeBadFilter, name, "", "no values to filter on")
		}
		sf := SeriesFilter{Name: name, Type: sch.Fields[i].Type}
		for _, v := range vals {
			switch x := v.(type) {
			case string:
				if sf.Type != schema.String {
					return nil, fail(CodeBadFilter, name, x, "the series column is %v: the value %q is a string", sf.Type, x)
				}
				sf.Strs = append(sf.Strs, x)
			case int64, int:
				n := int64(0)
				if k, ok := x.(int); ok {
					n = int64(k)
				} else {
					n = x.(int64)
				}
				if sf.Type == schema.String {
					return nil, fail(CodeBadFilter, name, strconv.FormatInt(n, 10), "the series column is a string: the value %d is an integer", n)
				}
				if sf.Type == schema.Int && (n < math.MinInt32 || n > math.MaxInt32) {
					return nil, fail(CodeBadFilter, name, strconv.FormatInt(n, 10), "the series column is an int: %d is out of its range", n)
				}
				sf.Ints = append(sf.Ints, n)
			default:
				return nil, fail(CodeBadFilter, name, fmt.Sprint(v), "a filter value must be a string or an integer, not %T", v)
			}
		}
		slices.Sort(sf.Ints)
		sf.Ints = slices.Compact(sf.Ints)
		slices.Sort(sf.Strs)
		sf.Strs = slices.Compact(sf.Strs)
		byName[name] = sf
	}
	for _, s := range sch.Series {
		if sf, ok := byName[sch.Fields[s].Name]; ok {
			f.Series = append(f.Series, sf)
		}
	}
	f.OneSeries = len(f.Series) == len(sch.Series)
	for _, sf := range f.Series {
		f.OneSeries = f.OneSeries && len(sf.Ints)+len(sf.Strs) == 1
	}
	return f, nil
}

func seriesList(sch *schema.Table) string {
	var names []string
	for _, s := range sch.Series {
		names = append(names, sch.Fields[s].Name)
	}
	return strings.Join(names, ", ")
}

// ParseTime reads a time as the append does (rows.ParseTime: RFC 3339, a
// date alone) or, all digits with an optional sign, epoch milliseconds.
func ParseTime(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if d := strings.TrimPrefix(t, "-"); d != "" && strings.Trim(d, "0123456789") == "" {
		ms, err := strconv.ParseInt(t, 10, 64)
		if err != nil || ms > schema.MaxMicros/1000 || ms < schema.MinMicros/1000 {
			return 0, fail(CodeBadTime, "", s, "time %q (epoch milliseconds) is out of range", s)
		}
		return ms * 1000, nil
	}
	us, err := rows.ParseTime(t)
	if err != nil {
		return 0, fail(CodeBadTime, "", s, "cannot parse %q as a time: want RFC 3339 like 2026-11-29T10:00:00Z, a date like 2026-11-29, or epoch milliseconds", s)
	}
	return us, nil
}

// ParseTimeNanos is ParseTime in nanoseconds, every fraction digit kept
// (rows.ParseTimeNanos; epoch milliseconds times 1e6): the bound of a
// nanosecond time column. ok is false when s does not parse or int64
// nanoseconds do not hold it (ParseTime says why).
func ParseTimeNanos(s string) (ns int64, ok bool) {
	t := strings.TrimSpace(s)
	if d := strings.TrimPrefix(t, "-"); d != "" && strings.Trim(d, "0123456789") == "" {
		ms, err := strconv.ParseInt(t, 10, 64)
		if err != nil || ms > math.MaxInt64/1_000_000 || ms < math.MinInt64/1_000_000 {
			return 0, false
		}
		return ms * 1_000_000, true
	}
	ns, err := rows.ParseTimeNanos(t)
	return ns, err == nil
}

// SetNanos replaces the time range by from and to (where not nil) in
// nanoseconds, for a table whose time column is timestamp_ns or
// timestamptz_ns: a bound finer than the microseconds NewFilter takes.
// Other tables keep NewFilter's range.
func (f *Filter) SetNanos(from, to *int64) error {
	if f.per != 1000 {
		return nil
	}
	if from != nil {
		f.From, f.HasFrom = *from, true
	}
	if to != nil {
		f.To, f.HasTo = *to, true
	}
	if f.HasFrom && f.HasTo && f.From >= f.To {
		return fail(CodeBadRange, "", "", "the time range is empty: from %s is not before to %s", formatNanos(f.From), formatNanos(f.To))
	}
	return nil
}

// ParseSeriesValue reads a filter value of series column name from text:
// an integer for an integer column, the text itself for a string column.
func ParseSeriesValue(sch *schema.Table, name, s string) (any, error) {
	i := sch.Index(name)
	if i < 0 {
		return nil, fail(CodeUnknownColumn, name, "", "no such column to filter on (series columns: %s)", seriesList(sch))
	}
	// A table without a key (not adopted) filters on any string or integer column.
	if sch.HasKey() && !slices.Contains(sch.Series, i) {
		return nil, fail(CodeBadFilter, name, "", "not a series column: filters are on series columns (%s)", seriesList(sch))
	}
	switch sch.Fields[i].Type {
	case schema.String:
		return s, nil
	case schema.Long, schema.Int:
	default:
		return nil, fail(CodeBadFilter, name, s, "column is %v: filters are on string, long or int columns", sch.Fields[i].Type)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return nil, fail(CodeBadFilter, name, s, "the series column is %v: %q is not an integer", sch.Fields[i].Type, s)
	}
	return n, nil
}

// FormatTime renders microseconds as RFC 3339 in UTC.
func FormatTime(us int64) string {
	return formatMicros(us)
}

// Matcher returns the filter bound to the fields of sch (a projection of
// the table's schema with the time and filtered series columns).
func (f *Filter) Matcher(sch *schema.Table) func(b *rows.Batch, i int) bool {
	cols := make([]int, len(f.Series))
	for k, sf := range f.Series {
		cols[k] = sch.Index(sf.Name)
	}
	tc := sch.Time
	return func(b *rows.Batch, i int) bool {
		if tc >= 0 { // a table without a key has no time range to filter
			t := b.Cols[tc].Ints[i]
			if (f.HasFrom && t < f.From) || (f.HasTo && t >= f.To) {
				return false
			}
		}
		for k := range f.Series {
			sf := &f.Series[k]
			c := &b.Cols[cols[k]]
			if sf.Type == schema.String {
				if _, ok := slices.BinarySearch(sf.Strs, c.Strs[i]); !ok {
					return false
				}
			} else if _, ok := slices.BinarySearch(sf.Ints, c.Ints[i]); !ok {
				return false
			}
		}
		return true
	}
}

// TimeMayMatch reports whether rows with times in [lo, hi] (inclusive) may
// pass the time range.
func (f *Filter) TimeMayMatch(lo, hi int64) bool {
	return !(f.HasFrom && hi < f.From) && !(f.HasTo && lo >= f.To)
}

// PartitionMayMatch reports whether partition v of transform tr may hold
// rows in the time range.
func (f *Filter) PartitionMayMatch(tr schema.Transform, v int32) bool {
	start, end := f.partRange(tr, v)
	return f.TimeMayMatch(start, end-1)
}

// partRange is partition v's range [start, end) in the time column's unit.
func (f *Filter) partRange(tr schema.Transform, v int32) (start, end int64) {
	start, end = tr.Range(v)
	if f.per > 1 {
		start, end = schema.ScaleMicros(start, f.per), schema.ScaleMicros(end, f.per)
	}
	return start, end
}

// PartitionsMayMatch reports whether partitions lo..hi (single-value
// encoded int bounds of a manifest's partition summary) may hold rows in
// the time range; bounds it cannot read say yes.
func (f *Filter) PartitionsMayMatch(tr schema.Transform, lo, hi []byte) bool {
	if len(lo) != 4 || len(hi) != 4 {
		return true
	}
	a, b := int32(binary.LittleEndian.Uint32(lo)), int32(binary.LittleEndian.Uint32(hi))
	if a > b {
		return true
	}
	start, _ := f.partRange(tr, a)
	_, end := f.partRange(tr, b)
	return f.TimeMayMatch(start, end-1)
}

// Bound is the lower and upper bound of a column over some rows, in
// Iceberg's single-value encoding, which for these types is also Parquet's
// PLAIN statistics encoding (int 4 bytes, long and timestamp 8 bytes
// little-endian, strings as their bytes). Nil when unknown.
type Bound struct{ Lo, Hi []byte }

// MayMatch reports whether rows whose columns lie within the bounds may
// pass the filter: time is the time column's bound, series those of the
// filtered series columns by name (a missing one is unknown).
func (f *Filter) MayMatch(time Bound, series map[string]Bound) bool {
	if time.Lo != nil && time.Hi != nil {
		lo, ok1 := decodeInt(time.Lo)
		hi, ok2 := decodeInt(time.Hi)
		if ok1 && ok2 && !f.TimeMayMatch(lo, hi) {
			return false
		}
	}
	for k := range f.Series {
		sf := &f.Series[k]
		b, ok := series[sf.Name]
		if !ok || b.Lo == nil || b.Hi == nil {
			continue
		}
		if !sf.mayMatch(b) {
			return false
		}
	}
	return true
}

// mayMatch reports whether a value of the filter lies in [b.Lo, b.Hi].
func (sf *SeriesFilter) mayMatch(b Bound) bool {
	if sf.Type == schema.String {
		// the first value ≥ Lo must be ≤ Hi
		k, _ := slices.BinarySearchFunc(sf.Strs, b.Lo, func(s string, lo []byte) int { return bytes.Compare([]byte(s), lo) })
		return k < len(sf.Strs) && bytes.Compare([]byte(sf.Strs[k]), b.Hi) <= 0
	}
	lo, ok1 := decodeInt(b.Lo)
	hi, ok2 := decodeInt(b.Hi)
	if !ok1 || !ok2 {
		return true
	}
	k, _ := slices.BinarySearch(sf.Ints, lo)
	return k < len(sf.Ints) && sf.Ints[k] <= hi
}

// only reports whether every value within b is the filter's one value.
func (sf *SeriesFilter) only(b Bound) bool {
	if b.Lo == nil || b.Hi == nil {
		return false
	}
	if sf.Type == schema.String {
		return len(sf.Strs) == 1 && string(b.Lo) == sf.Strs[0] && string(b.Hi) == sf.Strs[0]
	}
	lo, ok1 := decodeInt(b.Lo)
	hi, ok2 := decodeInt(b.Hi)
	return ok1 && ok2 && len(sf.Ints) == 1 && lo == sf.Ints[0] && hi == sf.Ints[0]
}

// decodeInt reads a 4- or 8-byte little-endian integer bound.
func decodeInt(b []byte) (int64, bool) {
	switch len(b) {
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b))), true
	case 8:
		return int64(binary.LittleEndian.Uint64(b)), true
	}
	return 0, false
}

// AllMatch reports whether every row whose columns lie within the bounds
// passes the filter — a delete drops such a file without reading it. It
// needs the time bound inside the range and every filtered series column
// bounded to one value of the filter; unknown bounds say no.
func (f *Filter) AllMatch(time Bound, series map[string]Bound) bool {
	if f.HasFrom || f.HasTo {
		lo, ok1 := decodeInt(time.Lo)
		hi, ok2 := decodeInt(time.Hi)
		if !ok1 || !ok2 || (f.HasFrom && lo < f.From) || (f.HasTo && hi >= f.To) {
			return false
		}
	}
	for k := range f.Series {
		sf := &f.Series[k]
		b, ok := series[sf.Name]
		if !ok || b.Lo == nil || b.Hi == nil || !bytes.Equal(b.Lo, b.Hi) {
			return false
		}
		if sf.Type == schema.String {
			if _, found := slices.BinarySearch(sf.Strs, string(b.Lo)); !found {
				return false
			}
			continue
		}
		v, ok := decodeInt(b.Lo)
		if _, found := slices.BinarySearch(sf.Ints, v); !ok || !found {
			return false
		}
	}
	return true
}
