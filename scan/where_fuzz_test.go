package scan

import (
	"encoding/json"
	"io"
	"testing"
	"unicode/utf8"
)

// FuzzWherePath: the byte walk that finds a member in a row's JSON text
// never panics, and on valid JSON agrees with encoding/json: the member
// found (its decoded value, a string compared as text) or not.
func FuzzWherePath(f *testing.F) {
	for _, s := range []string{`{"env":"prod"}`, ` { "a" : [1,{"env":"x"}], "env" : "p\u0072od" } `, `{"x":{"env":"y"},"env":null}`,
		`{"e\"nv":"1","env":"\\"}`, `{}`, `[]`, `"env"`, `{"env":`, `{"env":"prod"`, `{"a":{"b":{"env":"z"}}}`} {
		f.Add(s, "env")
	}
	f.Fuzz(func(t *testing.T, text, key string) {
		raw, ok := jsonPath(text, []string{key})
		var obj map[string]json.RawMessage
		// not a JSON object, or not UTF-8 (encoding/json would read U+FFFD
		// where the walk keeps the bytes; rows' texts are UTF-8): any answer
		// but a panic
		if !utf8.ValidString(text) || !utf8.ValidString(key) || json.Unmarshal([]byte(text), &obj) != nil {
			return
		}
		// encoding/json keeps the last of duplicate keys; the walk the first
		var first json.RawMessage
		found := false
		d := json.NewDecoder(bytesReader(text))
		if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
			return
		}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return
			}
			var v json.RawMessage
			if err := d.Decode(&v); err != nil {
				return
			}
			if k.(string) == key && !found {
				first, found = v, true
			}
		}
		if ok != found {
			t.Fatalf("%q [%q]: walk found %v (%q), encoding/json %v", text, key, ok, raw, found)
		}
		if !ok {
			return
		}
		var a, b any
		if json.Unmarshal([]byte(raw), &a) != nil || json.Unmarshal(first, &b) != nil {
			t.Fatalf("%q [%q]: walk gave %q, not JSON (encoding/json: %s)", text, key, raw, first)
		}
		if sa, _ := json.Marshal(a); string(sa) != func() string { sb, _ := json.Marshal(b); return string(sb) }() {
			t.Fatalf("%q [%q]: walk %s, encoding/json %s", text, key, raw, first)
		}
		if s, isStr := b.(string); isStr {
			if got, ok := jsonString(raw); !ok || got != s {
				t.Fatalf("%q [%q]: string %q decoded as %q", text, key, s, got)
			}
		}
	})
}

type strReader struct {
	s string
	i int
}

func (r *strReader) Read(p []byte) (int, error) {
	if r.i >= len(r.s) {
		return 0, io.EOF
	}
	n := copy(p, r.s[r.i:])
	r.i += n
	return n, nil
}

func bytesReader(s string) *strReader { return &strReader{s: s} }
