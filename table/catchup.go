package table

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Catch-up of the last-value index, for a snapshot that has none (another
// engine wrote it, or its file was deleted):
//
//   - the newest ancestor (through parent ids) whose index can be read is
//     the base;
//   - when every snapshot after the base only appended or rewrote files
//     ("append", "replace"), the rows that can change the index are in the
//     live data files whose data sequence number is above the base's: a
//     file added after the base has a greater one, whoever wrote it, and a
//     rewrite either keeps a file's number or gives a newer one (its rows
//     then read again, which changes no winner);
//   - otherwise (an overwrite or delete by another engine, no base, or a
//     chain broken by expiry) the index is rebuilt from every live data file.
//
// Files are read a window at a time through GetRange, as compaction reads
// them; lastvalue.Collector keeps one row per series. A file that cannot be
// read fails the catch-up with its coded error: never a partial answer.
// Delete files would hide rows the files still hold, so a snapshot with any
// is refused (ErrUnsupportedTable).

// catchUpWindowRows and catchUpReadBudget bound what reading one file holds.
const (
	catchUpWindowRows = 8192
	catchUpReadBudget = 4 << 20
)

// catchUp computes the index in force at s, which has no readable index.
func (tb *Table) catchUp(ctx context.Context, s *iceberg.Snapshot) (*rows.Batch, error) {
	base, baseIdx, incremental, err := tb.catchUpBase(ctx, s)
	if err != nil {
		return nil, err
	}
	live, err := tb.liveDataEntries(ctx, s)
	if err != nil {
		return nil, err
	}
	var todo []iceberg.ManifestEntry
	for _, e := range live {
		if !incremental || e.SequenceNumber > base.SequenceNumber {
			todo = append(todo, e)
		}
	}
	slices.SortFunc(todo, func(a, b iceberg.ManifestEntry) int {
		if a.SequenceNumber != b.SequenceNumber {
			return compareInt64(a.SequenceNumber, b.SequenceNumber)
		}
		return strings.Compare(a.DataFile.Path, b.DataFile.Path)
	})
	// Pass 1: the key columns of every file, a window at a time; each
	// series' winner remembered by file and row. Pass 2 (catchup_rows.go):
	// the other columns of the winning rows only, page by page.
	names, err := nameMapping(tb.meta.Properties)
	if err != nil {
		return nil, err
	}
	ks, keyFields := keySchema(tb.schema)
	col := lastvalue.NewCollector(ks)
	var dec parquet.PageDecoder
	var read int64
	for i, e := range todo {
		if err := tb.collectFile(ctx, e, ks, names, col, &dec, &read, int64(i)<<fileTagShift); err != nil {
			return nil, err
		}
	}
	keys, tags := col.ResultTagged()
	winners, err := tb.winnerRows(ctx, todo, names, keys, tags, keyFields, &dec, &read)
	if err != nil {
		return nil, err
	}
	if !incremental {
		baseIdx = nil
	}
	return lastvalue.Merge(baseIdx, winners), nil
}

// catchUpBase finds the newest ancestor of s with a readable index, and
// whether only appends and rewrites lie between it and s.
func (tb *Table) catchUpBase(ctx context.Context, s *iceberg.Snapshot) (*iceberg.Snapshot, *rows.Batch, bool, error) {
	incremental := true
	for cur, hops := s, 0; hops <= len(tb.meta.Snapshots); hops++ {
		if op := cur.Summary["operation"]; op != "append" && op != "replace" {
			incremental = false
		}
		if cur.ParentSnapshotID == nil {
			return nil, nil, false, nil
		}
		p := tb.meta.SnapshotByID(*cur.ParentSnapshotID)
		if p == nil {
			return nil, nil, false, nil // expired: the chain is broken
		}
		idx, err := tb.readIndex(ctx, p)
		if err != nil {
			return nil, nil, false, err
		}
		if idx != nil {
			return p, idx, incremental, nil
		}
		cur = p
	}
	return nil, nil, false, fmt.Errorf("%w: the parent ids of snapshot %d form a cycle", ErrCorruptTable, s.SnapshotID)
}

// liveDataEntries lists s's live data files, refusing live delete files
// (a delete manifest whose entries are all DELETED, as a compaction that
// applied them leaves it, is fine).
func (tb *Table) liveDataEntries(ctx context.Context, s *iceberg.Snapshot) ([]iceberg.ManifestEntry, error) {
	ml, err := tb.readManifestList(ctx, s)
	if err != nil {
		return nil, err
	}
	var out []iceberg.ManifestEntry
	seen := map[string]string{}
	for _, mf := range ml.Files {
		m, err := tb.readManifest(ctx, mf)
		if err != nil {
			return nil, err
		}
		for _, e := range m.Entries {
			if e.Status == iceberg.StatusDeleted {
				continue
			}
			if e.DataFile.Content != iceberg.ContentData || mf.Content != iceberg.ContentData {
				return nil, fmt.Errorf("%w: snapshot %d has delete files (%s in manifest %s): the last-value index cannot be rebuilt over position or equality deletes yet; a compaction applies position deletes", ErrUnsupportedTable, s.SnapshotID, e.DataFile.Path, mf.ManifestPath)
			}
			if err := listedOnce(seen, e.DataFile.Path, mf.ManifestPath); err != nil {
				return nil, err
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// fileTagShift splits a Collector tag into the file (high bits) and the
// row in the file (low bits).
const fileTagShift = 40

// collectFile feeds every row of data file e, the columns of schema ks
// only, to col, a window at a time (a file without the page index has its
// pages found from their headers, as compaction does), tagged tag0 + the
// row's number in the file.
func (tb *Table) collectFile(ctx context.Context, e iceberg.ManifestEntry, ks *schema.Table, names map[string]int, col *lastvalue.Collector, dec *parquet.PageDecoder, read *int64, tag0 int64) error {
	key, err := tb.keyOf(e.DataFile.Path)
	if err != nil {
		return err
	}
	if e.DataFile.RecordCount >= 1<<fileTagShift {
		return fmt.Errorf("%w: data file %s has %d rows", ErrUnsupportedTable, key, e.DataFile.RecordCount)
	}
	rf, err := openRangeFile(ctx, tb.st, key, e.DataFile.FileSize, ks, names, read)
	if err != nil {
		return err
	}
	cur := newWindowCursor(rf, ks, dec, e.SequenceNumber, catchUpWindowRows, catchUpReadBudget)
	cur.anyOrder = true // another engine's file need not be sorted
	for {
		ok, err := cur.next(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		col.AddTagged(cur.cols, cur.n, e.SequenceNumber, tag0+cur.rows-int64(cur.n))
	}
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
