package variant

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecode feeds arbitrary metadata and value bytes to the reader: it
// never panics, an error is ErrCorrupt or the output bound, and what it
// prints is valid UTF-8 JSON that Encode reads back into a variant that
// prints the same text.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`null`, `{"a":[1,2.5,"x",{"b":null}],"c":true}`, `[[],{},""]`, `12345678901234567890.5`, `1e300`} {
		m, v, err := Encode(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(m, v)
	}
	f.Add([]byte{0x11, 0, 0}, []byte{0x50, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte{0x11, 0, 0}, []byte{0x30, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{0x11, 0, 0}, []byte{0x3c, 2, 0, 0, 0, 0xff, 0xfe})
	f.Fuzz(func(t *testing.T, meta, value []byte) {
		s, err := ToJSON(meta, value)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !strings.Contains(err.Error(), "over") {
				t.Fatalf("error not ErrCorrupt: %v", err)
			}
			return
		}
		if !utf8.ValidString(s) {
			t.Fatalf("printed invalid UTF-8 %q", s)
		}
		m2, v2, err := Encode(s)
		if err != nil {
			t.Fatalf("printed %s, which Encode refuses: %v", s, err)
		}
		if again, err := ToJSON(m2, v2); err != nil || again != s {
			t.Fatalf("printed %s, then %s (%v)", s, again, err)
		}
	})
}

// FuzzEncode feeds arbitrary text to Encode: it never panics, Valid
// agrees with it, and what it takes prints as JSON it takes again to the
// same text.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.50,"x\u00e9",{"b":null}],"c":true}`, `1e5`, `"\ud83d\ude00"`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, v, err := Encode(s)
		if verr := Valid(s); (verr == nil) != (err == nil) {
			t.Fatalf("%q: Valid says %v, Encode %v", s, verr, err)
		}
		if err != nil {
			return
		}
		out, err := ToJSON(m, v)
		if err != nil {
			t.Fatalf("%q encoded to a variant the reader refuses: %v", s, err)
		}
		m2, v2, err := Encode(out)
		if err != nil {
			t.Fatalf("%q printed as %s, which Encode refuses: %v", s, out, err)
		}
		if again, _ := ToJSON(m2, v2); again != out {
			t.Fatalf("%q printed as %s, then %s", s, out, again)
		}
	})
}
