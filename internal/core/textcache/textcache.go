// Package textcache keeps values parsed from text, by the text, for every
// reader in the process to share: the files of one table carry the same few
// schemas in their headers (an Avro writer schema, an Iceberg table schema
// and partition spec), and parsing a few KB of JSON — slow in WebAssembly —
// was much of the cost of reading a small file; compaction and expiry read
// hundreds. A shared value is never modified by its users.
//
//	var schemas textcache.Cache[*avro.Schema]
//	s, err := schemas.Get(raw, avro.ParseSchema)
//
// Bounded: at most MaxEntries values from texts of at most MaxTextBytes; when
// full it starts over, which is simpler than an LRU and enough for a table's
// one or two schemas.
package textcache

import "sync"

const (
	MaxEntries   = 16
	MaxTextBytes = 64 << 10
)

// Cache is safe for concurrent use; the zero value is empty and ready.
type Cache[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

// Get returns the value parsed from raw, parsing it on a miss. A text that
// does not parse is not kept: its error is returned each time.
func (c *Cache[T]) Get(raw []byte, parse func([]byte) (T, error)) (T, error) {
	c.mu.Lock()
	v, ok := c.m[string(raw)]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := parse(raw)
	if err != nil || len(raw) > MaxTextBytes {
		return v, err
	}
	c.mu.Lock()
	if len(c.m) >= MaxEntries || c.m == nil {
		c.m = map[string]T{}
	}
	c.m[string(raw)] = v
	c.mu.Unlock()
	return v, nil
}

// Len is the number of values kept.
func (c *Cache[T]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
