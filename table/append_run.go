package table

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/snapshot"
)

// appendRun is one append: what it wrote once (data files, its manifest),
// and what its last commit attempt built, kept for the Table once the
// append commits.
type appendRun struct {
	tb       *Table
	opt      AppendOptions
	sorted   *rows.Batch   // the batch's rows, sorted and deduplicated (a staged append: its only batch's, or nil)
	rowCount int           // rows written (sorted.Len, or a staged append's sum)
	staged   bool          // the data files were uploaded before the commit (append_staged.go)
	latest   *rows.Batch   // this append's latest row per series
	written  *schema.Table // the schema of the data files and of latest
	snapID   int64
	commitID string
	fileID   string // names the manifest: random even when the caller names the commit

	dataFiles   []iceberg.DataFile
	entries     []iceberg.ManifestEntry // the manifest's, ADDED
	added       struct{ rows, bytes int64 }
	mf          iceberg.ManifestFile
	manifestKey string
	sync        [16]byte
	minT, maxT  int64
	partitions  map[int32]bool

	built             *iceberg.Metadata // the metadata of the last attempt, kept to skip re-parsing it
	builtIndex        *rows.Batch       // and its index, kept for the next append
	noIndex           error             // why the last attempt wrote no index (unsupportedIndex)
	ownManifestListed bool              // false: the last attempt merged this append's manifest into another
	builtList         *listCache        // and its manifest list, kept for the next append
	memo              *appendMemo       // the last attempt's parent and its index, for a rollup fold
}

// writeFiles builds the files every attempt shares: the data files and the
// manifest that adds them (none for an empty commit).
func (r *appendRun) writeFiles() ([]commit.File, error) {
	tb := r.tb
	files, dataFiles, err := tb.writeDataFiles(r.sorted)
	if err != nil {
		return nil, err
	}
	r.dataFiles = dataFiles
	r.rowCount = r.sorted.Len
	r.entries = make([]iceberg.ManifestEntry, len(dataFiles))
	for i, df := range dataFiles {
		r.entries[i] = iceberg.ManifestEntry{Status: iceberg.StatusAdded, DataFile: df}
		r.added.rows += df.RecordCount
		r.added.bytes += df.FileSize
	}
	r.manifestKey = snapshot.ManifestKey(r.fileID, 0)
	if r.sync, err = tb.syncMarker(); err != nil {
		return nil, err
	}
	var mbuf bytes.Buffer
	if r.mf, err = iceberg.WriteManifestVersion(&mbuf, tb.writeVersion(), *tb.meta.CurrentSchema(), *tb.meta.DefaultSpec(), r.entries, r.sync); err != nil {
		return nil, err
	}
	r.mf.ManifestPath = tb.location(r.manifestKey)
	if r.sorted.Len > 0 { // else an empty commit (AllowEmpty): no manifest
		files = append(files, commit.File{Key: r.manifestKey, Data: mbuf.Bytes()})
		r.minT, r.maxT = timeRange(r.sorted)
	}
	r.latest = lastvalue.Merge(nil, r.sorted)
	r.partitions = map[int32]bool{}
	for _, df := range dataFiles {
		r.partitions[df.Partition] = true
	}
	return files, nil
}

// rebuild is the append's commit.Rebuild: the attempt on base.
func (r *appendRun) rebuild(ctx context.Context, base commit.Version) (commit.Attempt, error) {
	tb := r.tb
	if err := r.rebase(ctx, base); err != nil {
		return commit.Attempt{}, err
	}
	parent := tb.meta.CurrentSnapshot()
	if r.opt.Check != nil {
		if err := r.opt.Check(parent); err != nil {
			return commit.Attempt{}, err
		}
	}
	prev, err := r.readParent(ctx, parent)
	if err != nil {
		return commit.Attempt{}, err
	}
	sb := tb.snapshotBase(base)
	seq := sb.Seq()
	idx := lastvalue.Merge(prev.index, r.latest)
	r.builtIndex = idx
	r.memo = newAppendMemo(tb, parent, prev.index, r.noIndex, r.sorted, r.snapID)
	attemptID, err := tb.env.uuid()
	if err != nil {
		return commit.Attempt{}, err
	}
	attempt, idxStat, err := r.indexFile(parent, prev.index, idx, seq, attemptID)
	if err != nil {
		return commit.Attempt{}, err
	}
	list, merged, err := r.manifestList(ctx, prev.manifests, seq, attemptID)
	if err != nil {
		return commit.Attempt{}, err
	}
	attempt = append(attempt, merged...)
	now := tb.env.Now().UnixMilli()
	v, err := tb.buildVersion(sb, snapshot.Change{
		SnapshotID: r.snapID, AttemptID: attemptID, Sync: r.sync, TimestampMs: now,
		Manifests: list, Summary: r.summary(prev.totals, idxStat), Index: idxStat,
	})
	if err != nil {
		return commit.Attempt{}, err
	}
	r.builtList = &listCache{path: v.ListPath, ml: v.Manifest}
	r.built = v.Meta
	return commit.Attempt{Files: append(attempt, v.List), Metadata: v.Raw}, nil
}

// rebase makes base current when another writer committed it, and checks
// that the batch still holds on it.
func (r *appendRun) rebase(ctx context.Context, base commit.Version) error {
	tb := r.tb
	if !base.Same(tb.version) {
		if err := tb.rebaseTo(ctx, base); err != nil {
			return err
		}
		if !sameSchema(r.written, tb.schema) {
			// Another writer changed the schema. The data files stay
			// as written (read by field id); the rows must still be
			// valid under the new schema, and the index follows it.
			if err := r.conformsTo(tb.schema); err != nil {
				return fmt.Errorf("%w: version %d changed the schema: %v", ErrSchemaMismatch, base.N, err)
			}
			l, err := rows.Conform(r.latest, tb.schema)
			if err != nil {
				return fmt.Errorf("%w: version %d changed the schema: %v", ErrSchemaMismatch, base.N, err)
			}
			r.latest, r.written = l, tb.schema
		}
	}
	if r.opt.CommitID != "" {
		// A rebase onto a version that already holds this commit id:
		// the batch landed before (an earlier try whose answer was lost).
		return tb.refuseKnownCommit(r.opt.CommitID)
	}
	return nil
}

