package table

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/snapshot"
)

// snapshotFiles is a snapshot's manifest list and manifests, read once per
// attempt of a maintenance commit.
type snapshotFiles struct {
	snap      *iceberg.Snapshot
	list      []iceberg.ManifestFile
	manifests []*iceberg.Manifest              // by list position
	live      map[string]iceberg.ManifestEntry // data and delete files, by EntryKey
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
				key := e.DataFile.EntryKey() // a Puffin file's vectors: one each
				if err := listedOnce(seen, key, mf.ManifestPath); err != nil {
					return nil, err
				}
				if err := checkDeleteFile(&e.DataFile); err != nil {
					return nil, err
				}
				// Every input is checked before anything is planned: a
				// file outside the table in one partition must not let
				// maintenance commit another partition first and fail later.
				if _, err := tb.keyOf(e.DataFile.Path); err != nil {
					return nil, fmt.Errorf("manifest %s lists %q: %w", mf.ManifestPath, e.DataFile.Path, err)
				}
				switch {
				case int(mf.PartitionSpecID) != tb.meta.DefaultSpecID:
					sf.otherSpec[key] = true
				case tb.schema.Partition == 0 && tb.writeErr == nil:
					// Another engine's spec, which Timelake writes: the
					// tuple, numbered for the planner (spec.go).
					df := &e.DataFile
					df.PartitionValues = df.PartitionTuple(len(tb.meta.DefaultSpec().Fields))
					df.Partition = tb.specPartID(df.PartitionValues)
				case e.DataFile.OtherPartition:
					sf.otherSpec[key] = true
				}
				sf.live[key] = e
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
	// removesRows: the rewrite removes rows a reader saw (a delete), so
	// the rollups' source snapshot does not carry forward: their refresh
	// recomputes the buckets it touched.
	removesRows bool
	// dropIndex, when set, says whether the parent's last-value index no
	// longer holds (a delete removed a series' latest row): the snapshot
	// then has none, and the next reader catches it up from the files.
	dropIndex func(idx *rows.Batch) bool
	// addedDeletes are delete files the rewrite adds (a delete's deletion
	// vectors), in a manifest of their own.
	addedDeletes []iceberg.DataFile
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
	sb := tb.snapshotBase(base)
	seq := sb.Seq()
	attemptID, err := tb.env.uuid()
	if err != nil {
		return commit.Attempt{}, nil, err
	}
	mw := snapshot.Manifests{Base: sb, Prefix: attemptID, SnapshotID: rw.snapID}
	if mw.Sync, err = tb.syncMarker(); err != nil {
		return commit.Attempt{}, nil, err
	}
	rm := snapshot.RemoveSpec(sf.list, sf.manifests, rw.removed, rw.snapID, int32(tb.meta.DefaultSpecID))
	list, err := rw.manifests(&mw, rm)
	if err != nil {
		return commit.Attempt{}, nil, err
	}
	summary := rw.summary(parent, rm)
	idxFile, idxStat, err := tb.rewriteIndex(ctx, parent, rw, seq, fmt.Sprintf(indexKeyFormat, rw.snapID, attemptID), summary)
	if err != nil {
		return commit.Attempt{}, nil, err
	}
	files := mw.Files
	if len(rw.addedDeletes) > 0 {
		var n int64
		for _, df := range rw.addedDeletes {
			n += df.RecordCount
		}
		summary["added-delete-files"] = strconv.Itoa(len(rw.addedDeletes))
		summary["added-position-deletes"] = strconv.FormatInt(n, 10)
	}
	if idxFile != nil {
		files = append(files, *idxFile)
	}
	if rm.DeleteFiles > 0 {
		summary["removed-delete-files"] = strconv.Itoa(rm.DeleteFiles)
	}
	tb.rewriteTotals(sf, rw, rm).put(summary)
	v, err := tb.buildVersion(sb, snapshot.Change{
		SnapshotID: rw.snapID, AttemptID: attemptID, Sync: mw.Sync, TimestampMs: tb.env.Now().UnixMilli(),
		Manifests: list, Summary: summary, Index: idxStat,
	})
	if err != nil {
		return commit.Attempt{}, nil, err
	}
	return commit.Attempt{Files: append(files, v.List), Metadata: v.Raw}, v.Meta, nil
}

