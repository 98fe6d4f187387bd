package iceberg

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// TestManifestOfAnySpec: entries of a spec of several fields and
// transforms are written with their values and read back the same, with a
// summary per field.
func TestManifestOfAnySpec(t *testing.T) {
	s := Schema{Type: "struct", Fields: []SchemaField{
		{ID: 1, Name: "ts", Required: true, Type: json.RawMessage(`"timestamptz"`)},
		{ID: 2, Name: "host", Required: true, Type: json.RawMessage(`"string"`)},
		{ID: 3, Name: "id", Type: json.RawMessage(`"long"`)},
	}}
	spec := PartitionSpec{SpecID: 3, Fields: []PartitionField{
		{Name: "ts_month", Transform: "month", SourceID: 1, FieldID: 1000},
		{Name: "host_bucket", Transform: "bucket[16]", SourceID: 2, FieldID: 1001},
		{Name: "host_trunc", Transform: "truncate[2]", SourceID: 2, FieldID: 1002},
		{Name: "id", Transform: "identity", SourceID: 3, FieldID: 1003},
		{Name: "gone", Transform: "void", SourceID: 3, FieldID: 1004},
	}}
	var entries []ManifestEntry
	for i, vals := range [][]any{
		{int64(671), int64(3), "ab", int64(-5), nil},
		{int64(670), int64(15), "zz", nil, nil},
	} {
		entries = append(entries, ManifestEntry{Status: StatusAdded, DataFile: DataFile{
			Content: ContentData, Path: fmt.Sprintf("s3://b/t/data/%d.parquet", i), Format: FormatParquet,
			RecordCount: 1, FileSize: 10, PartitionValues: vals, OtherPartition: true}})
	}
	var buf bytes.Buffer
	mf, err := WriteManifest(&buf, s, spec, entries, sync16(3))
	if err != nil {
		t.Fatalf("WriteManifest: %v", err)
	}
	if len(mf.Partitions) != 5 || !bytes.Equal(mf.Partitions[0].LowerBound, EncodeInt(670)) || !bytes.Equal(mf.Partitions[2].UpperBound, []byte("zz")) ||
		!mf.Partitions[3].ContainsNull || !bytes.Equal(mf.Partitions[3].LowerBound, EncodeLong(-5)) || !mf.Partitions[4].ContainsNull || mf.Partitions[4].LowerBound != nil {
		t.Errorf("summaries %+v", mf.Partitions)
	}
	m, err := ReadManifest(buf.Bytes(), ManifestFile{ManifestPath: "m.avro", PartitionSpecID: 3})
	if err != nil {
		t.Fatalf("ReadManifest: %v", err)
	}
	for i, e := range m.Entries {
		if got, want := fmt.Sprint(e.DataFile.PartitionValues), fmt.Sprint(entries[i].DataFile.PartitionValues); got != want || e.DataFile.SpecID != 3 {
			t.Errorf("entry %d: values %s spec %d, want %s spec 3", i, got, e.DataFile.SpecID, want)
		}
	}
	// A value of the wrong type is an error naming the field.
	entries[0].DataFile.PartitionValues[1] = "three"
	if _, err := WriteManifest(&buf, s, spec, entries, sync16(3)); err == nil || !strings.Contains(err.Error(), "host_bucket") {
		t.Errorf("a string bucket: %v, want an error naming host_bucket", err)
	}
}
