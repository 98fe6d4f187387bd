package iceberg

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/avro"
	"github.com/timelake/timelake/schema"
)

func writeFixtureManifest(t testing.TB) ([]byte, ManifestFile) {
	m := NewTableMetadata(fixtureTable(t), fixtureUUID, fixtureLocation, fixtureNowMs, nil)
	var buf bytes.Buffer
	mf, err := WriteManifest(&buf, m.Schemas[0], m.PartitionSpecs[0], fixtureEntries(), sync16(1))
	if err != nil {
		t.Fatal(err)
	}
	mf.ManifestPath = fixtureLocation + "/metadata/0b5e4f3a-m0.avro"
	mf.Assign(fixtureSnapshot, 2)
	return buf.Bytes(), mf
}

func TestManifestRoundTripInheritsAddedValues(t *testing.T) {
	data, mf := writeFixtureManifest(t)
	golden(t, "manifest.avro", data)
	if mf.ManifestLength != int64(len(data)) {
		t.Errorf("ManifestLength: got %d, want %d", mf.ManifestLength, len(data))
	}
	wantCounts := [6]int64{2, 1, 0, 8, 7, 0}
	gotCounts := [6]int64{int64(mf.AddedFilesCount), int64(mf.ExistingFilesCount), int64(mf.DeletedFilesCount),
		mf.AddedRowsCount, mf.ExistingRowsCount, mf.DeletedRowsCount}
	if gotCounts != wantCounts {
		t.Errorf("counts (files added/existing/deleted, rows …): got %v, want %v", gotCounts, wantCounts)
	}
	if mf.MinSequenceNumber != 1 || mf.SequenceNumber != 2 {
		t.Errorf("sequence numbers: got min %d seq %d, want 1 and 2", mf.MinSequenceNumber, mf.SequenceNumber)
	}
	if p := mf.Partitions; len(p) != 1 || !bytes.Equal(p[0].LowerBound, EncodeInt(20400)) || !bytes.Equal(p[0].UpperBound, EncodeInt(20406)) {
		t.Errorf("partition summary: got %+v, want bounds 20400..20406", p)
	}

	m, err := ReadManifest(data, mf)
	if err != nil {
		t.Fatal(err)
	}
	want := fixtureEntries()
	for i := range want {
		if want[i].Status == StatusAdded {
			want[i].SnapshotID, want[i].SequenceNumber, want[i].FileSequenceNumber = fixtureSnapshot, 2, 2
		}
	}
	if !reflect.DeepEqual(m.Entries, want) {
		t.Errorf("entries:\n got %+v\nwant %+v", m.Entries, want)
	}
	if m.SchemaID != 0 || m.Spec.SpecID != 0 || len(m.Spec.Fields) != 1 || m.Spec.Fields[0].Name != "ts_day" {
		t.Errorf("header: got schema-id %d spec %+v", m.SchemaID, m.Spec)
	}
	if len(m.Schema.Fields) != 6 {
		t.Errorf("header schema: got %d fields, want 6", len(m.Schema.Fields))
	}

	// A rebase re-assigns the same bytes to a later sequence number.
	mf.Assign(fixtureSnapshot, 9)
	m, err = ReadManifest(data, mf)
	if err != nil {
		t.Fatal(err)
	}
	if e := m.Entries[0]; e.SequenceNumber != 9 || e.FileSequenceNumber != 9 {
		t.Errorf("after rebase: ADDED entry seq %d/%d, want 9/9", e.SequenceNumber, e.FileSequenceNumber)
	}
	if e := m.Entries[2]; e.SequenceNumber != 1 || e.SnapshotID != 17 {
		t.Errorf("after rebase: EXISTING entry keeps seq 1 snapshot 17, got %d %d", e.SequenceNumber, e.SnapshotID)
	}
}

