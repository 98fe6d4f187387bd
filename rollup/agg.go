package rollup

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Aggregator turns raw rows, sorted by (series…, time) and deduplicated
// (a scan's output), into rollup rows: one per (series, bucket). Rows of
// one (series, bucket) must arrive together, in time order: a scan of a
// bucket-aligned time range gives that.
type Aggregator struct {
	in, out *schema.Table
	width   int64
	cols    []Column
	src     []int // index in `in` of each column's source
	outCols []int // index in `out` of each column

	has      bool // a key is open
	keep     bool // and is to be emitted
	series   []any
	skey     string
	bucket   int64
	nrows    int64
	st       []state
	res      *rows.Batch
	err      error
	emitted  int
	filterFn func(skey string, bucket int64) bool
	seedFn   SeedFunc // fold.go
}

// state is one aggregate column's running value over the open key.
type state struct {
	rows        int64 // rows seen
	n           int64 // non-null values
	sumI        int64
	sumF, sumC  float64 // Neumaier: the sum and its compensation
	overflow    bool
	ext         value // min or max so far (n > 0)
	first, last value
}

type value struct {
	i    int64
	f    float64
	s    string
	b    bool
	null bool
}

// NewAggregator aggregates rows of schema in (time, series and the value
// columns d names, at least) into rows of the rollup schema out (Schema).
func NewAggregator(in, out *schema.Table, d Def) (*Aggregator, error) {
	cols, err := Columns(in, d)
	if err != nil {
		return nil, err
	}
	a := &Aggregator{in: in, out: out, width: d.Width, cols: cols, st: make([]state, len(cols))}
	for _, c := range cols {
		a.src = append(a.src, in.Index(c.Source))
		j := out.Index(c.Name)
		if j < 0 {
			return nil, bad(Key(d.Name, SuffixAggs), "the rollup table has no column %q: it was made for another definition", c.Name)
		}
		a.outCols = append(a.outCols, j)
	}
	// The series columns match by position: the raw table's may have been
	// renamed since the rollup table was made (resolve.go).
	if len(out.Series) != len(in.Series) {
		return nil, bad(d.Name, "the rollup table has %d series columns, the table %d", len(out.Series), len(in.Series))
	}
	a.res = emptyBatch(out)
	return a, nil
}

func emptyBatch(t *schema.Table) *rows.Batch {
	return &rows.Batch{Schema: t, Cols: make([]rows.Column, len(t.Fields))}
}

// Keep limits the rows emitted to the keys keep accepts (nil: every key).
func (a *Aggregator) Keep(keep func(skey string, bucket int64) bool) { a.filterFn = keep }

// Add aggregates the rows of b (schema in).
func (a *Aggregator) Add(b *rows.Batch) error {
	if a.err != nil {
		return a.err
	}
	ts := b.Cols[a.in.Time].Ints
	for i := 0; i < b.Len; {
		bk := Bucket(ts[i], a.width)
		if !a.has || bk != a.bucket || !a.sameSeries(b, i) {
			a.close()
			a.open(b, i, bk)
		}
		// The run of rows of this key, then each column over the run.
		end := bk + a.width
		j := i + 1
		for j < b.Len && ts[j] < end && a.sameSeries(b, j) {
			j++
		}
		a.nrows += int64(j - i)
		for k := range a.cols {
			a.st[k].addRun(&a.cols[k], &b.Cols[a.src[k]], i, j)
		}
		i = j
	}
	return a.err
}

func (a *Aggregator) sameSeries(b *rows.Batch, i int) bool {
	for k, s := range a.in.Series {
		c := &b.Cols[s]
		if a.in.Fields[s].Type == schema.String {
			if c.Strs[i] != a.series[k].(string) {
				return false
			}
		} else if c.Ints[i] != a.series[k].(int64) {
			return false
		}
	}
	return true
}

func (a *Aggregator) open(b *rows.Batch, i int, bk int64) {
	a.has, a.bucket, a.nrows = true, bk, 0
	a.series = SeriesValues(b, i)
	a.skey = SeriesKey(a.series)
	a.keep = a.filterFn == nil || a.filterFn(a.skey, bk)
	for k := range a.st {
		a.st[k] = state{}
	}
	if a.keep && a.seedFn != nil {
		a.seed(bk)
	}
}

// close emits the open key's row.
func (a *Aggregator) close() {
	if !a.has {
		return
	}
	a.has = false
	if !a.keep {
		return
	}
	for k, c := range a.cols {
		if a.st[k].overflow && a.err == nil {
			a.err = &Error{Code: CodeOverflow, Key: c.Name, Msg: fmt.Sprintf("the sum of %s in bucket %s overflows a long", c.Source, time.UnixMicro(a.bucket).UTC().Format(time.RFC3339))}
		}
	}
	a.emit(a.series, a.bucket, a.nrows, a.st)
}

// Tombstone adds the row of a bucket that has no rows any more (another
// engine deleted them): row_count 0, counts 0, every other aggregate null.
func (a *Aggregator) Tombstone(series []any, bucket int64) {
	a.emit(series, bucket, 0, make([]state, len(a.cols)))
}

