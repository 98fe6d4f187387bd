package iceberg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
)

// statisticsMember is the table-metadata member listing statistics files.
// persisted: must not change.
const statisticsMember = "statistics"

// StatisticsFile is one entry of the table metadata's "statistics": a
// Puffin file computed for a snapshot. Engines that do not know a blob's
// type skip it; snapshot expiry and orphan cleanup keep the file while its
// snapshot lives and remove it with the snapshot.
//
// An entry read from a metadata file is written back as the bytes it was
// read from (other engines' entries pass through untouched); to change one,
// build a new StatisticsFile.
type StatisticsFile struct {
	SnapshotID            int64          `json:"snapshot-id"`
	StatisticsPath        string         `json:"statistics-path"`
	FileSizeInBytes       int64          `json:"file-size-in-bytes"`
	FileFooterSizeInBytes int64          `json:"file-footer-size-in-bytes"`
	BlobMetadata          []BlobMetadata `json:"blob-metadata"`

	raw json.RawMessage // as read; nil for an entry built here
}

// BlobMetadata describes one blob of a statistics file.
type BlobMetadata struct {
	Type           string            `json:"type"`
	SnapshotID     int64             `json:"snapshot-id"`
	SequenceNumber int64             `json:"sequence-number"`
	Fields         []int             `json:"fields"`
	Properties     map[string]string `json:"properties,omitempty"`
}

// StatisticsFor returns the statistics entry of snapshot id, or nil.
func (m *Metadata) StatisticsFor(id int64) *StatisticsFile {
	for i := range m.Statistics {
		if m.Statistics[i].SnapshotID == id {
			return &m.Statistics[i]
		}
	}
	return nil
}

// takeStatistics moves the "statistics" member from Extra (where both
// decoders put it) into Statistics.
func (m *Metadata) takeStatistics() error {
	raw, ok := m.Extra[statisticsMember]
	if !ok {
		return nil
	}
	extra := maps.Clone(m.Extra)
	delete(extra, statisticsMember)
	if len(extra) == 0 {
		extra = nil
	}
	m.Extra = extra
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return fmt.Errorf("iceberg: table metadata: statistics: %v", err)
	}
	m.Statistics = make([]StatisticsFile, len(entries))
	for i, e := range entries {
		s := &m.Statistics[i]
		if err := json.Unmarshal(e, s); err != nil {
			return fmt.Errorf("iceberg: table metadata: statistics[%d]: %v", i, err)
		}
		if s.StatisticsPath == "" {
			return fmt.Errorf("iceberg: table metadata: statistics[%d] has no statistics-path", i)
		}
		// Kept compact and HTML-escaped, as encoding/json writes a raw
		// value: Marshal then writes the entries as they are.
		var err error
		if s.raw, err = json.Marshal(e); err != nil {
			return fmt.Errorf("iceberg: table metadata: statistics[%d]: %v", i, err)
		}
	}
	return nil
}

// JSON is the entry as metadata holds it: its bytes as read, or, for an
// entry built here, its fields with empty lists rather than null (the spec
// requires blob-metadata and fields).
func (s StatisticsFile) JSON() (json.RawMessage, error) {
	if s.raw != nil {
		return s.raw, nil
	}
	if s.BlobMetadata == nil {
		s.BlobMetadata = []BlobMetadata{}
	}
	for j := range s.BlobMetadata {
		if s.BlobMetadata[j].Fields == nil {
			s.BlobMetadata = append([]BlobMetadata(nil), s.BlobMetadata...)
			s.BlobMetadata[j].Fields = []int{}
		}
	}
	return statisticsFileJSON(&s), nil
}

// withStatistics returns m's Extra with Statistics encoded in it (or
// without the member when there are none).
func (m *Metadata) withStatistics() (Extra, error) {
	if len(m.Statistics) == 0 {
		return m.Extra, nil
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, s := range m.Statistics {
		if i > 0 {
			b.WriteByte(',')
		}
		e, err := s.JSON()
		if err != nil {
			return nil, err
		}
		b.Write(e)
	}
	b.WriteByte(']')
	extra := maps.Clone(m.Extra)
	if extra == nil {
		extra = Extra{}
	}
	extra[statisticsMember] = b.Bytes()
	return extra, nil
}

// partitionStatisticsMember is the table-metadata member listing partition
// statistics files (other engines write them; Timelake only keeps them
// reachable and drops those of expired snapshots). persisted: must not change.
const partitionStatisticsMember = "partition-statistics"

// PartitionStatisticsFile is one entry of "partition-statistics".
type PartitionStatisticsFile struct {
	SnapshotID      int64  `json:"snapshot-id"`
	StatisticsPath  string `json:"statistics-path"`
	FileSizeInBytes int64  `json:"file-size-in-bytes"`
}

// PartitionStatistics returns the entries of "partition-statistics" (kept
// in Extra as written).
func (m *Metadata) PartitionStatistics() ([]PartitionStatisticsFile, error) {
	raw, ok := m.Extra[partitionStatisticsMember]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var out []PartitionStatisticsFile
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("iceberg: table metadata: partition-statistics: %v", err)
	}
	return out, nil
}

// DropPartitionStatistics removes the "partition-statistics" entries of the
// snapshots gone names, keeping the others as written.
func (m *Metadata) DropPartitionStatistics(gone map[int64]bool) error {
	raw, ok := m.Extra[partitionStatisticsMember]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return fmt.Errorf("iceberg: table metadata: partition-statistics: %v", err)
	}
	var b bytes.Buffer
	b.WriteByte('[')
	n := 0
	for i, e := range entries {
		var id struct {
			SnapshotID int64 `json:"snapshot-id"`
		}
		if err := json.Unmarshal(e, &id); err != nil {
			return fmt.Errorf("iceberg: table metadata: partition-statistics[%d]: %v", i, err)
		}
		if gone[id.SnapshotID] {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
		n++
	}
	b.WriteByte(']')
	m.Extra = maps.Clone(m.Extra)
	m.Extra[partitionStatisticsMember] = b.Bytes()
	return nil
}
