package table

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/deletes"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/scan"
)

// DeleteOptions says which rows a delete removes: those whose time is in
// [FromUS, ToUS) and whose series columns hold one of the values given, all
// conditions together. At least one is required.
type DeleteOptions struct {
	FromUS, ToUS *int64
	// FromNS and ToNS, where set, replace FromUS and ToUS for a table whose
	// time column is in nanoseconds (as ScanOptions' do).
	FromNS, ToNS *int64
	Series       map[string][]any // series column → values (string or int64)
	DryRun       bool             // plan only
	// Purge makes the deleted rows physically gone (purge.go): the
	// snapshots that still reference files holding them expire, and the
	// files are deleted once unreferenced — at once with Now, else by
	// maintenance past the orphan grace.
	Purge, Now bool
}

// DeleteResult is what a delete did (or, with DryRun, would do).
type DeleteResult struct {
	DryRun         bool `json:"dry-run"`
	Version        int  `json:"version"`
	Changed        bool `json:"changed"`
	FilesDropped   int  `json:"files-dropped"`   // removed whole, without being read
	FilesRewritten int  `json:"files-rewritten"` // read and written again without the rows
	FilesWritten   int  `json:"files-written"`
	// DeletionVectors are the data files (format 3) that keep their
	// deleted rows on storage behind a deletion vector (delete_dv.go).
	DeletionVectors int          `json:"deletion-vectors"`
	RowsDeleted     int64        `json:"rows-deleted"` // rows of the dropped files and rows the rewrites left out
	BytesRemoved    int64        `json:"bytes-removed"`
	BytesWritten    int64        `json:"bytes-written"`
	Plan            []string     `json:"plan"`
	Conflicts       int          `json:"conflicts"`
	Purge           *PurgeResult `json:"purge,omitempty"`
}

// ErrDeleteNeedsFilter: a delete without a filter would empty the table.
var ErrDeleteNeedsFilter = errors.New("a delete needs a filter")

// deleteReplans bounds how often a delete plans again after a concurrent
// writer removed a file it was rewriting (a compaction took it).
const deleteReplans = 4

// Delete removes the rows opt matches in one commit (operation "delete"
// when it only removes files, "overwrite" when it rewrites some), rebased
// like an append when another writer commits first: rows appended
// concurrently are kept (the delete applies to what it read), and a file
// it was rewriting that a concurrent writer removed makes it plan again.
// Files whose every row matches (by their column bounds) are dropped
// without being read; files that may hold matching rows are rewritten
// without them, with the partition's position deletes applied and, in a
// format 3 table, each kept row's lineage copied (copy-on-write: every
// reader applies it without knowing of deletes). The bytes of the deleted
// rows stay in files the table's older snapshots reference until those
// expire (see Purge).
func (tb *Table) Delete(ctx context.Context, opt DeleteOptions) (*DeleteResult, error) {
	nsRange := tb.schema.HasKey() && tb.schema.TimeField().Type.Nanos() && (opt.FromNS != nil || opt.ToNS != nil)
	if opt.FromUS == nil && opt.ToUS == nil && !nsRange && len(opt.Series) == 0 {
		return nil, &rows.Error{Code: scan.CodeBadFilter, Msg: "a delete needs --series, --from or --to: a bare delete would empty the table (" + ErrDeleteNeedsFilter.Error() + ")"}
	}
	res := &DeleteResult{DryRun: opt.DryRun, Plan: []string{}}
	for attempt := 0; ; attempt++ {
		v, err := tb.latest(ctx)
		if err != nil {
			return nil, err
		}
		if !v.Same(tb.version) {
			if err := tb.load(v); err != nil {
				return nil, err
			}
		}
		if tb.writeErr != nil {
			return nil, fmt.Errorf("delete: %w", tb.writeErr)
		}
		from, to := tb.usBounds(opt.FromUS, opt.ToUS, opt.FromNS, opt.ToNS)
		flt, err := scan.NewFilter(tb.schema, from, to, opt.Series)
		if err != nil {
			return nil, err
		}
		if err := flt.SetNanos(opt.FromNS, opt.ToNS); err != nil {
			return nil, err
		}
		err = tb.deleteOnce(ctx, flt, opt, res)
		if errors.Is(err, commit.ErrDropped) && attempt < deleteReplans {
			res.Plan = append(res.Plan, "a concurrent writer removed a file being rewritten: planned again")
			continue
		}
		if err == nil && res.Changed {
			// the hints name the new version, as after an append: readers
			// that follow version-hint.text would read the rows deleted
			tb.writeHints(ctx, nil)
		}
		if err == nil && opt.Purge && !opt.DryRun {
			res.Purge, err = tb.purge(ctx, flt, opt.Now)
		}
		res.Version = tb.version.N
		return res, err
	}
}

