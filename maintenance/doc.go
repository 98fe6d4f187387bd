// Package maintenance plans table maintenance: which partitions to compact
// and in which merge groups, which partitions retention drops, which
// snapshots expire, and which files are then safe to delete. It is a pure
// planner: plain data in (snapshots, the live data files with their
// partitions, sizes and sequence numbers, parsed properties, the time from
// the caller's clock, a listing of the store), a plan out. Package table
// carries the plan out through a Store.
//
//	s, err := maintenance.ParseSettings(md.Properties) // timelake.* properties
//	s.TargetFileBytes, s.MaxSnapshotAge = …           // and the Iceberg ones
//	plan := maintenance.PlanRun(maintenance.Input{Now: now, Settings: s, Files: live, …})
//	for _, m := range plan.Merges { … merge m.Files into new files … }
//	del := maintenance.PlanCleanup(maintenance.CleanupInput{Listed: objs, Retained: reachable, …})
//
// The rules, in the order a run applies them:
//
//  1. Retention (timelake.retention, e.g. "30d"; empty keeps everything):
//     a partition whose whole time range ends at or before now − retention
//     is dropped.
//  2. Compaction: a partition with timelake.compact-min-files (8) or more
//     small files, or a cold one (its range ended timelake.compact-cold-after
//     ago) with two or more, is merged in groups of at most MaxMergeFiles
//     files, oldest sequence numbers first. A file of at least 3/4 of
//     write.target-file-size-bytes is full and left alone. Groups are taken
//     until their input bytes reach timelake.maintain-byte-cap; the rest is
//     reported as left for the next run (a run always makes progress: its
//     first group is cut down to fit, to two files at least).
//  3. Expiry: snapshots older than history.expire.max-snapshot-age-ms
//     expire, except the current snapshot, every ref head, and the newest
//     history.expire.min-snapshots-to-keep ancestors of the current one.
//  4. Cleanup: an object under data/ or metadata/ that no retained snapshot
//     reaches (data files, manifests, manifest lists, last-value indexes)
//     is deleted, whether an expired snapshot reached it or nothing ever
//     did (an orphan of a failed or in-flight commit), once older than its
//     writer grace (a concurrent writer mid-commit holds uploads no version
//     references yet) and unreferenced for its reader grace (a reader that
//     loaded the last version referencing it may still open it; the
//     cleanups record when they first saw each key unreferenced, Marks).
//     Both graces are timelake.metadata-grace (30m) for the files a commit
//     writes right before its conditional write (CommitFile) and
//     timelake.orphan-grace (24h) for the rest. Metadata versions outside
//     the metadata log go once older than timelake.orphan-grace.
package maintenance
