package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// MaintainOptions choose the steps of a maintenance run; none set means all
// of them.
type MaintainOptions struct {
	Compact   bool // merge the small files of busy or cold partitions
	Retention bool // drop partitions past timelake.retention
	Expire    bool // expire old snapshots and delete the files only they reached
	Orphans   bool // delete files no snapshot reaches, past their grace (maintenance.PlanCleanup)
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
	// Position delete files a merge applied (and the commit removed), and
	// the rows they deleted, left out of the outputs.
	DeleteFilesApplied int   `json:"delete-files-applied"`
	RowsDeleted        int64 `json:"rows-deleted"`

	PartitionsDropped  int   `json:"partitions-dropped"`
	FilesDropped       int   `json:"files-dropped"`
	DeleteFilesDropped int   `json:"delete-files-dropped"` // position/equality delete files of dropped partitions
	RowsDropped        int64 `json:"rows-dropped"`
	SeriesDropped      int   `json:"series-dropped"` // left the last-value index

	SnapshotsExpired int   `json:"snapshots-expired"`
	FilesDeleted     int   `json:"files-deleted"` // expired files, old metadata versions, orphans
	OrphansDeleted   int   `json:"orphans-deleted"`
	BytesDeleted     int64 `json:"bytes-deleted"`
	KeptYoung        int   `json:"kept-young"` // unreferenced but written, or first seen unreferenced, within its grace

	// Merges left out because an input is not sorted and too large to sort
	// in memory: their partitions stay as they are (a plan line names the file).
	MergesSkipped int `json:"merges-skipped"`
	// PartitionsSkipped: compaction left them alone (delete files, rows
	// without _ingest_ts in too many files); the plan says why.
	PartitionsSkipped int `json:"partitions-skipped"`

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

// errAllSkipped: every merge of a round was left out (datafile.SortTooLargeError).
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
	v, err := tb.latest(ctx)
	if err != nil {
		return finish(err)
	}
	if !v.Same(tb.version) {
		if err := tb.load(v); err != nil {
			return finish(err)
		}
	}
	if tb.writeErr != nil {
		return finish(fmt.Errorf("maintain: %w", tb.writeErr))
	}
	ms, err := tb.maintenanceSettings()
	if err != nil {
		return finish(err)
	}
	res.Warnings = append(res.Warnings, tb.graceFloor(&ms)...)
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

// graceFloor raises graces below the Env's floor to it, saying so.
func (tb *Table) graceFloor(ms *maintenance.Settings) []string {
	floor := tb.env.GraceFloor
	var warn []string
	for _, g := range []struct {
		prop string
		d    *time.Duration
	}{{maintenance.PropOrphanGrace, &ms.OrphanGrace}, {maintenance.PropMetadataGrace, &ms.MetadataGrace}} {
		if *g.d < floor {
			warn = append(warn, fmt.Sprintf("%s=%s is below the %s a concurrent writer needs between an upload and its commit: %s used", g.prop, *g.d, floor, floor))
			*g.d = floor
		}
	}
	return warn
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
	ms.MaxSnapshots = tb.settings.MaxSnapshots
	return ms, nil
}

// planInput describes the current version for the planner.
func (tb *Table) planInput(sf *snapshotFiles, ms maintenance.Settings, now time.Time) maintenance.Input {
	in := maintenance.Input{Now: now, Settings: ms, Partition: tb.schema.Partition}
	if tb.schema.Partition == 0 { // another engine's spec: numbered tuples (spec.go)
		in.PartitionRange = tb.specPartRange
	}
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
		tb.addPlanFiles(&in, sf)
	}
	return in
}

// partitionField is the partition field's name, as the default spec has
// it: ts_day at creation, and so after another engine renames the time
// column (the spec keeps its field's name), where the schema's
// PartitionName would say time_day. It names data directories, so a name
// that is not plain letters, digits, _ and - is not used.
func (tb *Table) partitionField() string {
	spec := tb.meta.DefaultSpec()
	if spec != nil && len(spec.Fields) == 1 && plainName(spec.Fields[0].Name) {
		return spec.Fields[0].Name
	}
	if tb.schema.Partition == 0 { // another engine's spec: its fields' names
		return specFieldNames(spec)
	}
	return tb.schema.PartitionName()
}