// deleteOnce plans on the current snapshot, rewrites and commits.
func (tb *Table) deleteOnce(ctx context.Context, flt *scan.Filter, opt DeleteOptions, res *DeleteResult) error {
	sf, err := tb.readSnapshotFiles(ctx, tb.meta.CurrentSnapshot())
	if err != nil {
		return err
	}
	ms, err := tb.maintenanceSettings()
	if err != nil {
		return err
	}
	in := tb.planInput(sf, ms, tb.env.Now())
	var files []deletes.File
	for _, f := range in.Files {
		e := sf.live[f.Path]
		files = append(files, deletes.File{Path: f.Path, Partition: f.Partition, Rows: f.Rows, Bytes: f.Size, DataFile: &e.DataFile})
	}
	for p, e := range sf.live {
		if sf.otherSpec[p] && !e.DataFile.IsDelete() {
			df := e.DataFile
			if tb.schema.HasKey() && deletes.Plan(tb.schema, flt, []deletes.File{{Path: p, DataFile: &df}}).Kept == 0 {
				return fmt.Errorf("%w: %s is of an older partition spec and may hold rows to delete: run timelake maintain first (it rewrites such files into the current spec)", ErrUnsupportedTable, p)
			}
		}
	}
	plan := deletes.Plan(tb.schema, flt, files)
	for _, f := range plan.Drop {
		res.Plan = append(res.Plan, fmt.Sprintf("drop %s (%s, every one matches)", f.Path, nounCount(f.Rows, "row")))
	}
	var dvs []datafile.NewDV
	if tb.meta.FormatVersion >= 3 && !opt.Purge && len(plan.Rewrite) > 0 {
		// Deletion vectors for files that lose a small share (delete_dv.go).
		dp, err := tb.planDVs(ctx, flt, plan, in, sf)
		if err != nil {
			return err
		}
		dvs, plan.Rewrite = dp.dvs, dp.rewrite
		for _, d := range dvs {
			res.Plan = append(res.Plan, fmt.Sprintf("deletion vector for %s: %s of %d", d.Data.DataFile.Path, nounCount(d.Positions.Cardinality(), "row"), d.Data.DataFile.RecordCount))
		}
	}
	merges, err := deleteMerges(plan, in)
	if err != nil {
		return err
	}
	for _, m := range merges {
		res.Plan = append(res.Plan, fmt.Sprintf("rewrite %s: %s, %s, without the matching rows", tb.partitionName(m.Partition), nounCount(int64(len(m.Files)), "file"), nounCount(m.Rows, "row")))
	}
	if opt.DryRun {
		res.FilesDropped, res.RowsDeleted = len(plan.Drop), plan.DropRows
		for _, m := range merges {
			res.FilesRewritten += len(m.Files)
		}
		res.DeletionVectors = len(dvs)
		return nil
	}
	if len(plan.Drop) == 0 && len(merges) == 0 && len(dvs) == 0 {
		return nil
	}
	matches := flt.Matcher(tb.schema)
	var done []*mergeResult
	for _, m := range merges {
		r, err := tb.mergeFilesDropping(ctx, m, matches)
		if err != nil {
			tb.deleteOutputs(ctx, append(done, r))
			return err
		}
		done = append(done, r)
	}
	dc := &deleteCommit{tb: tb, planned: sf, drop: plan.Drop, merges: done, flt: flt}
	if len(dvs) > 0 {
		r, err := tb.writeDeleteDVs(ctx, dvs, in.Deletes, dc)
		if r != nil {
			done = append(done, r) // its upload is deleted with the rewrites' on failure
		}
		if err != nil {
			tb.deleteOutputs(ctx, done)
			return err
		}
	}
	if dc.snapID, err = tb.env.snapshotID(); err == nil {
		dc.commitID, err = tb.env.uuid()
	}
	if err != nil {
		tb.deleteOutputs(ctx, done)
		return err
	}
	cr, err := commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, nil, dc.rebuild, isCommit(dc.commitID))
	res.Conflicts += cr.Conflicts
	if err != nil {
		if !errors.Is(err, commit.ErrUnknownOutcome) {
			tb.deleteOutputs(ctx, done)
		}
		return err
	}
	if err := tb.takeCommitted(cr.Version, dc.built); err != nil {
		return err
	}
	res.Changed = true
	res.FilesDropped, res.RowsDeleted = len(plan.Drop), plan.DropRows
	for _, f := range plan.Drop {
		res.BytesRemoved += f.Bytes
	}
	res.DeletionVectors = len(dc.addedDeletes)
	for _, d := range dc.addedDeletes {
		res.RowsDeleted += d.RecordCount
	}
	for _, f := range dc.replaced {
		res.RowsDeleted -= f.Rows // already deleted: the new vectors hold them too
	}
	for _, r := range dc.merges {
		res.FilesRewritten += len(r.merge.Files)
		res.FilesWritten += len(r.outputs)
		res.BytesWritten += r.written
		res.RowsDeleted += r.rowsDropped
		for _, f := range r.merge.Files {
			res.BytesRemoved += f.Size
		}
	}
	return nil
}

