package rows

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"
)

// A map<string, string> column (the only nested shape Timelake writes)
// takes each row's map as the JSON text of an object of string (or null)
// values, kept in the text's order and written as the reader prints it
// (StringMapText), so that what is appended scans back byte for byte.

// MapEntry is one key and value of a map<string, string> row.
type MapEntry struct {
	Key, Value string
	Null       bool // the value is null
}

// StringMapEntries reads a JSON object of string (or null) values into
// dst, in the text's order. Invalid UTF-8, a duplicate key, a value of
// another type, or anything but one object is refused.
func StringMapEntries(text string, dst []MapEntry) ([]MapEntry, error) {
	dst = dst[:0]
	if !utf8.ValidString(text) {
		return nil, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	t, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not a JSON object: %v", err)
		}
		k := t.(string) // an object's keys are strings
		if slices.ContainsFunc(dst, func(e MapEntry) bool { return e.Key == k }) {
			return nil, fmt.Errorf("key %q appears twice", k)
		}
		t, err = dec.Token()
		if err != nil {
			return nil, fmt.Errorf("key %q: %v", k, err)
		}
		switch v := t.(type) {
		case string:
			dst = append(dst, MapEntry{Key: k, Value: v})
		case nil:
			dst = append(dst, MapEntry{Key: k, Null: true})
		case json.Delim:
			return nil, fmt.Errorf("key %q: value is not a string or null", k)
		default:
			return nil, fmt.Errorf("key %q: value %v is not a string or null", k, v)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON object")
	}
	return dst, nil
}

// StringMapText is the compact JSON text of a map's entries, as the
// reader prints it.
func StringMapText(es []MapEntry) string {
	b := []byte{'{'}
	for i, e := range es {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, e.Key)
		b = append(b, ':')
		if e.Null {
			b = append(b, "null"...)
		} else {
			b = AppendJSONString(b, e.Value)
		}
	}
	return string(append(b, '}'))
}

// AppendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 as U+FFFD.
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// appendNested sets nested column col from the JSON text s: a
// map<string, string> column takes an object of strings, in the reader's
// compact form; other nested columns are not written.
func (b *Builder) appendNested(col int, s string) *Error {
	f := &b.table.Fields[col]
	if !f.Nested.IsStringMap() {
		return &Error{Code: CodeTypeMismatch, Column: f.Name, Value: errValue(s),
			Msg: fmt.Sprintf("column is %s: Timelake writes no nested column but a map<string, string>", f.Nested)}
	}
	if len(s) > MaxValueBytes {
		return tooLarge(f.Name, len(s))
	}
	es, err := StringMapEntries(s, nil)
	if err != nil {
		return &Error{Code: CodeTypeMismatch, Column: f.Name, Value: errValue(s),
			Msg: fmt.Sprintf("value %q for a map<string, string> column: %v (want a JSON object of strings)", shortValue(s), err)}
	}
	b.putStr(col, StringMapText(es))
	return nil
}

// checkStringMaps checks each non-null value of a map<string, string>
// column (CheckValueSizes).
func checkStringMaps(name string, col *Column) *Error {
	var es []MapEntry
	for i, s := range col.Strs {
		if col.IsNull(i) {
			continue
		}
		if len(s) > MaxValueBytes {
			e := tooLarge(name, len(s))
			e.Row = i + 1
			return e
		}
		var err error
		if es, err = StringMapEntries(s, es); err != nil {
			return &Error{Code: CodeTypeMismatch, Row: i + 1, Column: name, Value: errValue(s),
				Msg: fmt.Sprintf("value %q for a map<string, string> column: %v (want a JSON object of strings)", shortValue(s), err)}
		}
	}
	return nil
}
