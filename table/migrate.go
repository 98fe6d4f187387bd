package table

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
)

// Rewriting the files of older partition specs into the current one.
//
// Another engine may evolve a table's spec (Spark's ADD, REPLACE and DROP
// PARTITION FIELD); its files stay in the spec they were written in, and
// the planner (package maintenance) sees only the current spec's. While no
// delete file of an older spec is live, each compaction round also rewrites
// up to maintenance.MaxMergeFiles files of older specs, oldest first and
// within the byte cap: one merge of them (the dedup rule applies across
// them as in any merge) whose rows are routed, row by row, to the current
// spec's partitions — a writer per partition met (migrateMaxOpen at most
// open at once: the largest is finished early past it). The files go
// DELETED in manifests of their own spec (snapshot.RemoveSpec), the outputs
// ADDED in the current one's. Once they are rewritten, retention and
// compaction treat their rows like the rest.

// migratePartition marks the merge of files of older specs: it has no
// partition of its own (its outputs each have theirs).
const migratePartition int32 = math.MinInt32

// migrateMaxOpen bounds the output writers a migration holds open.
const migrateMaxOpen = 32

// planMigration is the merge of files of older specs to add to a round, or
// nil: none, a delete file of an older spec live, or the table's spec not
// written by Timelake.
func (tb *Table) planMigration(sf *snapshotFiles, in maintenance.Input) *maintenance.Merge {
	if tb.writeErr != nil || in.OtherSpecFiles == 0 || in.OtherSpecDeletes > 0 {
		return nil
	}
	var files []maintenance.File
	for p, e := range sf.live {
		if sf.otherSpec[p] && !e.DataFile.IsDelete() {
			files = append(files, maintenance.File{Path: p, Size: e.DataFile.FileSize, Rows: e.DataFile.RecordCount, Seq: e.SequenceNumber, NullIngest: true})
		}
	}
	slices.SortFunc(files, func(a, b maintenance.File) int {
		if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
			return c
		}
		return cmp.Compare(a.Path, b.Path)
	})
	m := &maintenance.Merge{Partition: migratePartition, Whole: true}
	for _, f := range files {
		if len(m.Files) == maintenance.MaxMergeFiles || (in.Settings.ByteCap > 0 && len(m.Files) > 0 && m.Bytes+f.Size > in.Settings.ByteCap) {
			break
		}
		m.Files = append(m.Files, f)
		m.Bytes += f.Size
		m.Rows += f.Rows
	}
	if len(m.Files) == 0 {
		return nil
	}
	return m
}

// routeWrite is mergeOutput.write for a migration: rows [a, b) of c go to
// the output of their partition in the current spec.
func (o *mergeOutput) routeWrite(c *datafile.Cursor, a, b int) error {
	tb := o.tb
	view := &rows.Batch{Schema: tb.schema, Cols: c.Cols, Len: c.N}
	var ws *writeSpec
	if tb.schema.Partition == 0 {
		var err error
		if ws, err = tb.writeSpec(); err != nil {
			return err
		}
	}
	partOf := func(i int) int32 {
		if ws == nil {
			return tb.schema.PartitionOf(view.Cols[tb.schema.Time].Ints[i])
		}
		o.key = ws.appendRowKey(o.key[:0], view, i)
		if id, ok := o.seen[string(o.key)]; ok {
			return id
		}
		id := tb.specPartID(ws.tuple(view, i, nil))
		o.seen[string(o.key)] = id
		return id
	}
	for i := a; i < b; {
		p := partOf(i)
		j := i + 1
		for j < b && partOf(j) == p {
			j++
		}
		sub := o.subs[p]
		if sub == nil {
			if len(o.subs) >= migrateMaxOpen {
				if err := o.finishLargest(); err != nil {
					return err
				}
			}
			sub = &mergeOutput{ctx: o.ctx, tb: tb, sch: o.sch, partition: p, res: o.res}
			o.subs[p] = sub
		}
		if err := sub.write(c, i, j); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// finishLargest finishes the open output holding the most bytes.
func (o *mergeOutput) finishLargest() error {
	var big int32
	var size int64 = -1
	for p, s := range o.subs {
		if s.w != nil && s.w.Size() > size {
			big, size = p, s.w.Size()
		}
	}
	if size < 0 {
		return fmt.Errorf("compaction: %d partitions open and none with rows", len(o.subs))
	}
	err := o.subs[big].finish()
	delete(o.subs, big)
	return err
}
