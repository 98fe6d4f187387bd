// Package store defines Store, the only way the core reaches storage: a flat
// key space rooted at one table, with a conditional create that makes the
// two-step commit possible.
//
// Keys are relative to the table ("metadata/v3.metadata.json",
// "data/ts_day=2026-11-29/<uuid>.parquet"). Every implementation refuses keys
// that could leave the table prefix; see CheckKey.
//
//	s := memstore.New()
//	ok, err := s.PutIfAbsent(ctx, "metadata/v1.metadata.json", b)
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Store is a table's object storage. Implementations are safe for concurrent use.
type Store interface {
	// Get returns the whole object. A missing key gives an error matching ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// GetRange returns length bytes from offset. A range that runs past the end
	// of the object is an error (ErrRange); a missing key is ErrNotFound.
	GetRange(ctx context.Context, key string, offset, length int64) ([]byte, error)
	// Put writes the object, replacing any object under key. A reader never sees
	// a partly written object.
	Put(ctx context.Context, key string, data []byte) error
	// PutIfAbsent writes the object only if no object exists under key, and
	// reports whether it did. Of many concurrent calls for one key, exactly one
	// returns true.
	PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error)
	// Delete removes the objects; a key that does not exist is not an error.
	Delete(ctx context.Context, keys []string) error
	// List returns every object whose key starts with prefix, sorted by key.
	List(ctx context.Context, prefix string) ([]Object, error)
}

// Object describes a stored object, as List returns it.
type Object struct {
	Key          string
	Size         int64
	LastModified time.Time
}

var (
	// ErrNotFound: no object under the key.
	ErrNotFound = errors.New("not found")
	// ErrRange: a GetRange past the end of the object, or a negative offset or length.
	ErrRange = errors.New("range out of bounds")
	// ErrBadKey: a key that could leave the table prefix or that no store can hold.
	ErrBadKey = errors.New("key not allowed")
)

// MaxKeyLen is the longest key accepted (S3 allows 1024 bytes for the whole
// key, and the table prefix needs room).
const MaxKeyLen = 768

// CheckKey refuses keys that are empty, absolute, contain "." or ".."
// segments, empty segments, backslashes, NUL or other control characters, are
// not UTF-8, or are longer than MaxKeyLen. The error wraps ErrBadKey and
// quotes the key.
func CheckKey(key string) error {
	bad := func(why string) error { return fmt.Errorf("%w: %q: %s", ErrBadKey, key, why) }
	switch {
	case key == "":
		return bad("empty")
	case len(key) > MaxKeyLen:
		return bad(fmt.Sprintf("longer than %d bytes", MaxKeyLen))
	case !utf8.ValidString(key):
		return bad("not UTF-8")
	case strings.HasPrefix(key, "/"):
		return bad("absolute")
	case strings.ContainsRune(key, '\\'):
		return bad("backslash")
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f {
			return bad("control character")
		}
	}
	// SplitSeq, not Split: no slice per call. Every store call checks its
	// key, and under WebAssembly allocation is dear (bench/results/BRIDGE.md).
	for seg := range strings.SplitSeq(key, "/") {
		switch seg {
		case "":
			return bad("empty path segment")
		case ".", "..":
			return bad("dot segment")
		}
	}
	return nil
}

// CheckPrefix is CheckKey for List prefixes: the empty prefix and a trailing
// "/" are allowed.
func CheckPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	return CheckKey(strings.TrimSuffix(prefix, "/"))
}

// ErrTooLarge: an object larger than the reader's limit for it. Readers of
// files whose size comes from storage (metadata, manifests, indexes) pass a
// limit, so that a hostile or broken table cannot make them allocate
// without bound.
var ErrTooLarge = errors.New("object larger than the limit")

// LimitedGetter is implemented by stores that learn an object's size before
// reading it (a file's size, a Content-Length), so that GetLimited refuses a
// huge object without reading or allocating it.
type LimitedGetter interface {
	// GetLimited is Get for an object of at most limit bytes; a larger one is
	// an error matching ErrTooLarge.
	GetLimited(ctx context.Context, key string, limit int64) ([]byte, error)
}

// GetLimited reads the object under key if it has at most limit bytes; a
// larger one is an error matching ErrTooLarge that names the key, its size
// and the limit. A store that is not a LimitedGetter is read whole first.
func GetLimited(ctx context.Context, st Store, key string, limit int64) ([]byte, error) {
	if lg, ok := st.(LimitedGetter); ok {
		return lg.GetLimited(ctx, key, limit)
	}
	b, err := st.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, TooLarge(key, int64(len(b)), limit)
	}
	return b, nil
}

// TooLarge is the error of GetLimited for an object of size bytes.
func TooLarge(key string, size, limit int64) error {
	return fmt.Errorf("%w: %q has %d bytes, the limit is %d", ErrTooLarge, key, size, limit)
}
