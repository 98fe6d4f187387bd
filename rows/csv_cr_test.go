package rows

import (
	"strings"
	"testing"
	"testing/iotest"
)

// TestCSVKeepsQuotedLineBreaks: a quoted field keeps its bytes as written —
// CRLF, a lone CR, LF and NUL — while CRLF and LF still end records outside
// quotes; and the escape survives reads of any size (iotest.OneByteReader).
func TestCSVKeepsQuotedLineBreaks(t *testing.T) {
	tb := testTable(t)
	in := "ts,host,note\r\n" +
		"2026-01-01T00:00:00Z,a,\"one\r\ntwo\"\r\n" +
		"2026-01-01T00:01:00Z,a,\"lone\rcr\"\n" +
		"2026-01-01T00:02:00Z,a,\"lf\nonly\"\r\n" +
		"2026-01-01T00:03:00Z,a,\"nul\x00r and \x00\x00\"\r\n" +
		"2026-01-01T00:04:00Z,a,\"quote \"\" then\r\nbreak\"\n" +
		"2026-01-01T00:05:00Z,a,plain\r\n"
	want := []string{"one\r\ntwo", "lone\rcr", "lf\nonly", "nul\x00r and \x00\x00", "quote \" then\r\nbreak", "plain"}
	for _, oneByte := range []bool{false, true} {
		r := NewCSVReader(strings.NewReader(in), tb, Options{})
		if oneByte {
			r = NewCSVReader(iotest.OneByteReader(strings.NewReader(in)), tb, Options{})
		}
		b, err := readAll(r.Next, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := b.Cols[cNote].Strs[:b.Len]
		if len(got) != len(want) {
			t.Fatalf("one byte %v: %d rows, want %d", oneByte, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("one byte %v: row %d: note = %q, want %q", oneByte, i+1, got[i], want[i])
			}
		}
	}
}

// TestQuotedCREscapeRoundTrips: quotedCR then keepCR gives back every
// quoted field's bytes, for random mixes of NUL, CR, LF and text.
func TestQuotedCREscapeRoundTrips(t *testing.T) {
	alphabet := []byte{0, '\r', '\n', 'a', 'r', 0, '\r'}
	seed := uint32(7)
	for n := range 300 {
		field := make([]byte, n%97)
		for i := range field {
			seed = seed*1664525 + 1013904223
			field[i] = alphabet[seed>>29%uint32(len(alphabet))]
		}
		in := "\"" + string(field) + "\""
		q := &quotedCR{src: strings.NewReader(in)}
		var out []byte
		buf := make([]byte, 1+n%11)
		for {
			k, err := q.Read(buf)
			out = append(out, buf[:k]...)
			if err != nil {
				break
			}
		}
		rec := []string{strings.Trim(string(out), "\"")}
		keepCR(rec)
		if rec[0] != string(field) {
			t.Fatalf("field %q came back %q", field, rec[0])
		}
	}
}
