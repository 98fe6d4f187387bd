package lastvalue

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Collector finds each series' latest row in rows read a window at a time
// from data files (the catch-up of an index after snapshots that did not
// write one). It holds one row per series, whatever it is fed.
//
// The rule is the dedup rule of reads and compaction: the greatest time,
// then, between rows of that time, rows.Rank (both with _ingest_ts: the
// greater, then the greater data sequence number; otherwise the greater
// data sequence number, and at the same one the row with _ingest_ts); on a
// full tie the row fed later. Rows are compared pairwise as they come (the
// order-independent rows.Winner needs the whole group of duplicates; the
// two differ only for three or more rows of one key mixing rows with and
// without _ingest_ts whose order disagrees with their sequence numbers).
type Collector struct {
	t   *schema.Table
	out *rows.Batch
	seq []int64        // data sequence number of each kept row
	tag []int64        // where each kept row came from (AddTagged)
	at  map[string]int // series key → row of out
	kb  []byte
}

// NewCollector returns an empty Collector for table t.
func NewCollector(t *schema.Table) *Collector {
	return &Collector{t: t, out: &rows.Batch{Schema: t, Cols: make([]rows.Column, len(t.Fields))}, at: map[string]int{}}
}

// Len is the number of series seen.
func (c *Collector) Len() int { return c.out.Len }

// Add considers rows [0, n) of cols (one column per schema field) from a
// data file of data sequence number seq. Only the series, time and
// _ingest_ts columns are looked at until a row wins; the winning rows are
// copied (strings too, so no window is kept alive).
func (c *Collector) Add(cols []rows.Column, n int, seq int64) { c.AddTagged(cols, n, seq, 0) }

// AddTagged is Add, remembering tag0+i for row i: where the kept row came
// from (a file and row number), for ResultTagged.
func (c *Collector) AddTagged(cols []rows.Column, n int, seq, tag0 int64) {
	if n == 0 {
		return
	}
	b := &rows.Batch{Schema: c.t, Cols: cols, Len: n}
	times, ingest := cols[c.t.Time].Ints[:n], b.IngestColumn()
	w := 0
	flush := func(w int) {
		c.kb = appendSeriesKey(c.kb[:0], b, w)
		if i, ok := c.at[string(c.kb)]; ok {
			if c.beats(b, w, seq, i) {
				c.setRow(i, b, w, seq)
				c.tag[i] = tag0 + int64(w)
			}
			return
		}
		c.at[string(c.kb)] = c.out.Len
		appendRow(c.out, b, w)
		c.seq = append(c.seq, seq)
		c.tag = append(c.tag, tag0+int64(w))
		c.cloneStrings(c.out.Len - 1)
	}
	for j := 1; j < n; j++ {
		if c.newSeries(cols, j) {
			flush(w)
			w = j
			continue
		}
		if tj, tw := times[j], times[w]; tj > tw || (tj == tw && compareIngest(ingest, j, ingest, w) >= 0) {
			w = j
		}
	}
	flush(w)
}

// newSeries says whether row j's series differs from row j-1's.
func (c *Collector) newSeries(cols []rows.Column, j int) bool {
	for _, s := range c.t.Series {
		if c.t.Fields[s].Type == schema.String {
			x, y := cols[s].Strs[j-1], cols[s].Strs[j]
			if len(x) != len(y) || (unsafe.StringData(x) != unsafe.StringData(y) && x != y) {
				return true
			}
		} else if cols[s].Ints[j-1] != cols[s].Ints[j] {
			return true
		}
	}
	return false
}

// compareIngest orders two _ingest_ts values, a null below any value.
func compareIngest(a *rows.Column, i int, b *rows.Column, j int) int {
	an, bn := a.IsNull(i), b.IsNull(j)
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	}
	x, y := a.Ints[i], b.Ints[j]
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// beats says whether row w of b (sequence number seq) replaces kept row i.
func (c *Collector) beats(b *rows.Batch, w int, seq int64, i int) bool {
	t := c.t
	if x, y := b.Cols[t.Time].Ints[w], c.out.Cols[t.Time].Ints[i]; x != y {
		return x > y
	}
	if t.Ingest < 0 { // a table without _ingest_ts: the later sequence number
		return !(rows.Rank{Seq: c.seq[i]}).Beats(rows.Rank{Seq: seq})
	}
	a := rankOf(&b.Cols[t.Ingest], w, seq)
	k := rankOf(&c.out.Cols[t.Ingest], i, c.seq[i])
	return !k.Beats(a) // a tie: the row fed later
}

func rankOf(ingest *rows.Column, i int, seq int64) rows.Rank {
	if ingest.IsNull(i) || len(ingest.Ints) <= i {
		return rows.Rank{Seq: seq}
	}
	return rows.Rank{Ingest: ingest.Ints[i], HasIngest: true, Seq: seq}
}

// setRow overwrites kept row i with row w of b.
func (c *Collector) setRow(i int, b *rows.Batch, w int, seq int64) {
	for f, fld := range c.t.Fields {
		d, s := &c.out.Cols[f], &b.Cols[f]
		switch {
		case fld.Type.IsInteger():
			d.Ints[i] = s.Ints[w]
		case fld.Type.IsFloat():
			d.Floats[i] = s.Floats[w]
		case fld.Type == schema.Boolean:
			d.Bools[i] = s.Bools[w]
		default:
			if v := s.Strs[w]; d.Strs[i] != v {
				d.Strs[i] = strings.Clone(v) // not a view into the window
			}
		}
		null := s.IsNull(w)
		if null && d.Nulls == nil {
			d.Nulls = make([]bool, c.out.Len)
		}
		if d.Nulls != nil {
			d.Nulls[i] = null
		}
	}
	c.seq[i] = seq
}

func (c *Collector) cloneStrings(i int) {
	for f, fld := range c.t.Fields {
		if fld.Type == schema.String {
			c.out.Cols[f].Strs[i] = strings.Clone(c.out.Cols[f].Strs[i])
		}
	}
}

// Result returns the kept rows sorted by series: an index, or what Merge
// takes as the rows appended since an index.
func (c *Collector) Result() *rows.Batch {
	b, _ := c.ResultTagged()
	return b
}

// ResultTagged is Result with each row's tag (AddTagged).
func (c *Collector) ResultTagged() (*rows.Batch, []int64) {
	order := make([]int, c.out.Len)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return CompareSeries(c.out, i, c.out, j) })
	out := &rows.Batch{Schema: c.t, Cols: make([]rows.Column, len(c.t.Fields))}
	tags := make([]int64, 0, len(order))
	for _, i := range order {
		appendRow(out, c.out, i)
		tags = append(tags, c.tag[i])
	}
	return out, tags
}