// deleteMerges are the rewrites of plan: per partition, the files that may
// hold matching rows — the whole partition when it has position deletes
// (applied and then removed, as compaction does) or rows without
// _ingest_ts (whose rank is their file's sequence number, which a partial
// rewrite would change). A partition with equality deletes is refused.
func deleteMerges(plan *deletes.Result, in maintenance.Input) ([]maintenance.Merge, error) {
	var out []maintenance.Merge
	for _, p := range slices.Sorted(maps.Keys(plan.Rewrite)) {
		m := maintenance.Merge{Partition: p}
		for _, d := range in.Deletes {
			if d.Partition != p {
				continue
			}
			if d.Equality {
				return nil, fmt.Errorf("%w: partition %d has equality deletes (%s), which Timelake does not apply", ErrUnsupportedTable, p, d.Path)
			}
			m.Deletes = append(m.Deletes, d)
		}
		whole := len(m.Deletes) > 0
		for _, f := range in.Files {
			whole = whole || f.Partition == p && f.NullIngest
		}
		m.Whole = whole
		if whole {
			for _, f := range in.Files {
				if f.Partition == p {
					m.Files = append(m.Files, f)
				}
			}
		} else {
			rewrite := map[string]bool{}
			for _, f := range plan.Rewrite[p] {
				rewrite[f.Path] = true
			}
			for _, f := range in.Files {
				if rewrite[f.Path] {
					m.Files = append(m.Files, f)
				}
			}
		}
		for _, f := range m.Files {
			m.Bytes += f.Size
			m.Rows += f.Rows
		}
		out = append(out, m)
	}
	return out, nil
}

// deleteCommit is a delete's commit: what it drops and the rewrites done.
type deleteCommit struct {
	tb       *Table
	planned  *snapshotFiles
	drop     []deletes.File
	merges   []*mergeResult
	flt      *scan.Filter
	snapID   int64
	commitID string
	built    *iceberg.Metadata
	// The deletion vectors (format 3): the delete files added, those they
	// replace, and the live delete files the plan saw (any other one on a
	// newer base makes it plan again).
	addedDeletes []iceberg.DataFile
	replaced     []maintenance.File
	sawDeletes   map[string]bool
}

// rebuild is the delete's commit.Rebuild: on a newer base, the same
// removals and outputs when every file it removes is still live (the
// winner appended), else commit.ErrDropped (plan again).
func (dc *deleteCommit) rebuild(ctx context.Context, base commit.Version) (commit.Attempt, error) {
	tb := dc.tb
	if !base.Same(tb.version) {
		if err := tb.loadForWrite(base); err != nil {
			return commit.Attempt{}, err
		}
	}
	sf := dc.planned
	if cur := tb.meta.CurrentSnapshot(); cur == nil || sf.snap == nil || cur.SnapshotID != sf.snap.SnapshotID {
		var err error
		if sf, err = tb.readSnapshotFiles(ctx, cur); err != nil {
			return commit.Attempt{}, err
		}
	}
	op := "delete"
	rw := &rewrite{snapID: dc.snapID, commitID: dc.commitID, removed: map[string]bool{}, recomputeTimes: true, removesRows: true}
	for _, f := range dc.drop {
		rw.removed[f.Path] = true
	}
	for _, r := range dc.merges {
		if !mergeStillValid(sf, r.merge) {
			return commit.Attempt{}, fmt.Errorf("%w: a newer version changed partition %d", commit.ErrDropped, r.merge.Partition)
		}
		for _, f := range append(slices.Clone(r.merge.Files), r.merge.Deletes...) {
			rw.removed[f.Key()] = true // a deletion vector: its own entry of a Puffin file
		}
		rw.added = append(rw.added, r.outputs...)
		op = "overwrite"
	}
	if len(dc.addedDeletes) > 0 {
		for k, e := range sf.live {
			if e.DataFile.IsDelete() && !dc.sawDeletes[k] {
				return commit.Attempt{}, fmt.Errorf("%w: a newer version added delete file %s", commit.ErrDropped, e.DataFile.Path)
			}
		}
		for _, d := range dc.addedDeletes {
			if _, ok := sf.live[d.ReferencedDataFile]; !ok {
				return commit.Attempt{}, fmt.Errorf("%w: %s is no longer in the table", commit.ErrDropped, d.ReferencedDataFile)
			}
		}
		for _, f := range dc.replaced {
			rw.removed[f.Key()] = true
		}
		rw.addedDeletes = dc.addedDeletes
		op = "delete"
		if len(rw.added) > 0 {
			op = "overwrite"
		}
	}
	for p := range rw.removed {
		if _, ok := sf.live[p]; !ok {
			return commit.Attempt{}, fmt.Errorf("%w: %s is no longer in the table", commit.ErrDropped, p)
		}
	}
	rw.op = op
	rw.dropIndex = func(idx *rows.Batch) bool {
		matches := dc.flt.Matcher(idx.Schema)
		for i := range idx.Len {
			if matches(idx, i) {
				return true // a series' latest row goes: the index is caught up from the files
			}
		}
		return false
	}
	att, md, err := tb.buildRewrite(ctx, base, sf, rw)
	dc.built = md
	return att, err
}

// nounCount is "1 row", "2 rows".
func nounCount(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
