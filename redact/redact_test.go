package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// spellings spells secret every way a request echoed back may carry it.
func spellings(t *testing.T, secret string) map[string]string {
	t.Helper()
	js, err := json.Marshal(secret) // HTML-escaped too: \u003c
	if err != nil {
		t.Fatal(err)
	}
	twice, _ := json.Marshal(string(js))
	out := map[string]string{
		"raw":          secret,
		"query":        url.QueryEscape(secret),
		"path":         url.PathEscape(secret),
		"query lower":  lowerHex(url.QueryEscape(secret)),
		"query twice":  url.QueryEscape(url.QueryEscape(secret)),
		"json":         string(js),
		"json twice":   string(twice),
		"go quote":     strconv.Quote(secret),
		"go ascii":     strconv.QuoteToASCII(secret),
		"python ascii": pythonASCII(secret),
		"base64":       base64.StdEncoding.EncodeToString([]byte(secret)),
		"base64 url":   base64.RawURLEncoding.EncodeToString([]byte(secret)),
	}
	return out
}

// pythonASCII is json.dumps(s) with ensure_ascii (the default): every
// non-ASCII character as \uXXXX, upper-case letters beyond the BMP as pairs.
func pythonASCII(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, u := range []rune(s) {
		switch {
		case u == '"' || u == '\\':
			b.WriteByte('\\')
			b.WriteRune(u)
		case u > 0xFFFF:
			u -= 0x10000
			fmt.Fprintf(&b, "\\u%04x\\u%04x", 0xD800+(u>>10), 0xDC00+(u&0x3FF))
		case u >= 0x7f || u < 0x20:
			fmt.Fprintf(&b, "\\u%04x", u)
		default:
			b.WriteRune(u)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestScrubEveryForm(t *testing.T) {
	secrets := []string{
		"supersecretAB+cd/ef==",          // base64-like: + / = percent-encoded
		`tok"with\quote and space`,       // JSON-escaped, + for the space
		"sécret-ünïcode-🔑-key",           // non-ASCII, beyond the BMP
		"plain-session-token-1234567890", // nothing to escape
		"<&>html&escaped",                // \u003c in Go's JSON
	}
	var s Set
	s.Add(secrets...)
	for _, sec := range secrets {
		for name, form := range spellings(t, sec) {
			text := "refused: client_secret=" + form + "&x=1 (echo)"
			got := s.Scrub(text)
			if strings.Contains(got, form) || !strings.Contains(got, Mask) {
				t.Errorf("%q as %s: %q scrubbed to %q", sec, name, form, got)
			}
			if !strings.HasPrefix(got, "refused: client_secret=") || !strings.HasSuffix(got, "&x=1 (echo)") {
				t.Errorf("%q as %s: the text around it changed: %q", sec, name, got)
			}
		}
	}
}

func TestScrubBasicAuth(t *testing.T) {
	var s Set
	s.AddCredential("client-id:cl1ent-s3cret")
	basic := base64.StdEncoding.EncodeToString([]byte("client-id:cl1ent-s3cret"))
	got := s.Scrub("Authorization: Basic " + basic + " and body client_secret=cl1ent-s3cret")
	if strings.Contains(got, basic) || strings.Contains(got, "cl1ent-s3cret") {
		t.Errorf("scrubbed to %q", got)
	}
	if !strings.Contains(got, "client_secret=") {
		t.Errorf("too much scrubbed: %q", got)
	}
}

func TestScrubLeavesOtherText(t *testing.T) {
	var s Set
	s.Add("abc", "secret-value") // "abc" is too short to keep
	in := `abc secret-valu secret%2Dvalu \"secret-valu a+b %zz \u00e9 \\`
	if got := s.Scrub(in); got != in {
		t.Errorf("changed: %q -> %q", in, got)
	}
	var nilSet *Set
	if nilSet.Scrub("x") != "x" || !nilSet.Empty() {
		t.Error("nil set")
	}
}

func TestWriter(t *testing.T) {
	var s Set
	s.Add("s3cr3t-k3y")
	var b strings.Builder
	w := s.Writer(&b)
	n, err := fmt.Fprintf(w, `{"error":"key s3cr3t%%2Dk3y"}`)
	if err != nil || n != len(`{"error":"key s3cr3t%2Dk3y"}`) {
		t.Fatalf("write = %d, %v", n, err)
	}
	if b.String() != `{"error":"key [redacted]"}` {
		t.Errorf("got %q", b.String())
	}
}

// lowerHex writes the escapes of a percent-encoded string in lower case.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lower(b[i+1]), lower(b[i+2])
		}
	}
	return string(b)
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}
