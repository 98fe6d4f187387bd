package snapshot_test

import (
	"slices"
	"testing"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/snapshot"
)

// TestRemoveDeletionVector: two deletion vectors of one Puffin file are
// two entries with one path; removing one by its entry key keeps the
// other EXISTING (removing by path would drop both, and the rows the
// other deletes would come back).
func TestRemoveDeletionVector(t *testing.T) {
	puffin := loc + "/data/dvs.puffin"
	dv := func(ref string, off int64) iceberg.ManifestEntry {
		size := int64(40)
		return iceberg.ManifestEntry{Status: iceberg.StatusAdded, SnapshotID: 11, SequenceNumber: 3, FileSequenceNumber: 3,
			DataFile: iceberg.DataFile{Content: iceberg.ContentPositionDeletes, Path: puffin, Format: iceberg.FormatPuffin,
				RecordCount: 2, FileSize: 100, ReferencedDataFile: loc + "/data/" + ref, ContentOffset: &off, ContentSizeInBytes: &size}}
	}
	m := &iceberg.Manifest{Entries: []iceberg.ManifestEntry{dv("a", 4), dv("b", 44)}}
	mf := iceberg.ManifestFile{ManifestPath: loc + "/metadata/d1.avro", Content: iceberg.ContentPositionDeletes}
	for _, c := range []struct {
		name              string
		removed           map[string]bool
		deleted, existing []string // referenced data files
	}{
		{"one of two", map[string]bool{iceberg.DVKey(puffin, loc+"/data/a"): true}, []string{"a"}, []string{"b"}},
		{"both", map[string]bool{iceberg.DVKey(puffin, loc+"/data/a"): true, iceberg.DVKey(puffin, loc+"/data/b"): true}, []string{"a", "b"}, nil},
		{"by path: none", map[string]bool{puffin: true}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rm := snapshot.Remove([]iceberg.ManifestFile{mf}, []*iceberg.Manifest{m}, c.removed, 20)
			var deleted, existing []string
			for _, e := range rm.DeletedDeletes {
				deleted = append(deleted, e.DataFile.ReferencedDataFile[len(loc+"/data/"):])
			}
			for _, es := range rm.Rewritten {
				for _, e := range es {
					existing = append(existing, e.DataFile.ReferencedDataFile[len(loc+"/data/"):])
				}
			}
			if !slices.Equal(deleted, c.deleted) || !slices.Equal(existing, c.existing) {
				t.Fatalf("deleted %v, existing %v; want %v, %v", deleted, existing, c.deleted, c.existing)
			}
			// a vector's bytes are its blob's, not its Puffin file's
			if want := int64(40 * len(c.deleted)); rm.Bytes != want || rm.DeleteFiles != len(c.deleted) {
				t.Fatalf("removed %d bytes in %d delete files, want %d in %d", rm.Bytes, rm.DeleteFiles, want, len(c.deleted))
			}
		})
	}
}
