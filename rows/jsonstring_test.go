package rows

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// appendJSONStringBefore is AppendJSONString as it was before it used
// jsonstr: the reference its output must still equal byte for byte.
func appendJSONStringBefore(b []byte, s string) []byte {
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

// TestAppendJSONStringUnchanged: every byte, every pair of bytes, and
// random strings drawn from ASCII, escapes, multi-byte runes and broken
// sequences (overlong, surrogate, cut short) print as they did before.
func TestAppendJSONStringUnchanged(t *testing.T) {
	check := func(s string) {
		t.Helper()
		got, want := AppendJSONString([]byte("x"), s), appendJSONStringBefore([]byte("x"), s)
		if !bytes.Equal(got, want) {
			t.Fatalf("AppendJSONString(%q) = %q, want %q", s, got, want)
		}
	}
	for c := range 256 {
		check(string([]byte{byte(c)}))
		for d := range 256 {
			check(string([]byte{byte(c), byte(d)}))
		}
	}
	pieces := []string{"a", "host-1", `"`, `\`, "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "<>&", "é", "東", "😀",
		"\u2028", "\ufffd", "\xff", "\xc0\xaf", "\xed\xa0\x80", "\xe6\x9d", "\xf0\x9f\x98", "\x80"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var s []byte
		for range rng.IntN(12) {
			s = append(s, pieces[rng.IntN(len(pieces))]...)
		}
		check(string(s))
	}
}
