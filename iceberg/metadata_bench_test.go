package iceberg

import (
	"fmt"
	"strconv"
	"testing"
)

// benchMetadata is a table after n appends, shaped like Timelake writes it:
// every snapshot has a parent, a schema id and a 15-entry summary; the
// metadata log keeps the last 100 versions (write.metadata.previous-versions-max).
func benchMetadata(tb testing.TB, n int) *Metadata {
	m := NewTableMetadata(fixtureTable(tb), fixtureUUID, fixtureLocation, fixtureNowMs,
		map[string]string{"write.parquet.compression-codec": "zstd", "timelake.auto-maintain": "true"})
	var parent *int64
	var records, files, size int64
	for i := range n {
		id := fixtureSnapshot + int64(i)*7919
		ts := int64(fixtureNowMs + (i+1)*1000)
		schemaID := 0
		records, files, size = records+1000, files+2, size+81234
		commitID := fmt.Sprintf("%08x-03fe-4693-9a96-%012x", i, i*31)
		m.Snapshots = append(m.Snapshots, Snapshot{
			SnapshotID: id, ParentSnapshotID: parent, SequenceNumber: int64(i + 1), TimestampMs: ts,
			ManifestList: fixtureLocation + "/metadata/snap-" + strconv.FormatInt(id, 10) + "-1-" + commitID + ".avro",
			Summary: map[string]string{
				"operation":                 "append",
				"added-data-files":          "2",
				"added-records":             "1000",
				"added-files-size":          "81234",
				"changed-partition-count":   "1",
				"total-records":             strconv.FormatInt(records, 10),
				"total-data-files":          strconv.FormatInt(files, 10),
				"total-files-size":          strconv.FormatInt(size, 10),
				"total-delete-files":        "0",
				"total-position-deletes":    "0",
				"total-equality-deletes":    "0",
				"timelake.commit-id":        commitID,
				"timelake.last-value-index": fixtureLocation + "/metadata/lastvalue-" + strconv.FormatInt(id, 10) + "-" + commitID + ".parquet",
				"timelake.min-time-us":      "1795000000000000",
				"timelake.max-time-us":      strconv.FormatInt(1795000000000000+int64(i)*3600e6, 10),
			},
			SchemaID: &schemaID,
		})
		m.SnapshotLog = append(m.SnapshotLog, SnapshotLogEntry{TimestampMs: ts, SnapshotID: id})
		m.MetadataLog = append(m.MetadataLog, MetadataLogEntry{TimestampMs: m.LastUpdatedMs,
			MetadataFile: fixtureLocation + "/metadata/v" + strconv.Itoa(i+1) + ".metadata.json"})
		if len(m.MetadataLog) > 100 {
			m.MetadataLog = m.MetadataLog[1:]
		}
		m.LastSequenceNumber, m.LastUpdatedMs = int64(i+1), ts
		m.CurrentSnapshotID = &id
		m.Refs = map[string]SnapshotRef{MainBranch: {SnapshotID: id, Type: "branch"}}
		parent = &id
	}
	return m
}

var benchSizes = []int{10, 100, 1000}

func BenchmarkParseMetadata(b *testing.B) {
	for _, n := range benchSizes {
		data, err := benchMetadata(b, n).Marshal()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("snapshots=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ParseMetadata(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMarshalMetadata(b *testing.B) {
	for _, n := range benchSizes {
		m := benchMetadata(b, n)
		b.Run(fmt.Sprintf("snapshots=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Marshal(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
