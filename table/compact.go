package table

import (
	"context"
	"errors"
	"fmt"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// A merge is a columnar k-way merge of sorted files of one partition
// (datafile.Merge says how it orders rows and picks among duplicates),
// written into new files by mergeOutput.

// mergeResult is what one merge wrote.
type mergeResult struct {
	merge       maintenance.Merge
	outputs     []iceberg.DataFile
	keys        []string // uploaded output files
	rowsIn      int64
	rowsOut     int64
	rowsDeleted int64 // left out: a position delete removed them
	rowsDropped int64 // left out: a delete's filter matched them (mergeFilesDropping)
	bytesRead   int64
	written     int64
	deferred    int // inputs left for the next round: too much to sort in memory with the others
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

// mergeDeleteLimits bound the position deletes one merge holds (8 bytes a
// position): a partition with more is left for an engine that streams them.
var mergeDeleteLimits = datafile.DeleteLimits{Positions: 4 << 20, FileBytes: MaxFileBytes, What: "one partition"}

// mergeFiles merges the files of m (their data sequence numbers in seqs)
// into new files of the same partition, uploads each as soon as it is
// finished, and returns their entries. On error the uploaded outputs are
// deleted (best effort). An input that claims to be sorted and is not
// restarts the merge once with that input sorted in memory; an unsorted
// input too large to sort fails with *datafile.SortTooLargeError before anything is
// written.
func (tb *Table) mergeFiles(ctx context.Context, m maintenance.Merge) (*mergeResult, error) {
	return tb.mergeFilesDropping(ctx, m, nil)
}

// mergeFilesDropping is mergeFiles leaving out, besides duplicates and
// rows position deletes remove, the rows drop reports (nil: none): a
// delete's rewrite (delete.go). drop sees the merge's columns
// (mergeSchema) as a batch.
func (tb *Table) mergeFilesDropping(ctx context.Context, m maintenance.Merge, drop func(b *rows.Batch, i int) bool) (*mergeResult, error) {
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
		res, err := tb.mergeOnce(ctx, m, names, datafile.SortLimit(byteCap), inMemory, drop)
		read += res.bytesRead
		res.bytesRead = read
		var u *datafile.UnsortedError
		if errors.As(err, &u) && !inMemory[u.Input] {
			inMemory[u.Input] = true
			continue
		}
		return res, err
	}
}

func (tb *Table) mergeOnce(ctx context.Context, m maintenance.Merge, names map[string]int, sortMax int64, inMemory map[int]bool, drop func(b *rows.Batch, i int) bool) (res *mergeResult, err error) {
	res = &mergeResult{merge: m}
	defer func() {
		if err != nil && len(res.keys) > 0 {
			_ = tb.st.Delete(context.WithoutCancel(ctx), res.keys)
			res.keys = nil
		}
	}()
	deleted, err := datafile.PositionDeletes(ctx, tb.st, tb.keyOf, m.Files, m.Deletes, mergeDeleteLimits, &res.bytesRead)
	if err != nil {
		return res, err
	}
	sch := tb.mergeSchema()
	files, index, err := tb.openMergeInputs(ctx, res, sch, names, sortMax, inMemory)
	if err != nil {
		return res, err
	}
	out := &mergeOutput{ctx: ctx, tb: tb, sch: sch, partition: m.Partition, res: res, drop: drop}
	if m.Partition == migratePartition { // files of older specs (migrate.go)
		out.subs, out.seen = map[int32]*mergeOutput{}, map[string]int32{}
	}
	defer out.abandon()
	var dec parquet.PageDecoder
	merge := datafile.NewMerge(ctx, sch, out.write)
	for k, f := range res.merge.Files {
		rf := files[k]
		res.rowsIn += f.Rows
		c := datafile.NewCursor(rf, sch, &dec, f.Seq, mergeWindowRows, mergeReadBudget/int64(len(files)))
		c.Input = index[k]
		d := deleted[rf.Key]
		if inMemory[index[k]] {
			// sorted in memory: its deletes are applied by file position
			// before the sort, not by the cursor
			var gone int
			if c.Mem, c.MemN, gone, err = rf.ReadSorted(ctx, sch, d); err != nil {
				return res, err
			}
			res.rowsDeleted += int64(gone)
			d = nil
		}
		if err := merge.Add(c, d); err != nil {
			return res, err
		}
	}
	err = merge.Run()
	res.rowsDeleted += merge.Deleted()
	if err != nil {
		return res, err
	}
	if err := out.finish(); err != nil {
		return res, err
	}
	return res, nil
}

// openMergeInputs opens the footers of res.merge's files, first of all:
// an input too large to sort is found before any is read. The inputs to
// sort (marked in inMemory) are held in memory together: those past the
// limit with the others are left for the next round (res.deferred) — but
// not from a merge that must take the whole partition (deletes to apply,
// rows without _ingest_ts), which is then left alone. It sets
// res.merge.Files to the inputs kept and returns their files and their
// indexes in the merge's files (inMemory's keys).
func (tb *Table) openMergeInputs(ctx context.Context, res *mergeResult, sch *schema.Table, names map[string]int, sortMax int64, inMemory map[int]bool) ([]*datafile.File, []int, error) {
	m := res.merge
	var files []*datafile.File
	var kept []maintenance.File
	var index []int // kept input → index in m.Files (inMemory's keys)
	var held int64
	for i, f := range m.Files {
		key, err := tb.keyOf(f.Path)
		if err != nil {
			return nil, nil, err
		}
		rf, err := datafile.Open(ctx, tb.st, key, f.Size, sch, names, &res.bytesRead)
		if err != nil {
			return nil, nil, err
		}
		if rf.Meta.NumRows != f.Rows {
			return nil, nil, fmt.Errorf("%w: data file %s holds %d rows, its manifest entry says %d", ErrCorruptTable, key, rf.Meta.NumRows, f.Rows)
		}
		rf.Lineage = tb.lineageOf(sch, f)
		// Streamed: a file that says it is sorted, unless a row group of it
		// without page index (held whole while streamed) is past the limit.
		if !rf.ClaimsSorted(sch) || rf.UnindexedBytes() > sortMax {
			inMemory[i] = true
		}
		if inMemory[i] {
			need := rf.SortBytes(sch)
			if need > sortMax {
				return nil, nil, &datafile.SortTooLargeError{Key: key, Need: need, Limit: sortMax}
			}
			if need > sortMax-held {
				if m.Whole {
					return nil, nil, &datafile.SortTooLargeError{Key: key, Need: held + need, Limit: sortMax}
				}
				res.deferred++
				continue
			}
			held += need
		}
		files, kept, index = append(files, rf), append(kept, f), append(index, i)
	}
	res.merge.Files = kept
	return files, index, nil
}

// mergeOutput writes the merged rows into files of at most
// write.target-file-size-bytes, with the Parquet settings of appends.
type mergeOutput struct {
	ctx       context.Context
	tb        *Table
	sch       *schema.Table                   // what is written: the table's columns, and a v3 table's row lineage (mergeSchema)
	drop      func(b *rows.Batch, i int) bool // rows left out (a delete's), or nil
	partition int32
	res       *mergeResult
	w         *parquet.Writer
	scratch   []rows.Column
	// subs are a migration's outputs by partition (migrate.go); nil
	// otherwise. seen and key cache the numbering of tuples.
	subs map[int32]*mergeOutput
	seen map[string]int32
	key  []byte
}

func (o *mergeOutput) write(c *datafile.Cursor, a, b int) error {
	if a == b {
		return nil
	}
	if o.drop != nil {
		// Runs of kept rows, each written as the merge would.
		view := &rows.Batch{Schema: o.sch, Cols: c.Cols, Len: c.N}
		drop := o.drop
		o.drop = nil
		defer func() { o.drop = drop }()
		for i := a; i < b; {
			if drop(view, i) {
				o.res.rowsDropped++
				i++
				continue
			}
			j := i + 1
			for j < b && !drop(view, j) {
				j++
			}
			if err := o.write(c, i, j); err != nil {
				return err
			}
			i = j
		}
		return nil
	}
	if o.subs != nil {
		return o.routeWrite(c, a, b)
	}
	tb := o.tb
	if o.w == nil {
		w, err := parquet.NewWriter(columnSpecs(o.sch), tb.parquetOptions())
		if err != nil {
			return err
		}
		o.w = w
	}
	if o.scratch == nil {
		o.scratch = make([]rows.Column, len(c.Cols))
	}
	for i := range c.Cols {
		o.scratch[i] = c.Cols[i].Slice(a, b, o.sch.Fields[i].Type)
	}
	if err := o.w.Write(o.scratch, b-a); err != nil {
		return fmt.Errorf("compaction of %s: %w", c.File().Key, err)
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
	dir := "data/" + tb.partitionField() + "=" + sch.Partition.Format(o.partition) + "/"
	part, values := o.partition, []any(nil)
	if sch.Partition == 0 { // another engine's spec: the numbered tuple (spec.go)
		ws, err := tb.writeSpec()
		if values = tb.specPartValues(o.partition); err != nil || values == nil {
			return fmt.Errorf("compaction: no partition numbered %d (%v)", o.partition, err)
		}
		dir, part = ws.dir(values), 0
	}
	key := dir + id + ".parquet"
	if err := tb.st.Put(o.ctx, key, data); err != nil {
		return fmt.Errorf("upload %s: %w", key, err)
	}
	o.res.keys = append(o.res.keys, key)
	df := tb.dataFile(sch, tb.location(key), part, int64(len(data)), stats)
	df.PartitionValues = values
	o.res.outputs = append(o.res.outputs, df)
	o.res.written += int64(len(data))
	return nil
}

func (o *mergeOutput) finish() error {
	for p, s := range o.subs {
		if err := s.finish(); err != nil {
			return err
		}
		delete(o.subs, p)
	}
	if o.w == nil {
		return nil
	}
	return o.flush()
}

// abandon drops an unfinished writer (its pooled buffers go back).
func (o *mergeOutput) abandon() {
	for _, s := range o.subs {
		s.abandon()
	}
	if o.w != nil {
		_, _, _ = o.w.Finish()
		o.w = nil
	}
}

func columnSpecs(sch *schema.Table) []parquet.ColumnSpec {
	specs := make([]parquet.ColumnSpec, len(sch.Fields))
	for i, f := range sch.Fields {
		specs[i] = parquet.SpecOf(f)
	}
	return specs
}
