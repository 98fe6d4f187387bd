package rows

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestStringMapEntriesEscapedLinear: a map of many keys and values with
// escapes reads to the same entries, and the bytes it allocates grow with
// the text, not with the text times the number of escaped strings (each
// escaped string once copied the whole text).
func TestStringMapEntriesEscapedLinear(t *testing.T) {
	const n = 2000
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"key-%d\"q\"":"value\t%d\u00e9\ud83d\ude42"`, i, i)
	}
	b.WriteString("}")
	text := b.String()
	dst := make([]MapEntry, 0, n)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	es, err := StringMapEntries(text, dst)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != n {
		t.Fatalf("%d entries, want %d", len(es), n)
	}
	for i, e := range es {
		if wantK, wantV := fmt.Sprintf(`key-%d"q"`, i), fmt.Sprintf("value\t%dé🙂", i); e.Key != wantK || e.Value != wantV || e.Null {
			t.Fatalf("entry %d = %+v, want %q: %q", i, e, wantK, wantV)
		}
	}
	// the entries' own strings and copies of each escaped string are a few
	// times the text; a whole-text copy per string is n/2 times it.
	if got, bound := after.TotalAlloc-before.TotalAlloc, uint64(16*len(text)); got > bound {
		t.Errorf("reading %d bytes of %d escaped strings allocated %d bytes, want at most %d", len(text), 2*n, got, bound)
	}
}

// TestStringMapEntriesEscapeErrors: an error in an escaped string past
// the first one names its byte in the whole text, as before.
func TestStringMapEntriesEscapeErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a\"":"x","b":"y\q"}`, `key "b": bad escape \q at byte 18`},
		{`{"a\"":"x","b":"y\u12"}`, `key "b": bad \u escape at byte 18`},
		{`{"a\"":"x","b\n":"y\ud83d\u12zz"}`, `key "b\n": bad \u escape at byte 26`},
		{`{"a":"x","b":"y\n` + "\x01" + `"}`, `key "b": control character '\x01' in a string at byte 18`},
		{`{"a":"x","b":"y\n`, `key "b": unterminated string`},
		{`{"a":"x","b":"y\`, `key "b": unterminated string`},
		{`{"a":"x","b":"\ud800"}`, `key "b": string has a lone UTF-16 surrogate \ud800, which is not valid UTF-8`},
	} {
		_, err := StringMapEntries(c.in, nil)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.in, err, c.want)
		}
	}
}
