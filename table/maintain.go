package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/timelake/timelake/avro"
	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/store"
)

// MaintainOptions choose the steps of a maintenance run; none set means all
// of them.
type MaintainOptions struct {
	Compact   bool // merge the small files of busy or cold partitions
	Retention bool // drop partitions past timelake.retention
	Expire    bool // expire old snapshots and delete the files only they reached
	Orphans   bool // delete files no snapshot reaches, past timelake.orphan-grace
	DryRun    bool // plan and report; change nothing
}

// MaintainResult reports a maintenance run. On an error it holds what was
// done before it.
type MaintainResult struct {
	Version int      `json:"version"` // metadata version after the run
	DryRun  bool     `json:"dry-run"`
	Plan    []string `json:"plan"` // one line per decision, in order

	Merges        int   `json:"merges"`         // merge groups committed
	MergesDropped int   `json:"merges-dropped"` // lost to a writer that removed their inputs
	FilesRead     int   `json:"files-read"`     // compaction inputs
	FilesWritten  int   `json:"files-written"`  // compaction outputs
	BytesRead     int64 `json:"bytes-read"`     // fetched by compaction (footers, indexes, pages)
	BytesWritten  int64 `json:"bytes-written"`
	RowsBefore    int64 `json:"rows-before"` // compaction input rows
	RowsAfter     int64 `json:"rows-after"`  // after deduplication

	PartitionsDropped int   `json:"partitions-dropped"`
	FilesDropped      int   `json:"files-dropped"`
	RowsDropped       int64 `json:"rows-dropped"`
	SeriesDropped     int   `json:"series-dropped"` // left the last-value index

	SnapshotsExpired int   `json:"snapshots-expired"`
	FilesDeleted     int   `json:"files-deleted"` // expired files, old metadata versions, orphans
	OrphansDeleted   int   `json:"orphans-deleted"`
	BytesDeleted     int64 `json:"bytes-deleted"`
	KeptYoung        int   `json:"kept-young"` // unreferenced but within the grace period

	// Merges left out because an input is not sorted and too large to sort
	// in memory: their partitions stay as they are (a plan line names the file).
	MergesSkipped int `json:"merges-skipped"`

	CapReached bool  `json:"cap-reached"` // timelake.maintain-byte-cap stopped compaction
	LeftMerges int   `json:"left-merges"` // merge groups left for the next run
	LeftBytes  int64 `json:"left-bytes"`

	Commits    int      `json:"commits"`
	Conflicts  int      `json:"conflicts"`
	DurationMs int64    `json:"duration-ms"`
	Warnings   []string `json:"warnings,omitempty"`
}

// maxCompactRounds bounds the merge rounds of one run: a partition of more
// than 24 files is merged in groups, and the outputs again in the next round.
const maxCompactRounds = 4

// errAllSkipped: every merge of a round was left out (errSortTooLarge).
var errAllSkipped = errors.New("every merge left out")

// errNothing: a rebuild found nothing left to do on a newer base.
var errNothing = errors.New("nothing to do")

// Maintain runs the maintenance steps in order — retention, compaction,
// snapshot expiry, file cleanup — each committed on its own (see package
// maintenance for the rules). It takes only the Table's Store and Env, like
// Append. A compaction commit that loses to a writer that only appended is
// rebased; one whose inputs the winner removed is dropped and its new files
// deleted (the error wraps commit.ErrDropped).
func (tb *Table) Maintain(ctx context.Context, opt MaintainOptions) (*MaintainResult, error) {
	start := tb.env.Now()
	if !opt.Compact && !opt.Retention && !opt.Expire && !opt.Orphans {
		opt.Compact, opt.Retention, opt.Expire, opt.Orphans = true, true, true, true
	}
	res := &MaintainResult{DryRun: opt.DryRun, Plan: []string{}}
	finish := func(err error) (*MaintainResult, error) {
		res.Version = tb.version.N
		res.DurationMs = tb.env.Now().Sub(start).Milliseconds()
		return res, err
	}
	// Maintenance plans from the newest version, not the one this Table last saw.
	v, err := commit.Latest(ctx, tb.st)
	if err != nil {
		return finish(err)
	}
	if v.N != tb.version.N {
		if err := tb.load(v); err != nil {
			return finish(err)
		}
	}
	ms, err := tb.maintenanceSettings()
	if err != nil {
		return finish(err)
	}
	committed := false
	if opt.Retention && ms.Retention > 0 {
		ok, err := tb.runRetention(ctx, ms, opt.DryRun, res)
		committed = committed || ok
		if err != nil {
			return finish(fmt.Errorf("retention: %w", err))
		}
	}
	if opt.Compact {
		ok, err := tb.runCompaction(ctx, ms, opt.DryRun, res)
		committed = committed || ok
		if err != nil {
			return finish(fmt.Errorf("compaction: %w", err))
		}
	}
	if opt.Expire || opt.Orphans {
		ok, err := tb.runExpiryAndCleanup(ctx, ms, opt, res)
		committed = committed || ok
		if err != nil {
			return finish(err)
		}
	}
	if committed {
		tb.writeHints(ctx, func(err error) { res.Warnings = append(res.Warnings, err.Error()) })
	}
	return finish(nil)
}

