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
	rows.SetIngest(b, start.UnixMicro())
	tb.lastAppend = nil // free before this batch is sorted
	sorted := rows.SortDedup(b)

	commitID, err := tb.env.uuid()
	if err != nil {
		return nil, err
	}
	fileID := commitID // names the manifest: random even when the caller names the commit
	snapID, err := tb.env.snapshotID()
	if err != nil {
		return nil, err
	}
	isOurs := isCommit(commitID)
	if opt.CommitID != "" {
		if err := CheckCommitID(opt.CommitID); err != nil {
			return nil, err
		}
		commitID, isOurs = opt.CommitID, holdsCommit(opt.CommitID, snapID)
		if err := tb.refuseKnownCommit(opt.CommitID); err != nil {
			return nil, err
		}
	}
	files, dataFiles, err := tb.writeDataFiles(sorted)
	if err != nil {
		return nil, err
	}
	entries := make([]iceberg.ManifestEntry, len(dataFiles))
	var added struct{ rows, bytes int64 }
	for i, df := range dataFiles {
		entries[i] = iceberg.ManifestEntry{Status: iceberg.StatusAdded, DataFile: df}
		added.rows += df.RecordCount
		added.bytes += df.FileSize
	}
	manifestKey := "metadata/" + fileID + "-m0.avro"
	sync, err := tb.syncMarker()
	if err != nil {
		return nil, err
	}
	var mbuf bytes.Buffer
	mf, err := iceberg.WriteManifest(&mbuf, *tb.meta.CurrentSchema(), *tb.meta.DefaultSpec(), entries, sync)
	if err != nil {
		return nil, err
	}
	mf.ManifestPath = tb.location(manifestKey)
	var minT, maxT int64
	if sorted.Len > 0 { // else an empty commit (AllowEmpty): no manifest
		files = append(files, commit.File{Key: manifestKey, Data: mbuf.Bytes()})
		minT, maxT = timeRange(sorted)
	}
	latest := lastvalue.Merge(nil, sorted) // this append's latest row per series
	partitions := map[int32]bool{}
	for _, df := range dataFiles {
		partitions[df.Partition] = true
	}

	var built *iceberg.Metadata // the metadata of the last attempt, kept to skip re-parsing it
	var builtIndex *rows.Batch  // and its index, kept for the next append
	var noIndex error           // why the last attempt wrote no index (unsupportedIndex)
	ownManifestListed := true   // false: the last attempt merged this append's manifest into another
	var builtList *listCache    // and its manifest list, kept for the next append
	var memo *appendMemo        // the last attempt's parent and its index, for a rollup fold
	written := tb.schema        // the schema of the data files and of latest
	rebuild := func(ctx context.Context, base commit.Version) (commit.Attempt, error) {
		if !base.Same(tb.version) {
			if err := tb.rebaseTo(ctx, base); err != nil {
				return commit.Attempt{}, err
			}
			if !sameSchema(written, tb.schema) {
				// Another writer changed the schema. The data files stay
				// as written (read by field id); the rows must still be
				// valid under the new schema, and the index follows it.
				if _, err := rows.Conform(sorted, tb.schema); err != nil {
					return commit.Attempt{}, fmt.Errorf("%w: version %d changed the schema: %v", ErrSchemaMismatch, base.N, err)
				}
				l, err := rows.Conform(latest, tb.schema)
				if err != nil {
					return commit.Attempt{}, fmt.Errorf("%w: version %d changed the schema: %v", ErrSchemaMismatch, base.N, err)
				}
				latest, written = l, tb.schema
			}
		}
		if opt.CommitID != "" {
			// A rebase onto a version that already holds this commit id:
			// the batch landed before (an earlier try whose answer was lost).
			if err := tb.refuseKnownCommit(opt.CommitID); err != nil {
				return commit.Attempt{}, err
			}
		}
		md := tb.meta
		parent := md.CurrentSnapshot()
		if opt.Check != nil {
			if err := opt.Check(parent); err != nil {
				return commit.Attempt{}, err
			}
		}
		var prevManifests []iceberg.ManifestFile
		var prevIndex *rows.Batch
		totals := totals{}
		if parent != nil {
			ml, err := tb.readManifestList(ctx, parent)
			if err != nil {
				return commit.Attempt{}, err
			}
			prevManifests = ml.Files
			st, err := tb.indexOf(ctx, parent)
			if noIndex = unsupportedIndex(err); err != nil && noIndex == nil {
				return commit.Attempt{}, err
			}
			prevIndex = st.idx
			if totals, err = tb.totalsAt(ctx, parent); err != nil {
				return commit.Attempt{}, err
			}
		}
		seq := md.LastSequenceNumber + 1
		attempt := []commit.File{}

		idx := lastvalue.Merge(prevIndex, latest)
		builtIndex = idx
		memo = newAppendMemo(tb, parent, prevIndex, noIndex, sorted, snapID)
		attemptID, err := tb.env.uuid()
		if err != nil {
			return commit.Attempt{}, err
		}
		idxKey := fmt.Sprintf(indexKeyFormat, snapID, attemptID)
		var idxStat *iceberg.StatisticsFile
		if sorted.Len == 0 {
			// An empty commit changes no row: the parent's index stays in force.
			if parent != nil {
				idxStat = tb.carriedIndex(parent, snapID)
			}
			builtIndex = prevIndex
		} else if noIndex == nil {
			idxFile, stat, err := tb.indexFile(idx, snapID, seq, idxKey)
			if err != nil {
				return commit.Attempt{}, err
			}
			attempt = append(attempt, idxFile)
			idxStat = &stat
		}

		list := prevManifests
		if len(dataFiles) > 0 {
			m := mf
			m.Assign(snapID, seq)
			merged, err := tb.mergeManifests(ctx, append([]iceberg.ManifestFile{m}, prevManifests...), entries, snapID, seq, attemptID, 0, sync)
			if err != nil {
				return commit.Attempt{}, err
			}
			list = merged.list
			attempt = append(attempt, merged.files...)
			ownManifestListed = slices.ContainsFunc(list, func(f iceberg.ManifestFile) bool { return f.ManifestPath == m.ManifestPath })
		}
		listKey := fmt.Sprintf("metadata/snap-%d-%d-%s.avro", snapID, seq, attemptID)
		var lbuf bytes.Buffer
		var parentID *int64
		if parent != nil {
			parentID = &parent.SnapshotID
		}
		if err := iceberg.WriteManifestList(&lbuf, snapID, parentID, seq, list, sync); err != nil {
			return commit.Attempt{}, err
		}
		attempt = append(attempt, commit.File{Key: listKey, Data: lbuf.Bytes()})
		builtList = &listCache{path: tb.location(listKey), ml: &iceberg.ManifestList{
			SnapshotID: snapID, ParentSnapshotID: parentID, SequenceNumber: seq, Files: list}}

		now := tb.env.Now().UnixMilli()
		summary := map[string]string{
			"operation":               "append",
			"added-data-files":        strconv.Itoa(len(dataFiles)),
			"added-records":           strconv.FormatInt(added.rows, 10),
			"added-files-size":        strconv.FormatInt(added.bytes, 10),
			"changed-partition-count": strconv.Itoa(len(partitions)),
			SummaryCommitID:           commitID,
		}
		maps.Copy(summary, opt.Summary)
		if idxStat != nil {
			summary[lastvalue.SummaryKey] = idxStat.StatisticsPath
		}
		totals.records += added.rows
		totals.files += int64(len(dataFiles))
		totals.bytes += added.bytes
		if sorted.Len > 0 {
			totals.widen(minT, maxT)
		}
		totals.put(summary)
		raw, md, err := tb.nextMetadata(base, iceberg.Snapshot{
			SnapshotID:       snapID,
			ParentSnapshotID: parentID,
			SequenceNumber:   seq,
			TimestampMs:      now,
			ManifestList:     tb.location(listKey),
			Summary:          summary,
		}, idxStat)
		if err != nil {
			return commit.Attempt{}, err
		}
		built = md
		return commit.Attempt{Files: attempt, Metadata: raw}, nil
	}

	res, err := commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, files, rebuild, isOurs)
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
	if err := tb.adopt(res.Version, built); err != nil {
		return nil, fmt.Errorf("append: %w", err)
	}
	if noIndex == nil && builtIndex != nil {
		tb.lastIndex = &indexState{snapID: snapID, idx: builtIndex, stored: true}
	}
	tb.lastList = builtList
	tb.lastAppend = memo
	out := &AppendResult{
		Version: res.Version.N, SnapshotID: snapID, CommitID: commitID,
		InputRows: b.Len, Rows: sorted.Len, Files: len(dataFiles), Bytes: added.bytes,
		Conflicts: res.Conflicts, Attempts: res.Attempts, Uploads: res.Uploads,
	}
	if noIndex != nil {
		out.Warnings = append(out.Warnings, "no last-value index written: "+noIndex.Error())
	}
	if !ownManifestListed {
		// Its entries are in the merged manifest: no version names it.
		// Best effort, as for a failed commit's files (orphan cleanup).
		_ = tb.st.Delete(context.WithoutCancel(ctx), []string{manifestKey})
	}
	tb.writeHints(ctx, func(err error) { out.Warnings = append(out.Warnings, err.Error()) })
	out.DurationMs = tb.env.Now().Sub(start).Milliseconds()
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
