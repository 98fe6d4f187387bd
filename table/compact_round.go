package table

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
)

// runCompaction merges in rounds until the planner finds nothing to merge,
// the byte cap is reached or maxCompactRounds have run. Each round is one
// "replace" snapshot.
func (tb *Table) runCompaction(ctx context.Context, ms maintenance.Settings, dry bool, res *MaintainResult) (bool, error) {
	committed := false
	capBytes := ms.ByteCap
	skipped := map[int32]bool{} // partitions left alone (datafile.SortTooLargeError)
	for round := 0; round < maxCompactRounds; round++ {
		sf, err := tb.readSnapshotFiles(ctx, tb.meta.CurrentSnapshot())
		if err != nil {
			return committed, err
		}
		in := tb.planInput(sf, ms, tb.env.Now())
		in.Files = slices.DeleteFunc(in.Files, func(f maintenance.File) bool { return skipped[f.Partition] })
		in.Compact = true
		if capBytes > 0 {
			in.Settings.ByteCap = capBytes - res.BytesRead
			if in.Settings.ByteCap <= 0 {
				in.Settings.ByteCap = 0 // the cap is spent: plan it all, to report what is left
				p := maintenance.PlanRun(in)
				if len(p.Merges) > 0 {
					res.CapReached, res.LeftMerges, res.LeftBytes = true, len(p.Merges), sumBytes(p.Merges)
				}
				return committed, nil
			}
		}
		p := maintenance.PlanRun(in)
		migrate := tb.planMigration(sf, in)
		if skipped[migratePartition] {
			migrate = nil
		}
		if migrate != nil {
			p.Merges = append(p.Merges, *migrate)
		}
		if round == 0 {
			otherLeft := in.OtherSpecFiles
			if migrate != nil {
				otherLeft = 0 // they are being rewritten
			}
			res.Plan = append(res.Plan, tb.skippedLines(p.Skipped, otherLeft)...)
			for _, s := range p.Skipped {
				if !s.All {
					res.PartitionsSkipped++
				}
			}
		}
		res.CapReached, res.LeftMerges, res.LeftBytes = p.CapReached, len(p.Left), p.LeftBytes
		if len(p.Merges) == 0 {
			return committed, nil
		}
		for _, m := range p.Merges {
			kind := "busy"
			if m.Cold {
				kind = "cold"
			}
			line := fmt.Sprintf("compact %s (%s): %d files, %d bytes, %d rows", tb.partitionName(m.Partition), kind, len(m.Files), m.Bytes, m.Rows)
			if m.Partition == migratePartition {
				line = fmt.Sprintf("rewrite %d files of older partition specs into the current one: %d bytes, %d rows", len(m.Files), m.Bytes, m.Rows)
			}
			if len(m.Deletes) > 0 {
				line += fmt.Sprintf(", applying %d position delete files", len(m.Deletes))
			}
			res.Plan = append(res.Plan, line)
		}
		if dry {
			res.Merges += len(p.Merges)
			for _, m := range p.Merges {
				res.FilesRead += len(m.Files)
				res.RowsBefore += m.Rows
			}
			res.LeftMerges, res.LeftBytes = len(p.Left), p.LeftBytes
			return false, nil
		}
		if err := tb.compactRound(ctx, sf, p.Merges, res, skipped); err != nil {
			if errors.Is(err, errAllSkipped) {
				continue // the next round plans without those partitions
			}
			return committed, err
		}
		committed = true
		if p.CapReached {
			return committed, nil
		}
	}
	return committed, nil
}

func sumBytes(ms []maintenance.Merge) int64 {
	var n int64
	for _, m := range ms {
		n += m.Bytes
	}
	return n
}

// compactRound merges each group, then commits them all in one "replace"
// snapshot. On a conflict the groups whose inputs are still live are
// rebased; the others are dropped and their outputs deleted. planned is
// the snapshot's files the merges were planned from: the commit reuses them
// while the snapshot is still current (a manifest never changes).
func (tb *Table) compactRound(ctx context.Context, planned *snapshotFiles, merges []maintenance.Merge, res *MaintainResult, skipped map[int32]bool) error {
	done, err := tb.mergeGroups(ctx, merges, res, skipped)
	if err != nil {
		return err
	}
	if len(done) == 0 {
		return errAllSkipped
	}
	return tb.commitMerges(ctx, planned, done, res)
}

