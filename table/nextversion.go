package table

import (
	"bytes"
	"fmt"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
)

// Every commit builds the version after its base here, in one of two ways:
//
//   - a new snapshot (append, compaction, retention, a rollup refresh):
//     the caller writes the manifests that change and says what the
//     snapshot holds (newSnapshot); buildSnapshot adds the totals to the
//     summary, writes the manifest list and makes the snapshot current in
//     the next metadata (nextMetadata: sequence number, logs, refs,
//     statistics, bounded history);
//   - the same snapshot, other metadata (schema changes, properties,
//     snapshot expiry, catalog registration): buildMetadata applies the
//     caller's edit to a copy of the base's metadata and logs the base.
//
// Both run inside a commit's rebuild, once per attempt, on the base the
// commit protocol hands over: a rebase is the same call on a newer base.

// manifestListKeyFormat names a snapshot's manifest list: snapshot id,
// sequence number, attempt id (a rebase writes a new list under a new
// name; a list is never rewritten). persisted: must not change.
const manifestListKeyFormat = "metadata/snap-%d-%d-%s.avro"

// newSnapshot is what a commit's new snapshot holds, built on the base.
type newSnapshot struct {
	id, seq   int64
	parent    *iceberg.Snapshot // nil: the table's first snapshot
	attemptID string            // names the manifest list
	timeMs    int64             // the snapshot's timestamp (the Env's clock)
	manifests []iceberg.ManifestFile
	// summary holds the operation and what it changed; buildSnapshot adds
	// the table's totals after the change.
	summary map[string]string
	totals  totals
	index   *iceberg.StatisticsFile // the last-value index in force, or nil
	sync    [16]byte                // the Avro sync marker of the list
}

// builtSnapshot is a new snapshot's files and the version that holds it.
type builtSnapshot struct {
	list     commit.File // the manifest list
	listPath string      // its location, as the snapshot names it
	raw      []byte      // the next metadata
	md       *iceberg.Metadata
}

// buildSnapshot writes s's manifest list and builds the metadata of the
// version after base with s as its current snapshot.
func (tb *Table) buildSnapshot(base commit.Version, s newSnapshot) (*builtSnapshot, error) {
	s.totals.put(s.summary)
	listKey := fmt.Sprintf(manifestListKeyFormat, s.id, s.seq, s.attemptID)
	var parentID *int64
	if s.parent != nil {
		id := s.parent.SnapshotID
		parentID = &id
	}
	var buf bytes.Buffer
	if err := iceberg.WriteManifestList(&buf, s.id, parentID, s.seq, s.manifests, s.sync); err != nil {
		return nil, err
	}
	out := &builtSnapshot{list: commit.File{Key: listKey, Data: buf.Bytes()}, listPath: tb.location(listKey)}
	var err error
	out.raw, out.md, err = tb.nextMetadata(base, iceberg.Snapshot{
		SnapshotID:       s.id,
		ParentSnapshotID: parentID,
		SequenceNumber:   s.seq,
		TimestampMs:      s.timeMs,
		ManifestList:     out.listPath,
		Summary:          s.summary,
	}, s.index)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// nextMetadata returns the bytes of the version after base (tb.meta) with
// snap as its current snapshot: sequence number, logs and refs updated, the
// metadata log trimmed to write.metadata.previous-versions-max and the
// snapshots bounded by timelake.history.max-snapshots (history.go).
//
// stat is the snapshot's statistics entry (its last-value index), or nil.
func (tb *Table) nextMetadata(base commit.Version, snap iceberg.Snapshot, stat *iceberg.StatisticsFile) ([]byte, *iceberg.Metadata, error) {
	md := *tb.meta // shallow: the slices below are copied before appending
	md.Statistics = withStatistics(md.Statistics, snap.SnapshotID, stat)
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
	tb.logVersion(&md, base)
	id := snap.SnapshotID
	md.CurrentSnapshotID = &id
	md.Refs = map[string]iceberg.SnapshotRef{}
	for k, v := range tb.meta.Refs {
		md.Refs[k] = v
	}
	md.Refs["main"] = iceberg.SnapshotRef{SnapshotID: id, Type: "branch"}
	if _, err := tb.boundHistory(&md); err != nil {
		return nil, nil, err
	}
	raw, err := md.Marshal()
	return raw, &md, err
}

// buildMetadata builds the version after base that keeps its snapshots as
// they are and changes what edit changes in a copy of its metadata (edit
// must copy a slice or map of md before changing it: md shares them with
// the base). The base joins the metadata log; the update time is nowMs,
// or the base's when another writer's clock is ahead.
func (tb *Table) buildMetadata(base commit.Version, nowMs int64, edit func(md *iceberg.Metadata) error) ([]byte, *iceberg.Metadata, error) {
	md := *tb.meta // shallow: edit copies what it changes
	if err := edit(&md); err != nil {
		return nil, nil, err
	}
	tb.logVersion(&md, base)
	md.LastUpdatedMs = max(nowMs, tb.meta.LastUpdatedMs)
	raw, err := md.Marshal()
	if err != nil {
		return nil, nil, err
	}
	return raw, &md, nil
}
