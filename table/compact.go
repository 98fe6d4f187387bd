package table

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// A merge is a columnar k-way merge of sorted files of one partition. The
// merge order comes from the series and time columns alone; the other
// columns are copied by it in runs: while one file's rows sort before every
// other file's next row, they go to the writer as one slice of each column
// (found by binary search in the window), so files whose key ranges do not
// overlap are copied a window at a time. Rows with the same key (series…,
// time) are duplicates, decided by rows.Winner: the greatest _ingest_ts
// wins, then the file with the later data sequence number; a row without
// _ingest_ts ranks by its file's data sequence number.

// mergeResult is what one merge wrote.
type mergeResult struct {
	merge       maintenance.Merge
	outputs     []iceberg.DataFile
	keys        []string // uploaded output files
	rowsIn      int64
	rowsOut     int64
	rowsDeleted int64 // left out: a position delete removed them
	bytesRead   int64
	written     int64
	deferred    int // inputs left for the next round: too much to sort in memory with the others
}

// cursorHeap orders cursors by their next row's key.
type cursorHeap struct {
	sch *schema.Table
	cs  []*windowCursor
}

func (h *cursorHeap) Len() int { return len(h.cs) }
func (h *cursorHeap) Less(i, j int) bool {
	return compareKeys(h.sch, h.cs[i], h.cs[i].pos, h.cs[j], h.cs[j].pos) < 0
}
func (h *cursorHeap) Swap(i, j int) { h.cs[i], h.cs[j] = h.cs[j], h.cs[i] }
func (h *cursorHeap) Push(x any)    { h.cs = append(h.cs, x.(*windowCursor)) }
func (h *cursorHeap) Pop() any {
	c := h.cs[len(h.cs)-1]
	h.cs = h.cs[:len(h.cs)-1]
	return c
}

// mergeWindowRows is how many rows of each input a merge holds at once: one
// page at the default page-row limit, so 24 inputs hold 24 pages per column.
const mergeWindowRows = 8192

// mergeReadBudget is the compressed bytes a merge may hold ahead of its
// windows, shared out evenly between its inputs: a file (or row group) that
// fits in its share is read in one request, a larger one a share at a time
// (not counting the 64 KiB tail each input keeps from opening it). Every
// request is a round trip (an async call through the WASM bridge, and 10–50
// ms to R2 or S3), so fewer and larger is better; 8 MiB is what a merge of
// 24 files at 8,192-row windows can add in the isolate: the windows it
// decodes take about 12 MiB, the output's row group up to 16 MiB, under a
// 40 MiB Go memory limit (wasm/main.go).
var mergeReadBudget int64 = 8 << 20

// mergeFiles merges the files of m (their data sequence numbers in seqs)
// into new files of the same partition, uploads each as soon as it is
// finished, and returns their entries. On error the uploaded outputs are
// deleted (best effort). An input that claims to be sorted and is not
// restarts the merge once with that input sorted in memory; an unsorted
// input too large to sort fails with *errSortTooLarge before anything is
// written.
func (tb *Table) mergeFiles(ctx context.Context, m maintenance.Merge) (*mergeResult, error) {
	names, err := nameMapping(tb.meta.Properties)
	if err != nil {
		return &mergeResult{merge: m}, err
	}
	byteCap := int64(0)
	if ms, err := tb.maintenanceSettings(); err == nil {
		byteCap = ms.ByteCap
	}
	inMemory := map[int]bool{}
	var read int64
	for {
		res, err := tb.mergeOnce(ctx, m, names, sortLimit(byteCap), inMemory)
		read += res.bytesRead
		res.bytesRead = read
		var u *errUnsorted
		if errors.As(err, &u) && !inMemory[u.file] {
			inMemory[u.file] = true
			continue
		}
		return res, err
	}
}

