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
