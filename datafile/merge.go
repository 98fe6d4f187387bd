package datafile

import (
	"container/heap"
	"context"
	"sort"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Merge is a columnar k-way merge of cursors over sorted files. The merge
// order comes from the series and time columns alone; the other columns are
// handed on in runs: while one cursor's rows sort before every other
// cursor's next row, they go to emit as one range of its window (found by
// binary search), so files whose key ranges do not overlap pass a window at
// a time. Rows with the same key (series…, time) are duplicates, decided by
// rows.Winner: the greatest _ingest_ts wins, then the file with the later
// data sequence number; a row without _ingest_ts ranks by its file's data
// sequence number.
//
//	m := datafile.NewMerge(ctx, sch, func(c *datafile.Cursor, a, b int) error { … c.Cols rows [a, b) … })
//	for _, c := range cursors {
//		if err := m.Add(c, deleted[c.File().Key]); err != nil { … }
//	}
//	err := m.Run()
type Merge struct {
	ctx     context.Context
	sch     *schema.Table
	dels    map[*Cursor]*Deleted
	emit    func(c *Cursor, a, b int) error
	h       cursorHeap
	deleted int64

	same  []*Cursor // scratch of the duplicates of one key
	ranks []rows.Rank
}

// NewMerge starts a merge whose rows, in key order and without duplicates,
// go to emit: rows [a, b) of c's window (c.Cols).
func NewMerge(ctx context.Context, sch *schema.Table, emit func(c *Cursor, a, b int) error) *Merge {
	return &Merge{ctx: ctx, sch: sch, dels: map[*Cursor]*Deleted{}, emit: emit, h: cursorHeap{sch: sch}}
}

// Add loads c's first window (c must not have been advanced) and joins it
// to the merge. del (nil: none) are its file's deleted positions, skipped
// as the rows pass; a cursor sorted in memory has had them applied already.
func (m *Merge) Add(c *Cursor, del *Deleted) error {
	if del != nil {
		m.dels[c] = del
	}
	ok, err := c.Next(m.ctx)
	if err == nil && ok {
		ok, err = m.live(c)
	}
	if err != nil {
		return err
	}
	if ok {
		m.h.cs = append(m.h.cs, c)
	}
	return nil
}

// Deleted is the rows the position deletes left out so far.
func (m *Merge) Deleted() int64 { return m.deleted }

// Run merges until every cursor is done.
func (m *Merge) Run() error {
	heap.Init(&m.h)
	return m.run()
}

// run merges until every cursor is done.
func (m *Merge) run() error {
	h := &m.h
	for h.Len() > 0 {
		c := h.cs[0]
		if h.Len() == 1 {
			if err := m.write(c, c.Pos, c.N); err != nil {
				return err
			}
			c.Pos = c.N
		} else {
			// The next-smallest head is one of the root's children.
			o := h.cs[1]
			if h.Len() > 2 && h.Less(2, 1) {
				o = h.cs[2]
			}
			end := c.Pos + sort.Search(c.N-c.Pos, func(k int) bool {
				return CompareKeys(m.sch, c, c.Pos+k, o, o.Pos) >= 0
			})
			if end == c.Pos {
				if err := m.duplicates(c); err != nil {
					return err
				}
				continue
			}
			if err := m.write(c, c.Pos, end); err != nil {
				return err
			}
			c.Pos = end
		}
		ok, err := m.live(c)
		if err != nil {
			return err
		}
		if !ok {
			heap.Pop(h)
			continue
		}
		heap.Fix(h, 0)
	}
	return nil
}

// duplicates takes every head whose key equals c's (the root's) off the
// heap, emits the winner's row, and puts back those with rows left.
func (m *Merge) duplicates(c *Cursor) error {
	h := &m.h
	m.same = append(m.same[:0], heap.Pop(h).(*Cursor))
	for h.Len() > 0 && CompareKeys(m.sch, h.cs[0], h.cs[0].Pos, c, c.Pos) == 0 {
		m.same = append(m.same, heap.Pop(h).(*Cursor))
	}
	m.ranks = m.ranks[:0]
	ingest := m.sch.Ingest
	for _, d := range m.same {
		if ingest < 0 { // a table without _ingest_ts
			m.ranks = append(m.ranks, rows.Rank{Seq: d.Seq})
			continue
		}
		ic := &d.Cols[ingest]
		m.ranks = append(m.ranks, rows.Rank{Ingest: ic.Ints[d.Pos], HasIngest: !ic.IsNull(d.Pos), Seq: d.Seq})
	}
	win := m.same[rows.Winner(m.ranks)]
	if err := m.emit(win, win.Pos, win.Pos+1); err != nil {
		return err
	}
	for _, d := range m.same {
		d.Pos++
		ok, err := m.live(d)
		if err != nil {
			return err
		}
		if ok {
			heap.Push(h, d)
		}
	}
	return nil
}

// live moves c past the rows its file's position deletes removed, loading
// windows as they run out: false when the file has no rows left.
func (m *Merge) live(c *Cursor) (bool, error) {
	d := m.dels[c]
	for {
		if d != nil {
			base := c.Rows - int64(c.N) // the window's first row, in file order
			for c.Pos < c.N && d.Has(base+int64(c.Pos)) {
				c.Pos++
				m.deleted++
			}
		}
		if c.Pos < c.N {
			return true, nil
		}
		if ok, err := c.Next(m.ctx); !ok || err != nil {
			return false, err
		}
	}
}

// write emits c's rows [a, b) but those deleted.
func (m *Merge) write(c *Cursor, a, b int) error {
	d := m.dels[c]
	if d == nil {
		return m.emit(c, a, b)
	}
	base, start := c.Rows-int64(c.N), a
	for i := a; i < b; i++ {
		if d.Has(base + int64(i)) {
			if err := m.emit(c, start, i); err != nil {
				return err
			}
			start = i + 1
			m.deleted++
		}
	}
	return m.emit(c, start, b)
}

// cursorHeap orders cursors by their next row's key.
type cursorHeap struct {
	sch *schema.Table
	cs  []*Cursor
}

func (h *cursorHeap) Len() int { return len(h.cs) }
func (h *cursorHeap) Less(i, j int) bool {
	return CompareKeys(h.sch, h.cs[i], h.cs[i].Pos, h.cs[j], h.cs[j].Pos) < 0
}
func (h *cursorHeap) Swap(i, j int) { h.cs[i], h.cs[j] = h.cs[j], h.cs[i] }
func (h *cursorHeap) Push(x any)    { h.cs = append(h.cs, x.(*Cursor)) }
func (h *cursorHeap) Pop() any {
	c := h.cs[len(h.cs)-1]
	h.cs = h.cs[:len(h.cs)-1]
	return c
}