// manifests writes rw's manifests and returns the new manifest list: the
// manifest of the changes (ADDED outputs, DELETED data files), that of the
// DELETED delete files, the rewritten ones, then those kept as they were.
func (rw *rewrite) manifests(w *snapshot.Manifests, rm *snapshot.Removal) ([]iceberg.ManifestFile, error) {
	var rewritten []iceberg.ManifestFile
	for i, existing := range rm.Rewritten {
		nm, err := w.WriteSpec(existing, rm.RewrittenSpec[i]) // each in its own spec
		if err != nil {
			return nil, err
		}
		rewritten = append(rewritten, nm)
	}
	changes := make([]iceberg.ManifestEntry, 0, len(rw.added)+len(rm.Deleted))
	for _, df := range rw.added {
		changes = append(changes, iceberg.ManifestEntry{Status: iceberg.StatusAdded, DataFile: df})
	}
	changes = append(changes, rm.Deleted...)
	var list []iceberg.ManifestFile
	addedDeletes := make([]iceberg.ManifestEntry, 0, len(rw.addedDeletes))
	for _, df := range rw.addedDeletes {
		addedDeletes = append(addedDeletes, iceberg.ManifestEntry{Status: iceberg.StatusAdded, DataFile: df})
	}
	for _, ch := range [][]iceberg.ManifestEntry{changes, append(addedDeletes, rm.DeletedDeletes...)} {
		if len(ch) > 0 {
			nm, err := w.Write(ch)
			if err != nil {
				return nil, err
			}
			list = append(list, nm)
		}
	}
	// Files of older specs removed (migrated into the current spec, or
	// dropped by retention): DELETED in manifests of their own spec, data
	// and delete files apart.
	for _, spec := range slices.Sorted(maps.Keys(rm.DeletedOther)) {
		var data, dels []iceberg.ManifestEntry
		for _, e := range rm.DeletedOther[spec] {
			if e.DataFile.IsDelete() {
				dels = append(dels, e)
			} else {
				data = append(data, e)
			}
		}
		for _, ch := range [][]iceberg.ManifestEntry{data, dels} {
			if len(ch) > 0 {
				nm, err := w.WriteSpec(ch, spec)
				if err != nil {
					return nil, err
				}
				list = append(list, nm)
			}
		}
	}
	return append(append(list, rewritten...), rm.Kept...), nil
}

// summary is rw's snapshot summary but for the totals and the index.
func (rw *rewrite) summary(parent *iceberg.Snapshot, rm *snapshot.Removal) map[string]string {
	var add struct{ rows, bytes int64 }
	partitions := rm.Partitions
	for _, df := range rw.added {
		add.rows += df.RecordCount
		add.bytes += df.FileSize
		partitions[df.Partition] = true
	}
	summary := map[string]string{
		"operation":               rw.op,
		"added-data-files":        strconv.Itoa(len(rw.added)),
		"deleted-data-files":      strconv.Itoa(rm.DataFiles),
		"added-records":           strconv.FormatInt(add.rows, 10),
		"deleted-records":         strconv.FormatInt(rm.Rows, 10),
		"added-files-size":        strconv.FormatInt(add.bytes, 10),
		"removed-files-size":      strconv.FormatInt(rm.Bytes, 10),
		"changed-partition-count": strconv.Itoa(len(partitions)),
		SummaryCommitID:           rw.commitID,
	}
	// A rewrite changes no bucket a rollup holds: the raw snapshot it
	// reflects (timelake.rollup.source-*) carries forward.
	for k, v := range parent.Summary {
		if strings.HasPrefix(k, "timelake.rollup.") && !rw.removesRows {
			summary[k] = v
		}
	}
	return summary
}

// rewriteTotals are the table totals after rw on sf's snapshot.
func (tb *Table) rewriteTotals(sf *snapshotFiles, rw *rewrite, rm *snapshot.Removal) totals {
	t := totalsOf(sf.snap)
	for _, df := range rw.added {
		t.records += df.RecordCount
		t.bytes += df.FileSize
	}
	t.records -= rm.Rows
	t.files += int64(len(rw.added)) - int64(rm.DataFiles)
	t.bytes -= rm.Bytes
	t.deletes = liveDeletes(sf, rw.removed)
	for i := range rw.addedDeletes {
		t.deletes.add(&rw.addedDeletes[i])
	}
	if rw.recomputeTimes || !hasTimeKeys(sf.snap) {
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
	if rw.dropIndex != nil && idx != nil && rw.dropIndex(idx) {
		return nil, nil, nil
	}
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
