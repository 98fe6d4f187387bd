package iceberg

import (
	"strings"
	"testing"
)

// TestParseMetadataV1: a format v1 file with only the v1 members (schema,
// partition-spec, no uuid, sort orders or sequence numbers, a snapshot
// without a manifest list) reads as the v2 members it stands for, and
// WriteSupport refuses to write it.
func TestParseMetadataV1(t *testing.T) {
	doc := `{"format-version":1,"location":"file:///t","last-updated-ms":1,"last-column-id":2,
	"schema":{"type":"struct","fields":[{"id":1,"name":"ts","required":false,"type":"timestamptz"},{"id":2,"name":"v","required":false,"type":"double"}]},
	"partition-spec":[{"name":"ts_day","transform":"day","source-id":1,"field-id":1000}],
	"properties":{},"current-snapshot-id":5,
	"snapshots":[{"snapshot-id":5,"timestamp-ms":1,"summary":{"operation":"append"},"manifests":["file:///t/metadata/m0.avro"]}]}`
	m, err := ParseMetadata([]byte(doc))
	if err != nil {
		t.Fatalf("ParseMetadata: %v", err)
	}
	if len(m.Schemas) != 1 || m.CurrentSchema() == nil || len(m.CurrentSchema().Fields) != 2 {
		t.Errorf("schemas %+v, want the v1 schema as schema 0", m.Schemas)
	}
	if s := m.DefaultSpec(); s == nil || len(s.Fields) != 1 || s.Fields[0].Transform != "day" || m.LastPartitionID != 1000 {
		t.Errorf("spec %+v, last-partition-id %d; want day(ts) as spec 0, 1000", s, m.LastPartitionID)
	}
	if got := m.CurrentSnapshot().V1Manifests(); len(got) != 1 || got[0] != "file:///t/metadata/m0.avro" {
		t.Errorf("V1Manifests = %q", got)
	}
	if m.LastSequenceNumber != 0 || len(m.SortOrders) != 1 || len(m.SortOrders[0].Fields) != 0 {
		t.Errorf("last-sequence-number %d, sort orders %+v; want 0 and one unsorted order", m.LastSequenceNumber, m.SortOrders)
	}
	tbl, err := TableFromMetadata(m)
	if err != nil {
		t.Fatalf("TableFromMetadata: %v", err)
	}
	if err := WriteSupport(m, tbl); err == nil || !strings.Contains(err.Error(), "format-version 1") {
		t.Errorf("WriteSupport = %v, want format-version 1 refused", err)
	}
	// Neither form of the schema: an error naming it.
	if _, err := ParseMetadata([]byte(strings.Replace(doc, `"schema":`, `"schemx":`, 1))); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("v1 without a schema: %v", err)
	}
}
