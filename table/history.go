package table

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
)

// The history a commit carries stays bounded, so that the cost of the next
// commit (parse, rebuild and write the metadata) and the size of metadata/
// do not grow with the table's age:
//
//   - every commit drops from the metadata it writes the snapshots beyond
//     the newest timelake.history.max-snapshots (boundHistory), under
//     Iceberg's expiry rules (the current snapshot, ref heads and the
//     newest history.expire.min-snapshots-to-keep ancestors stay). It is
//     metadata only: no file is deleted then. The files only those
//     snapshots reached are unreferenced from then on, and a maintenance
//     run deletes them as any orphan, once unreferenced for
//     timelake.metadata-grace (maintenance.PlanCleanup): a reader that
//     loaded an earlier version can still open them within the grace.
//     Expiry by age stays a maintenance step.
//   - the metadata log keeps write.metadata.previous-versions-max entries
//     (snapshot.Base.Log); with write.metadata.delete-after-commit.enabled, the
//     versions that fall out of it lose their bytes after the commit
//     (deleteOldVersions), as Iceberg's commit deletes them: a reader needs
//     a metadata file only while it loads it. The key itself stays taken
//     for the orphan grace (commit.Superseded), so that a writer still
//     holding an older base cannot commit under a freed version number.
//
// With a catalog the catalog owns the metadata files (none is deleted
// here) and keeps its own metadata log; the snapshots dropped reach it as
// a remove-snapshots update of the same commit.

// deleteOldVersions replaces, after storage-only commits (from writeHints),
// the metadata versions that fell out of the metadata log with their
// superseded marker, when the table says so
// (write.metadata.delete-after-commit.enabled). Best effort: a failure is
// a warning, and maintenance deletes versions outside the log later.
func (tb *Table) deleteOldVersions(ctx context.Context, warn func(error)) {
	gone := tb.oldVersions
	tb.oldVersions = nil
	if tb.catalog != nil || !tb.settings.DeleteAfterCommit || len(gone) == 0 {
		return
	}
	var keys []string
	for _, p := range gone {
		k, err := tb.keyOf(p)
		if err != nil {
			continue // not ours to delete
		}
		// Only vN.metadata.json files older than the committed version.
		if n, ok := commit.ParseMetadataKey(k); ok && n < tb.version.N {
			keys = append(keys, k)
		}
	}
	// Overwritten, not deleted: see commit.Superseded.
	for _, k := range keys {
		n, _ := commit.ParseMetadataKey(k)
		if err := tb.st.Put(context.WithoutCancel(ctx), k, commit.Superseded(n)); err != nil && warn != nil {
			warn(fmt.Errorf("replace old metadata version %s after the commit: %w", k, err))
			return
		}
	}
}

// boundHistory drops from md the snapshots beyond the newest
// timelake.history.max-snapshots (see the comment at the top), with their
// snapshot-log entries and statistics. It returns how many it dropped.
func (tb *Table) boundHistory(md *iceberg.Metadata) (int, error) {
	max := tb.settings.MaxSnapshots
	if max <= 0 || len(md.Snapshots) <= max {
		return 0, nil
	}
	// By count only: age is maintenance's. With a maximum age of 0 and the
	// clock at the oldest snapshot, no snapshot is too old.
	oldest := int64(math.MaxInt64)
	for _, s := range md.Snapshots {
		oldest = min(oldest, s.TimestampMs)
	}
	ms := maintenance.Settings{MaxSnapshots: max, MinSnapshotsKeep: tb.settings.MinSnapshotsKeep}
	in := maintenance.Input{Settings: ms, Expire: true, Now: time.UnixMilli(oldest)}
	if md.CurrentSnapshotID != nil {
		in.Current = *md.CurrentSnapshotID
	}
	in.Snapshots = make([]maintenance.Snapshot, len(md.Snapshots))
	for i, s := range md.Snapshots {
		var parent int64
		if s.ParentSnapshotID != nil {
			parent = *s.ParentSnapshotID
		}
		in.Snapshots[i] = maintenance.Snapshot{ID: s.SnapshotID, Parent: parent, TimestampMs: s.TimestampMs}
	}
	for _, r := range md.Refs {
		in.RefHeads = append(in.RefHeads, r.SnapshotID)
	}
	p := maintenance.PlanRun(in)
	if len(p.Expire) == 0 {
		return 0, nil
	}
	gone := make(map[int64]bool, len(p.Expire))
	for _, id := range p.Expire {
		gone[id] = true
	}
	if err := dropSnapshots(md, gone); err != nil {
		return 0, err
	}
	return len(gone), nil
}

// dropSnapshots removes the snapshots in gone from md, with their snapshot
// log entries and statistics files (the last-value index, other engines'
// too, go with their snapshots). md's slices are copied, not changed.
func dropSnapshots(md *iceberg.Metadata, gone map[int64]bool) error {
	md.Snapshots = slices.DeleteFunc(slices.Clone(md.Snapshots), func(s iceberg.Snapshot) bool { return gone[s.SnapshotID] })
	md.SnapshotLog = slices.DeleteFunc(slices.Clone(md.SnapshotLog), func(e iceberg.SnapshotLogEntry) bool { return gone[e.SnapshotID] })
	md.Statistics = slices.DeleteFunc(slices.Clone(md.Statistics), func(s iceberg.StatisticsFile) bool { return gone[s.SnapshotID] })
	if err := md.DropPartitionStatistics(gone); err != nil {
		return fmt.Errorf("%w: %v", ErrCorruptTable, err)
	}
	return nil
}

// CleanupEvery is how often the maintenance after an append
// (timelake.auto-maintain) also expires snapshots by age and deletes the
// files no retained snapshot reaches: after one append in this many, on
// average. Those steps list the table and read the retained snapshots'
// manifests, a cost that 1 append in 100 carries for the others; what they
// delete has waited for its graces anyway (an hour at least).
const CleanupEvery = 100

// AutoMaintainOptions are the steps of the maintenance run after an append
// with timelake.auto-maintain: compaction and retention every time, expiry
// and file cleanup when the current snapshot's id (random: the Env's) is a
// multiple of CleanupEvery. Not the version number: the commits of the
// maintenance itself would make the appends' versions skip multiples.
func (tb *Table) AutoMaintainOptions() MaintainOptions {
	o := MaintainOptions{Compact: true, Retention: true}
	if s := tb.meta.CurrentSnapshot(); s != nil && s.SnapshotID%CleanupEvery == 0 {
		o.Expire, o.Orphans = true, true
	}
	return o
}
