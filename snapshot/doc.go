// Package snapshot builds a table's next version from what a commit
// changes. Every writer of package table builds its version here: append
// and its rebase, compaction and retention (Remove, Manifests), expiry,
// alter, set-properties and catalog registration (Base.Next); a rollup
// refresh commits through append, and an index the catch-up rebuilt is
// written by the next append or rewrite. So the rules a version must keep
// are in one place:
// the sequence number is the base's plus one, the parent is the base's
// current snapshot, the metadata log names the base and is trimmed to
// write.metadata.previous-versions-max, and the snapshot log stays sorted
// even when another writer's clock ran ahead.
//
// The package does no I/O and reads no clock or randomness: the caller
// reads the parent (manifest list, manifests) and passes what it read,
// the time and the ids, so a version is a function of plain data and is
// tested as one. What it returns is bytes to upload (commit.File) and the
// metadata to commit through package commit.
//
// A data change (an append):
//
//	b := snapshot.Base{Meta: md, N: 7, PrevVersionsMax: 100}
//	v, err := snapshot.Build(b, snapshot.Change{
//		SnapshotID: id, AttemptID: uuid, Sync: sync, TimestampMs: nowMs,
//		Manifests: append([]iceberg.ManifestFile{added}, parentList...),
//		Summary:   summary, // operation, counts and totals
//	})
//	// upload v.List, then commit v.Raw as version 8
//
// A metadata-only change (properties, schema, expiry):
//
//	md := *b.Meta
//	md.Properties = props
//	raw, _, err := b.Next(&md, nowMs)
package snapshot
