package iceberg

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

const statsDoc = `{"format-version":2,"table-uuid":"u","location":"l","last-sequence-number":1,"last-updated-ms":0,"last-column-id":1,` +
	`"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"a","required":true,"type":"long"}]}],"current-schema-id":0,` +
	`"partition-specs":[{"spec-id":0,"fields":[]}],"default-spec-id":0,"last-partition-id":999,"properties":{},"current-snapshot-id":5,` +
	`"snapshots":[{"snapshot-id":5,"sequence-number":1,"timestamp-ms":1,"manifest-list":"l/m.avro","summary":{"operation":"append"}}],` +
	`"snapshot-log":[],"metadata-log":[],"sort-orders":[],"default-sort-order-id":0,"refs":{"main":{"snapshot-id":5,"type":"branch"}},` +
	`"statistics":[` + foreignStat + `]}`

// foreignStat is as Spark writes one (with a member we do not declare).
const foreignStat = `{"snapshot-id":5,"statistics-path":"l/metadata/5-x.stats","file-size-in-bytes":100,"file-footer-size-in-bytes":60,"key-metadata":null,"blob-metadata":[{"type":"apache-datasketches-theta-v1","snapshot-id":5,"sequence-number":1,"fields":[1],"properties":{"ndv":"3"}}]}`

func TestStatistics(t *testing.T) {
	m, err := ParseMetadata([]byte(statsDoc))
	if err != nil {
		t.Fatal(err)
	}
	want := StatisticsFile{SnapshotID: 5, StatisticsPath: "l/metadata/5-x.stats", FileSizeInBytes: 100, FileFooterSizeInBytes: 60,
		BlobMetadata: []BlobMetadata{{Type: "apache-datasketches-theta-v1", SnapshotID: 5, SequenceNumber: 1, Fields: []int{1}, Properties: map[string]string{"ndv": "3"}}}}
	got := *m.StatisticsFor(5)
	got.raw = nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if _, ok := m.Extra["statistics"]; ok {
		t.Fatal("statistics left in Extra")
	}
	ours := StatisticsFile{SnapshotID: 5, StatisticsPath: "l/metadata/ours.puffin", FileSizeInBytes: 10, FileFooterSizeInBytes: 5,
		BlobMetadata: []BlobMetadata{{Type: "ours-v1", SnapshotID: 5, SequenceNumber: 1}}}
	m.Statistics = append(m.Statistics, ours)
	out, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(foreignStat)) {
		t.Fatalf("the foreign entry was not written back as read:\n%s", out)
	}
	if !strings.Contains(string(out), `"fields":[]`) {
		t.Fatalf("our entry's fields are not []:\n%s", out)
	}
	back, err := ParseMetadata(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Statistics) != 2 || back.Statistics[1].StatisticsPath != ours.StatisticsPath {
		t.Fatalf("round trip: %+v", back.Statistics)
	}
	m.Statistics = nil
	if out, _ = m.Marshal(); bytes.Contains(out, []byte("statistics")) {
		t.Fatalf("no statistics still wrote the member:\n%s", out)
	}
}

func TestStatisticsRefused(t *testing.T) {
	for _, tc := range []struct{ name, stats, want string }{
		{"not an array", `{}`, "statistics"},
		{"no path", `[{"snapshot-id":5}]`, "no statistics-path"},
		{"bad member", `[{"snapshot-id":"x","statistics-path":"p"}]`, "statistics[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(statsDoc, `[`+foreignStat+`]`, tc.stats, 1)
			if _, err := ParseMetadata([]byte(doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseMetadata = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestPartitionStatistics(t *testing.T) {
	const p1 = `{"snapshot-id":5,"statistics-path":"l/metadata/partition-stats-5.parquet","file-size-in-bytes":42}`
	const p2 = `{"snapshot-id":6,"statistics-path":"l/metadata/partition-stats-6.parquet","file-size-in-bytes":43}`
	doc := strings.Replace(statsDoc, `"statistics":[`, `"partition-statistics":[`+p1+`,`+p2+`],"statistics":[`, 1)
	m, err := ParseMetadata([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.PartitionStatistics()
	want := []PartitionStatisticsFile{{5, "l/metadata/partition-stats-5.parquet", 42}, {6, "l/metadata/partition-stats-6.parquet", 43}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, %v; want %+v", got, err, want)
	}
	before := m.Extra
	if err := m.DropPartitionStatistics(map[int64]bool{5: true}); err != nil {
		t.Fatal(err)
	}
	if string(m.Extra["partition-statistics"]) != `[`+p2+`]` || len(before["partition-statistics"]) == len(m.Extra["partition-statistics"]) {
		t.Fatalf("after dropping 5: %s (the original changed: %v)", m.Extra["partition-statistics"], string(before["partition-statistics"]) == string(m.Extra["partition-statistics"]))
	}
}
