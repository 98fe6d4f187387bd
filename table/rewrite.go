package table

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/rows"
)

// snapshotFiles is a snapshot's manifest list and manifests, read once per
// attempt of a maintenance commit.
type snapshotFiles struct {
	snap      *iceberg.Snapshot
	list      []iceberg.ManifestFile
	manifests []*iceberg.Manifest              // by list position
	live      map[string]iceberg.ManifestEntry // data and delete files
	// otherSpec holds the live paths of another partition spec than the
	// table's (or whose partition record Timelake cannot read): counted,
	// carried through, never merged or dropped.
	otherSpec map[string]bool
}

func (tb *Table) readSnapshotFiles(ctx context.Context, s *iceberg.Snapshot) (*snapshotFiles, error) {
	sf := &snapshotFiles{snap: s, live: map[string]iceberg.ManifestEntry{}, otherSpec: map[string]bool{}}
	if s == nil {
		return sf, nil
	}
	ml, err := tb.readManifestList(ctx, s)
	if err != nil {
		return nil, err
	}
	sf.list = ml.Files
	seen := map[string]string{}
	for _, mf := range ml.Files {
		m, err := tb.readManifest(ctx, mf)
		if err != nil {
			return nil, err
		}
		sf.manifests = append(sf.manifests, m)
		for _, e := range m.Entries {
			if e.Status != iceberg.StatusDeleted {
				if err := listedOnce(seen, e.DataFile.Path, mf.ManifestPath); err != nil {
					return nil, err
				}
				if err := checkDeleteFile(&e.DataFile); err != nil {
					return nil, err
				}
				sf.live[e.DataFile.Path] = e
				if int(mf.PartitionSpecID) != tb.meta.DefaultSpecID || e.DataFile.OtherPartition {
					sf.otherSpec[e.DataFile.Path] = true
				}
			}
		}
	}
	return sf, nil
}

// rewrite is a snapshot that removes live files and adds new ones: a
// compaction (operation "replace") or retention ("delete").
type rewrite struct {
	op       string
	snapID   int64
	commitID string
	added    []iceberg.DataFile
	removed  map[string]bool // paths; every one must be live in the base
	// index returns the last-value index for the new snapshot: nil keeps
	// the parent's (compaction does not change it).
	index func(ctx context.Context, parent *iceberg.Snapshot) (*rows.Batch, error)
	// recomputeTimes sets the summary's time range from the live files'
	// bounds (retention narrows it).
	recomputeTimes bool
}

// buildRewrite writes the base-dependent files of rw on top of base, whose
// current snapshot's files are sf: a manifest of the ADDED outputs and the
// DELETED inputs, the manifests that held inputs rewritten with their other
// files EXISTING (the rest reused as they are), the manifest list, the
// last-value index if it changes, and the next metadata.
func (tb *Table) buildRewrite(ctx context.Context, base commit.Version, sf *snapshotFiles, rw *rewrite) (commit.Attempt, *iceberg.Metadata, error) {
	parent := sf.snap
	if parent == nil {
		return commit.Attempt{}, nil, fmt.Errorf("%w: the table has no snapshot", commit.ErrDropped)
	}
	for p := range rw.removed {
		if _, ok := sf.live[p]; !ok {
			return commit.Attempt{}, nil, fmt.Errorf("%w: %s is no longer in the table", commit.ErrDropped, p)
		}
	}
	seq := tb.meta.LastSequenceNumber + 1
	attemptID, err := tb.env.uuid()
	if err != nil {
		return commit.Attempt{}, nil, err
	}
	sync, err := tb.syncMarker()
	if err != nil {
		return commit.Attempt{}, nil, err
	}
	mw := &manifestWriter{tb: tb, attemptID: attemptID, snapID: rw.snapID, seq: seq, sync: sync,
		schema: *tb.meta.CurrentSchema(), spec: *tb.meta.DefaultSpec()}
	ch, err := rewriteManifests(mw, sf, rw)
	if err != nil {
		return commit.Attempt{}, nil, err
	}
	summary := ch.summary(rw)
	// A rewrite changes no bucket a rollup holds: the raw snapshot it
	// reflects (timelake.rollup.source-*) carries forward.
	for k, v := range parent.Summary {
		if strings.HasPrefix(k, "timelake.rollup.") {
			summary[k] = v
		}
	}
	idxFile, idxStat, err := tb.rewriteIndex(ctx, parent, rw, seq, fmt.Sprintf(indexKeyFormat, rw.snapID, attemptID), summary)
	if err != nil {
		return commit.Attempt{}, nil, err
	}
	files := mw.files
	if idxFile != nil {
		files = append(files, *idxFile)
	}
	if ch.removedDeletes > 0 {
		summary["removed-delete-files"] = strconv.Itoa(ch.removedDeletes)
	}
	built, err := tb.buildSnapshot(base, newSnapshot{
		id: rw.snapID, seq: seq, parent: parent, attemptID: attemptID, timeMs: tb.env.Now().UnixMilli(),
		manifests: ch.list, summary: summary, totals: tb.rewriteTotals(sf, rw, ch), index: idxStat, sync: sync,
	})
	if err != nil {
		return commit.Attempt{}, nil, err
	}
	return commit.Attempt{Files: append(files, built.list), Metadata: built.raw}, built.md, nil
}

