package snapshot_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/snapshot"
)

const loc = "mem://t"

func emptyTable(t *testing.T) snapshot.Base {
	t.Helper()
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "v", Type: schema.Double}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	md := iceberg.NewTableMetadata(sch, "00000000-0000-4000-8000-000000000000", loc, 1000, nil)
	return snapshot.Base{Meta: md, N: 1, PrevVersionsMax: 100}
}

// manifest writes a manifest adding paths (DELETED for paths prefixed by
// "-") for snapshot snapID of b.
func manifest(t *testing.T, b snapshot.Base, name string, snapID int64, paths ...string) (iceberg.ManifestFile, *iceberg.Manifest) {
	t.Helper()
	var entries []iceberg.ManifestEntry
	for _, p := range paths {
		st := iceberg.StatusAdded
		if p[0] == '-' {
			st, p = iceberg.StatusDeleted, p[1:]
		}
		entries = append(entries, iceberg.ManifestEntry{Status: st, SnapshotID: snapID, SequenceNumber: b.Seq(), FileSequenceNumber: b.Seq(),
			DataFile: iceberg.DataFile{Content: iceberg.ContentData, Path: loc + "/data/" + p, Format: iceberg.FormatParquet, RecordCount: 10, FileSize: 100}})
	}
	var buf bytes.Buffer
	mf, err := iceberg.WriteManifest(&buf, *b.Meta.CurrentSchema(), *b.Meta.DefaultSpec(), entries, [16]byte{1})
	if err != nil {
		t.Fatal(err)
	}
	mf.ManifestPath = loc + "/metadata/" + name
	m, err := iceberg.ReadManifest(buf.Bytes(), mf)
	if err != nil {
		t.Fatal(err)
	}
	mf.Assign(snapID, b.Seq())
	return mf, m
}

// build builds c on b and returns the version and the base that follows it.
func build(t *testing.T, b snapshot.Base, c snapshot.Change) (*snapshot.Version, snapshot.Base) {
	t.Helper()
	v, err := snapshot.Build(b, c)
	if err != nil {
		t.Fatal(err)
	}
	md, err := iceberg.ParseMetadata(v.Raw)
	if err != nil {
		t.Fatalf("the built metadata does not parse: %v", err)
	}
	if got, want := md.LastSequenceNumber, v.Meta.LastSequenceNumber; got != want {
		t.Errorf("Raw has sequence number %d, Meta %d", got, want)
	}
	next := b
	next.Meta, next.N = v.Meta, b.N+1
	return v, next
}

// appendChange adds files on b, whose parent's manifest list is prev.
func appendChange(t *testing.T, b snapshot.Base, id int64, prev []iceberg.ManifestFile, files ...string) snapshot.Change {
	mf, _ := manifest(t, b, "add-"+files[0]+".avro", id, files...)
	return snapshot.Change{
		SnapshotID: id, AttemptID: "a1", TimestampMs: 5000,
		Manifests: append([]iceberg.ManifestFile{mf}, prev...),
		Summary:   map[string]string{"operation": "append", "total-records": "10"},
	}
}

func paths(list []iceberg.ManifestFile) []string {
	var out []string
	for _, mf := range list {
		out = append(out, mf.ManifestPath)
	}
	return out
}

