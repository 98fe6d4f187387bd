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
		if round == 0 {
			res.Plan = append(res.Plan, tb.skippedLines(p.Skipped, in.OtherSpecFiles)...)
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
	var done []*mergeResult
	deleteOutputs := func(rs []*mergeResult) {
		var keys []string
		for _, r := range rs {
			keys = append(keys, r.keys...)
		}
		if len(keys) > 0 {
			_ = tb.st.Delete(context.WithoutCancel(ctx), keys) // best effort: orphan cleanup catches the rest
		}
	}
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
			deleteOutputs(done)
			return err
		}
		if r.deferred > 0 {
			res.Plan = append(res.Plan, fmt.Sprintf("compact %s: %d unsorted inputs left for the next round (more than the memory to sort them with the others)", tb.partitionName(m.Partition), r.deferred))
		}
		done = append(done, r)
	}
	if len(done) == 0 {
		return errAllSkipped
	}
	snapID, err := tb.env.snapshotID()
	if err != nil {
		deleteOutputs(done)
		return err
	}
	commitID, err := tb.env.uuid()
	if err != nil {
		deleteOutputs(done)
		return err
	}
	var built *iceberg.Metadata
	live := done // the groups still in the commit
	rebuild := func(ctx context.Context, base commit.Version) (commit.Attempt, error) {
		if !base.Same(tb.version) {
			if err := tb.loadForWrite(base); err != nil {
				return commit.Attempt{}, err
			}
		}
		sf := planned
		if cur := tb.meta.CurrentSnapshot(); cur == nil || sf.snap == nil || cur.SnapshotID != sf.snap.SnapshotID {
			var err error
			if sf, err = tb.readSnapshotFiles(ctx, cur); err != nil {
				return commit.Attempt{}, err
			}
		}
		var keep, drop []*mergeResult
		for _, r := range live {
			if mergeStillValid(sf, r.merge) {
				keep = append(keep, r)
			} else {
				drop = append(drop, r)
			}
		}
		if len(drop) > 0 {
			deleteOutputs(drop)
			res.MergesDropped += len(drop)
			live = keep
		}
		if len(keep) == 0 {
			return commit.Attempt{}, fmt.Errorf("%w: a newer version removed the inputs of every merge", commit.ErrDropped)
		}
		rw := &rewrite{op: "replace", snapID: snapID, commitID: commitID, removed: map[string]bool{}}
		for _, r := range keep {
			for _, f := range append(slices.Clone(r.merge.Files), r.merge.Deletes...) {
				rw.removed[f.Path] = true
			}
			rw.added = append(rw.added, r.outputs...)
		}
		att, md, err := tb.buildRewrite(ctx, base, sf, rw)
		built = md
		return att, err
	}
	cr, err := commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, nil, rebuild, isCommit(commitID))
	res.Conflicts += cr.Conflicts
	if err != nil {
		if !errors.Is(err, commit.ErrUnknownOutcome) {
			deleteOutputs(live)
		}
		return err
	}
	if err := tb.adopt(cr.Version, built); err != nil {
		return err
	}
	res.Commits++
	for _, r := range live {
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
