package snapshot

import "github.com/timelake/timelake/iceberg"

// Removal is what removing live files from a snapshot's manifests changes.
// Iceberg's meaning: the snapshot that removes a file records it DELETED
// (with its own snapshot id) in a new manifest; a manifest that held it is
// replaced by one listing its other live files EXISTING; manifests that held
// none are kept as they are.
type Removal struct {
	Deleted        []iceberg.ManifestEntry // DELETED entries of data files of the default spec
	DeletedDeletes []iceberg.ManifestEntry // DELETED entries of delete files of the default spec
	// DeletedOther are the DELETED entries (data and delete files) of
	// files of other partition specs, by spec id: a manifest holds the
	// entries of one spec, whose partition records it types.
	DeletedOther map[int32][]iceberg.ManifestEntry
	// Rewritten holds, per manifest that held a removed file, its other
	// live entries as EXISTING (a manifest left with none is dropped), and
	// RewrittenSpec that manifest's spec id.
	Rewritten     [][]iceberg.ManifestEntry
	RewrittenSpec []int32
	Kept          []iceberg.ManifestFile // manifests that held no removed file
	// Counts of what was removed, for the summary.
	DataFiles, DeleteFiles int
	Rows, Bytes            int64 // rows of data files; bytes of both
	Partitions             map[int32]bool
}

// Remove removes the files whose entry keys (iceberg.DataFile.EntryKey:
// the path, and for a deletion vector the data file it references too)
// are in removed from the snapshot whose manifest list is list and whose manifests (by list position) are
// manifests, for snapshot snapID. Entries DELETED by earlier snapshots are
// dropped: their delete was recorded by the snapshot that made it.
func Remove(list []iceberg.ManifestFile, manifests []*iceberg.Manifest, removed map[string]bool, snapID int64) *Removal {
	return RemoveSpec(list, manifests, removed, snapID, -1)
}

// RemoveSpec is Remove for a table whose default spec is defaultSpec: the
// removed files of manifests of other specs go DELETED into DeletedOther
// by spec (-1: every manifest is taken for the default spec's, as Remove).
func RemoveSpec(list []iceberg.ManifestFile, manifests []*iceberg.Manifest, removed map[string]bool, snapID int64, defaultSpec int32) *Removal {
	r := &Removal{Partitions: map[int32]bool{}}
	for i, mf := range list {
		m := manifests[i]
		if !holdsAny(m, removed) {
			r.Kept = append(r.Kept, mf)
			continue
		}
		var existing []iceberg.ManifestEntry
		for _, e := range m.Entries {
			if e.Status == iceberg.StatusDeleted {
				continue
			}
			if removed[e.DataFile.EntryKey()] {
				if defaultSpec >= 0 && mf.PartitionSpecID != defaultSpec {
					r.removeOther(e, snapID, mf.PartitionSpecID)
					continue
				}
				r.remove(e, snapID)
				continue
			}
			x := e
			x.Status = iceberg.StatusExisting
			existing = append(existing, x)
		}
		if len(existing) > 0 {
			r.Rewritten = append(r.Rewritten, existing)
			r.RewrittenSpec = append(r.RewrittenSpec, mf.PartitionSpecID)
		}
	}
	return r
}

func (r *Removal) remove(e iceberg.ManifestEntry, snapID int64) {
	d := e
	d.Status, d.SnapshotID = iceberg.StatusDeleted, snapID
	r.Partitions[e.DataFile.Partition] = true
	r.Bytes += e.DataFile.ContentSize()
	if e.DataFile.IsDelete() {
		r.DeletedDeletes = append(r.DeletedDeletes, d)
		r.DeleteFiles++
		return
	}
	r.Deleted = append(r.Deleted, d)
	r.DataFiles++
	r.Rows += e.DataFile.RecordCount
}

// removeOther records the removal of a file of spec specID, not the default.
func (r *Removal) removeOther(e iceberg.ManifestEntry, snapID int64, specID int32) {
	d := e
	d.Status, d.SnapshotID = iceberg.StatusDeleted, snapID
	if r.DeletedOther == nil {
		r.DeletedOther = map[int32][]iceberg.ManifestEntry{}
	}
	r.DeletedOther[specID] = append(r.DeletedOther[specID], d)
	r.Bytes += e.DataFile.ContentSize()
	if e.DataFile.IsDelete() {
		r.DeleteFiles++
		return
	}
	r.DataFiles++
	r.Rows += e.DataFile.RecordCount
}

// holdsAny reports whether m lists a live file of removed.
func holdsAny(m *iceberg.Manifest, removed map[string]bool) bool {
	for _, e := range m.Entries {
		if e.Status != iceberg.StatusDeleted && removed[e.DataFile.EntryKey()] {
			return true
		}
	}
	return false
}