// maintenanceSettings combines the timelake.* maintenance properties with
// the Iceberg ones the table parsed.
func (tb *Table) maintenanceSettings() (maintenance.Settings, error) {
	ms, err := maintenance.ParseSettings(tb.meta.Properties)
	if err != nil {
		return ms, fmt.Errorf("%w: %v", ErrCorruptTable, err)
	}
	ms.TargetFileBytes = tb.settings.TargetFileBytes
	ms.MaxSnapshotAge = msDuration(tb.settings.MaxSnapshotAgeMs)
	ms.MinSnapshotsKeep = tb.settings.MinSnapshotsKeep
	return ms, nil
}

// planInput describes the current version for the planner.
func (tb *Table) planInput(sf *snapshotFiles, ms maintenance.Settings, now time.Time) maintenance.Input {
	in := maintenance.Input{Now: now, Settings: ms, Partition: tb.schema.Partition}
	if s := tb.meta.CurrentSnapshot(); s != nil {
		in.Current = s.SnapshotID
	}
	for _, s := range tb.meta.Snapshots {
		var parent int64
		if s.ParentSnapshotID != nil {
			parent = *s.ParentSnapshotID
		}
		in.Snapshots = append(in.Snapshots, maintenance.Snapshot{ID: s.SnapshotID, Parent: parent, TimestampMs: s.TimestampMs})
	}
	for _, r := range tb.meta.Refs {
		in.RefHeads = append(in.RefHeads, r.SnapshotID)
	}
	slices.Sort(in.RefHeads)
	if sf != nil {
		for _, e := range sf.live {
			in.Files = append(in.Files, maintenance.File{Path: e.DataFile.Path, Partition: e.DataFile.Partition,
				Size: e.DataFile.FileSize, Rows: e.DataFile.RecordCount, Seq: e.SequenceNumber})
		}
		slices.SortFunc(in.Files, func(a, b maintenance.File) int { return compareStrings(a.Path, b.Path) })
	}
	return in
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (tb *Table) partitionName(v int32) string {
	return tb.schema.PartitionName() + "=" + tb.schema.Partition.Format(v)
}

// runRetention drops the partitions wholly before now − timelake.retention
// in one "delete" snapshot, and the series whose latest row is before the
// cut-off from the last-value index.
func (tb *Table) runRetention(ctx context.Context, ms maintenance.Settings, dry bool, res *MaintainResult) (bool, error) {
	now := tb.env.Now()
	plan := func(sf *snapshotFiles) *maintenance.Drop {
		in := tb.planInput(sf, ms, now)
		in.Retention = true
		return maintenance.PlanRun(in).Drop
	}
	sf, err := tb.readSnapshotFiles(ctx, tb.meta.CurrentSnapshot())
	if err != nil {
		return false, err
	}
	d := plan(sf)
	if d == nil || len(d.Files) == 0 {
		return false, nil
	}
	if dry {
		for _, p := range d.Partitions {
			res.Plan = append(res.Plan, "drop "+tb.partitionName(p))
		}
		res.PartitionsDropped, res.FilesDropped, res.RowsDropped = len(d.Partitions), len(d.Files), d.Rows
		return false, nil
	}
	snapID, err := tb.env.snapshotID()
	if err != nil {
		return false, err
	}
	commitID, err := tb.env.uuid()
	if err != nil {
		return false, err
	}
	var built *iceberg.Metadata
	var last *maintenance.Drop
	var seriesDropped int
	rebuild := func(ctx context.Context, base commit.Version) (commit.Attempt, error) {
		if base.N != tb.version.N {
			if err := tb.load(base); err != nil {
				return commit.Attempt{}, err
			}
			if sf, err = tb.readSnapshotFiles(ctx, tb.meta.CurrentSnapshot()); err != nil {
				return commit.Attempt{}, err
			}
		}
		d := plan(sf)
		if d == nil || len(d.Files) == 0 {
			return commit.Attempt{}, errNothing
		}
		removed := map[string]bool{}
		for _, f := range d.Files {
			removed[f.Path] = true
		}
		rw := &rewrite{op: "delete", snapID: snapID, commitID: commitID, removed: removed, recomputeTimes: true,
			index: func(ctx context.Context, parent *iceberg.Snapshot) ([]byte, error) {
				idx, err := tb.readIndex(ctx, parent)
				if err != nil || idx == nil {
					return nil, err
				}
				kept := lastvalue.Drop(idx, d.CutoffUS)
				seriesDropped = idx.Len - kept.Len
				if seriesDropped == 0 {
					return nil, nil
				}
				return lastvalue.Encode(kept)
			}}
		att, md, err := tb.buildRewrite(ctx, base, sf, rw)
		built, last = md, d
		return att, err
	}
	cr, err := commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, nil, rebuild, isCommit(commitID))
	res.Conflicts += cr.Conflicts
	if errors.Is(err, errNothing) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	tb.version, tb.meta = cr.Version, built
	res.Commits++
	for _, p := range last.Partitions {
		res.Plan = append(res.Plan, "dropped "+tb.partitionName(p))
	}
	res.PartitionsDropped += len(last.Partitions)
	res.FilesDropped += len(last.Files)
	res.RowsDropped += last.Rows
	res.SeriesDropped += seriesDropped
	return true, nil
}

