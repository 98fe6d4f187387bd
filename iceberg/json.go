package iceberg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Design note: a fast path beside encoding/json.
//
// ParseMetadata and Metadata.Marshal run on every commit, and a table's
// metadata grows with every snapshot. The per-type JSON methods
// (metadata.go, over unmarshalKeeping and marshalWith below) go through
// encoding/json twice per object and by reflection; metadataDecoder
// (json_decode.go, its lexer in json_scan.go) and metadataEncoder
// (json_encode.go) read and write the metadata shape in one pass over
// the bytes instead (decoded strings are substrings of one copy of the
// input; integers are read in place).
//
// They are an optimisation, not a second definition of the format: on
// anything outside the shape writers produce — any syntax or type error, a
// duplicate member, a member name that differs from a declared one only in
// case (encoding/json matches those), a member name with escapes or
// non-ASCII bytes, a null top-level member, current-snapshot-id -1, raw JSON
// that does not compact — they give up, and the encoding/json path runs on
// the same bytes. Results and error messages are therefore those of the
// encoding/json path; json_test.go checks the fast path against it on
// random, edited and fuzzed documents. The per-type methods stay on the
// encoding/json path: they are that fallback and that reference.

// Extra holds the members of a JSON object that the Go struct does not
// declare, so that metadata written by another engine (statistics,
// partition-statistics, v3 row lineage, …) survives Parse → Marshal.
type Extra map[string]json.RawMessage

var knownKeysCache sync.Map // reflect.Type → map[string]bool

// knownKeys lists the JSON member names of struct type t.
func knownKeys(t reflect.Type) map[string]bool {
	if k, ok := knownKeysCache.Load(t); ok {
		return k.(map[string]bool)
	}
	keys := map[string]bool{}
	for i := range t.NumField() {
		tag := t.Field(i).Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name != "" && name != "-" {
			keys[name] = true
		}
	}
	knownKeysCache.Store(t, keys)
	return keys
}

// unmarshalKeeping decodes data into v (a pointer to a struct whose
// declared fields are plain, without custom methods) and returns the
// members v does not declare.
func unmarshalKeeping(data []byte, v any) (Extra, error) {
	if err := json.Unmarshal(data, v); err != nil {
		return nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	known := knownKeys(reflect.TypeOf(v).Elem())
	var extra Extra
	for k, raw := range all {
		if !known[k] {
			if extra == nil {
				extra = Extra{}
			}
			extra[k] = raw
		}
	}
	return extra, nil
}

// marshalWith encodes v and appends the extra members (sorted by key)
// that v does not already declare.
func marshalWith(v any, extra Extra) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	known := knownKeys(reflect.TypeOf(v))
	buf := bytes.NewBuffer(b[:len(b)-1]) // drop the closing brace
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if known[k] {
			continue
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(extra[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// describeJSONError turns a decoding error into one that says what is wrong
// with the document and where.
func describeJSONError(what string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))),
		strings.Contains(err.Error(), "unexpected end of JSON input"):
		// encoding/json has no sentinel for a document cut short
		return fmt.Errorf("iceberg: %s is truncated (%d bytes): %w", what, len(data), err)
	case errors.As(err, &syn):
		return fmt.Errorf("iceberg: %s is corrupt at byte %d of %d: %w", what, syn.Offset, len(data), err)
	case errors.As(err, &typ):
		return fmt.Errorf("iceberg: %s: %q has a JSON %s where a %s belongs (byte %d)", what, typ.Field, typ.Value, typ.Type, typ.Offset)
	}
	return fmt.Errorf("iceberg: %s: %w", what, err)
}

// Member names in the order of the struct fields, which is the order
// Marshal writes them in. persisted: must not change.
var (
	metadataNames = []string{"format-version", "table-uuid", "location", "last-sequence-number",
		"last-updated-ms", "last-column-id", "schemas", "current-schema-id", "partition-specs",
		"default-spec-id", "last-partition-id", "properties", "current-snapshot-id", "snapshots",
		"snapshot-log", "metadata-log", "sort-orders", "default-sort-order-id", "refs"}
	schemaNames           = []string{"type", "schema-id", "identifier-field-ids", "fields"}
	schemaFieldNames      = []string{"id", "name", "required", "type", "doc"}
	partitionSpecNames    = []string{"spec-id", "fields"}
	partitionFieldNames   = []string{"name", "transform", "source-id", "field-id"}
	sortOrderNames        = []string{"order-id", "fields"}
	sortFieldNames        = []string{"transform", "source-id", "direction", "null-order"}
	snapshotNames         = []string{"snapshot-id", "parent-snapshot-id", "sequence-number", "timestamp-ms", "manifest-list", "summary", "schema-id"}
	snapshotRefNames      = []string{"snapshot-id", "type"}
	snapshotLogEntryNames = []string{"timestamp-ms", "snapshot-id"}
	metadataLogEntryNames = []string{"timestamp-ms", "metadata-file"}
)
