package snapshot

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
)

// ListKey is the store key of a snapshot's manifest list: snapshot id,
// sequence number and the commit attempt's uuid, so that no two attempts
// (nor two writers) ever write the same name. persisted: must not change.
func ListKey(snapID, seq int64, attemptID string) string {
	return fmt.Sprintf("metadata/snap-%d-%d-%s.avro", snapID, seq, attemptID)
}

// ManifestKey is the store key of the k-th manifest a commit attempt
// writes; prefix is a uuid of the attempt (or of the commit, for an
// append's own manifest). persisted: must not change.
func ManifestKey(prefix string, k int) string {
	return fmt.Sprintf("metadata/%s-m%d.avro", prefix, k)
}

// Base is the version a new one is built on.
type Base struct {
	Meta *iceberg.Metadata // its metadata: read, never modified
	N    int               // its version number (commit.Version.N)
	// PrevVersionsMax bounds the metadata log
	// (write.metadata.previous-versions-max).
	PrevVersionsMax int
	// Bound, when set, drops from md the snapshots past the table's bound
	// on history (timelake.history.max-snapshots): a policy of the
	// table's, so it comes in as a function.
	Bound func(md *iceberg.Metadata) error
}

// Location is the full path of key, as written into metadata.
func (b Base) Location(key string) string { return b.Meta.Location + "/" + key }

// Seq is the sequence number of a snapshot built on b.
func (b Base) Seq() int64 { return b.Meta.LastSequenceNumber + 1 }

// Parent is the snapshot a snapshot built on b follows, or nil.
func (b Base) Parent() *iceberg.Snapshot { return b.Meta.CurrentSnapshot() }

// Log appends b's metadata file to md's metadata log and trims the log to
// PrevVersionsMax; it returns the files trimmed off, which the caller may
// delete once the version is committed.
func (b Base) Log(md *iceberg.Metadata) (fellOff []string) {
	// Cloned: md shares its slices with b.Meta, which stays as it was
	// (a lost attempt builds again from it).
	md.MetadataLog = append(slices.Clone(md.MetadataLog),
		iceberg.MetadataLogEntry{TimestampMs: b.Meta.LastUpdatedMs, MetadataFile: b.Location(commit.MetadataKey(b.N))})
	if keep := b.PrevVersionsMax; len(md.MetadataLog) > keep {
		cut := len(md.MetadataLog) - keep
		for _, e := range md.MetadataLog[:cut] {
			fellOff = append(fellOff, e.MetadataFile)
		}
		md.MetadataLog = md.MetadataLog[cut:]
	}
	return fellOff
}

// Next finishes a metadata-only version: md (a copy of b.Meta with the
// change made) gets b in its metadata log and nowMs as its update time,
// never earlier than b's (another writer's clock may be ahead). It returns
// the bytes to commit and the metadata files trimmed from the log.
func (b Base) Next(md *iceberg.Metadata, nowMs int64) ([]byte, []string, error) {
	fellOff := b.Log(md)
	md.LastUpdatedMs = max(nowMs, b.Meta.LastUpdatedMs)
	raw, err := md.Marshal()
	return raw, fellOff, err
}

// Change is a new snapshot: what the caller decided, its files written.
type Change struct {
	SnapshotID  int64
	AttemptID   string   // names the manifest list: unique per attempt
	Sync        [16]byte // the manifest list's Avro sync marker
	TimestampMs int64    // the writer's clock
	// Manifests is the new snapshot's manifest list, in order: the
	// manifests it adds (Assign'ed to SnapshotID and b.Seq()) and those it
	// keeps from the parent.
	Manifests []iceberg.ManifestFile
	// Summary is the snapshot summary, complete: operation, counts, totals.
	Summary map[string]string
	// Index is the snapshot's statistics entry (its last-value index), or
	// nil; it replaces any entry of SnapshotID.
	Index *iceberg.StatisticsFile
}

// Version is a built version.
type Version struct {
	List     commit.File           // the manifest list to upload
	ListPath string                // its location
	Manifest *iceberg.ManifestList // what it holds (for a cache of the caller's)
	Raw      []byte                // the metadata to commit
	Meta     *iceberg.Metadata     // Raw, parsed: no need to read it back
	FellOff  []string              // metadata files trimmed from the log (Base.Log)
}

