package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
)

// Snapshot-summary keys Timelake adds. persisted: must not change.
const (
	SummaryCommitID = "timelake.commit-id"
	SummaryMinTime  = "timelake.min-time-us"
	SummaryMaxTime  = "timelake.max-time-us"
	// SummaryTimeUnknown is "true" in a snapshot whose time range is
	// unknown (a live file has no time bounds), so that the next commit
	// carries that forward instead of reading every manifest again.
	// persisted: must not change.
	SummaryTimeUnknown = "timelake.time-range-unknown"
)

// AppendResult tells what an append committed.
type AppendResult struct {
	Version    int    // metadata version committed
	SnapshotID int64  // the new snapshot
	CommitID   string // in the snapshot summary as timelake.commit-id
	InputRows  int    // rows given
	Rows       int    // rows written, after deduplication
	Files      int    // data files written
	Bytes      int64  // bytes of the data files
	Conflicts  int    // versions other writers won first (each one a rebase)
	Attempts   int    // conditional writes made
	Uploads    int    // objects uploaded
	DurationMs int64  // by the Env clock
	Warnings   []string
}

// Append commits the batch as one snapshot. The batch must be aligned to the
// table's schema (package rows); _ingest_ts is set here to the Env clock. On
// any error the table is as it was: nothing is committed, and what was
// uploaded is deleted (best effort) — unless the error is
// commit.ErrUnknownOutcome, when the append may have landed.
func (tb *Table) Append(ctx context.Context, b *rows.Batch) (*AppendResult, error) {
	return tb.AppendWith(ctx, b, AppendOptions{})
}

// AppendOptions are what a derived table's writer (a rollup refresh) adds
// to an append.
type AppendOptions struct {
	// Summary keys added to the snapshot's summary (timelake.rollup.*).
	Summary map[string]string
	// Check is called with the parent snapshot (nil: none) of every
	// attempt; an error ends the commit with nothing committed.
	Check func(parent *iceberg.Snapshot) error
	// AllowEmpty: an empty batch commits a snapshot that adds no file (it
	// carries Summary) instead of failing with ErrEmptyInput.
	AllowEmpty bool
	// CommitID is the caller's id of the append (commitid.go: checked by
	// AppendWithCommitID); "" for a random one.
	CommitID string

	reloaded bool // the append started again from the newest version once
}

// AppendWith is Append with options.
func (tb *Table) AppendWith(ctx context.Context, b *rows.Batch, opt AppendOptions) (*AppendResult, error) {
	start := tb.env.Now()
	b, err := tb.checkBatch(b, opt)
	if err != nil {
		return nil, err
	}
	rows.SetIngest(b, start.UnixMicro())
	tb.lastAppend = nil // free before this batch is sorted
	job, err := tb.prepareAppend(b, opt)
	if err != nil {
		return nil, err
	}
	res, err := commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, job.files, job.attempt, job.isOurs)
	if err != nil && errors.Is(err, store.ErrNotFound) && !opt.reloaded {
		// The version this Table loaded was replaced by other writers long
		// enough ago that the cleanup deleted its manifest list or index
		// (timelake.metadata-grace): nothing was committed and the uploads
		// are deleted, so start again once from the newest version.
		if v, lerr := tb.latest(ctx); lerr == nil && !v.Same(tb.version) && tb.load(v) == nil {
			opt.reloaded = true
			return tb.AppendWith(ctx, b, opt)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("append: %w", err)
	}
	out, err := job.finish(ctx, res, b.Len)
	if err != nil {
		return nil, err
	}
	out.DurationMs = tb.env.Now().Sub(start).Milliseconds()
	return out, nil
}

// checkBatch refuses what cannot be appended and returns the batch aligned
// to the current schema.
func (tb *Table) checkBatch(b *rows.Batch, opt AppendOptions) (*rows.Batch, error) {
	if b == nil || b.Len == 0 {
		if !opt.AllowEmpty || b == nil {
			return nil, ErrEmptyInput
		}
	}
	if tb.writeErr != nil {
		return nil, fmt.Errorf("append: %w", tb.writeErr)
	}
	if !sameSchema(b.Schema, tb.schema) {
		// Aligned to an earlier schema of the table (before this Table
		// followed another writer's change): written as the current one.
		// Any other schema's field ids mean nothing here.
		if !tb.earlierSchema(b.Schema) {
			return nil, fmt.Errorf("%w: the batch was aligned to another schema", ErrSchemaMismatch)
		}
		cb, err := rows.Conform(b, tb.schema)
		if err != nil {
			return nil, fmt.Errorf("%w: the batch was aligned to an earlier schema of the table: %v", ErrSchemaMismatch, err)
		}
		b = cb
	}
	return b, nil
}