func TestBuildAppend(t *testing.T) {
	empty := emptyTable(t)
	v1, b2 := build(t, empty, appendChange(t, empty, 11, nil, "a.parquet"))
	v2, _ := build(t, b2, appendChange(t, b2, 12, v1.Manifest.Files, "b.parquet"))

	ml, err := iceberg.ReadManifestList(v2.List.Data, v2.ListPath)
	if err != nil {
		t.Fatal(err)
	}
	cur := v2.Meta.CurrentSnapshot()
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"empty: list key", v1.List.Key, "metadata/snap-11-1-a1.avro"},
		{"empty: sequence number", v1.Meta.CurrentSnapshot().SequenceNumber, int64(1)},
		{"empty: parent", v1.Meta.CurrentSnapshot().ParentSnapshotID == nil, true},
		{"empty: metadata log", len(v1.Meta.MetadataLog), 1},
		{"empty: logged base", v1.Meta.MetadataLog[0].MetadataFile, loc + "/metadata/v1.metadata.json"},
		{"parent: current snapshot", cur.SnapshotID, int64(12)},
		{"parent: sequence number", cur.SequenceNumber, int64(2)},
		{"parent: last sequence number", v2.Meta.LastSequenceNumber, int64(2)},
		{"parent: parent id", *cur.ParentSnapshotID, int64(11)},
		{"parent: list parent id", *ml.ParentSnapshotID, int64(11)},
		{"parent: list contents", paths(ml.Files), []string{loc + "/metadata/add-b.parquet.avro", loc + "/metadata/add-a.parquet.avro"}},
		{"parent: list location", cur.ManifestList, loc + "/metadata/snap-12-2-a1.avro"},
		{"parent: summary", cur.Summary["total-records"], "10"},
		{"parent: ref main", v2.Meta.Refs["main"].SnapshotID, int64(12)},
		{"parent: snapshots", len(v2.Meta.Snapshots), 2},
		{"parent: snapshot log", len(v2.Meta.SnapshotLog), 2},
		{"parent: metadata log", paths2(v2.Meta.MetadataLog), []string{loc + "/metadata/v1.metadata.json", loc + "/metadata/v2.metadata.json"}},
		{"base untouched", len(b2.Meta.Snapshots), 1},
	} {
		if !equal(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

func paths2(log []iceberg.MetadataLogEntry) []string {
	var out []string
	for _, e := range log {
		out = append(out, e.MetadataFile)
	}
	return out
}

func equal(a, b any) bool {
	as, ok1 := a.([]string)
	bs, ok2 := b.([]string)
	if ok1 && ok2 {
		return slices.Equal(as, bs)
	}
	return a == b
}

// A rebase builds the same change again on the newer version another
// writer committed: the next sequence number, that writer's snapshot as
// the parent, its manifests kept, and a list of another name.
func TestBuildRebase(t *testing.T) {
	empty := emptyTable(t)
	v1, b2 := build(t, empty, appendChange(t, empty, 11, nil, "a.parquet"))
	ours, _ := build(t, b2, appendChange(t, b2, 13, v1.Manifest.Files, "ours.parquet"))
	other, b3 := build(t, b2, appendChange(t, b2, 12, v1.Manifest.Files, "other.parquet"))
	c := appendChange(t, b3, 13, other.Manifest.Files, "ours.parquet")
	c.AttemptID = "a2"
	rebased, _ := build(t, b3, c)
	cur := rebased.Meta.CurrentSnapshot()
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"first attempt: sequence number", ours.Meta.CurrentSnapshot().SequenceNumber, int64(2)},
		{"sequence number", cur.SequenceNumber, int64(3)},
		{"parent id", *cur.ParentSnapshotID, int64(12)},
		{"list key", rebased.List.Key, "metadata/snap-13-3-a2.avro"},
		{"list", paths(rebased.Manifest.Files), []string{loc + "/metadata/add-ours.parquet.avro", loc + "/metadata/add-other.parquet.avro", loc + "/metadata/add-a.parquet.avro"}},
		{"snapshots", len(rebased.Meta.Snapshots), 3},
		{"logged base", rebased.Meta.MetadataLog[len(rebased.Meta.MetadataLog)-1].MetadataFile, loc + "/metadata/v3.metadata.json"},
	} {
		if !equal(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

// A removal (a compaction's or retention's rewrite): the removed files
// DELETED, the other files of their manifests EXISTING, the manifests that
// held none kept as they were.
func TestRemove(t *testing.T) {
	b := emptyTable(t)
	m1, e1 := manifest(t, b, "m1.avro", 11, "a", "b", "-gone")
	m2, e2 := manifest(t, b, "m2.avro", 11, "c")
	m3, e3 := manifest(t, b, "m3.avro", 11, "d")
	removed := map[string]bool{loc + "/data/a": true, loc + "/data/d": true}
	rm := snapshot.Remove([]iceberg.ManifestFile{m1, m2, m3}, []*iceberg.Manifest{e1, e2, e3}, removed, 20)

	var deleted, existing []string
	for _, e := range rm.Deleted {
		if e.Status != iceberg.StatusDeleted || e.SnapshotID != 20 {
			t.Errorf("removed %s: got status %v snapshot %d, want DELETED by 20", e.DataFile.Path, e.Status, e.SnapshotID)
		}
		deleted = append(deleted, e.DataFile.Path)
	}
	for _, m := range rm.Rewritten {
		for _, e := range m {
			if e.Status != iceberg.StatusExisting {
				t.Errorf("kept %s: got status %v, want EXISTING", e.DataFile.Path, e.Status)
			}
			existing = append(existing, e.DataFile.Path)
		}
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"deleted", deleted, []string{loc + "/data/a", loc + "/data/d"}},
		{"existing", existing, []string{loc + "/data/b"}},
		{"rewritten manifests", len(rm.Rewritten), 1}, // m3 had no other file
		{"kept", paths(rm.Kept), []string{loc + "/metadata/m2.avro"}},
		{"data files", rm.DataFiles, 2},
		{"delete files", rm.DeleteFiles, 0},
		{"rows", rm.Rows, int64(20)},
		{"bytes", rm.Bytes, int64(200)},
		{"partitions", len(rm.Partitions), 1},
	} {
		if !equal(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

// An alter (or set-properties, expiry, registration) changes metadata
// only: no snapshot, no sequence number; the base logged, the update time
// never earlier than the base's.
func TestNextMetadataOnly(t *testing.T) {
	empty := emptyTable(t)
	v1, b := build(t, empty, appendChange(t, empty, 11, nil, "a.parquet"))
	b.PrevVersionsMax = 1
	md := *b.Meta
	md.Schemas = append(slices.Clone(md.Schemas), md.Schemas[0])
	md.Schemas[1].SchemaID = 1
	md.CurrentSchemaID = 1
	raw, fellOff, err := b.Next(&md, 10) // a clock behind the base's
	if err != nil {
		t.Fatal(err)
	}
	got, err := iceberg.ParseMetadata(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"schema", got.CurrentSchemaID, 1},
		{"snapshot", *got.CurrentSnapshotID, int64(11)},
		{"sequence number", got.LastSequenceNumber, int64(1)},
		{"snapshots", len(got.Snapshots), 1},
		{"updated", got.LastUpdatedMs, v1.Meta.LastUpdatedMs},
		{"metadata log", paths2(got.MetadataLog), []string{loc + "/metadata/v2.metadata.json"}},
		{"fell off", fellOff, []string{loc + "/metadata/v1.metadata.json"}},
		{"base untouched", b.Meta.CurrentSchemaID, 0},
	} {
		if !equal(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

// A commit that changes no row carries the parent's index: a statistics
// entry of the new snapshot naming the parent's file. The parent's entry
// stays; an entry of the new snapshot id is replaced, never doubled.
func TestBuildCarriedIndex(t *testing.T) {
	empty := emptyTable(t)
	c := appendChange(t, empty, 11, nil, "a.parquet")
	idx := loc + "/metadata/lastvalue-11-a1.puffin"
	c.Index = &iceberg.StatisticsFile{SnapshotID: 11, StatisticsPath: idx, FileSizeInBytes: 9}
	v1, b := build(t, empty, c)
	md := *b.Meta
	md.Statistics = append(slices.Clone(md.Statistics), iceberg.StatisticsFile{SnapshotID: 12, StatisticsPath: "stale"})
	b.Meta = &md
	carried := snapshot.Change{
		SnapshotID: 12, AttemptID: "a2", TimestampMs: 6000, Manifests: v1.Manifest.Files,
		Summary: map[string]string{"operation": "append"},
		Index:   &iceberg.StatisticsFile{SnapshotID: 12, StatisticsPath: idx, FileSizeInBytes: 9},
	}
	v2, _ := build(t, b, carried)
	var got []string
	for _, s := range v2.Meta.Statistics {
		got = append(got, s.StatisticsPath)
		if s.SnapshotID == 12 && s.StatisticsPath != idx {
			t.Errorf("snapshot 12: got statistics %s, want the parent's %s", s.StatisticsPath, idx)
		}
	}
	if want := []string{idx, idx}; !slices.Equal(got, want) {
		t.Errorf("statistics: got %v, want %v", got, want)
	}
	if got, want := paths(v2.Manifest.Files), paths(v1.Manifest.Files); !slices.Equal(got, want) {
		t.Errorf("list: got %v, want the parent's %v", got, want)
	}
	if got, want := len(b.Meta.Statistics), 2; got != want {
		t.Errorf("base statistics: got %d, want %d (untouched)", got, want)
	}
}

// The manifests of an attempt are numbered under its prefix and assigned
// to the new snapshot at the base's next sequence number.
func TestManifests(t *testing.T) {
	empty := emptyTable(t)
	_, b := build(t, empty, appendChange(t, empty, 11, nil, "a.parquet"))
	w := snapshot.Manifests{Base: b, Prefix: "p", SnapshotID: 12}
	entry := []iceberg.ManifestEntry{{Status: iceberg.StatusAdded,
		DataFile: iceberg.DataFile{Content: iceberg.ContentData, Path: loc + "/data/x", Format: iceberg.FormatParquet, RecordCount: 1, FileSize: 1}}}
	for k := range 2 {
		mf, err := w.Write(entry)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := w.Files[k].Key, snapshot.ManifestKey("p", k); got != want {
			t.Errorf("manifest %d: got key %s, want %s", k, got, want)
		}
		if got, want := mf.ManifestPath, loc+"/metadata/p-m"+string(rune('0'+k))+".avro"; got != want {
			t.Errorf("manifest %d: got path %s, want %s", k, got, want)
		}
		if mf.AddedSnapshotID != 12 || mf.SequenceNumber != 2 {
			t.Errorf("manifest %d: got snapshot %d sequence number %d, want 12 and 2", k, mf.AddedSnapshotID, mf.SequenceNumber)
		}
	}
}

// A writer whose clock is behind the base's keeps the snapshot log sorted;
// the metadata log is trimmed to PrevVersionsMax (what fell off returned);
// Bound sees the metadata with the new snapshot.
func TestBuildClockLogBound(t *testing.T) {
	empty := emptyTable(t)
	v1, b := build(t, empty, appendChange(t, empty, 11, nil, "a.parquet"))
	b.PrevVersionsMax = 1
	var bounded int
	b.Bound = func(md *iceberg.Metadata) error {
		bounded = len(md.Snapshots)
		return nil
	}
	c := appendChange(t, b, 12, v1.Manifest.Files, "b.parquet")
	c.TimestampMs = 1 // behind
	v2, _ := build(t, b, c)
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"snapshot time", v2.Meta.CurrentSnapshot().TimestampMs, v1.Meta.LastUpdatedMs},
		{"updated", v2.Meta.LastUpdatedMs, v1.Meta.LastUpdatedMs},
		{"metadata log", paths2(v2.Meta.MetadataLog), []string{loc + "/metadata/v2.metadata.json"}},
		{"fell off", v2.FellOff, []string{loc + "/metadata/v1.metadata.json"}},
		{"bound saw", bounded, 2},
	} {
		if !equal(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}