// parentState is what an append reads of its parent snapshot.
type parentState struct {
	manifests []iceberg.ManifestFile
	index     *rows.Batch
	totals    totals
}

// readParent reads parent's manifest list, last-value index and totals
// (none for nil); it sets r.noIndex.
func (r *appendRun) readParent(ctx context.Context, parent *iceberg.Snapshot) (parentState, error) {
	tb := r.tb
	var p parentState
	if parent == nil {
		return p, nil
	}
	ml, err := tb.readManifestList(ctx, parent)
	if err != nil {
		return p, err
	}
	p.manifests = ml.Files
	st, err := tb.indexOf(ctx, parent)
	if r.noIndex = unsupportedIndex(err); err != nil && r.noIndex == nil {
		return p, err
	}
	p.index = st.idx
	p.totals, err = tb.totalsAt(ctx, parent)
	return p, err
}

// indexFile returns the index to upload (none when the parent's is carried
// or none can be written) and the snapshot's statistics entry.
func (r *appendRun) indexFile(parent *iceberg.Snapshot, prevIndex, idx *rows.Batch, seq int64, attemptID string) ([]commit.File, *iceberg.StatisticsFile, error) {
	if r.rowCount == 0 {
		// An empty commit changes no row: the parent's index stays in force.
		r.builtIndex = prevIndex
		if parent != nil {
			return nil, r.tb.carriedIndex(parent, r.snapID), nil
		}
		return nil, nil, nil
	}
	if r.noIndex != nil {
		return nil, nil, nil
	}
	f, stat, err := r.tb.indexFile(idx, r.snapID, seq, fmt.Sprintf(indexKeyFormat, r.snapID, attemptID))
	if err != nil {
		return nil, nil, err
	}
	return []commit.File{f}, &stat, nil
}

// manifestList is the new snapshot's manifest list: this append's manifest
// before the parent's, merged when the table says so (manifestmerge.go),
// and the merged manifests to upload.
func (r *appendRun) manifestList(ctx context.Context, prev []iceberg.ManifestFile, seq int64, attemptID string) ([]iceberg.ManifestFile, []commit.File, error) {
	if len(r.dataFiles) == 0 {
		return prev, nil, nil
	}
	m := r.mf
	m.Assign(r.snapID, seq)
	merged, err := r.tb.mergeManifests(ctx, append([]iceberg.ManifestFile{m}, prev...), r.entries, r.snapID, seq, attemptID, 0, r.sync)
	if err != nil {
		return nil, nil, err
	}
	r.ownManifestListed = slices.ContainsFunc(merged.list, func(f iceberg.ManifestFile) bool { return f.ManifestPath == m.ManifestPath })
	return merged.list, merged.files, nil
}

// summary is the append's snapshot summary on a parent whose totals are t.
func (r *appendRun) summary(t totals, idxStat *iceberg.StatisticsFile) map[string]string {
	summary := map[string]string{
		"operation":               "append",
		"added-data-files":        strconv.Itoa(len(r.dataFiles)),
		"added-records":           strconv.FormatInt(r.added.rows, 10),
		"added-files-size":        strconv.FormatInt(r.added.bytes, 10),
		"changed-partition-count": strconv.Itoa(len(r.partitions)),
		SummaryCommitID:           r.commitID,
	}
	maps.Copy(summary, r.opt.Summary)
	if idxStat != nil {
		summary[lastvalue.SummaryKey] = idxStat.StatisticsPath
	}
	t.records += r.added.rows
	t.files += int64(len(r.dataFiles))
	t.bytes += r.added.bytes
	if r.rowCount > 0 {
		per := r.tb.schema.TimeField().Type.PerMicro() // the summary's range is in µs
		t.widen(schema.FloorMicros(r.minT, per), schema.FloorMicros(r.maxT, per))
	}
	t.put(summary)
	return summary
}

// committed keeps what the committed attempt built for the next append and
// returns the append's result (InputRows and DurationMs the caller's).
func (r *appendRun) committed(ctx context.Context, res commit.Result) *AppendResult {
	tb := r.tb
	if r.noIndex == nil && r.builtIndex != nil {
		tb.lastIndex = &indexState{snapID: r.snapID, idx: r.builtIndex, stored: true}
	}
	tb.lastList = r.builtList
	tb.lastAppend = r.memo
	out := &AppendResult{
		Version: res.Version.N, SnapshotID: r.snapID, CommitID: r.commitID,
		Rows: r.rowCount, Files: len(r.dataFiles), Bytes: r.added.bytes,
		Conflicts: res.Conflicts, Attempts: res.Attempts, Uploads: res.Uploads,
	}
	if r.noIndex != nil {
		out.Warnings = append(out.Warnings, "no last-value index written: "+r.noIndex.Error())
	}
	if !r.ownManifestListed {
		// Its entries are in the merged manifest: no version names it.
		// Best effort, as for a failed commit's files (orphan cleanup).
		_ = tb.st.Delete(context.WithoutCancel(ctx), []string{r.manifestKey})
	}
	tb.writeHints(ctx, func(err error) { out.Warnings = append(out.Warnings, err.Error()) })
	return out
}
