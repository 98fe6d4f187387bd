package snapshot

import (
	"bytes"

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
	key := ManifestKey(w.Prefix, len(w.Files))
	var buf bytes.Buffer
	mf, err := iceberg.WriteManifest(&buf, *w.Base.Meta.CurrentSchema(), *w.Base.Meta.DefaultSpec(), entries, w.Sync)
	if err != nil {
		return mf, err
	}
	mf.ManifestPath = w.Base.Location(key)
	mf.Assign(w.SnapshotID, w.Base.Seq())
	w.Files = append(w.Files, commit.File{Key: key, Data: buf.Bytes()})
	return mf, nil
}
