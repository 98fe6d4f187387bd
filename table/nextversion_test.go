package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
)

// The builder of every next version, tested on plain inputs: what the
// snapshot holds goes in, the manifest list and metadata come out.

var nvStart = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// nvTable creates a table on a memory store with a clock that stands
// still and counting bytes for randomness, so every output is exact.
func nvTable(t *testing.T) *Table {
	t.Helper()
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "cpu", Type: schema.Double}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	var n byte
	env := Env{
		Now: func() time.Time { return nvStart },
		Rand: readerFunc(func(p []byte) (int, error) {
			for i := range p {
				n++
				p[i] = n
			}
			return len(p), nil
		}),
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	}
	tb, err := Create(context.Background(), memstore.New(), env, "file:///t", sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

type readerFunc func(p []byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func nvManifest(path string, rowsAdded int64) iceberg.ManifestFile {
	return iceberg.ManifestFile{ManifestPath: path, ManifestLength: 100, PartitionSpecID: 0,
		AddedSnapshotID: 7, AddedFilesCount: 1, AddedRowsCount: rowsAdded, SequenceNumber: 1, MinSequenceNumber: 1}
}

func TestBuildSnapshot(t *testing.T) {
	tb := nvTable(t)
	base := tb.version
	first := newSnapshot{id: 7, seq: 1, attemptID: "a1", timeMs: nvStart.UnixMilli(),
		manifests: []iceberg.ManifestFile{nvManifest("file:///t/metadata/m1.avro", 10)},
		summary:   map[string]string{"operation": "append", "added-records": "10"},
		totals:    totals{records: 10, files: 1, bytes: 500, minTime: 1, maxTime: 9, hasTime: true},
		index:     &iceberg.StatisticsFile{SnapshotID: 7, StatisticsPath: "file:///t/metadata/lastvalue-7-a1.puffin"}}
	b, err := tb.buildSnapshot(base, first)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.list.Key, "metadata/snap-7-1-a1.avro"; got != want {
		t.Errorf("list key %q, want %q", got, want)
	}
	if got, want := b.listPath, "file:///t/metadata/snap-7-1-a1.avro"; got != want {
		t.Errorf("list path %q, want %q", got, want)
	}
	ml, err := iceberg.ReadManifestList(b.list.Data, b.listPath)
	if err != nil {
		t.Fatal(err)
	}
	if ml.SnapshotID != 7 || ml.ParentSnapshotID != nil || ml.SequenceNumber != 1 || len(ml.Files) != 1 || ml.Files[0].ManifestPath != "file:///t/metadata/m1.avro" {
		t.Errorf("manifest list: got %+v", ml)
	}
	md, err := iceberg.ParseMetadata(b.raw)
	if err != nil {
		t.Fatal(err)
	}
	s := md.CurrentSnapshot()
	if s == nil || s.SnapshotID != 7 || s.SequenceNumber != 1 || s.ParentSnapshotID != nil || s.ManifestList != b.listPath {
		t.Fatalf("current snapshot: got %+v", s)
	}
	for k, want := range map[string]string{"operation": "append", "added-records": "10", "total-records": "10",
		"total-data-files": "1", "total-files-size": "500", SummaryMinTime: "1", SummaryMaxTime: "9"} {
		if got := s.Summary[k]; got != want {
			t.Errorf("summary %s = %q, want %q", k, got, want)
		}
	}
	if md.LastSequenceNumber != 1 || md.Refs["main"].SnapshotID != 7 || len(md.SnapshotLog) != 1 {
		t.Errorf("last sequence %d, main %d, snapshot log %d: want 1, 7, 1", md.LastSequenceNumber, md.Refs["main"].SnapshotID, len(md.SnapshotLog))
	}
	if len(md.Statistics) != 1 || md.Statistics[0].StatisticsPath != first.index.StatisticsPath {
		t.Errorf("statistics: got %+v", md.Statistics)
	}
	if got, want := md.MetadataLog[len(md.MetadataLog)-1].MetadataFile, "file:///t/"+commit.MetadataKey(base.N); got != want {
		t.Errorf("metadata log ends with %q, want %q (the base)", got, want)
	}
	if !bytes.Equal(mustMarshal(t, b.md), b.raw) {
		t.Error("the metadata returned is not the one marshalled")
	}
	// The same change on the same base is the same bytes (attempts are replayable).
	again, err := tb.buildSnapshot(base, first)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.raw, b.raw) || !bytes.Equal(again.list.Data, b.list.Data) {
		t.Error("building the same snapshot twice gave other bytes")
	}
}

func TestBuildSnapshotOnParent(t *testing.T) {
	ctx := context.Background()
	tb := nvTable(t)
	bt, err := rows.FromMaps(tb.schema, []map[string]any{
		{"ts": "2026-11-29T10:00:00Z", "host": "a", "cpu": 0.5},
		{"ts": "2026-11-29T11:00:00Z", "host": "b", "cpu": 0.7},
	}, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, bt); err != nil {
		t.Fatal(err)
	}
	parent := tb.meta.CurrentSnapshot()
	pt := totalsOf(parent)
	if pt.records != 2 || pt.files != 1 {
		t.Fatalf("parent totals: got %+v, want 2 records in 1 file", pt)
	}
	next := pt
	next.records += 3
	next.files++
	seq := tb.meta.LastSequenceNumber + 1
	b, err := tb.buildSnapshot(tb.version, newSnapshot{id: 99, seq: seq, parent: parent, attemptID: "a2", timeMs: nvStart.UnixMilli() - 5000,
		summary: map[string]string{"operation": "append"}, totals: next})
	if err != nil {
		t.Fatal(err)
	}
	s := b.md.CurrentSnapshot()
	if s.ParentSnapshotID == nil || *s.ParentSnapshotID != parent.SnapshotID {
		t.Errorf("parent: got %v, want %d", s.ParentSnapshotID, parent.SnapshotID)
	}
	if s.SequenceNumber != seq || b.md.LastSequenceNumber != seq {
		t.Errorf("sequence: got %d (table %d), want %d", s.SequenceNumber, b.md.LastSequenceNumber, seq)
	}
	if got := s.Summary["total-records"]; got != "5" {
		t.Errorf("total-records %q, want 5", got)
	}
	// A clock behind the table's last update does not unsort the snapshot log.
	if s.TimestampMs < parent.TimestampMs {
		t.Errorf("timestamp %d before the parent's %d", s.TimestampMs, parent.TimestampMs)
	}
	if got := len(b.md.Snapshots); got != 2 {
		t.Errorf("snapshots: got %d, want 2", got)
	}
	if len(b.md.Statistics) != 1 {
		t.Errorf("statistics: got %d entries, want the parent's one (the new snapshot names none)", len(b.md.Statistics))
	}
}

func TestBuildMetadata(t *testing.T) {
	tb := nvTable(t)
	base := tb.version
	before := mustMarshal(t, tb.meta)
	raw, md, err := tb.buildMetadata(base, nvStart.UnixMilli()+60_000, func(md *iceberg.Metadata) error {
		md.Properties = map[string]string{"k": "v"}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if md.Properties["k"] != "v" || md.LastUpdatedMs != nvStart.UnixMilli()+60_000 {
		t.Errorf("properties %v, updated %d", md.Properties, md.LastUpdatedMs)
	}
	if md.CurrentSnapshotID != tb.meta.CurrentSnapshotID || len(md.Snapshots) != len(tb.meta.Snapshots) {
		t.Error("the snapshots changed")
	}
	if got, want := md.MetadataLog[len(md.MetadataLog)-1].MetadataFile, "file:///t/"+commit.MetadataKey(base.N); got != want {
		t.Errorf("metadata log ends with %q, want %q", got, want)
	}
	if !bytes.Equal(mustMarshal(t, md), raw) {
		t.Error("the metadata returned is not the one marshalled")
	}
	if !bytes.Equal(mustMarshal(t, tb.meta), before) {
		t.Error("the base's metadata changed")
	}
	// A clock behind the base's update keeps the base's time.
	_, md, err = tb.buildMetadata(base, 0, func(*iceberg.Metadata) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if md.LastUpdatedMs != tb.meta.LastUpdatedMs {
		t.Errorf("updated %d, want the base's %d", md.LastUpdatedMs, tb.meta.LastUpdatedMs)
	}
	// An edit's error is the build's.
	boom := errors.New("boom")
	if _, _, err := tb.buildMetadata(base, 0, func(*iceberg.Metadata) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("error %v, want %v", err, boom)
	}
}

// TestBuildMetadataTrimsLog: the metadata log keeps
// write.metadata.previous-versions-max entries; the ones that fall off are
// noted for deletion after the commit.
func TestBuildMetadataTrimsLog(t *testing.T) {
	tb := nvTable(t)
	tb.settings.PrevVersionsMax = 2
	var log []iceberg.MetadataLogEntry
	for i := range 3 {
		log = append(log, iceberg.MetadataLogEntry{TimestampMs: int64(i), MetadataFile: fmt.Sprintf("file:///t/metadata/old%d.metadata.json", i)})
	}
	tb.meta.MetadataLog = log
	_, md, err := tb.buildMetadata(tb.version, 0, func(*iceberg.Metadata) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range md.MetadataLog {
		got = append(got, strings.TrimPrefix(e.MetadataFile, "file:///t/"))
	}
	if want := "metadata/old2.metadata.json," + commit.MetadataKey(tb.version.N); strings.Join(got, ",") != want {
		t.Errorf("metadata log %v, want %s", got, want)
	}
	if want := "file:///t/metadata/old0.metadata.json,file:///t/metadata/old1.metadata.json"; strings.Join(tb.fellOff, ",") != want {
		t.Errorf("fell off %v, want %s", tb.fellOff, want)
	}
}

func mustMarshal(t *testing.T, md *iceberg.Metadata) []byte {
	t.Helper()
	b, err := md.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