func (tb *Table) mergeOnce(ctx context.Context, m maintenance.Merge, names map[string]int, sortMax int64, inMemory map[int]bool) (res *mergeResult, err error) {
	res = &mergeResult{merge: m}
	defer func() {
		if err != nil && len(res.keys) > 0 {
			_ = tb.st.Delete(context.WithoutCancel(ctx), res.keys)
			res.keys = nil
		}
	}()
	sch := tb.schema
	h := &cursorHeap{sch: sch}
	var dec parquet.PageDecoder
	deleted, err := tb.positionDeletes(ctx, m.Files, m.Deletes, mergeDeleteLimits, &res.bytesRead)
	if err != nil {
		return res, err
	}
	dels := map[*windowCursor]*deletedRows{}
	// live moves c past the rows its file's position deletes removed,
	// loading windows as they run out: false when the file has no rows left.
	live := func(c *windowCursor) (bool, error) {
		d := dels[c]
		for {
			if d != nil {
				base := c.rows - int64(c.n) // the window's first row, in file order
				for c.pos < c.n && d.has(base+int64(c.pos)) {
					c.pos++
					res.rowsDeleted++
				}
			}
			if c.pos < c.n {
				return true, nil
			}
			if ok, err := c.next(ctx); !ok || err != nil {
				return false, err
			}
		}
	}
	// write writes c's rows [a, b) but those deleted.
	write := func(out *mergeOutput, c *windowCursor, a, b int) error {
		d := dels[c]
		if d == nil {
			return out.write(c, a, b)
		}
		base, start := c.rows-int64(c.n), a
		for i := a; i < b; i++ {
			if d.has(base + int64(i)) {
				if err := out.write(c, start, i); err != nil {
					return err
				}
				start = i + 1
				res.rowsDeleted++
			}
		}
		return out.write(c, start, b)
	}
	// Footers first: an input too large to sort is found before any is
	// read. The inputs to sort are held in memory together: those past the
	// limit with the others are left for the next round (deferred) — but
	// not from a merge that must take the whole partition (deletes to
	// apply, rows without _ingest_ts), which is then left alone.
	var files []*rangeFile
	var kept []maintenance.File
	var index []int // kept input → index in m.Files (inMemory's keys)
	var held int64
	for i, f := range m.Files {
		key, err := tb.keyOf(f.Path)
		if err != nil {
			return res, err
		}
		rf, err := openRangeFile(ctx, tb.st, key, f.Size, sch, names, &res.bytesRead)
		if err != nil {
			return res, err
		}
		if rf.meta.NumRows != f.Rows {
			return res, fmt.Errorf("%w: data file %s holds %d rows, its manifest entry says %d", ErrCorruptTable, key, rf.meta.NumRows, f.Rows)
		}
		// Streamed: a file that says it is sorted, unless a row group of it
		// without page index (held whole while streamed) is past the limit.
		if !rf.claimsSorted(sch) || rf.unindexedBytes() > sortMax {
			inMemory[i] = true
		}
		if inMemory[i] {
			need := rf.sortBytes(sch)
			if need > sortMax {
				return res, &errSortTooLarge{key: key, need: need, limit: sortMax}
			}
			if need > sortMax-held {
				if m.Whole {
					return res, &errSortTooLarge{key: key, need: held + need, limit: sortMax}
				}
				res.deferred++
				continue
			}
			held += need
		}
		files, kept, index = append(files, rf), append(kept, f), append(index, i)
	}
	res.merge.Files = kept
	for k, f := range kept {
		rf := files[k]
		res.rowsIn += f.Rows
		c := newWindowCursor(rf, sch, &dec, f.Seq, mergeWindowRows, mergeReadBudget/int64(len(kept)))
		c.input = index[k]
		d := deleted[rf.key]
		if inMemory[index[k]] {
			// sorted in memory: its deletes are applied by file position
			// before the sort, not by the cursor
			var gone int
			if c.mem, c.memN, gone, err = rf.readSorted(ctx, sch, d); err != nil {
				return res, err
			}
			res.rowsDeleted += int64(gone)
		} else if d != nil {
			dels[c] = d
		}
		ok, err := c.next(ctx)
		if err == nil && ok {
			ok, err = live(c)
		}
		if err != nil {
			return res, err
		}
		if ok {
			h.cs = append(h.cs, c)
		}
	}
	heap.Init(h)

	out := &mergeOutput{ctx: ctx, tb: tb, partition: m.Partition, res: res}
	defer out.abandon()
	ingest := sch.Ingest
	var same []*windowCursor
	var ranks []rows.Rank
	for h.Len() > 0 {
		c := h.cs[0]
		if h.Len() == 1 {
			if err := write(out, c, c.pos, c.n); err != nil {
				return res, err
			}
			c.pos = c.n
		} else {
			// The next-smallest head is one of the root's children.
			o := h.cs[1]
			if h.Len() > 2 && h.Less(2, 1) {
				o = h.cs[2]
			}
			end := c.pos + sort.Search(c.n-c.pos, func(k int) bool {
				return compareKeys(sch, c, c.pos+k, o, o.pos) >= 0
			})
			if end > c.pos {
				if err := write(out, c, c.pos, end); err != nil {
					return res, err
				}
				c.pos = end
			} else {
				// Duplicates: every head equal to c's (rows.Winner).
				same = append(same[:0], heap.Pop(h).(*windowCursor))
				for h.Len() > 0 && compareKeys(sch, h.cs[0], h.cs[0].pos, c, c.pos) == 0 {
					same = append(same, heap.Pop(h).(*windowCursor))
				}
				ranks = ranks[:0]
				for _, d := range same {
					if ingest < 0 { // a table without _ingest_ts
						ranks = append(ranks, rows.Rank{Seq: d.seq})
						continue
					}
					ic := &d.cols[ingest]
					ranks = append(ranks, rows.Rank{Ingest: ic.Ints[d.pos], HasIngest: !ic.IsNull(d.pos), Seq: d.seq})
				}
				win := same[rows.Winner(ranks)]
				if err := out.write(win, win.pos, win.pos+1); err != nil {
					return res, err
				}
				for _, d := range same {
					d.pos++
					ok, err := live(d)
					if err != nil {
						return res, err
					}
					if ok {
						heap.Push(h, d)
					}
				}
				continue
			}
		}
		ok, err := live(c)
		if err != nil {
			return res, err
		}
		if !ok {
			heap.Pop(h)
			continue
		}
		heap.Fix(h, 0)
	}
	if err := out.finish(); err != nil {
		return res, err
	}
	return res, nil
}

