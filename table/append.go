package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
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
	Batches    int    `json:",omitempty"` // batches a staged append committed together (append_staged.go)
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
	b, sorted, err := tb.appendBatch(b, opt, start.UnixMicro())
	if err != nil {
		return nil, err
	}
	run, isOurs, err := tb.newAppendRun(sorted, opt)
	if err != nil {
		return nil, err
	}
	files, err := run.writeFiles()
	if err != nil {
		return nil, err
	}
	res, err := commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, files, run.rebuild, isOurs)
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
	if err := tb.takeCommitted(res.Version, run.built); err != nil {
		return nil, fmt.Errorf("append: %w", err)
	}
	out := run.committed(ctx, res)
	out.InputRows = b.Len
	out.DurationMs = tb.env.Now().Sub(start).Milliseconds()
	return out, nil
}

// appendBatch checks b and returns it as written (conformed to the current
// schema when it was aligned to an earlier one), its _ingest_ts set to
// ingestUS, and its rows sorted and deduplicated.
func (tb *Table) appendBatch(b *rows.Batch, opt AppendOptions, ingestUS int64) (*rows.Batch, *rows.Batch, error) {
	if b == nil || b.Len == 0 {
		if !opt.AllowEmpty || b == nil {
			return nil, nil, ErrEmptyInput
		}
	}
	if tb.writeErr != nil {
		return nil, nil, fmt.Errorf("append: %w", tb.writeErr)
	}
	if !sameSchema(b.Schema, tb.schema) {
		// Aligned to an earlier schema of the table (before this Table
		// followed another writer's change): written as the current one.
		// Any other schema's field ids mean nothing here.
		if !tb.earlierSchema(b.Schema) {
			return nil, nil, fmt.Errorf("%w: the batch was aligned to another schema", ErrSchemaMismatch)
		}
		cb, err := rows.Conform(b, tb.schema)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: the batch was aligned to an earlier schema of the table: %v", ErrSchemaMismatch, err)
		}
		b = cb
	}
	if err := nullSeries(b); err != nil {
		return nil, nil, err
	}
	if err := rows.CheckValueSizes(b); err != nil { // before anything is written
		return nil, nil, err
	}
	rows.SetIngest(b, ingestUS)
	tb.lastAppend = nil // free before this batch is sorted
	var sorted *rows.Batch
	if tb.schema.Partition == 0 { // another engine's spec (spec.go)
		ws, err := tb.writeSpec()
		if err != nil {
			return nil, nil, err
		}
		sorted = ws.sortDedup(b)
	} else {
		sorted = rows.SortDedup(b)
	}
	if err := tb.checkPartitions(sorted, nil); err != nil {
		return nil, nil, err
	}
	return b, sorted, nil
}

// newAppendRun draws the append's ids: its commit id (the caller's, when
// opt names one), the uuid that names its manifest, and its snapshot id.
func (tb *Table) newAppendRun(sorted *rows.Batch, opt AppendOptions) (*appendRun, commit.IsOurs, error) {
	commitID, err := tb.env.uuid()
	if err != nil {
		return nil, nil, err
	}
	run := &appendRun{tb: tb, opt: opt, sorted: sorted, fileID: commitID, written: tb.schema, ownManifestListed: true}
	if run.snapID, err = tb.env.snapshotID(); err != nil {
		return nil, nil, err
	}
	isOurs := isCommit(commitID)
	if opt.CommitID != "" {
		if err := CheckCommitID(opt.CommitID); err != nil {
			return nil, nil, err
		}
		commitID, isOurs = opt.CommitID, holdsCommit(opt.CommitID, run.snapID)
		if err := tb.refuseKnownCommit(opt.CommitID); err != nil {
			return nil, nil, err
		}
	}
	run.commitID = commitID
	return run, isOurs, nil
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
		specs[i] = parquet.SpecOf(f)
	}
	opts := tb.parquetOptions()
	var files []commit.File
	var dfs []iceberg.DataFile
	runs, err := tb.partitionRuns(b)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range runs {
		part := rows.Slice(b, p.start, p.end)
		dir := p.dir
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
			df := tb.dataFile(sch, tb.location(key), p.value, int64(len(data)), stats)
			df.PartitionValues = p.values
			dfs = append(dfs, df)
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
		PageBytes:     tb.settings.PageBytes,
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
func (tb *Table) dataFile(sch *schema.Table, path string, partition int32, size int64, st *parquet.FileStats) iceberg.DataFile {
	// The order the file is sorted by, as the table lists it (not always
	// its default: an adopted table keeps the order its engine set).
	oid, _ := iceberg.OurSortOrderID(tb.meta, sch)
	order := int32(oid)
	df := iceberg.DataFile{
		Content: iceberg.ContentData, Path: path, Format: iceberg.FormatParquet,
		Partition: partition, RecordCount: st.Rows, FileSize: size,
		ColumnSizes: map[int32]int64{}, ValueCounts: map[int32]int64{}, NullCounts: map[int32]int64{},
		NaNCounts: map[int32]int64{}, Lower: map[int32][]byte{}, Upper: map[int32][]byte{},
		SplitOffsets: st.RowGroupOffsets, SortOrderID: &order,
	}
	for i, f := range sch.Fields {
		if f.Type == schema.Nested {
			// Iceberg's metrics of a map are its key's and value's, by
			// their ids; none are written (they are optional)
			continue
		}
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
		case schema.Long, schema.Timestamptz, schema.Timestamp, schema.TimestamptzNs, schema.TimestampNs:
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

// nullSeries refuses a null in a series column: a table another engine
// created may have optional series columns (adopted as they are), but a
// row's series is part of its key, and a null would be taken for the
// type's zero value.
func nullSeries(b *rows.Batch) error {
	for _, s := range b.Schema.Series {
		c := &b.Cols[s]
		for i := 0; c.Nulls != nil && i < len(c.Nulls); i++ {
			if c.Nulls[i] {
				return &rows.Error{Code: rows.CodeMissingColumn, Row: i + 1, Column: b.Schema.Fields[s].Name, Msg: "a series column may not be null (it is part of the row's key)"}
			}
		}
	}
	return nil
}

// partitionRun is the rows [start, end) of a sorted batch that go to one
// partition: Timelake's (value) or any spec's (values, spec.go).
type partitionRun struct {
	dir        string
	value      int32
	values     []any
	start, end int
}

// partitionRuns splits a batch sorted for writing by partition.
func (tb *Table) partitionRuns(b *rows.Batch) ([]partitionRun, error) {
	var out []partitionRun
	if tb.schema.Partition == 0 {
		ws, err := tb.writeSpec()
		if err != nil {
			return nil, err
		}
		for _, r := range ws.split(b) {
			out = append(out, partitionRun{dir: ws.dir(r.values), values: r.values, start: r.start, end: r.end})
		}
		return out, nil
	}
	for _, p := range rows.SplitByPartition(b) {
		dir := "data/" + tb.partitionField() + "=" + tb.schema.Partition.Format(p.Value) + "/"
		out = append(out, partitionRun{dir: dir, value: p.Value, start: p.Start, end: p.End})
	}
	return out, nil
}
