package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/snapshot"
	"github.com/timelake/timelake/store"
)

// A staged append is one commit of many batches: an input too large to
// hold in memory at once (the CLI's append of a big file, read
// --batch-rows at a time) still lands as one snapshot, or not at all.
// Each batch is sorted, written and uploaded as soon as it is added, and
// then let go: what stays in memory is each data file's manifest entry and
// the latest row per series (the last-value index's share of the append).
// Commit writes the one manifest that adds every file and commits it like
// an append (appendRun); a failure anywhere deletes every data file the
// append uploaded, so the table is as it was.
//
// Rows of different batches are deduplicated as two appends' rows are, at
// read time (rows.Winner): each batch's _ingest_ts is later than the
// previous one's (by at least a microsecond when the clock has not moved),
// so the later batch's row wins a tie, as it would have in its own commit.
//
// Data files of a staged append are unreferenced until its commit: a
// maintain with orphan cleanup leaves them alone for timelake.orphan-grace
// (cleanup.go), so an append must commit within that grace; Commit checks
// that the files it uploaded longer ago than half the grace are still there.

// Appender stages the batches of one append (Table.NewAppender). It is not
// safe for concurrent use, and the Table must not be used for anything else
// until Commit or Abort.
type Appender struct {
	tb         *Table
	opt        AppendOptions
	start      time.Time
	lastIngest int64 // the previous batch's _ingest_ts

	uploaded   []string // every data file uploaded so far
	dataFiles  []iceberg.DataFile
	latest     *rows.Batch // the latest row per series of the batches so far
	first      *rows.Batch // the only batch's sorted rows, for a rollup fold; nil once there are two
	batches    int
	inputRows  int
	rows       int
	bytes      int64
	minT, maxT int64
	partitions map[int32]bool
	firstPutUS int64 // Env clock of the first upload

	// An evolving append: the Table as it was before the first change, the
	// schema then, and every change since (the commit makes them all).
	saved   *Table
	old     *schema.Table
	changes []evolve.Change
	next    *schema.Table

	err error // sticky: once failed (or finished), every call returns it
}

// errAppenderDone is what an Appender says after Commit or Abort.
var errAppenderDone = errors.New("append: the staged append already ended")

// NewAppender starts a staged append on tb with opt (its Summary, Check,
// AllowEmpty and CommitID as for AppendWith).
func (tb *Table) NewAppender(opt AppendOptions) (*Appender, error) {
	if tb.writeErr != nil {
		return nil, fmt.Errorf("append: %w", tb.writeErr)
	}
	return &Appender{tb: tb, opt: opt, start: tb.env.Now(), partitions: map[int32]bool{}}, nil
}

// Staged reports the batches, input rows and data files staged so far.
func (a *Appender) Staged() (batches, inputRows, files int) {
	return a.batches, a.inputRows, len(a.dataFiles)
}

// Add stages b: changes (evolve.Missing of the input's columns) are made
// first, in the append's view of the schema only; b must be aligned to the
// table's schema with them (EvolvedSchema). b's rows are sorted,
// deduplicated, written and uploaded now. On error the staged append is
// aborted: every file it uploaded is deleted, the Table is as before.
func (a *Appender) Add(ctx context.Context, changes []evolve.Change, b *rows.Batch) error {
	if a.err != nil {
		return a.err
	}
	if err := a.add(ctx, changes, b); err != nil {
		a.abort(ctx)
		a.err = err
		return err
	}
	return nil
}

func (a *Appender) add(ctx context.Context, changes []evolve.Change, b *rows.Batch) error {
	tb := a.tb
	if len(changes) > 0 {
		if err := a.evolve(ctx, changes); err != nil {
			return fmt.Errorf("append: %w", err)
		}
	}
	if b == nil || b.Len == 0 {
		return ErrEmptyInput
	}
	ingest := max(tb.env.Now().UnixMicro(), a.lastIngest+1)
	b, sorted, err := tb.appendBatch(b, AppendOptions{}, ingest)
	if err != nil {
		return err
	}
	if err := a.checkPartitions(sorted); err != nil {
		return err
	}
	files, dfs, err := tb.writeDataFiles(sorted)
	if err != nil {
		return err
	}
	for _, f := range files {
		a.uploaded = append(a.uploaded, f.Key)
	}
	if a.firstPutUS == 0 {
		a.firstPutUS = ingest
	}
	if err := commit.Upload(ctx, tb.st, files, 0); err != nil {
		return fmt.Errorf("append: %w", err)
	}
	a.lastIngest = ingest
	if a.latest != nil && !sameSchema(a.latest.Schema, tb.schema) {
		if a.latest, err = rows.Conform(a.latest, tb.schema); err != nil {
			return fmt.Errorf("%w: %v", ErrSchemaMismatch, err)
		}
	}
	a.latest = lastvalue.Merge(a.latest, sorted)
	lo, hi := timeRange(sorted)
	if a.batches == 0 {
		a.minT, a.maxT = lo, hi
		a.first = sorted
	} else {
		a.minT, a.maxT = min(a.minT, lo), max(a.maxT, hi)
		a.first = nil // a fold needs every row: the refresh recomputes instead
	}
	for _, df := range dfs {
		if df.PartitionValues != nil { // another engine's spec: its numbered tuple (spec.go)
			a.partitions[a.tb.specPartID(df.PartitionValues)] = true
		} else {
			a.partitions[df.Partition] = true
		}
		a.bytes += df.FileSize
	}
	a.dataFiles = append(a.dataFiles, dfs...)
	a.batches++
	a.inputRows += b.Len
	a.rows += sorted.Len
	return nil
}