// appendJob is one append: what is written once (the data files and their
// manifest), and what each attempt of its commit built last.
type appendJob struct {
	tb       *Table
	opt      AppendOptions
	sorted   *rows.Batch // the batch, sorted and deduplicated
	latest   *rows.Batch // its latest row per series
	written  *schema.Table
	commitID string
	snapID   int64
	isOurs   commit.IsOurs

	files       []commit.File // the data files and the manifest, uploaded once
	dataFiles   []iceberg.DataFile
	entries     []iceberg.ManifestEntry
	added       struct{ rows, bytes int64 }
	manifest    iceberg.ManifestFile
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

// prepareAppend sorts the batch, draws the ids and writes the data files
// and their manifest.
func (tb *Table) prepareAppend(b *rows.Batch, opt AppendOptions) (*appendJob, error) {
	j := &appendJob{tb: tb, opt: opt, sorted: rows.SortDedup(b), written: tb.schema, ownManifestListed: true}
	commitID, err := tb.env.uuid()
	if err != nil {
		return nil, err
	}
	fileID := commitID // names the manifest: random even when the caller names the commit
	if j.snapID, err = tb.env.snapshotID(); err != nil {
		return nil, err
	}
	j.commitID, j.isOurs = commitID, isCommit(commitID)
	if opt.CommitID != "" {
		if err := CheckCommitID(opt.CommitID); err != nil {
			return nil, err
		}
		j.commitID, j.isOurs = opt.CommitID, holdsCommit(opt.CommitID, j.snapID)
		if err := tb.refuseKnownCommit(opt.CommitID); err != nil {
			return nil, err
		}
	}
	if j.files, j.dataFiles, err = tb.writeDataFiles(j.sorted); err != nil {
		return nil, err
	}
	j.entries = make([]iceberg.ManifestEntry, len(j.dataFiles))
	j.partitions = map[int32]bool{}
	for i, df := range j.dataFiles {
		j.entries[i] = iceberg.ManifestEntry{Status: iceberg.StatusAdded, DataFile: df}
		j.added.rows += df.RecordCount
		j.added.bytes += df.FileSize
		j.partitions[df.Partition] = true
	}
	j.manifestKey = "metadata/" + fileID + "-m0.avro"
	if j.sync, err = tb.syncMarker(); err != nil {
		return nil, err
	}
	var mbuf bytes.Buffer
	if j.manifest, err = iceberg.WriteManifest(&mbuf, *tb.meta.CurrentSchema(), *tb.meta.DefaultSpec(), j.entries, j.sync); err != nil {
		return nil, err
	}
	j.manifest.ManifestPath = tb.location(j.manifestKey)
	if j.sorted.Len > 0 { // else an empty commit (AllowEmpty): no manifest
		j.files = append(j.files, commit.File{Key: j.manifestKey, Data: mbuf.Bytes()})
		j.minT, j.maxT = timeRange(j.sorted)
	}
	j.latest = lastvalue.Merge(nil, j.sorted) // this append's latest row per series
	return j, nil
}

// rebase makes base the Table's version when another writer committed
// first, and checks the batch still fits the (possibly changed) schema.
func (j *appendJob) rebase(ctx context.Context, base commit.Version) error {
	tb := j.tb
	if !base.Same(tb.version) {
		if err := tb.rebaseTo(ctx, base); err != nil {
			return err
		}
		if !sameSchema(j.written, tb.schema) {
			// Another writer changed the schema. The data files stay
			// as written (read by field id); the rows must still be
			// valid under the new schema, and the index follows it.
			if _, err := rows.Conform(j.sorted, tb.schema); err != nil {
				return fmt.Errorf("%w: version %d changed the schema: %v", ErrSchemaMismatch, base.N, err)
			}
			l, err := rows.Conform(j.latest, tb.schema)
			if err != nil {
				return fmt.Errorf("%w: version %d changed the schema: %v", ErrSchemaMismatch, base.N, err)
			}
			j.latest, j.written = l, tb.schema
		}
	}
	if j.opt.CommitID != "" {
		// A rebase onto a version that already holds this commit id:
		// the batch landed before (an earlier try whose answer was lost).
		if err := tb.refuseKnownCommit(j.opt.CommitID); err != nil {
			return err
		}
	}
	if j.opt.Check != nil {
		if err := j.opt.Check(tb.meta.CurrentSnapshot()); err != nil {
			return err
		}
	}
	return nil
}

// attempt builds the files that depend on base and the next metadata: the
// commit's rebuild, called once per attempt.
func (j *appendJob) attempt(ctx context.Context, base commit.Version) (commit.Attempt, error) {
	if err := j.rebase(ctx, base); err != nil {
		return commit.Attempt{}, err
	}
	tb := j.tb
	parent := tb.meta.CurrentSnapshot()
	var prevManifests []iceberg.ManifestFile
	var prevIndex *rows.Batch
	t := totals{}
	if parent != nil {
		ml, err := tb.readManifestList(ctx, parent)
		if err != nil {
			return commit.Attempt{}, err
		}
		prevManifests = ml.Files
		st, err := tb.indexOf(ctx, parent)
		if j.noIndex = unsupportedIndex(err); err != nil && j.noIndex == nil {
			return commit.Attempt{}, err
		}
		prevIndex = st.idx
		if t, err = tb.totalsAt(ctx, parent); err != nil {
			return commit.Attempt{}, err
		}
	}
	seq := tb.meta.LastSequenceNumber + 1
	j.memo = newAppendMemo(tb, parent, prevIndex, j.noIndex, j.sorted, j.snapID)
	attemptID, err := tb.env.uuid()
	if err != nil {
		return commit.Attempt{}, err
	}
	files, idxStat, err := j.index(parent, prevIndex, seq, attemptID)
	if err != nil {
		return commit.Attempt{}, err
	}
	list := prevManifests
	if len(j.dataFiles) > 0 {
		m := j.manifest
		m.Assign(j.snapID, seq)
		merged, err := tb.mergeManifests(ctx, append([]iceberg.ManifestFile{m}, prevManifests...), j.entries, j.snapID, seq, attemptID, 0, j.sync)
		if err != nil {
			return commit.Attempt{}, err
		}
		list = merged.list
		files = append(files, merged.files...)
		j.ownManifestListed = slices.ContainsFunc(list, func(f iceberg.ManifestFile) bool { return f.ManifestPath == m.ManifestPath })
	}
	now := tb.env.Now().UnixMilli()
	built, err := tb.buildSnapshot(base, newSnapshot{
		id: j.snapID, seq: seq, parent: parent, attemptID: attemptID, timeMs: now,
		manifests: list, summary: j.summary(idxStat), totals: j.totals(t), index: idxStat, sync: j.sync,
	})
	if err != nil {
		return commit.Attempt{}, err
	}
	var parentID *int64
	if parent != nil {
		parentID = &parent.SnapshotID
	}
	j.builtList = &listCache{path: built.listPath, ml: &iceberg.ManifestList{
		SnapshotID: j.snapID, ParentSnapshotID: parentID, SequenceNumber: seq, Files: list}}
	j.built = built.md
	return commit.Attempt{Files: append(files, built.list), Metadata: built.raw}, nil
}

// index builds the attempt's last-value index on the parent's: the file to
// write, if any, and the statistics entry in force.
func (j *appendJob) index(parent *iceberg.Snapshot, prevIndex *rows.Batch, seq int64, attemptID string) ([]commit.File, *iceberg.StatisticsFile, error) {
	tb := j.tb
	idx := lastvalue.Merge(prevIndex, j.latest)
	j.builtIndex = idx
	if j.sorted.Len == 0 {
		// An empty commit changes no row: the parent's index stays in force.
		j.builtIndex = prevIndex
		if parent != nil {
			return nil, tb.carriedIndex(parent, j.snapID), nil
		}
		return nil, nil, nil
	}
	if j.noIndex != nil {
		return nil, nil, nil
	}
	idxFile, stat, err := tb.indexFile(idx, j.snapID, seq, fmt.Sprintf(indexKeyFormat, j.snapID, attemptID))
	if err != nil {
		return nil, nil, err
	}
	return []commit.File{idxFile}, &stat, nil
}

// summary is the snapshot summary of the append, before the totals.
func (j *appendJob) summary(idxStat *iceberg.StatisticsFile) map[string]string {
	summary := map[string]string{
		"operation":               "append",
		"added-data-files":        strconv.Itoa(len(j.dataFiles)),
		"added-records":           strconv.FormatInt(j.added.rows, 10),
		"added-files-size":        strconv.FormatInt(j.added.bytes, 10),
		"changed-partition-count": strconv.Itoa(len(j.partitions)),
		SummaryCommitID:           j.commitID,
	}
	maps.Copy(summary, j.opt.Summary)
	if idxStat != nil {
		summary[lastvalue.SummaryKey] = idxStat.StatisticsPath
	}
	return summary
}

// totals are the table's totals after the append, from the parent's t.
func (j *appendJob) totals(t totals) totals {
	t.records += j.added.rows
	t.files += int64(len(j.dataFiles))
	t.bytes += j.added.bytes
	if j.sorted.Len > 0 {
		t.widen(j.minT, j.maxT)
	}
	return t
}

// finish takes in the committed version and what its attempt built, and
// writes the hints.
func (j *appendJob) finish(ctx context.Context, res commit.Result, inputRows int) (*AppendResult, error) {
	tb := j.tb
	if err := tb.adopt(res.Version, j.built); err != nil {
		return nil, fmt.Errorf("append: %w", err)
	}
	if j.noIndex == nil && j.builtIndex != nil {
		tb.lastIndex = &indexState{snapID: j.snapID, idx: j.builtIndex, stored: true}
	}
	tb.lastList = j.builtList
	tb.lastAppend = j.memo
	out := &AppendResult{
		Version: res.Version.N, SnapshotID: j.snapID, CommitID: j.commitID,
		InputRows: inputRows, Rows: j.sorted.Len, Files: len(j.dataFiles), Bytes: j.added.bytes,
		Conflicts: res.Conflicts, Attempts: res.Attempts, Uploads: res.Uploads,
	}
	if j.noIndex != nil {
		out.Warnings = append(out.Warnings, "no last-value index written: "+j.noIndex.Error())
	}
	if !j.ownManifestListed {
		// Its entries are in the merged manifest: no version names it.
		// Best effort, as for a failed commit's files (orphan cleanup).
		_ = tb.st.Delete(context.WithoutCancel(ctx), []string{j.manifestKey})
	}
	tb.writeHints(ctx, func(err error) { out.Warnings = append(out.Warnings, err.Error()) })
	return out, nil
}

// isCommit recognises the version that holds the commit id. The id is a
// random UUID that only this append writes, so finding its bytes is enough;
// no need to parse metadata that grows with every snapshot.
func isCommit(id string) commit.IsOurs {
	needle := []byte(`"` + id + `"`)
	return func(v commit.Version) bool { return bytes.Contains(v.Raw, needle) }
}

func (tb *Table) commitOptions() commit.Options {
	return commit.Options{
		MaxAttempts: tb.settings.CommitRetries + 1,
		BaseBackoff: msDuration(tb.settings.CommitMinWaitMs),
		MaxBackoff:  msDuration(tb.settings.CommitMaxWaitMs),
		Sleep:       tb.env.Sleep,
		Rand:        tb.env.Rand,
		Decider:     tb.decider,
	}
}

// writeDataFiles writes one Parquet file per partition of the sorted batch,
// more when one passes write.target-file-size-bytes.
func (tb *Table) writeDataFiles(b *rows.Batch) ([]commit.File, []iceberg.DataFile, error) {
	sch := tb.schema
	specs := make([]parquet.ColumnSpec, len(sch.Fields))
	for i, f := range sch.Fields {
		specs[i] = parquet.ColumnSpec{Name: f.Name, FieldID: int32(f.ID), Type: f.Type, Required: f.Required}
	}
	opts := tb.parquetOptions()
	var files []commit.File
	var dfs []iceberg.DataFile
	for _, p := range rows.SplitByPartition(b) {
		part := rows.Slice(b, p.Start, p.End)
		dir := "data/" + tb.partitionField() + "=" + sch.Partition.Format(p.Value) + "/"
		// Rows go in a page at a time so a file can close at the target size.
		step := tb.settings.PageRowLimit
		var w *parquet.Writer
		flush := func() error {
			data, stats, err := w.Finish()
			if err != nil {
				return err
			}
			id, err := tb.env.uuid()
			if err != nil {
				return err
			}
			key := dir + id + ".parquet"
			files = append(files, commit.File{Key: key, Data: data})
			dfs = append(dfs, dataFile(sch, tb.location(key), p.Value, int64(len(data)), stats))
			w = nil
			return nil
		}
		for i := 0; i < part.Len; i += step {
			if w == nil {
				var err error
				if w, err = parquet.NewWriter(specs, opts); err != nil {
					return nil, nil, err
				}
			}
			chunk := rows.Slice(part, i, min(i+step, part.Len))
			if err := w.Write(chunk.Cols, chunk.Len); err != nil {
				return nil, nil, err
			}
			if w.Size() >= tb.settings.TargetFileBytes {
				if err := flush(); err != nil {
					return nil, nil, err
				}
			}
		}
		if w != nil {
			if err := flush(); err != nil {
				return nil, nil, err
			}
		}
	}
	return files, dfs, nil
}

func (tb *Table) parquetOptions() parquet.Options {
	sch := tb.schema
	var sorting []parquet.SortingColumn
	for _, s := range sch.Series {
		sorting = append(sorting, parquet.SortingColumn{Column: s, NullsFirst: true})
	}
	sorting = append(sorting, parquet.SortingColumn{Column: sch.Time, NullsFirst: true})
	codec := parquet.Zstd
	switch tb.settings.Compression {
	case "uncompressed":
		codec = parquet.Uncompressed
	case "snappy":
		codec = parquet.Snappy
	}
	return parquet.Options{
		PageRowLimit:  tb.settings.PageRowLimit,
		RowGroupBytes: min(tb.settings.RowGroupBytes, maxRowGroupBytes),
		RowGroupRows:  rowGroupRows,
		Codec:         codec,
		Compat:        tb.settings.ParquetCompat,
		Sorting:       sorting,
		CreatedBy:     "timelake",
	}
}

// dataFile builds the Iceberg entry of a written file: full statistics, and
// bounds in Iceberg's single-value encoding (strings truncated to 16
// characters, the upper bound rounded up).
func dataFile(sch *schema.Table, path string, partition int32, size int64, st *parquet.FileStats) iceberg.DataFile {
	order := int32(schema.SortOrderID)
	df := iceberg.DataFile{
		Content: iceberg.ContentData, Path: path, Format: iceberg.FormatParquet,
		Partition: partition, RecordCount: st.Rows, FileSize: size,
		ColumnSizes: map[int32]int64{}, ValueCounts: map[int32]int64{}, NullCounts: map[int32]int64{},
		NaNCounts: map[int32]int64{}, Lower: map[int32][]byte{}, Upper: map[int32][]byte{},
		SplitOffsets: st.RowGroupOffsets, SortOrderID: &order,
	}
	for i, f := range sch.Fields {
		c := st.Columns[i]
		id := int32(f.ID)
		df.ColumnSizes[id] = c.CompressedSize
		df.ValueCounts[id] = c.Values
		df.NullCounts[id] = c.Nulls
		if f.Type.IsFloat() {
			df.NaNCounts[id] = c.NaNs
		}
		if !c.HasBounds {
			continue
		}
		switch f.Type {
		case schema.Long, schema.Timestamptz:
			df.Lower[id], df.Upper[id] = iceberg.EncodeLong(c.MinInt), iceberg.EncodeLong(c.MaxInt)
		case schema.Int:
			df.Lower[id], df.Upper[id] = iceberg.EncodeInt(int32(c.MinInt)), iceberg.EncodeInt(int32(c.MaxInt))
		case schema.Double:
			df.Lower[id], df.Upper[id] = iceberg.EncodeDouble(c.MinFloat), iceberg.EncodeDouble(c.MaxFloat)
		case schema.Float:
			df.Lower[id], df.Upper[id] = iceberg.EncodeFloat(float32(c.MinFloat)), iceberg.EncodeFloat(float32(c.MaxFloat))
		case schema.Boolean:
			df.Lower[id], df.Upper[id] = iceberg.EncodeBool(c.MinBool), iceberg.EncodeBool(c.MaxBool)
		case schema.String:
			df.Lower[id] = iceberg.StringLowerBound(c.MinStr)
			if up, ok := iceberg.StringUpperBound(c.MaxStr); ok {
				df.Upper[id] = up
			}
		}
	}
	return df
}

func timeRange(b *rows.Batch) (lo, hi int64) {
	ts := b.Cols[b.Schema.Time].Ints
	lo, hi = ts[0], ts[0]
	for _, t := range ts {
		lo, hi = min(lo, t), max(hi, t)
	}
	return lo, hi
}
