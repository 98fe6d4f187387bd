package table

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/timelake/timelake/datafile"
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
//   - otherwise (an overwrite or delete by another engine, a delete file
//     added after the base, no base, or a chain broken by expiry) the index
//     is rebuilt from every live data file: a deleted row may have been a
//     series' latest, and a series whose every row is deleted leaves it.
//
// Files are read a window at a time through GetRange, as compaction reads
// them; lastvalue.Collector keeps one row per series. A file that cannot be
// read fails the catch-up with its coded error: never a partial answer.
// Position deletes (Spark's and DuckDB's merge-on-read DELETE, UPDATE,
// MERGE) are applied as compaction applies them (datafile.PositionDeletes): a
// deleted row never reaches the Collector, so it never wins and pass 2
// never fetches it. They are held in memory, at most
// catchUpDeleteLimits.positions positions; past that, or over equality
// deletes or deletion vectors, the catch-up is refused (ErrUnsupportedTable,
// naming the file or the limit) until a compaction has applied them.

// catchUpWindowRows and catchUpReadBudget bound what reading one file holds.
const (
	catchUpWindowRows = 8192
	catchUpReadBudget = 4 << 20
)

// catchUpDeleteLimits bound the position deletes a catch-up holds: 1 Mi
// positions (8 MiB) and 8 MiB of one delete file, what a DELETE of a
// million rows writes, within the isolate's memory (wasm/main.go). The
// live delete files' record counts are checked against it before any is
// read.
var catchUpDeleteLimits = datafile.DeleteLimits{Positions: 1 << 20, FileBytes: 8 << 20, What: "the index catch-up"}

