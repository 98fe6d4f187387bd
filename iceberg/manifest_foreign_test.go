package iceberg

import (
	"bytes"
	"strings"
	"testing"
)

// Delete manifests and entries of another spec: what WriteManifest writes
// and refuses, and what ReadManifest gives back.
func TestManifestDeletesAndOtherPartitions(t *testing.T) {
	m := fixtureMetadata(t)
	pos := DataFile{Content: ContentPositionDeletes, Path: "s3://b/t/data/ts_day=2026-11-27/d1.parquet", Format: FormatParquet, Partition: 20784, RecordCount: 3, FileSize: 100}
	eq := pos
	eq.Content, eq.Path, eq.EqualityIDs = ContentEqualityDeletes, "s3://b/t/data/ts_day=2026-11-27/e1.parquet", []int32{1, 2}
	data := fixtureEntries()[0].DataFile
	other := data
	other.OtherPartition = true
	for _, c := range []struct {
		name        string
		entries     []ManifestEntry
		wantErr     string
		wantContent string
		wantList    int32
	}{
		{"position and equality deletes", []ManifestEntry{{Status: StatusAdded, DataFile: pos}, {Status: StatusExisting, SnapshotID: 7, SequenceNumber: 3, FileSequenceNumber: 4, DataFile: eq}}, "", "deletes", 1},
		{"data", []ManifestEntry{{Status: StatusAdded, DataFile: data}}, "", "data", 0},
		{"mixed", []ManifestEntry{{Status: StatusAdded, DataFile: data}, {Status: StatusAdded, DataFile: pos}}, "mixes data and delete files", "", 0},
		{"another spec's partition", []ManifestEntry{{Status: StatusAdded, DataFile: other}}, "partition of another spec", "", 0},
		{"content 3", []ManifestEntry{{Status: StatusAdded, DataFile: DataFile{Content: 3, Path: "x", Format: FormatParquet}}}, "content 3", "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			mf, err := WriteManifest(&buf, m.Schemas[0], m.PartitionSpecs[0], c.entries, sync16(3))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if mf.Content != c.wantList {
				t.Errorf("manifest list content = %d, want %d", mf.Content, c.wantList)
			}
			mf.ManifestPath = "m.avro"
			mf.Assign(9, 5)
			got, err := ReadManifest(buf.Bytes(), mf)
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != c.wantContent {
				t.Errorf("content = %q, want %q", got.Content, c.wantContent)
			}
			for i, e := range got.Entries {
				w := c.entries[i]
				if w.Status == StatusAdded {
					w.SnapshotID, w.SequenceNumber, w.FileSequenceNumber = 9, 5, 5
				}
				if e.Status != w.Status || e.SnapshotID != w.SnapshotID || e.SequenceNumber != w.SequenceNumber || e.FileSequenceNumber != w.FileSequenceNumber ||
					e.DataFile.Content != w.DataFile.Content || e.DataFile.Path != w.DataFile.Path || len(e.DataFile.EqualityIDs) != len(w.DataFile.EqualityIDs) {
					t.Errorf("entry %d = %+v, want %+v", i, e, w)
				}
			}
			n := 0
			if err := ManifestDataFiles(nil, buf.Bytes(), mf, func(EntryStatus, string) error { n++; return nil }); err != nil || n != len(c.entries) {
				t.Errorf("ManifestDataFiles: %d entries, %v", n, err)
			}
		})
	}
}