// evolve makes changes in the Table's view of its schema (not committed),
// as AppendEvolved does for one batch; the commit carries them all.
func (a *Appender) evolve(ctx context.Context, changes []evolve.Change) error {
	tb := a.tb
	next, last, err := evolve.Apply(tb.schema, tb.meta.LastColumnID, changes)
	if err != nil {
		return err
	}
	if sameSchema(next, tb.schema) {
		return nil
	}
	if a.saved == nil {
		saved := *tb
		a.saved, a.old = &saved, tb.schema
		tb.rebaseHook = a.rebaseHook
	}
	if err := tb.widenIndex(ctx, next); err != nil {
		return err
	}
	a.changes = append(a.changes, changes...)
	tb.meta, tb.schema, a.next = tb.schemaMeta(next, last), next, next
	return nil
}

// rebaseHook loads a newer base for an evolving staged append: the schema
// changes are made again on it when its writer left the schema alone (or
// made the same changes). Otherwise the staged data files carry field ids
// the table may now give other columns: the append fails, nothing committed.
func (a *Appender) rebaseHook(ctx context.Context, base commit.Version) error {
	tb := a.tb
	if err := tb.reload(base); err != nil {
		return err
	}
	won := tb.schema
	if sameSchema(won, a.next) {
		return tb.writeErr
	}
	again, last, err := evolve.Apply(won, tb.meta.LastColumnID, a.changes)
	if err == nil && sameSchema(won, a.old) && sameSchema(again, a.next) {
		if err := tb.alterSupport(); err != nil {
			return err
		}
		if err := tb.widenIndex(ctx, a.next); err != nil {
			return err
		}
		tb.meta, tb.schema = tb.schemaMeta(a.next, last), a.next
		return nil
	}
	return fmt.Errorf("%w: %s changed the schema meanwhile (%s); the staged rows were written for %s",
		ErrSchemaMismatch, base.Name(), describeDiff(a.old, won), describeDiff(a.old, a.next))
}

// restore undoes the schema view of an evolving append.
func (a *Appender) restore() {
	tb := a.tb
	tb.rebaseHook = nil
	if s := a.saved; s != nil {
		tb.version, tb.meta, tb.schema, tb.settings, tb.writeErr, tb.lastIndex = s.version, s.meta, s.schema, s.settings, s.writeErr, s.lastIndex
		a.saved = nil
	}
}

// Abort ends the staged append with nothing committed: the data files it
// uploaded are deleted (best effort: what a failed delete leaves is an
// orphan that maintenance removes after timelake.orphan-grace).
func (a *Appender) Abort(ctx context.Context) {
	if a.err == nil {
		a.abort(ctx)
		a.err = errAppenderDone
	}
}

func (a *Appender) abort(ctx context.Context) {
	if len(a.uploaded) > 0 {
		_ = a.tb.st.Delete(context.WithoutCancel(ctx), a.uploaded)
		a.uploaded = nil
	}
	a.restore()
}

// Commit commits every staged batch as one snapshot. On error nothing is
// committed and the staged data files are deleted, unless the error is
// commit.ErrUnknownOutcome (the append may have landed: they are kept).
func (a *Appender) Commit(ctx context.Context) (*AppendResult, error) {
	if a.err != nil {
		return nil, a.err
	}
	res, err := a.commit(ctx)
	if err != nil {
		if errors.Is(err, commit.ErrUnknownOutcome) {
			a.uploaded = nil
		}
		a.abort(ctx)
		a.err = err
		return nil, err
	}
	a.err = errAppenderDone
	return res, nil
}

