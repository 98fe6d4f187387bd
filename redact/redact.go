// Package redact removes secrets from text: error messages, log lines and
// JSON output. A server that refuses a request may echo it back (headers,
// query, form body) in its answer, and that answer ends up in an error; the
// secret is then rarely spelled as it was given. Scrub finds every secret of
// a Set in each form it travels in, and in mixtures of them:
//
//   - as it is;
//   - percent-encoded, in any case (%2b or %2B), with "+" for a space (a form
//     body or a query) or "%20" (a path), and encoded again (%252B);
//   - JSON- or Go-escaped: \" \\ \/ \n, \u00e9 (Python's ASCII JSON),
//     \ud83d\ude00 (a UTF-16 pair), \U0001f511, \x1f, and escaped again (\\\");
//   - base64 (standard or URL alphabet, padded or not) of the secret, and
//     of CLIENT_ID:SECRET as HTTP Basic authentication sends it.
//
// Each form is matched character by character, so a secret one server
// percent-encoded and another JSON-escaped is found as well. Secrets shorter
// than MinLen are not kept: scrubbing them would blank ordinary words.
//
// The package does no I/O (the core's restcatalog scrubs with it, and so do
// the drivers: the CLI, s3store, the WebAssembly bridge). It matches by hand
// rather than with regexp, which would grow the WebAssembly build.
package redact

import (
	"encoding/base64"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// MinLen is the shortest secret a Set keeps.
const MinLen = 4

// Mask replaces each secret found.
const Mask = "[redacted]"

// Set is the secrets to scrub. The zero value is empty and ready; it is safe
// for concurrent use, and secrets are only ever added.
type Set struct {
	mu       sync.RWMutex
	secrets  [][]rune // matched in every form, longest first
	literals []string // base64 forms, matched as they are
}

// Add keeps each secret (values shorter than MinLen are ignored).
func (s *Set) Add(secrets ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range secrets {
		if utf8.RuneCountInString(v) < MinLen || slices.ContainsFunc(s.secrets, func(r []rune) bool { return string(r) == v }) {
			continue
		}
		s.secrets = append(s.secrets, []rune(v))
		s.addBase64(v)
	}
	// Longest first: a secret holding another is masked whole.
	slices.SortStableFunc(s.secrets, func(a, b []rune) int { return len(b) - len(a) })
}

// AddCredential keeps an OAuth2 client credential CLIENT_ID:SECRET: the
// secret, and the base64 of the whole as HTTP Basic authentication sends it.
// The client id alone is not a secret.
func (s *Set) AddCredential(cred string) {
	id, secret, ok := strings.Cut(cred, ":")
	if !ok {
		s.Add(cred)
		return
	}
	s.Add(secret)
	if utf8.RuneCountInString(secret) >= MinLen {
		s.mu.Lock()
		s.addBase64(id + ":" + secret)
		s.mu.Unlock()
	}
}

func (s *Set) addBase64(v string) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b := enc.EncodeToString([]byte(v))
		if !slices.Contains(s.literals, b) {
			s.literals = append(s.literals, b)
		}
	}
	// Padded forms first: the unpadded one is their prefix.
	slices.SortStableFunc(s.literals, func(a, b string) int { return len(b) - len(a) })
}

// Empty reports whether the set holds no secret.
func (s *Set) Empty() bool {
	if s == nil {
		return true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.secrets) == 0
}