// Build writes the manifest list of c and the metadata of the version
// after b with c as its current snapshot.
func Build(b Base, c Change) (*Version, error) {
	seq := b.Seq()
	var parentID *int64
	if p := b.Parent(); p != nil {
		parentID = &p.SnapshotID
	}
	key := ListKey(c.SnapshotID, seq, c.AttemptID)
	manifests := c.Manifests
	snap := iceberg.Snapshot{
		SnapshotID:       c.SnapshotID,
		ParentSnapshotID: parentID,
		SequenceNumber:   seq,
		TimestampMs:      c.TimestampMs,
		Summary:          c.Summary,
	}
	var nextRowID int64
	if b.Meta.FormatVersion >= 3 {
		// Row lineage: the new manifests' rows get ids from the base's
		// next-row-id, again on every attempt (a rebase builds on the
		// winner's). Cloned: c.Manifests serves the next attempt too.
		manifests = slices.Clone(c.Manifests)
		first := b.Meta.NextRowID()
		nextRowID = iceberg.AssignRowIDs(manifests, first)
		snap.SetRowLineage(first, nextRowID-first)
	}
	var buf bytes.Buffer
	if err := iceberg.WriteManifestListVersion(&buf, writeVersion(b.Meta), c.SnapshotID, parentID, seq, manifests, c.Sync); err != nil {
		return nil, err
	}
	v := &Version{
		List: commit.File{Key: key, Data: buf.Bytes()}, ListPath: b.Location(key),
		Manifest: &iceberg.ManifestList{SnapshotID: c.SnapshotID, ParentSnapshotID: parentID, SequenceNumber: seq, Files: manifests},
	}
	snap.ManifestList = v.ListPath
	md, fellOff, err := b.WithSnapshot(snap, c.Index)
	if err != nil {
		return nil, err
	}
	if b.Meta.FormatVersion >= 3 {
		md.SetNextRowID(nextRowID)
	}
	v.Meta, v.FellOff = md, fellOff
	if v.Raw, err = md.Marshal(); err != nil {
		return nil, err
	}
	return v, nil
}

// WithSnapshot is b's metadata with snap as the current snapshot: sequence
// number, logs and refs updated, the history bounded. It returns the
// metadata files trimmed from the log. Build is WithSnapshot for a
// snapshot whose manifest list it writes; WithSnapshot alone serves a
// writer that names and writes its manifest list itself.
func (b Base) WithSnapshot(snap iceberg.Snapshot, stat *iceberg.StatisticsFile) (*iceberg.Metadata, []string, error) {
	md := *b.Meta // shallow: the slices below are copied before appending
	md.Statistics = WithStatistics(md.Statistics, snap.SnapshotID, stat)
	// Another writer's clock may be ahead of ours: the snapshot log must
	// stay sorted (iceberg-go refuses it otherwise, Java within a minute).
	snap.TimestampMs = max(snap.TimestampMs, md.LastUpdatedMs)
	schemaID := md.CurrentSchemaID
	snap.SchemaID = &schemaID
	md.LastSequenceNumber = snap.SequenceNumber
	md.LastUpdatedMs = snap.TimestampMs
	md.Snapshots = append(append([]iceberg.Snapshot(nil), md.Snapshots...), snap)
	md.SnapshotLog = append(append([]iceberg.SnapshotLogEntry(nil), md.SnapshotLog...),
		iceberg.SnapshotLogEntry{TimestampMs: snap.TimestampMs, SnapshotID: snap.SnapshotID})
	fellOff := b.Log(&md)
	id := snap.SnapshotID
	md.CurrentSnapshotID = &id
	md.Refs = map[string]iceberg.SnapshotRef{}
	for k, v := range b.Meta.Refs {
		md.Refs[k] = v
	}
	md.Refs["main"] = iceberg.SnapshotRef{SnapshotID: id, Type: "branch"}
	if b.Bound != nil {
		if err := b.Bound(&md); err != nil {
			return nil, nil, err
		}
	}
	return &md, fellOff, nil
}

// WithStatistics returns stats without any entry of snapshot id, plus stat
// when it is not nil. stats is not modified.
func WithStatistics(stats []iceberg.StatisticsFile, id int64, stat *iceberg.StatisticsFile) []iceberg.StatisticsFile {
	out := slices.DeleteFunc(slices.Clone(stats), func(s iceberg.StatisticsFile) bool { return s.SnapshotID == id })
	if stat != nil {
		out = append(out, *stat)
	}
	return out
}

// writeVersion is the format version of the manifests and manifest lists
// written for a table of metadata m: its own, 2 or 3 (a format 1 table is
// not written).
func writeVersion(m *iceberg.Metadata) int {
	return max(m.FormatVersion, iceberg.FormatVersion)
}