func (a *Appender) commit(ctx context.Context) (*AppendResult, error) {
	tb := a.tb
	if a.batches == 0 && !a.opt.AllowEmpty {
		return nil, ErrEmptyInput
	}
	if err := a.checkStillThere(ctx); err != nil {
		return nil, err
	}
	run, isOurs, err := tb.newAppendRun(a.first, a.opt)
	if err != nil {
		return nil, err
	}
	manifest, err := a.stage(run)
	if err != nil {
		return nil, err
	}
	res, err := commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, manifest, run.rebuild, isOurs)
	if err != nil && errors.Is(err, store.ErrNotFound) && a.saved == nil {
		// As in AppendWith: the loaded version's files were cleaned up
		// meanwhile; the data files stand, so commit again once on the
		// newest version.
		if v, lerr := tb.latest(ctx); lerr == nil && !v.Same(tb.version) && tb.load(v) == nil {
			res, err = commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, manifest, run.rebuild, isOurs)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("append: %w", err)
	}
	if err := tb.takeCommitted(res.Version, run.built); err != nil {
		return nil, fmt.Errorf("append: %w", err)
	}
	a.uploaded = nil // committed: never deleted now
	out := run.committed(ctx, res)
	if a.saved != nil {
		// Committed with the new schema: load it as committed, keeping the
		// index the commit built.
		idx := tb.lastIndex
		tb.rebaseHook, a.saved = nil, nil
		if err := tb.reload(tb.version); err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("committed as version %d, then: %v", res.Version.N, err))
		}
		tb.lastIndex = idx
	}
	out.InputRows = a.inputRows
	out.Batches = a.batches
	out.DurationMs = tb.env.Now().Sub(a.start).Milliseconds()
	return out, nil
}

// stage fills run with the staged files and returns the manifest that adds
// them (none for an empty commit).
func (a *Appender) stage(run *appendRun) ([]commit.File, error) {
	tb := a.tb
	run.staged = true
	run.rowCount = a.rows
	run.dataFiles = a.dataFiles
	run.entries = make([]iceberg.ManifestEntry, len(a.dataFiles))
	for i, df := range a.dataFiles {
		run.entries[i] = iceberg.ManifestEntry{Status: iceberg.StatusAdded, DataFile: df}
		run.added.rows += df.RecordCount
		run.added.bytes += df.FileSize
	}
	run.latest, run.minT, run.maxT, run.partitions = a.latest, a.minT, a.maxT, a.partitions
	if run.latest == nil {
		run.latest = &rows.Batch{Schema: tb.schema, Cols: make([]rows.Column, len(tb.schema.Fields))}
	}
	run.manifestKey = snapshot.ManifestKey(run.fileID, 0)
	var err error
	if run.sync, err = tb.syncMarker(); err != nil {
		return nil, err
	}
	var mbuf bytes.Buffer
	if run.mf, err = iceberg.WriteManifestVersion(&mbuf, tb.writeVersion(), *tb.meta.CurrentSchema(), *tb.meta.DefaultSpec(), run.entries, run.sync); err != nil {
		return nil, err
	}
	run.mf.ManifestPath = tb.location(run.manifestKey)
	if a.rows == 0 {
		return nil, nil
	}
	return []commit.File{{Key: run.manifestKey, Data: mbuf.Bytes()}}, nil
}

// conformsTo says whether the append's rows are valid under to, another
// writer's schema: rows.Conform over the batch, or for a staged append
// (whose rows are gone) over its data files' statistics: no value in a
// column to dropped, no null in a column to requires, the same key.
func (r *appendRun) conformsTo(to *schema.Table) error {
	if !r.staged {
		_, err := rows.Conform(r.sorted, to)
		return err
	}
	empty := &rows.Batch{Schema: r.written, Cols: make([]rows.Column, len(r.written.Fields))}
	if _, err := rows.Conform(empty, to); err != nil {
		return err
	}
	for _, df := range r.dataFiles {
		for id, n := range df.ValueCounts {
			if to.IndexOfID(int(id)) < 0 && n > df.NullCounts[id] {
				name := "id " + fmt.Sprint(id)
				if j := r.written.IndexOfID(int(id)); j >= 0 {
					name = fmt.Sprintf("%q", r.written.Fields[j].Name)
				}
				return fmt.Errorf("column %s was dropped, and the appended rows hold values in it", name)
			}
		}
		for _, f := range to.Fields {
			n, ok := df.NullCounts[int32(f.ID)]
			if f.Required && (!ok || n > 0) {
				return fmt.Errorf("column %q is required now, and the appended rows hold nulls in it", f.Name)
			}
		}
	}
	return nil
}
