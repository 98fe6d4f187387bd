package iceberg

import (
	"encoding/json"
	"sync"
)

// sharedJSON keeps values parsed from JSON text by the text: every manifest
// of a table carries the same table schema and partition spec in its
// header, and parsing them (a few KB of JSON through encoding/json, slow in
// WebAssembly) was a large part of reading a small manifest; an expiry reads
// a thousand. A parsed value is shared by every manifest with the same text,
// so it is never modified. Bounded as avro's shared writer schemas are: at
// most sharedJSONMax values, from texts of at most sharedJSONMaxBytes (a
// table has one or two of each).
type sharedJSON[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

const (
	sharedJSONMax      = 16
	sharedJSONMaxBytes = 64 << 10
)

// get returns the value parsed from raw, parsing it on a miss. A text that
// does not parse is not kept: its error is returned each time.
func (c *sharedJSON[T]) get(raw []byte) (T, error) {
	c.mu.Lock()
	v, ok := c.m[string(raw)]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		var zero T
		return zero, err
	}
	if len(raw) > sharedJSONMaxBytes {
		return v, nil
	}
	c.mu.Lock()
	if len(c.m) >= sharedJSONMax || c.m == nil {
		c.m = map[string]T{} // start over: simpler than an LRU, and a table has one or two
	}
	c.m[string(raw)] = v
	c.mu.Unlock()
	return v, nil
}

// The table schemas and partition spec fields of manifest headers.
var (
	sharedManifestSchemas sharedJSON[Schema]
	sharedManifestSpecs   sharedJSON[[]PartitionField]
)
