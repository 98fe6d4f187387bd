package table

import (
	"encoding/json"
	"fmt"
)

// HeadKey is where the head lives. persisted: must not change.
const HeadKey = "head.json"

// HeadFormat names the head's layout. persisted: must not change.
const HeadFormat = "timelake-head/1"

// Head is the one small read a client starts from. It is a hint written after
// a commit: possibly stale, never trusted for correctness (a writer learns of
// a newer version from its failed conditional write, a reader by probing).
// 64-bit ids are decimal strings so JavaScript reads them without loss.
type Head struct {
	Format           string `json:"format"`
	MetadataVersion  int    `json:"metadata-version"`
	MetadataLocation string `json:"metadata-location"` // key relative to the table
	SnapshotID       string `json:"snapshot-id,omitempty"`
	SchemaID         int    `json:"schema-id"`
	LastValueIndex   string `json:"last-value-index,omitempty"`
	Rows             int64  `json:"rows"`
	Files            int64  `json:"files"`
	Bytes            int64  `json:"bytes"`
	MinTime          string `json:"min-time,omitempty"` // RFC 3339, microseconds
	MaxTime          string `json:"max-time,omitempty"`
	UpdatedAt        string `json:"updated-at"`
}

// ParseHead reads head.json bytes.
func ParseHead(b []byte) (*Head, error) {
	var h Head
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("%s: %w", HeadKey, err)
	}
	if h.Format != HeadFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", HeadKey, h.Format, HeadFormat)
	}
	return &h, nil
}