// manifestWriter writes the manifests of one attempt of a snapshot, named
// by the attempt id and their order.
type manifestWriter struct {
	tb        *Table
	attemptID string
	snapID    int64
	seq       int64
	sync      [16]byte
	schema    iceberg.Schema
	spec      iceberg.PartitionSpec
	files     []commit.File // written so far
}

func (w *manifestWriter) write(entries []iceberg.ManifestEntry) (iceberg.ManifestFile, error) {
	key := fmt.Sprintf("metadata/%s-m%d.avro", w.attemptID, len(w.files))
	var buf bytes.Buffer
	mf, err := iceberg.WriteManifest(&buf, w.schema, w.spec, entries, w.sync)
	if err != nil {
		return mf, err
	}
	mf.ManifestPath = w.tb.location(key)
	mf.Assign(w.snapID, w.seq)
	w.files = append(w.files, commit.File{Key: key, Data: buf.Bytes()})
	return mf, nil
}

// rewriteChange is what a rewrite changed: the new manifest list and the
// counts its summary reports.
type rewriteChange struct {
	list                        []iceberg.ManifestFile
	removedData, removedDeletes int
	add, del                    struct{ rows, bytes int64 }
	partitions                  map[int32]bool
}

// rewriteManifests writes, through w, a manifest of rw's changes to data
// files and one of its changes to delete files, and the manifests of sf
// that held removed files again without them; it returns the new list
// (changes first, then the rewritten manifests, then those kept as they
// are).
func rewriteManifests(w *manifestWriter, sf *snapshotFiles, rw *rewrite) (*rewriteChange, error) {
	ch := &rewriteChange{partitions: map[int32]bool{}}
	var changes, deleteChanges []iceberg.ManifestEntry // of data files, of delete files
	for _, df := range rw.added {
		changes = append(changes, iceberg.ManifestEntry{Status: iceberg.StatusAdded, DataFile: df})
		ch.add.rows += df.RecordCount
		ch.add.bytes += df.FileSize
		ch.partitions[df.Partition] = true
	}
	var kept, rewritten []iceberg.ManifestFile
	for i, mf := range sf.list {
		m := sf.manifests[i]
		touched := false
		for _, e := range m.Entries {
			if e.Status != iceberg.StatusDeleted && rw.removed[e.DataFile.Path] {
				touched = true
				break
			}
		}
		if !touched {
			kept = append(kept, mf)
			continue
		}
		var existing []iceberg.ManifestEntry
		for _, e := range m.Entries {
			if e.Status == iceberg.StatusDeleted {
				continue // deleted by an earlier snapshot: not carried forward
			}
			if !rw.removed[e.DataFile.Path] {
				x := e
				x.Status = iceberg.StatusExisting
				existing = append(existing, x)
				continue
			}
			d := e
			d.Status, d.SnapshotID = iceberg.StatusDeleted, rw.snapID
			ch.partitions[e.DataFile.Partition] = true
			ch.del.bytes += e.DataFile.FileSize
			if e.DataFile.IsDelete() {
				deleteChanges = append(deleteChanges, d)
				ch.removedDeletes++
				continue
			}
			ch.removedData++
			changes = append(changes, d)
			ch.del.rows += e.DataFile.RecordCount
		}
		if len(existing) > 0 {
			nm, err := w.write(existing)
			if err != nil {
				return nil, err
			}
			rewritten = append(rewritten, nm)
		}
	}
	for _, c := range [][]iceberg.ManifestEntry{changes, deleteChanges} {
		if len(c) > 0 {
			nm, err := w.write(c)
			if err != nil {
				return nil, err
			}
			ch.list = append(ch.list, nm)
		}
	}
	ch.list = append(append(ch.list, rewritten...), kept...)
	return ch, nil
}