// mergeGroups merges each group; a group too large to sort is left alone
// (skipped). On an error the outputs written are deleted.
func (tb *Table) mergeGroups(ctx context.Context, merges []maintenance.Merge, res *MaintainResult, skipped map[int32]bool) ([]*mergeResult, error) {
	var done []*mergeResult
	for _, m := range merges {
		r, err := tb.mergeFiles(ctx, m)
		res.BytesRead += r.bytesRead
		var big *datafile.SortTooLargeError
		if errors.As(err, &big) {
			res.MergesSkipped++
			skipped[m.Partition] = true
			res.Plan = append(res.Plan, fmt.Sprintf("left %s alone: %v", tb.partitionName(m.Partition), err))
			continue
		}
		if err != nil {
			tb.deleteOutputs(ctx, done)
			return nil, err
		}
		if r.deferred > 0 {
			res.Plan = append(res.Plan, fmt.Sprintf("compact %s: %d unsorted inputs left for the next round (more than the memory to sort them with the others)", tb.partitionName(m.Partition), r.deferred))
		}
		done = append(done, r)
	}
	return done, nil
}

// deleteOutputs deletes the files merges wrote, best effort: orphan
// cleanup catches the rest.
func (tb *Table) deleteOutputs(ctx context.Context, rs []*mergeResult) {
	var keys []string
	for _, r := range rs {
		keys = append(keys, r.keys...)
	}
	if len(keys) > 0 {
		_ = tb.st.Delete(context.WithoutCancel(ctx), keys)
	}
}

// commitMerges commits the merges done in one "replace" snapshot.
func (tb *Table) commitMerges(ctx context.Context, planned *snapshotFiles, done []*mergeResult, res *MaintainResult) error {
	snapID, err := tb.env.snapshotID()
	if err != nil {
		tb.deleteOutputs(ctx, done)
		return err
	}
	commitID, err := tb.env.uuid()
	if err != nil {
		tb.deleteOutputs(ctx, done)
		return err
	}
	cc := &compactCommit{tb: tb, planned: planned, live: done, res: res, snapID: snapID, commitID: commitID}
	cr, err := commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, nil, cc.rebuild, isCommit(commitID))
	res.Conflicts += cr.Conflicts
	if err != nil {
		if !errors.Is(err, commit.ErrUnknownOutcome) {
			tb.deleteOutputs(ctx, cc.live)
		}
		return err
	}
	if err := tb.takeCommitted(cr.Version, cc.built); err != nil {
		return err
	}
	res.Commits++
	for _, r := range cc.live {
		res.Merges++
		res.FilesRead += len(r.merge.Files)
		res.FilesWritten += len(r.outputs)
		res.BytesWritten += r.written
		res.RowsBefore += r.rowsIn
		res.RowsAfter += r.rowsOut
		res.DeleteFilesApplied += len(r.merge.Deletes)
		res.RowsDeleted += r.rowsDeleted
	}
	return nil
}

// compactCommit is the commit of a compaction round: the merges still in
// it, and the metadata its last attempt built.
type compactCommit struct {
	tb       *Table
	planned  *snapshotFiles
	live     []*mergeResult // the groups still in the commit
	res      *MaintainResult
	snapID   int64
	commitID string
	built    *iceberg.Metadata
}

// rebuild is the round's commit.Rebuild: the merges whose inputs are still
// live on base, as one rewrite.
func (cc *compactCommit) rebuild(ctx context.Context, base commit.Version) (commit.Attempt, error) {
	tb := cc.tb
	if !base.Same(tb.version) {
		if err := tb.loadForWrite(base); err != nil {
			return commit.Attempt{}, err
		}
	}
	sf := cc.planned
	if cur := tb.meta.CurrentSnapshot(); cur == nil || sf.snap == nil || cur.SnapshotID != sf.snap.SnapshotID {
		var err error
		if sf, err = tb.readSnapshotFiles(ctx, cur); err != nil {
			return commit.Attempt{}, err
		}
	}
	var keep, drop []*mergeResult
	for _, r := range cc.live {
		if mergeStillValid(sf, r.merge) {
			keep = append(keep, r)
		} else {
			drop = append(drop, r)
		}
	}
	if len(drop) > 0 {
		tb.deleteOutputs(ctx, drop)
		cc.res.MergesDropped += len(drop)
		cc.live = keep
	}
	if len(keep) == 0 {
		return commit.Attempt{}, fmt.Errorf("%w: a newer version removed the inputs of every merge", commit.ErrDropped)
	}
	rw := &rewrite{op: "replace", snapID: cc.snapID, commitID: cc.commitID, removed: map[string]bool{}}
	for _, r := range keep {
		for _, f := range append(slices.Clone(r.merge.Files), r.merge.Deletes...) {
			rw.removed[f.Key()] = true
		}
		rw.added = append(rw.added, r.outputs...)
	}
	att, md, err := tb.buildRewrite(ctx, base, sf, rw)
	cc.built = md
	return att, err
}