func (a *Aggregator) emit(series []any, bucket, n int64, st []state) {
	r := a.res
	for k := range a.in.Series {
		j := a.out.Series[k]
		if v, ok := series[k].(string); ok {
			r.Cols[j].Strs = append(r.Cols[j].Strs, v)
		} else {
			r.Cols[j].Ints = append(r.Cols[j].Ints, series[k].(int64))
		}
	}
	r.Cols[a.out.Time].Ints = append(r.Cols[a.out.Time].Ints, bucket)
	cj := a.out.Index(CountColumn)
	r.Cols[cj].Ints = append(r.Cols[cj].Ints, n)
	for k, c := range a.cols {
		col := &r.Cols[a.outCols[k]]
		s := &st[k]
		switch c.Func {
		case Count:
			put(col, c.Type, value{i: s.n}, r.Len)
		case Sum:
			v := value{i: s.sumI, f: s.sumF + s.sumC, null: s.n == 0}
			if math.IsInf(s.sumF, 0) || math.IsNaN(s.sumF) {
				v.f = s.sumF // an infinity makes the compensation NaN: the plain sum is the answer
			}
			put(col, c.Type, v, r.Len)
		case Min, Max:
			v := s.ext
			v.null = s.n == 0
			put(col, c.Type, v, r.Len)
		case First:
			v := s.first
			v.null = v.null || n == 0
			put(col, c.Type, v, r.Len)
		case Last:
			v := s.last
			v.null = v.null || n == 0
			put(col, c.Type, v, r.Len)
		}
	}
	r.Len++
	a.emitted++
}

// put appends v to col (of type t) as row n.
func put(col *rows.Column, t schema.Type, v value, n int) {
	switch {
	case t.IsInteger():
		col.Ints = append(col.Ints, v.i)
	case t.IsFloat():
		col.Floats = append(col.Floats, v.f)
	case t == schema.Boolean:
		col.Bools = append(col.Bools, v.b)
	default:
		col.Strs = append(col.Strs, v.s)
	}
	if v.null && col.Nulls == nil {
		col.Nulls = make([]bool, n, n+1)
	}
	if col.Nulls != nil {
		col.Nulls = append(col.Nulls, v.null)
	}
}

// Finish closes the last key and returns the rollup rows (schema out), in
// the order added; the Aggregator starts empty again.
func (a *Aggregator) Finish() (*rows.Batch, error) {
	a.close()
	if a.err != nil {
		return nil, a.err
	}
	r := a.res
	a.res = emptyBatch(a.out)
	return r, nil
}

// Rows is the rows emitted so far, Finish included.
func (a *Aggregator) Rows() int { return a.emitted }

// addRun adds rows [i, j) of col, all of the open key, in time order.
func (s *state) addRun(c *Column, col *rows.Column, i, j int) {
	t := c.SourceType
	switch c.Func {
	case First: // the earliest row's value, null or not
		if s.rows == 0 {
			s.first = valueAt(col, t, i)
		}
		s.rows += int64(j - i)
		return
	case Last: // the latest row's
		s.last = valueAt(col, t, j-1)
		s.rows += int64(j - i)
		return
	}
	nulls := col.Nulls
	for r := i; r < j; r++ {
		if nulls != nil && nulls[r] {
			continue
		}
		s.n++
		switch c.Func {
		case Sum:
			if t.IsFloat() {
				// Neumaier's compensated sum: exact to the last bit for
				// the sums a bucket holds, whatever the magnitudes.
				f := col.Floats[r]
				sum := s.sumF + f
				if math.Abs(s.sumF) >= math.Abs(f) {
					s.sumC += (s.sumF - sum) + f
				} else {
					s.sumC += (f - sum) + s.sumF
				}
				s.sumF = sum
			} else {
				v := col.Ints[r]
				sum := s.sumI + v
				if (v > 0 && sum < s.sumI) || (v < 0 && sum > s.sumI) {
					s.overflow = true
				}
				s.sumI = sum
			}
		case Min, Max:
			// Typed comparisons; a value is built only for a new extreme.
			var better bool
			switch {
			case s.n == 1:
				better = true
			case t.IsInteger():
				v := col.Ints[r]
				better = c.Func == Min && v < s.ext.i || c.Func == Max && v > s.ext.i
			case t.IsFloat():
				v := value{f: col.Floats[r]}
				better = c.Func == Min && less(t, v, s.ext) || c.Func == Max && less(t, s.ext, v)
			default:
				v := valueAt(col, t, r)
				better = c.Func == Min && less(t, v, s.ext) || c.Func == Max && less(t, s.ext, v)
			}
			if better {
				s.ext = valueAt(col, t, r)
			}
		}
	}
}

func valueAt(col *rows.Column, t schema.Type, i int) value {
	if col.IsNull(i) {
		return value{null: true}
	}
	switch {
	case t.IsInteger():
		return value{i: col.Ints[i], f: float64(col.Ints[i])}
	case t.IsFloat():
		return value{f: col.Floats[i]}
	case t == schema.Boolean:
		return value{b: col.Bools[i]}
	}
	return value{s: col.Strs[i]}
}

// less orders values of type t; NaN is above every number (as in SQL
// engines: DuckDB, PostgreSQL).
func less(t schema.Type, a, b value) bool {
	switch {
	case t.IsInteger():
		return a.i < b.i
	case t.IsFloat():
		if math.IsNaN(b.f) {
			return !math.IsNaN(a.f)
		}
		return a.f < b.f
	case t == schema.Boolean:
		return !a.b && b.b
	}
	return strings.Compare(a.s, b.s) < 0
}