// summary is the snapshot summary of the rewrite's changes.
func (ch *rewriteChange) summary(rw *rewrite) map[string]string {
	return map[string]string{
		"operation":               rw.op,
		"added-data-files":        strconv.Itoa(len(rw.added)),
		"deleted-data-files":      strconv.Itoa(ch.removedData),
		"added-records":           strconv.FormatInt(ch.add.rows, 10),
		"deleted-records":         strconv.FormatInt(ch.del.rows, 10),
		"added-files-size":        strconv.FormatInt(ch.add.bytes, 10),
		"removed-files-size":      strconv.FormatInt(ch.del.bytes, 10),
		"changed-partition-count": strconv.Itoa(len(ch.partitions)),
		SummaryCommitID:           rw.commitID,
	}
}

// rewriteTotals are the table's totals after the rewrite.
func (tb *Table) rewriteTotals(sf *snapshotFiles, rw *rewrite, ch *rewriteChange) totals {
	parent := sf.snap
	t := totalsOf(parent)
	t.records += ch.add.rows - ch.del.rows
	t.files += int64(len(rw.added)) - int64(ch.removedData)
	t.bytes += ch.add.bytes - ch.del.bytes
	t.deletes = liveDeletes(sf, rw.removed)
	if rw.recomputeTimes || !hasTimeKeys(parent) {
		// Recomputed from bounds: a rewrite may have dropped the extremes,
		// and a parent of another engine's has no range to carry forward.
		t.hasTime, t.unknownTime = false, false
		kept := make([]iceberg.DataFile, 0, len(sf.live)+len(rw.added))
		for p, e := range sf.live {
			if !rw.removed[p] {
				kept = append(kept, e.DataFile)
			}
		}
		tb.widenByBounds(&t, append(kept, rw.added...))
	}
	return t
}

// decodeLong reads a long or timestamp bound (8 bytes little-endian).
func decodeLong(b []byte) (int64, bool) {
	if len(b) != 8 {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(b)), true
}

// rewriteIndex decides the new snapshot's index: rw's, when it changes
// one; else the parent's stored file, named again; else (the parent has
// none, or its file is gone) the one caught up, written now. It sets the
// summary key and returns the file to write, if any, and the statistics
// entry.
func (tb *Table) rewriteIndex(ctx context.Context, parent *iceberg.Snapshot, rw *rewrite, seq int64, key string, summary map[string]string) (*commit.File, *iceberg.StatisticsFile, error) {
	st, err := tb.indexOf(ctx, parent)
	if unsupportedIndex(err) != nil {
		return nil, nil, nil // no index for this snapshot either (unsupportedIndex)
	}
	if err != nil {
		return nil, nil, err
	}
	idx := st.idx
	changed := false
	if rw.index != nil {
		next, err := rw.index(ctx, parent)
		if err != nil {
			return nil, nil, err
		}
		if next != nil {
			idx, changed = next, true
		}
	}
	if !changed && st.stored {
		summary[lastvalue.SummaryKey] = tb.indexPath(parent)
		return nil, tb.carriedIndex(parent, rw.snapID), nil
	}
	if idx == nil {
		return nil, nil, nil
	}
	f, stat, err := tb.indexFile(idx, rw.snapID, seq, key)
	if err != nil {
		return nil, nil, err
	}
	summary[lastvalue.SummaryKey] = stat.StatisticsPath
	return &f, &stat, nil
}
