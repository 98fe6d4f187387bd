package jsonstr

import "testing"

// TestAppend: ", \ and control characters are escaped (the short forms
// where JSON has them), everything else (HTML characters, DEL, U+2028,
// multi-byte runes) is written as it is; a string and its bytes print alike.
func TestAppend(t *testing.T) {
	for in, want := range map[string]string{
		"":                      `""`,
		"host-1":                `"host-1"`,
		`a "b" \c`:              `"a \"b\" \\c"`,
		"\n\r\t":                `"\n\r\t"`,
		"\x00\x01\x1f\x7f":      `"\u0000\u0001\u001f` + "\x7f" + `"`,
		"<a>&\u2028Zürich 東京 😀": "\"<a>&\u2028Zürich 東京 😀\"",
	} {
		if got := string(Append([]byte("x"), in)); got != "x"+want {
			t.Errorf("Append(%q) = %s, want x%s", in, got, want)
		}
		if got := string(Append([]byte("x"), []byte(in))); got != "x"+want {
			t.Errorf("Append([]byte(%q)) = %s, want x%s", in, got, want)
		}
	}
}