// runCompaction merges in rounds until the planner finds nothing to merge,
// the byte cap is reached or maxCompactRounds have run. Each round is one
// "replace" snapshot.
func (tb *Table) runCompaction(ctx context.Context, ms maintenance.Settings, dry bool, res *MaintainResult) (bool, error) {
	committed := false
	capBytes := ms.ByteCap
	skipped := map[int32]bool{} // partitions left alone (errSortTooLarge)
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
		res.CapReached, res.LeftMerges, res.LeftBytes = p.CapReached, len(p.Left), p.LeftBytes
		if len(p.Merges) == 0 {
			return committed, nil
		}
		for _, m := range p.Merges {
			kind := "busy"
			if m.Cold {
				kind = "cold"
			}
			res.Plan = append(res.Plan, fmt.Sprintf("compact %s (%s): %d files, %d bytes, %d rows", tb.partitionName(m.Partition), kind, len(m.Files), m.Bytes, m.Rows))
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
		var big *errSortTooLarge
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
		if base.N != tb.version.N {
			if err := tb.load(base); err != nil {
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
			ok := true
			for _, f := range r.merge.Files {
				if _, found := sf.live[f.Path]; !found {
					ok = false
					break
				}
			}
			if ok {
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
			for _, f := range r.merge.Files {
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
	tb.version, tb.meta = cr.Version, built
	res.Commits++
	for _, r := range live {
		res.Merges++
		res.FilesRead += len(r.merge.Files)
		res.FilesWritten += len(r.outputs)
		res.BytesWritten += r.written
		res.RowsBefore += r.rowsIn
		res.RowsAfter += r.rowsOut
	}
	return nil
}

// runExpiryAndCleanup expires snapshots (one metadata-only commit), then
// deletes what no retained snapshot reaches (see maintenance.PlanCleanup).
func (tb *Table) runExpiryAndCleanup(ctx context.Context, ms maintenance.Settings, opt MaintainOptions, res *MaintainResult) (bool, error) {
	now := tb.env.Now()
	var expired []iceberg.Snapshot
	committed := false
	if opt.Expire {
		in := tb.planInput(nil, ms, now)
		in.Expire = true
		p := maintenance.PlanRun(in)
		if opt.DryRun {
			expired = tb.snapshotsByID(p.Expire)
			res.SnapshotsExpired = len(expired)
			if len(expired) > 0 {
				res.Plan = append(res.Plan, fmt.Sprintf("expire %d snapshots", len(expired)))
			}
		} else if len(p.Expire) > 0 {
			var err error
			if expired, err = tb.expireSnapshots(ctx, ms, now, res); err != nil {
				return false, fmt.Errorf("expire snapshots: %w", err)
			}
			committed = len(expired) > 0
		}
	}
	retained := tb.meta.Snapshots
	if opt.DryRun && len(expired) > 0 {
		gone := map[int64]bool{}
		for _, s := range expired {
			gone[s.SnapshotID] = true
		}
		retained = slices.DeleteFunc(slices.Clone(retained), func(s iceberg.Snapshot) bool { return gone[s.SnapshotID] })
	}
	if err := tb.cleanup(ctx, ms, now, opt, retained, expired, res); err != nil {
		return committed, fmt.Errorf("file cleanup: %w", err)
	}
	return committed, nil
}

func (tb *Table) snapshotsByID(ids []int64) []iceberg.Snapshot {
	want := map[int64]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []iceberg.Snapshot
	for _, s := range tb.meta.Snapshots {
		if want[s.SnapshotID] {
			out = append(out, s)
		}
	}
	return out
}

// expireSnapshots commits a metadata version without the expired snapshots
// and returns them.
func (tb *Table) expireSnapshots(ctx context.Context, ms maintenance.Settings, now time.Time, res *MaintainResult) ([]iceberg.Snapshot, error) {
	var built *iceberg.Metadata
	var raw []byte
	var expired []iceberg.Snapshot
	rebuild := func(ctx context.Context, base commit.Version) (commit.Attempt, error) {
		if base.N != tb.version.N {
			if err := tb.load(base); err != nil {
				return commit.Attempt{}, err
			}
		}
		in := tb.planInput(nil, ms, now)
		in.Expire = true
		p := maintenance.PlanRun(in)
		if len(p.Expire) == 0 {
			return commit.Attempt{}, errNothing
		}
		expired = tb.snapshotsByID(p.Expire)
		gone := map[int64]bool{}
		for _, id := range p.Expire {
			gone[id] = true
		}
		md := *tb.meta
		md.Snapshots = slices.DeleteFunc(slices.Clone(md.Snapshots), func(s iceberg.Snapshot) bool { return gone[s.SnapshotID] })
		md.SnapshotLog = slices.DeleteFunc(slices.Clone(md.SnapshotLog), func(e iceberg.SnapshotLogEntry) bool { return gone[e.SnapshotID] })
		md.MetadataLog = append(slices.Clone(md.MetadataLog),
			iceberg.MetadataLogEntry{TimestampMs: tb.meta.LastUpdatedMs, MetadataFile: tb.location(commit.MetadataKey(base.N))})
		if keep := tb.settings.PrevVersionsMax; len(md.MetadataLog) > keep {
			md.MetadataLog = md.MetadataLog[len(md.MetadataLog)-keep:]
		}
		md.LastUpdatedMs = max(now.UnixMilli(), tb.meta.LastUpdatedMs)
		b, err := md.Marshal()
		if err != nil {
			return commit.Attempt{}, err
		}
		built, raw = &md, b
		return commit.Attempt{Metadata: b}, nil
	}
	// A metadata-only version has no commit id: ours is the exact bytes written.
	isOurs := func(v commit.Version) bool { return bytes.Equal(v.Raw, raw) }
	cr, err := commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, nil, rebuild, isOurs)
	res.Conflicts += cr.Conflicts
	if errors.Is(err, errNothing) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	tb.version, tb.meta = cr.Version, built
	res.Commits++
	res.SnapshotsExpired += len(expired)
	res.Plan = append(res.Plan, fmt.Sprintf("expired %d snapshots", len(expired)))
	return expired, nil
}

// cleanup lists data/ and metadata/ and deletes what PlanCleanup allows.
// The files retained snapshots reach are read first; any failure to read
// them stops the cleanup before anything is deleted.
func (tb *Table) cleanup(ctx context.Context, ms maintenance.Settings, now time.Time, opt MaintainOptions, retained, expired []iceberg.Snapshot, res *MaintainResult) error {
	r := &reacher{tb: tb, manifests: map[string]*manifestKeys{}}
	keep := reachSet{keys: map[string]bool{}, merged: map[string]bool{}}
	for i := range retained {
		if err := r.reach(ctx, &retained[i], keep); err != nil {
			return err
		}
	}
	gone := reachSet{keys: map[string]bool{}, merged: map[string]bool{}}
	for i := range expired {
		if err := r.reach(ctx, &expired[i], gone); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err // not found: an earlier run deleted part of it already
		}
	}
	var listed []maintenance.Object
	for _, prefix := range []string{"data/", "metadata/"} {
		objs, err := tb.st.List(ctx, prefix)
		if err != nil {
			return fmt.Errorf("list %s: %w", prefix, err)
		}
		for _, o := range objs {
			listed = append(listed, maintenance.Object{Key: o.Key, Size: o.Size, Modified: o.LastModified})
		}
	}
	logged := slices.Clone(tb.meta.MetadataLog)
	cur := tb.version.N
	if opt.DryRun && len(expired) > 0 {
		// The expiry would commit a version after this one, logging it.
		logged = append(logged, iceberg.MetadataLogEntry{MetadataFile: tb.location(commit.MetadataKey(cur))})
		if keep := tb.settings.PrevVersionsMax; len(logged) > keep {
			logged = logged[len(logged)-keep:]
		}
		cur++
	}
	versions := map[string]bool{}
	for _, e := range logged {
		if k, err := tb.keyOf(e.MetadataFile); err == nil {
			versions[k] = true
		}
	}
	c := maintenance.PlanCleanup(maintenance.CleanupInput{
		Now: now, Grace: ms.OrphanGrace, Listed: listed, Retained: keep.keys, Expired: gone.keys,
		Current: cur, Metadata: versions, MetadataVersion: commit.ParseMetadataKey,
		Expire: opt.Expire, Orphans: opt.Orphans,
	})
	res.KeptYoung = c.Young
	keys := c.Keys()
	if len(keys) == 0 {
		return nil
	}
	verb := "delete"
	if opt.DryRun {
		verb = "would delete"
	}
	res.Plan = append(res.Plan, fmt.Sprintf("%s %d expired files, %d old metadata versions, %d orphans (%d bytes)", verb, len(c.Expired), len(c.Metadata), len(c.Orphans), c.Bytes))
	if !opt.DryRun {
		for b := 0; b < len(keys); b += 1000 {
			if err := tb.st.Delete(ctx, keys[b:min(b+1000, len(keys))]); err != nil {
				return fmt.Errorf("delete: %w", err)
			}
		}
	}
	res.FilesDeleted += len(keys)
	res.OrphansDeleted += len(c.Orphans)
	res.BytesDeleted += c.Bytes
	return nil
}

// reacher collects the keys snapshots reach. Manifest lists grow with the
// table (snapshot k of a table fed by appends lists about k manifests), so
// a list is decoded with the typed reader and one block buffer, and each
// entry costs a map lookup on the path's bytes; each distinct manifest is
// read once, keeping only the keys of the files it lists.
type reacher struct {
	tb        *Table
	cache     avro.Cache
	manifests map[string]*manifestKeys // by manifest path
}

// manifestKeys are the store keys of a manifest and of its live data files.
type manifestKeys struct {
	key   string
	files []string
}

// reachSet is the keys some snapshots reach, and the manifest paths whose
// keys it already holds (a manifest shared by many lists is merged once).
type reachSet struct {
	keys   map[string]bool
	merged map[string]bool
}

// reach adds the keys snapshot s reaches to set: its manifest list,
// manifests, live data files and last-value index.
func (r *reacher) reach(ctx context.Context, s *iceberg.Snapshot, set reachSet) error {
	tb := r.tb
	if p := s.Summary[lastvalue.SummaryKey]; p != "" {
		k, err := tb.keyOf(p)
		if err != nil {
			return err
		}
		set.keys[k] = true
	}
	listKey, err := tb.keyOf(s.ManifestList)
	if err != nil {
		return err
	}
	data, err := store.GetLimited(ctx, tb.st, listKey, MaxFileBytes)
	if err != nil {
		return fmt.Errorf("read manifest list of snapshot %d: %w", s.SnapshotID, err)
	}
	set.keys[listKey] = true
	var fresh []string // manifests this set does not hold yet
	err = iceberg.ManifestListPaths(&r.cache, data, s.ManifestList, func(p []byte) error {
		if !set.merged[string(p)] {
			fresh = append(fresh, string(p))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorruptTable, listKey, err)
	}
	for _, path := range fresh {
		if set.merged[path] {
			continue // listed twice
		}
		m, err := r.manifest(ctx, path)
		if err != nil {
			return err
		}
		set.merged[path] = true
		set.keys[m.key] = true
		for _, k := range m.files {
			set.keys[k] = true
		}
	}
	return nil
}

// manifest reads the manifest at path once.
func (r *reacher) manifest(ctx context.Context, path string) (*manifestKeys, error) {
	if m, ok := r.manifests[path]; ok {
		return m, nil
	}
	tb := r.tb
	key, err := tb.keyOf(path)
	if err != nil {
		return nil, err
	}
	data, err := store.GetLimited(ctx, tb.st, key, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	m := &manifestKeys{key: key}
	err = iceberg.ManifestDataFiles(&r.cache, data, iceberg.ManifestFile{ManifestPath: path}, func(st iceberg.EntryStatus, p string) error {
		if st == iceberg.StatusDeleted {
			return nil
		}
		k, err := tb.keyOf(p)
		if err != nil {
			return err
		}
		m.files = append(m.files, k)
		return nil
	})
	if errors.Is(err, store.ErrBadKey) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorruptTable, key, err)
	}
	r.manifests[path] = m
	return m, nil
}