// catchUp computes the index in force at s, which has no readable index.
func (tb *Table) catchUp(ctx context.Context, s *iceberg.Snapshot) (*rows.Batch, error) {
	base, baseIdx, incremental, err := tb.catchUpBase(ctx, s)
	if err != nil {
		return nil, err
	}
	live, dels, err := tb.liveEntries(ctx, s)
	if err != nil {
		return nil, err
	}
	for _, d := range dels {
		if incremental && d.SequenceNumber > base.SequenceNumber {
			incremental = false // it may delete a row the base's index holds
		}
	}
	var todo []iceberg.ManifestEntry
	for _, e := range live {
		if !incremental || e.SequenceNumber > base.SequenceNumber {
			todo = append(todo, e)
		}
	}
	slices.SortFunc(todo, func(a, b iceberg.ManifestEntry) int {
		if a.SequenceNumber != b.SequenceNumber {
			return cmp.Compare(a.SequenceNumber, b.SequenceNumber)
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
	var deleted map[string]*datafile.Deleted
	if !incremental {
		// Incremental, every file read is newer than every delete file:
		// none applies. Rebuilt, each applies to the files it names.
		if deleted, err = tb.catchUpDeletes(ctx, todo, dels, &read); err != nil {
			return nil, err
		}
	}
	for i, e := range todo {
		var d *datafile.Deleted
		if deleted != nil {
			key, err := tb.keyOf(e.DataFile.Path)
			if err != nil {
				return nil, err
			}
			d = deleted[key]
		}
		if err := tb.collectFile(ctx, e, d, ks, names, col, &dec, &read, int64(i)<<fileTagShift); err != nil {
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

// liveEntries lists s's live data files and its live position delete
// files. Equality deletes, deletion vectors and delete files not in
// Parquet are refused by name (ErrUnsupportedTable); a delete manifest
// whose entries are all DELETED, as a compaction that applied them leaves
// it, holds none.
func (tb *Table) liveEntries(ctx context.Context, s *iceberg.Snapshot) (data, dels []iceberg.ManifestEntry, err error) {
	refuse := deleteRefusal{it: "the last-value index cannot be rebuilt over it", them: "the last-value index cannot be rebuilt over them"}
	err = tb.walkLive(ctx, s, refuse, nil, func(_ iceberg.ManifestFile, e iceberg.ManifestEntry) error {
		if e.DataFile.IsDelete() {
			dels = append(dels, e)
		} else {
			data = append(data, e)
		}
		return nil
	})
	return data, dels, err
}

// deleteRefusal is why a reader of live files stops at a delete file it
// cannot apply, said of one file and of several.
type deleteRefusal struct{ it, them string }

// walkLive calls each for every live entry (not DELETED) of s's manifests
// that skip (nil: none) does not skip whole, after the checks every reader
// makes: a manifest lists only files of its content, a file is listed once
// (a Puffin file may hold the deletion vectors of several: by EntryKey),
// and a delete file is one Timelake applies (equality deletes and delete
// files neither in Parquet nor deletion vectors are refused, naming
// refuse).
func (tb *Table) walkLive(ctx context.Context, s *iceberg.Snapshot, refuse deleteRefusal, skip func(mf iceberg.ManifestFile) bool, each func(mf iceberg.ManifestFile, e iceberg.ManifestEntry) error) error {
	ml, err := tb.readManifestList(ctx, s)
	if err != nil {
		return err
	}
	seen := map[string]string{}
	for _, mf := range ml.Files {
		if skip != nil && skip(mf) {
			continue
		}
		m, err := tb.readManifest(ctx, mf)
		if err != nil {
			return err
		}
		for _, e := range m.Entries {
			if e.Status == iceberg.StatusDeleted {
				continue
			}
			df := &e.DataFile
			if df.IsDelete() != (mf.Content != iceberg.ContentData) {
				return fmt.Errorf("%w: manifest %s (content %d) lists %s (content %d)", ErrCorruptTable, mf.ManifestPath, mf.Content, df.Path, df.Content)
			}
			if err := listedOnce(seen, df.EntryKey(), mf.ManifestPath); err != nil {
				return err
			}
			if df.IsDelete() {
				if err := checkDeleteFile(df); err != nil {
					return fmt.Errorf("snapshot %d: %w; %s", s.SnapshotID, err, refuse.it)
				}
				if df.Content == iceberg.ContentEqualityDeletes {
					return fmt.Errorf("%w: snapshot %d has equality deletes (%s in manifest %s): %s", ErrUnsupportedTable, s.SnapshotID, df.Path, mf.ManifestPath, refuse.them)
				}
			}
			if err := each(mf, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// catchUpDeletes reads the position deletes of dels that apply to files,
// within catchUpDeleteLimits (the record counts checked first).
func (tb *Table) catchUpDeletes(ctx context.Context, files, dels []iceberg.ManifestEntry, read *int64) (map[string]*datafile.Deleted, error) {
	if len(dels) == 0 {
		return nil, nil
	}
	lim := catchUpDeleteLimits
	var n int64
	for _, d := range dels {
		cost := d.DataFile.RecordCount
		if df := &d.DataFile; df.IsDV() && df.ContentSizeInBytes != nil {
			// a vector costs what its blob holds (a run of a million
			// positions is 4 bytes), as datafile counts it
			cost = *df.ContentSizeInBytes / 8
		}
		if n += cost; n > int64(lim.Positions) {
			return nil, fmt.Errorf("%w: more than %d position deletes live (%d delete files) for %s to hold; a compaction applies them", ErrUnsupportedTable, lim.Positions, len(dels), lim.What)
		}
	}
	return datafile.PositionDeletes(ctx, tb.st, tb.keyOf, entryFiles(files), entryFiles(dels), lim, read)
}

// fileTagShift splits a Collector tag into the file (high bits) and the
// row in the file (low bits).
const fileTagShift = 40

// collectFile feeds every row of data file e, the columns of schema ks
// only, to col, a window at a time (a file without the page index has its
// pages found from their headers, as compaction does), tagged tag0 + the
// row's number in the file.
func (tb *Table) collectFile(ctx context.Context, e iceberg.ManifestEntry, d *datafile.Deleted, ks *schema.Table, names map[string]int, col *lastvalue.Collector, dec *parquet.PageDecoder, read *int64, tag0 int64) error {
	key, err := tb.keyOf(e.DataFile.Path)
	if err != nil {
		return err
	}
	if e.DataFile.RecordCount >= 1<<fileTagShift {
		return fmt.Errorf("%w: data file %s has %d rows", ErrUnsupportedTable, key, e.DataFile.RecordCount)
	}
	rf, err := datafile.Open(ctx, tb.st, key, e.DataFile.FileSize, ks, names, read)
	if err != nil {
		return err
	}
	cur := datafile.NewCursor(rf, ks, dec, e.SequenceNumber, catchUpWindowRows, catchUpReadBudget)
	cur.AnyOrder = true // another engine's file need not be sorted
	run := make([]rows.Column, len(ks.Fields))
	for {
		ok, err := cur.Next(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		first := cur.Rows - int64(cur.N) // the window's first row in the file
		if d == nil {
			col.AddTagged(cur.Cols, cur.N, e.SequenceNumber, tag0+first)
			continue
		}
		// The runs of rows between deleted ones, each fed as a view.
		add := func(a, b int) {
			if a == b {
				return
			}
			for k := range cur.Cols {
				run[k] = cur.Cols[k].Slice(a, b, ks.Fields[k].Type)
			}
			col.AddTagged(run, b-a, e.SequenceNumber, tag0+first+int64(a))
		}
		a := 0
		for i := 0; i < cur.N; i++ {
			if d.Has(first + int64(i)) {
				add(a, i)
				a = i + 1
			}
		}
		add(a, cur.N)
	}
}