// TestManifestHeader checks what outside readers depend on: the header keys
// and the Avro schema's field ids.
func TestManifestHeader(t *testing.T) {
	data, _ := writeFixtureManifest(t)
	r, err := avro.NewReader(data)
	if err != nil {
		t.Fatal(err)
	}
	wantMeta := map[string]string{
		"schema-id": "0", "partition-spec-id": "0", "format-version": "2", "content": "data",
		"partition-spec": `[{"name":"ts_day","transform":"day","source-id":1,"field-id":1000}]`,
		"avro.codec":     "deflate",
	}
	for k, want := range wantMeta {
		if got := string(r.Meta[k]); got != want {
			t.Errorf("header %s: got %q, want %q", k, got, want)
		}
	}
	var s Schema
	if err := json.Unmarshal(r.Meta["schema"], &s); err != nil || s.SchemaID != 0 || len(s.Fields) != 6 {
		t.Errorf("header schema: got %s (%v)", r.Meta["schema"], err)
	}
	if len(r.Meta) != 8 {
		t.Errorf("header has %d keys, want 8: %v", len(r.Meta), keys(r.Meta))
	}
	wantIDs := map[string]int{
		"status": 0, "snapshot_id": 1, "sequence_number": 3, "file_sequence_number": 4, "data_file": 2,
		"data_file.content": 134, "data_file.file_path": 100, "data_file.file_format": 101,
		"data_file.partition": 102, "data_file.partition.ts_day": 1000, "data_file.record_count": 103,
		"data_file.file_size_in_bytes": 104, "data_file.column_sizes": 108, "data_file.column_sizes.key": 117,
		"data_file.column_sizes.value": 118, "data_file.value_counts": 109, "data_file.value_counts.key": 119,
		"data_file.value_counts.value": 120, "data_file.null_value_counts": 110, "data_file.null_value_counts.key": 121,
		"data_file.null_value_counts.value": 122, "data_file.nan_value_counts": 137, "data_file.nan_value_counts.key": 138,
		"data_file.nan_value_counts.value": 139, "data_file.lower_bounds": 125, "data_file.lower_bounds.key": 126,
		"data_file.lower_bounds.value": 127, "data_file.upper_bounds": 128, "data_file.upper_bounds.key": 129,
		"data_file.upper_bounds.value": 130, "data_file.key_metadata": 131, "data_file.split_offsets": 132,
		"data_file.equality_ids": 135, "data_file.sort_order_id": 140,
	}
	got := fieldIDs(r.Schema, "")
	if !reflect.DeepEqual(got, wantIDs) {
		t.Errorf("field ids:\n got %v\nwant %v", got, wantIDs)
	}
	df := r.Schema.Field("data_file").Type
	if id, _ := avro.IntAttrOf(df.Field("split_offsets").Type.Branches[1].Attrs, "element-id"); id != 133 {
		t.Errorf("split_offsets element-id: got %d, want 133", id)
	}
	if id, _ := avro.IntAttrOf(df.Field("equality_ids").Type.Branches[1].Attrs, "element-id"); id != 136 {
		t.Errorf("equality_ids element-id: got %d, want 136", id)
	}
	if lt := df.Field("column_sizes").Type.Branches[1].LogicalType; lt != "map" {
		t.Errorf("column_sizes logicalType: got %q, want map", lt)
	}
	if lt := df.Field("partition").Type.Field("ts_day").Type.Branches[1].LogicalType; lt != "date" {
		t.Errorf("partition ts_day logicalType: got %q, want date", lt)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// fieldIDs maps dotted field paths to field-id, looking through optional
// unions and int-keyed map arrays.
func fieldIDs(s *avro.Schema, prefix string) map[string]int {
	out := map[string]int{}
	for _, f := range s.Fields {
		if id, ok := f.FieldID(); ok {
			out[prefix+f.Name] = id
		}
		t := f.Type
		if t.Type == avro.TypeUnion {
			t = t.Branches[len(t.Branches)-1]
		}
		if t.Type == avro.TypeArray && t.LogicalType == "map" {
			t = t.Items
		}
		if t.Type == avro.TypeRecord {
			for k, v := range fieldIDs(t, prefix+f.Name+".") {
				out[k] = v
			}
		}
	}
	return out
}

func TestManifestListRoundTrip(t *testing.T) {
	_, mf := writeFixtureManifest(t)
	old := ManifestFile{ManifestPath: fixtureLocation + "/metadata/old-m0.avro", ManifestLength: 4242, Content: ContentData,
		SequenceNumber: 1, MinSequenceNumber: 1, AddedSnapshotID: 17, AddedFilesCount: 1, AddedRowsCount: 7}
	parent := int64(17)
	var buf bytes.Buffer
	if err := WriteManifestList(&buf, fixtureSnapshot, &parent, 2, []ManifestFile{mf, old}, sync16(2)); err != nil {
		t.Fatal(err)
	}
	golden(t, "manifest_list.avro", buf.Bytes())
	l, err := ReadManifestList(buf.Bytes(), "list.avro")
	if err != nil {
		t.Fatal(err)
	}
	if l.SnapshotID != fixtureSnapshot || l.SequenceNumber != 2 || l.ParentSnapshotID == nil || *l.ParentSnapshotID != 17 {
		t.Errorf("header: got snapshot %d seq %d parent %v", l.SnapshotID, l.SequenceNumber, l.ParentSnapshotID)
	}
	mf.minExisting, mf.hasExisting = 0, false // not persisted
	if want := []ManifestFile{mf, old}; !reflect.DeepEqual(l.Files, want) {
		t.Errorf("files:\n got %+v\nwant %+v", l.Files, want)
	}
	r, _ := avro.NewReader(buf.Bytes())
	for k, want := range map[string]string{"format-version": "2", "snapshot-id": "3051729675574597004",
		"parent-snapshot-id": "17", "sequence-number": "2"} {
		if got := string(r.Meta[k]); got != want {
			t.Errorf("header %s: got %q, want %q", k, got, want)
		}
	}
	wantIDs := map[string]int{"manifest_path": 500, "manifest_length": 501, "partition_spec_id": 502, "content": 517,
		"sequence_number": 515, "min_sequence_number": 516, "added_snapshot_id": 503, "added_files_count": 504,
		"existing_files_count": 505, "deleted_files_count": 506, "added_rows_count": 512, "existing_rows_count": 513,
		"deleted_rows_count": 514, "partitions": 507, "key_metadata": 519}
	if got := fieldIDs(r.Schema, ""); !reflect.DeepEqual(got, wantIDs) {
		t.Errorf("field ids:\n got %v\nwant %v", got, wantIDs)
	}
	summary := r.Schema.Field("partitions").Type.Branches[1]
	if id, _ := avro.IntAttrOf(summary.Attrs, "element-id"); id != 508 {
		t.Errorf("partitions element-id: got %d, want 508", id)
	}
	if got := fieldIDs(summary.Items, ""); !reflect.DeepEqual(got, map[string]int{"contains_null": 509, "contains_nan": 518, "lower_bound": 510, "upper_bound": 511}) {
		t.Errorf("field_summary ids: got %v", got)
	}

	// no parent: written as "null", read as nil
	buf.Reset()
	if err := WriteManifestList(&buf, fixtureSnapshot, nil, 1, nil, sync16(2)); err != nil {
		t.Fatal(err)
	}
	r, _ = avro.NewReader(buf.Bytes())
	if got := string(r.Meta["parent-snapshot-id"]); got != "null" {
		t.Errorf("parent-snapshot-id without parent: got %q, want null", got)
	}
	if l, err := ReadManifestList(buf.Bytes(), "x"); err != nil || l.ParentSnapshotID != nil || len(l.Files) != 0 {
		t.Errorf("empty list: got %+v %v", l, err)
	}
}

func TestManifestErrors(t *testing.T) {
	m := NewTableMetadata(fixtureTable(t), fixtureUUID, fixtureLocation, fixtureNowMs, nil)
	var buf bytes.Buffer
	bad := fixtureEntries()[:1]
	bad[0].DataFile.Path = ""
	if _, err := WriteManifest(&buf, m.Schemas[0], m.PartitionSpecs[0], bad, sync16(1)); err == nil || !strings.Contains(err.Error(), "entry 0") {
		t.Errorf("empty path: got %v, want an error naming entry 0", err)
	}
	spec := m.PartitionSpecs[0]
	spec.Fields = []PartitionField{{Name: "b", Transform: "bucket[4]", SourceID: 999, FieldID: 1000}}
	if _, err := WriteManifest(&buf, m.Schemas[0], spec, nil, sync16(1)); err == nil || !strings.Contains(err.Error(), "no source column 999") {
		t.Errorf("bucket of a missing column: got %v, want an error naming it", err)
	}
	// An EXISTING entry with a null sequence number cannot inherit it.
	sch, _ := manifestEntrySchema(m.PartitionSpecs[0], &m.Schemas[0], false)
	buf.Reset()
	w, _ := avro.NewWriter(&buf, sch, avro.WriterOptions{Meta: map[string][]byte{"format-version": []byte("2")}})
	e := fixtureEntries()[0]
	rec := appendEntry(nil, &e, false, func(b []byte) ([]byte, error) {
		return avro.AppendInt(avro.AppendUnion(b, 1), e.DataFile.Partition), nil
	}, new([]int32))
	rec[0] = byte(avro.AppendInt(nil, int32(StatusExisting))[0])
	w.AppendEncoded(rec)
	w.Close()
	if _, err := ReadManifest(buf.Bytes(), ManifestFile{ManifestPath: "m.avro"}); err == nil || !strings.Contains(err.Error(), "only ADDED entries inherit") {
		t.Errorf("EXISTING with null sequence number: got %v", err)
	}
	if _, err := ReadManifest([]byte("nope"), ManifestFile{ManifestPath: "m.avro"}); err == nil || !strings.Contains(err.Error(), "m.avro") {
		t.Errorf("not avro: got %v, want an error naming the file", err)
	}
}

func FuzzReadManifest(f *testing.F) {
	data, _ := writeFixtureManifest(f)
	f.Add(data)
	f.Add(pyicebergFile(f, "manifest-1.avro"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadManifest(data, ManifestFile{AddedSnapshotID: 1, SequenceNumber: 1})
		if err != nil {
			return
		}
		// what was read can be written again
		var buf bytes.Buffer
		if _, err := WriteManifest(&buf, m.Schema, m.Spec, m.Entries, sync16(0)); err != nil && len(m.Spec.Fields) <= 1 && !strings.Contains(err.Error(), "transform") && !strings.Contains(err.Error(), "entry") {
			t.Errorf("rewrite of a manifest read back: %v", err)
		}
	})
}

func FuzzReadManifestList(f *testing.F) {
	_, mf := writeFixtureManifest(f)
	var buf bytes.Buffer
	WriteManifestList(&buf, fixtureSnapshot, nil, 2, []ManifestFile{mf}, sync16(2))
	f.Add(buf.Bytes())
	f.Add(pyicebergFile(f, "manifest-list.avro"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ReadManifestList(data, "fuzz.avro")
	})
}

// BenchmarkWriteManifest writes a manifest of 1,000 ADDED entries with full
// column statistics for six columns.
func BenchmarkWriteManifest(b *testing.B) {
	m := NewTableMetadata(fixtureTable(b), fixtureUUID, fixtureLocation, fixtureNowMs, nil)
	base := fixtureEntries()[0]
	entries := make([]ManifestEntry, 1000)
	for i := range entries {
		entries[i] = base
		entries[i].DataFile.Path = base.DataFile.Path + string(rune('a'+i%26))
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if _, err := WriteManifest(&buf, m.Schemas[0], m.PartitionSpecs[0], entries, sync16(1)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/manifest")
}

// pyicebergFile reads a file pyiceberg wrote (refreshed by
// TestInteropReadPyicebergTable -update).
func pyicebergFile(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", "pyiceberg", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadCommittedPyicebergFiles reads the committed pyiceberg files
// without Python: metadata, manifest list and both manifests.
func TestReadCommittedPyicebergFiles(t *testing.T) {
	m, err := ParseMetadata(pyicebergFile(t, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Snapshots) != 2 || m.CurrentSnapshot() == nil {
		t.Fatalf("snapshots: got %d, current %v", len(m.Snapshots), m.CurrentSnapshotID)
	}
	l, err := ReadManifestList(pyicebergFile(t, "manifest-list.avro"), "manifest-list.avro")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Files) != 2 || l.SnapshotID != *m.CurrentSnapshotID {
		t.Fatalf("manifest list: got %d files, snapshot %d", len(l.Files), l.SnapshotID)
	}
	for _, mf := range l.Files {
		man, err := ReadManifest(pyicebergFile(t, "manifest-"+strconv.FormatInt(mf.SequenceNumber, 10)+".avro"), mf)
		if err != nil {
			t.Fatal(err)
		}
		if len(man.Entries) != 1 {
			t.Fatalf("manifest seq %d: got %d entries", mf.SequenceNumber, len(man.Entries))
		}
		e := man.Entries[0]
		wantDay := schema.Day.Apply(time.Date(2026, 11, int(mf.SequenceNumber), 0, 0, 0, 0, time.UTC).UnixMicro())
		if e.Status != StatusAdded || e.DataFile.RecordCount != 3 || e.DataFile.Partition != wantDay ||
			e.SnapshotID != mf.AddedSnapshotID || e.SequenceNumber != mf.SequenceNumber || e.DataFile.NullCounts[3] != 1 {
			t.Errorf("manifest seq %d entry: got %+v, want ADDED, 3 rows, day %d, 1 null cpu", mf.SequenceNumber, e, wantDay)
		}
		if got := string(e.DataFile.Lower[2]); got != "a" {
			t.Errorf("host lower bound: got %q, want a", got)
		}
	}
}

// Manifests with the same header text share one parsed schema and spec;
// a header that does not parse fails every time, it is not kept.
func TestManifestHeaderParsedOnce(t *testing.T) {
	data, mf := writeFixtureManifest(t)
	a, err := ReadManifest(data, mf)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadManifest(data, mf)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Schema.Fields) == 0 || &a.Schema.Fields[0] != &b.Schema.Fields[0] || &a.Spec.Fields[0] != &b.Spec.Fields[0] {
		t.Error("the second read parsed the header again")
	}
	want := NewTableMetadata(fixtureTable(t), fixtureUUID, fixtureLocation, fixtureNowMs, nil)
	if !reflect.DeepEqual(b.Schema, want.Schemas[0]) || !reflect.DeepEqual(b.Spec, want.PartitionSpecs[0]) {
		t.Errorf("header: got %+v %+v, want %+v %+v", b.Schema, b.Spec, want.Schemas[0], want.PartitionSpecs[0])
	}
}