// specFieldNames names a spec's fields, "ts_day, host_bucket", or
// "(unpartitioned)".
func specFieldNames(spec *iceberg.PartitionSpec) string {
	if spec == nil || len(spec.Fields) == 0 {
		return "(unpartitioned)"
	}
	names := make([]string, len(spec.Fields))
	for i, f := range spec.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

func plainName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

func (tb *Table) partitionName(v int32) string {
	if v == migratePartition {
		return "the files of older partition specs"
	}
	if tb.schema.Partition == 0 {
		return tb.specPartName(v)
	}
	return tb.partitionField() + "=" + tb.schema.Partition.Format(v)
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
	if d == nil || len(d.Files)+len(d.Deletes) == 0 {
		return false, nil
	}
	res.Plan = append(res.Plan, otherSpecLine("retention", sf)...)
	if dry {
		for _, p := range d.Partitions {
			res.Plan = append(res.Plan, "drop "+tb.partitionName(p))
		}
		res.PartitionsDropped, res.FilesDropped, res.RowsDropped = len(d.Partitions), len(d.Files), d.Rows
		res.DeleteFilesDropped = len(d.Deletes)
		return false, nil
	}
	return tb.commitRetention(ctx, &retentionCommit{tb: tb, plan: plan, sf: sf}, res)
}

// commitRetention commits what rc plans in one "delete" snapshot.
func (tb *Table) commitRetention(ctx context.Context, rc *retentionCommit, res *MaintainResult) (bool, error) {
	var err error
	if rc.snapID, err = tb.env.snapshotID(); err != nil {
		return false, err
	}
	if rc.commitID, err = tb.env.uuid(); err != nil {
		return false, err
	}
	cr, err := commit.Commit(ctx, tb.st, tb.commitOptions(), tb.version, nil, rc.rebuild, isCommit(rc.commitID))
	res.Conflicts += cr.Conflicts
	if errors.Is(err, errNothing) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := tb.takeCommitted(cr.Version, rc.built); err != nil {
		return false, err
	}
	res.Commits++
	last := rc.last
	for _, p := range last.Partitions {
		res.Plan = append(res.Plan, "dropped "+tb.partitionName(p))
	}
	res.PartitionsDropped += len(last.Partitions)
	res.FilesDropped += len(last.Files)
	res.DeleteFilesDropped += len(last.Deletes)
	res.RowsDropped += last.Rows
	res.SeriesDropped += rc.seriesDropped
	return true, nil
}

// retentionCommit is the commit of a retention run: its plan, the files of
// the snapshot it plans on, and what its last attempt built and dropped.
type retentionCommit struct {
	tb            *Table
	plan          func(sf *snapshotFiles) *maintenance.Drop
	sf            *snapshotFiles
	snapID        int64
	commitID      string
	built         *iceberg.Metadata
	last          *maintenance.Drop
	seriesDropped int
}

// rebuild is retention's commit.Rebuild: the plan made again on base.
func (rc *retentionCommit) rebuild(ctx context.Context, base commit.Version) (commit.Attempt, error) {
	tb := rc.tb
	if !base.Same(tb.version) {
		if err := tb.loadForWrite(base); err != nil {
			return commit.Attempt{}, err
		}
		var err error
		if rc.sf, err = tb.readSnapshotFiles(ctx, tb.meta.CurrentSnapshot()); err != nil {
			return commit.Attempt{}, err
		}
	}
	d := rc.plan(rc.sf)
	if d == nil || len(d.Files)+len(d.Deletes) == 0 {
		return commit.Attempt{}, errNothing
	}
	removed := map[string]bool{}
	for _, f := range append(slices.Clone(d.Files), d.Deletes...) {
		removed[f.Key()] = true
	}
	rw := &rewrite{op: "delete", snapID: rc.snapID, commitID: rc.commitID, removed: removed, recomputeTimes: true,
		index: func(ctx context.Context, parent *iceberg.Snapshot) (*rows.Batch, error) {
			return rc.index(ctx, parent, d)
		}}
	att, md, err := tb.buildRewrite(ctx, base, rc.sf, rw)
	rc.built, rc.last = md, d
	return att, err
}

// index is the parent's last-value index without the series whose latest
// row is before d's cut-off; nil when none is dropped (the parent's stays).
func (rc *retentionCommit) index(ctx context.Context, parent *iceberg.Snapshot, d *maintenance.Drop) (*rows.Batch, error) {
	st, err := rc.tb.indexOf(ctx, parent)
	if err != nil || st.idx == nil {
		return nil, err
	}
	kept := lastvalue.Drop(st.idx, schema.ScaleMicros(d.CutoffUS, rc.tb.schema.TimeField().Type.PerMicro()))
	rc.seriesDropped = st.idx.Len - kept.Len
	if rc.seriesDropped == 0 {
		return nil, nil
	}
	return kept, nil
}

// runExpiryAndCleanup expires snapshots (one metadata-only commit), then
// deletes what no retained snapshot reaches (see maintenance.PlanCleanup).
func (tb *Table) runExpiryAndCleanup(ctx context.Context, ms maintenance.Settings, opt MaintainOptions, res *MaintainResult) (bool, error) {
	now := tb.env.Now()
	var expired []iceberg.Snapshot
	stats, err := tb.statisticsPaths() // before the expiry drops those of expired snapshots
	if err != nil {
		return false, err
	}
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
	after, err := tb.statisticsPaths()
	if err != nil {
		return committed, err
	}
	for id, ps := range after {
		stats[id] = append(stats[id], ps...)
	}
	if err := tb.cleanup(ctx, ms, now, opt, retained, expired, stats, res); err != nil {
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
		if !base.Same(tb.version) {
			if err := tb.loadForWrite(base); err != nil {
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
		if err := dropSnapshots(&md, gone); err != nil {
			return commit.Attempt{}, err
		}
		b, fellOff, err := tb.snapshotBase(base).Next(&md, now.UnixMilli())
		tb.fellOff = fellOff
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
	if err := tb.takeCommitted(cr.Version, built); err != nil {
		return nil, err
	}
	res.Commits++
	res.SnapshotsExpired += len(expired)
	res.Plan = append(res.Plan, fmt.Sprintf("expired %d snapshots", len(expired)))
	return expired, nil
}