// Scrub returns text with every form of every secret replaced by Mask. A nil
// Set scrubs nothing.
func (s *Set) Scrub(text string) string {
	if s == nil {
		return text
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, l := range s.literals {
		text = strings.ReplaceAll(text, l, Mask)
	}
	if len(s.secrets) == 0 {
		return text
	}
	var b strings.Builder
	copied := 0 // text[:copied] is in b
	for i := 0; i < len(text); {
		end := -1
		for _, sec := range s.secrets {
			if e, ok := match(text, i, sec); ok {
				end = e
				break
			}
		}
		if end < 0 {
			i++
			continue
		}
		b.WriteString(text[copied:i])
		b.WriteString(Mask)
		copied, i = end, end
	}
	if copied == 0 {
		return text
	}
	b.WriteString(text[copied:])
	return b.String()
}

// match reports whether one secret, each character in any of its forms,
// begins at text[i], and where it ends.
func match(text string, i int, sec []rune) (int, bool) {
	if len(sec) == 0 {
		return i, true
	}
	r := sec[0]
	for _, n := range forms(text, i, r) {
		if end, ok := match(text, i+n, sec[1:]); ok {
			return end, true
		}
	}
	return 0, false
}

// forms returns the lengths of the spellings of r found at text[i].
func forms(text string, i int, r rune) []int {
	var out []int
	rest := text[i:]
	var raw [utf8.UTFMax]byte
	n := utf8.EncodeRune(raw[:], r)
	if strings.HasPrefix(rest, string(raw[:n])) {
		out = append(out, n)
	}
	if rest == "" {
		return out
	}
	switch rest[0] {
	case '+':
		if r == ' ' {
			out = append(out, 1)
		}
	case '%':
		if l, ok := percent(rest, raw[:n]); ok {
			out = append(out, l)
		}
		if l, ok := percent(rest, []byte{'+'}); ok && r == ' ' {
			out = append(out, l) // a form's "+", encoded again
		}
	case '\\':
		out = append(out, escaped(rest, r, raw[:n])...)
	}
	return out
}

// percent matches the bytes b each as %XX (either case), each possibly
// encoded again (%25XX, %2525XX).
func percent(s string, b []byte) (int, bool) {
	at := 0
	for _, c := range b {
		if at >= len(s) || s[at] != '%' {
			return 0, false
		}
		at++
		for {
			if at+2 > len(s) {
				return 0, false
			}
			if hexIs(s[at], c>>4) && hexIs(s[at+1], c&15) {
				at += 2
				break
			}
			if s[at:at+2] != "25" {
				return 0, false
			}
			at += 2 // %25XX: the '%' encoded again
		}
	}
	return at, true
}

func hexIs(c byte, v byte) bool {
	switch {
	case c >= '0' && c <= '9':
		return c-'0' == v
	case c >= 'a' && c <= 'f':
		return c-'a'+10 == v
	case c >= 'A' && c <= 'F':
		return c-'A'+10 == v
	}
	return false
}

// short are the one-letter escapes of JSON and Go.
var short = map[rune]byte{'"': '"', '\\': '\\', '/': '/', '\n': 'n', '\t': 't', '\r': 'r', '\b': 'b', '\f': 'f', '\'': '\'', '\a': 'a', '\v': 'v'}

// escaped matches r as a backslash escape at s, the backslash possibly
// escaped again (any number of backslashes): \" \\ \u0022 \ud83d\ude00 \x22.
func escaped(s string, r rune, raw []byte) []int {
	var out []int
	for k := 1; k < len(s) && s[k-1] == '\\'; k++ {
		// s[:k] are backslashes; s[k] says which escape.
		if c, ok := short[r]; ok && s[k] == c {
			out = append(out, k+1)
		}
		if l, ok := unicodeEscape(s, k, r); ok {
			out = append(out, l)
		}
		if s[k] == 'U' && k+9 <= len(s) && hexRune(s[k+1:k+9], r) {
			out = append(out, k+9) // Go's \U0001f511
		}
		if s[k] == 'x' {
			if l, ok := hexBytes(s, k, raw); ok {
				out = append(out, l)
			}
		}
	}
	return out
}

// unicodeEscape matches uXXXX at s[k] (after k backslashes), or a UTF-16
// pair of them for r beyond the BMP, each with the same backslashes.
func unicodeEscape(s string, k int, r rune) (int, bool) {
	units := []rune{r}
	if r > 0xFFFF {
		a, b := utf16.EncodeRune(r)
		units = []rune{a, b}
	}
	at := k
	for j, u := range units {
		if j > 0 {
			if !strings.HasPrefix(s[at:], s[:k]) {
				return 0, false
			}
			at += k
		}
		if at+5 > len(s) || s[at] != 'u' {
			return 0, false
		}
		for d := 0; d < 4; d++ {
			if !hexIs(s[at+1+d], byte(u>>(12-4*d))&15) {
				return 0, false
			}
		}
		at += 5
	}
	return at, true
}

// hexRune reports whether the 8 hex digits h spell r.
func hexRune(h string, r rune) bool {
	for d := 0; d < 8; d++ {
		if !hexIs(h[d], byte(r>>(28-4*d))&15) {
			return false
		}
	}
	return true
}

// hexBytes matches xHH for each byte of raw, each after the same backslashes.
func hexBytes(s string, k int, raw []byte) (int, bool) {
	at := k
	for j, c := range raw {
		if j > 0 {
			if !strings.HasPrefix(s[at:], s[:k]) {
				return 0, false
			}
			at += k
		}
		if at+3 > len(s) || s[at] != 'x' || !hexIs(s[at+1], c>>4) || !hexIs(s[at+2], c&15) {
			return 0, false
		}
		at += 3
	}
	return at, true
}

// Writer scrubs every Write to w. Each Write is scrubbed on its own: a
// secret split across two writes is not found, so give it whole lines
// (fmt.Fprintf and an encoder's Encode write once).
func (s *Set) Writer(w io.Writer) io.Writer { return scrubWriter{w, s} }

type scrubWriter struct {
	w io.Writer
	s *Set
}

func (sw scrubWriter) Write(p []byte) (int, error) {
	if sw.s.Empty() {
		return sw.w.Write(p)
	}
	if _, err := io.WriteString(sw.w, sw.s.Scrub(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
