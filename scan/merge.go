package scan

import (
	"container/heap"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Input is one stream of rows sorted by (series…, time): a data file's
// rows that passed the filter, in batches of the merge's schema.
type Input struct {
	Name string                      // for errors: the file
	Seq  int64                       // the data sequence number of the rows' file
	Next func() (*rows.Batch, error) // the next batch (a new one each call, not reused), nil at the end
}

type cursor struct {
	in  *Input
	b   *rows.Batch
	pos int
	ord int // the input's index: equal keys pop in input order
}

type cursorHeap struct {
	sch *schema.Table
	cs  []*cursor
}

func (h *cursorHeap) Len() int { return len(h.cs) }
func (h *cursorHeap) Less(i, j int) bool {
	a, b := h.cs[i], h.cs[j]
	if c := CompareKeys(h.sch, a.b, a.pos, b.b, b.pos); c != 0 {
		return c < 0
	}
	return a.ord < b.ord
}
func (h *cursorHeap) Swap(i, j int) { h.cs[i], h.cs[j] = h.cs[j], h.cs[i] }
func (h *cursorHeap) Push(x any)    { h.cs = append(h.cs, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	c := h.cs[len(h.cs)-1]
	h.cs = h.cs[:len(h.cs)-1]
	return c
}

// CompareKeys orders row i of a and row j of b (batches of schema sch) by
// (series…, time).
func CompareKeys(sch *schema.Table, a *rows.Batch, i int, b *rows.Batch, j int) int {
	for _, s := range sch.Series {
		if sch.Fields[s].Type == schema.String {
			if c := strings.Compare(a.Cols[s].Strs[i], b.Cols[s].Strs[j]); c != 0 {
				return c
			}
			continue
		}
		if x, y := a.Cols[s].Ints[i], b.Cols[s].Ints[j]; x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	x, y := a.Cols[sch.Time].Ints[i], b.Cols[sch.Time].Ints[j]
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// ErrStop, returned by emit, ends a merge early without error (a limit).
var ErrStop = errors.New("scan: stop")

// ErrUnsorted is returned when an input's rows are not in key order.
var ErrUnsorted = errors.New("rows out of (series…, time) order")

// Merge merges the inputs (each sorted by key) by (series…, time) and
// calls emit with each run of rows [i, j) of a batch, in order. Unless
// raw, one row per key: of rows with the same key (from any inputs, or
// repeated in one), the winner of rows.Winner (greatest _ingest_ts, then
// the later data sequence number; ties: the later input, the later row).
// Rows of one input that sort before every other input's next row go out
// as one run (found by binary search), so inputs whose keys do not
// overlap are copied a batch at a time. It holds one batch of each input.
func Merge(sch *schema.Table, inputs []Input, raw bool, emit func(b *rows.Batch, i, j int) error) error {
	h := &cursorHeap{sch: sch}
	unsorted := func(c *cursor) error { return fmt.Errorf("%w: %s", ErrUnsorted, c.in.Name) }
	// advance moves c to its next row, loading batches: false at the end.
	advance := func(c *cursor) (bool, error) {
		c.pos++
		for c.b == nil || c.pos >= c.b.Len {
			b, err := c.in.Next()
			if err != nil {
				return false, err
			}
			if b == nil {
				return false, nil
			}
			if c.b != nil && c.b.Len > 0 && b.Len > 0 && CompareKeys(sch, c.b, c.b.Len-1, b, 0) > 0 {
				return false, unsorted(c)
			}
			c.b, c.pos = b, 0
		}
		if c.pos > 0 && CompareKeys(sch, c.b, c.pos-1, c.b, c.pos) > 0 {
			return false, unsorted(c)
		}
		return true, nil
	}
	for k := range inputs {
		c := &cursor{in: &inputs[k], pos: -1, ord: k}
		ok, err := advance(c)
		if err != nil {
			return err
		}
		if ok {
			h.cs = append(h.cs, c)
		}
	}
	heap.Init(h)
	ingest := sch.Ingest
	type row struct {
		b *rows.Batch
		i int
	}
	var group []row
	var ranks []rows.Rank
	for h.Len() > 0 {
		c := h.cs[0]
		// The run of c's rows below every other head's key …
		limit := c.b.Len
		if h.Len() > 1 {
			o := h.cs[1]
			if h.Len() > 2 && h.Less(2, 1) {
				o = h.cs[2]
			}
			limit = c.pos + sort.Search(c.b.Len-c.pos, func(k int) bool {
				return CompareKeys(sch, c.b, c.pos+k, o.b, o.pos) >= 0
			})
		}
		// … in order, and (unless raw) up to a key c repeats.
		end := limit
		for k := c.pos; k+1 < c.b.Len && k < limit; k++ {
			cmp := CompareKeys(sch, c.b, k, c.b, k+1)
			if cmp > 0 {
				return unsorted(c)
			}
			if cmp == 0 && !raw {
				end = k
				break
			}
		}
		if !raw && end == c.b.Len {
			end-- // the batch's last row may repeat in the next: decided as a group
		}
		if raw && end == c.pos {
			end = c.pos + 1 // a key equal to another head's: one row at a time
		}
		if end > c.pos {
			if err := emit(c.b, c.pos, end); err != nil {
				return stopped(err)
			}
			c.pos = end - 1
			if err := step(h, c, advance); err != nil {
				return err
			}
			continue
		}
		// Duplicates: every head (and repeated row) equal to c's (rows.Winner).
		group, ranks = group[:0], ranks[:0]
		kb, ki := c.b, c.pos
		for h.Len() > 0 {
			top := h.cs[0]
			if CompareKeys(sch, top.b, top.pos, kb, ki) != 0 {
				break
			}
			group = append(group, row{top.b, top.pos})
			r := rows.Rank{Seq: top.in.Seq}
			if ingest >= 0 {
				ic := &top.b.Cols[ingest]
				r.Ingest, r.HasIngest = ic.Ints[top.pos], !ic.IsNull(top.pos)
			}
			ranks = append(ranks, r)
			if err := step(h, top, advance); err != nil {
				return err
			}
		}
		w := group[rows.Winner(ranks)]
		if err := emit(w.b, w.i, w.i+1); err != nil {
			return stopped(err)
		}
	}
	return nil
}

// step advances the heap's top c and restores the heap.
func step(h *cursorHeap, c *cursor, advance func(*cursor) (bool, error)) error {
	ok, err := advance(c)
	if err != nil {
		return err
	}
	if !ok {
		heap.Pop(h)
		return nil
	}
	heap.Fix(h, 0)
	return nil
}

func stopped(err error) error {
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// Out gathers emitted rows into batches of an output schema, whose fields
// are some of the input schema's (matched by name).
type Out struct {
	sch   *schema.Table
	from  []int // output field → input field
	size  int   // rows a batch is allocated for
	taken bool  // a batch was taken: the scan is not a small one
	b     *rows.Batch
	reuse bool        // Reuse was called
	spare *rows.Batch // the batch last taken, whose memory the next reuses
}

// Reuse makes the batches Take returns share their memory: a batch is
// overwritten once rows are added after it was taken. For a consumer done
// with each batch when it returns (an aggregator): a scan of many batches
// then allocates its output once instead of per batch.
func (o *Out) Reuse() { o.reuse = true }

// recycle starts the batch on the spare's columns.
func (o *Out) recycle() {
	for k := range o.b.Cols {
		s, c := &o.spare.Cols[k], &o.b.Cols[k]
		c.Ints, c.Floats, c.Bools, c.Strs = s.Ints[:0], s.Floats[:0], s.Bools[:0], s.Strs[:0]
	}
	o.spare = nil
}

// NewOut returns an Out of rows of schema in, projected to schema out, in
// batches allocated for size rows.
func NewOut(out, in *schema.Table, size int) *Out {
	o := &Out{sch: out, size: size}
	for _, f := range out.Fields {
		o.from = append(o.from, in.Index(f.Name))
	}
	o.reset()
	return o
}

func (o *Out) reset() {
	o.b = &rows.Batch{Schema: o.sch, Cols: make([]rows.Column, len(o.sch.Fields))}
}

func (o *Out) alloc(n int) {
	for k, f := range o.sch.Fields {
		c := &o.b.Cols[k]
		switch {
		case f.Type.IsInteger():
			c.Ints = make([]int64, 0, n)
		case f.Type.IsFloat():
			c.Floats = make([]float64, 0, n)
		case f.Type == schema.Boolean:
			c.Bools = make([]bool, 0, n)
		default:
			c.Strs = make([]string, 0, n)
		}
	}
}

// Len is the rows gathered since the last Take.
func (o *Out) Len() int { return o.b.Len }

// Add copies rows [i, j) of b.
func (o *Out) Add(b *rows.Batch, i, j int) {
	n := o.b.Len
	if n == 0 {
		// the first batch starts small (a scan of a few rows), grown by
		// append; after it, batches are allocated whole
		if o.spare != nil {
			o.recycle()
		} else if o.taken {
			o.alloc(o.size)
		} else {
			o.alloc(min(o.size, max(j-i, 256)))
		}
	}
	for k, f := range o.sch.Fields {
		src, dst := &b.Cols[o.from[k]], &o.b.Cols[k]
		switch {
		case f.Type.IsInteger():
			dst.Ints = append(dst.Ints, src.Ints[i:j]...)
		case f.Type.IsFloat():
			dst.Floats = append(dst.Floats, src.Floats[i:j]...)
		case f.Type == schema.Boolean:
			dst.Bools = append(dst.Bools, src.Bools[i:j]...)
		default:
			dst.Strs = append(dst.Strs, src.Strs[i:j]...)
		}
		switch {
		case src.Nulls != nil:
			if dst.Nulls == nil {
				dst.Nulls = make([]bool, n, max(cap(dst.Ints)+cap(dst.Floats)+cap(dst.Bools)+cap(dst.Strs), n+j-i))
			}
			dst.Nulls = append(dst.Nulls, src.Nulls[i:j]...)
		case dst.Nulls != nil:
			dst.Nulls = append(dst.Nulls, make([]bool, j-i)...)
		}
	}
	o.b.Len += j - i
}

// Take returns the rows gathered and starts a new batch.
func (o *Out) Take() *rows.Batch {
	b := o.b
	o.reset()
	o.taken = true
	if o.reuse {
		o.spare = b
	}
	return b
}
