package snapshot

import (
	"bytes"
	"fmt"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
)

// Manifests writes the manifests one commit attempt adds, numbered from 0
// under Prefix (ManifestKey), in the base's current schema and default
// spec, assigned to SnapshotID at the base's next sequence number.
type Manifests struct {
	Base       Base
	Prefix     string // the attempt's uuid
	SnapshotID int64
	Sync       [16]byte
	Files      []commit.File // the manifests written, to upload
}

// Write writes a manifest of entries and returns its manifest-list entry.
func (w *Manifests) Write(entries []iceberg.ManifestEntry) (iceberg.ManifestFile, error) {
	return w.WriteSpec(entries, int32(w.Base.Meta.DefaultSpecID))
}

// WriteSpec is Write for entries of partition spec specID (a manifest of a
// spec the table evolved from: its entries' partition records are of it).
func (w *Manifests) WriteSpec(entries []iceberg.ManifestEntry, specID int32) (iceberg.ManifestFile, error) {
	var spec *iceberg.PartitionSpec
	for i := range w.Base.Meta.PartitionSpecs {
		if int32(w.Base.Meta.PartitionSpecs[i].SpecID) == specID {
			spec = &w.Base.Meta.PartitionSpecs[i]
		}
	}
	if spec == nil {
		return iceberg.ManifestFile{}, fmt.Errorf("snapshot: no partition spec %d in the table", specID)
	}
	key := ManifestKey(w.Prefix, len(w.Files))
	var buf bytes.Buffer
	mf, err := iceberg.WriteManifestVersion(&buf, writeVersion(w.Base.Meta), *w.Base.Meta.CurrentSchema(), *spec, entries, w.Sync)
	if err != nil {
		return mf, err
	}
	mf.ManifestPath = w.Base.Location(key)
	mf.Assign(w.SnapshotID, w.Base.Seq())
	w.Files = append(w.Files, commit.File{Key: key, Data: buf.Bytes()})
	return mf, nil
}