// mergeOutput writes the merged rows into files of at most
// write.target-file-size-bytes, with the Parquet settings of appends.
type mergeOutput struct {
	ctx       context.Context
	tb        *Table
	partition int32
	res       *mergeResult
	w         *parquet.Writer
	scratch   []rows.Column
}

func (o *mergeOutput) write(c *windowCursor, a, b int) error {
	if a == b {
		return nil
	}
	tb := o.tb
	if o.w == nil {
		w, err := parquet.NewWriter(columnSpecs(tb.schema), tb.parquetOptions())
		if err != nil {
			return err
		}
		o.w = w
	}
	if o.scratch == nil {
		o.scratch = make([]rows.Column, len(c.cols))
	}
	for i := range c.cols {
		o.scratch[i] = view(&c.cols[i], a, b, tb.schema.Fields[i].Type)
	}
	if err := o.w.Write(o.scratch, b-a); err != nil {
		return fmt.Errorf("compaction of %s: %w", c.f.key, err)
	}
	o.res.rowsOut += int64(b - a)
	if o.w.Size() >= tb.settings.TargetFileBytes {
		return o.flush()
	}
	return nil
}

// flush finishes the current output file and uploads it.
func (o *mergeOutput) flush() error {
	tb := o.tb
	data, stats, err := o.w.Finish()
	o.w = nil
	if err != nil {
		return err
	}
	id, err := tb.env.uuid()
	if err != nil {
		return err
	}
	sch := tb.schema
	key := "data/" + tb.partitionField() + "=" + sch.Partition.Format(o.partition) + "/" + id + ".parquet"
	if err := tb.st.Put(o.ctx, key, data); err != nil {
		return fmt.Errorf("upload %s: %w", key, err)
	}
	o.res.keys = append(o.res.keys, key)
	o.res.outputs = append(o.res.outputs, dataFile(sch, tb.location(key), o.partition, int64(len(data)), stats))
	o.res.written += int64(len(data))
	return nil
}

func (o *mergeOutput) finish() error {
	if o.w == nil {
		return nil
	}
	return o.flush()
}

// abandon drops an unfinished writer (its pooled buffers go back).
func (o *mergeOutput) abandon() {
	if o.w != nil {
		_, _, _ = o.w.Finish()
		o.w = nil
	}
}

func columnSpecs(sch *schema.Table) []parquet.ColumnSpec {
	specs := make([]parquet.ColumnSpec, len(sch.Fields))
	for i, f := range sch.Fields {
		specs[i] = parquet.ColumnSpec{Name: f.Name, FieldID: int32(f.ID), Type: f.Type, Required: f.Required}
	}
	return specs
}
