package rows

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/timelake/timelake/internal/core/jsonstr"
)

// A reader of one map<string, string> value's JSON text into its entries
// (a label filter's view of a row's tags), and the text of entries. The
// write path checks and prints every nested value, this shape included,
// with NestedTree (nestedjson.go).

// MapEntry is one key and value of a map<string, string> row.
type MapEntry struct {
	Key, Value string
	Null       bool // the value is null
}

// StringMapEntries reads a JSON object of string (or null) values into
// dst, in the text's order. Invalid UTF-8, a lone UTF-16 surrogate, a
// duplicate key, a value of another type, or anything but one object is
// refused. Hand-written rather than encoding/json's Decoder: every row of
// every map column is read by it several times on the write path (the
// check, then each leaf), and an unescaped key or value is a substring of
// text, no allocation.
func StringMapEntries(text string, dst []MapEntry) ([]MapEntry, error) {
	dst = dst[:0]
	if !utf8.ValidString(text) {
		return nil, errors.New("not valid UTF-8")
	}
	p := mapParser{s: text}
	p.space()
	if !p.eat('{') {
		return nil, errors.New("not a JSON object")
	}
	p.space()
	if !p.eat('}') {
		for {
			p.space()
			k, err := p.str()
			if err != nil {
				return nil, fmt.Errorf("not a JSON object: key: %v", err)
			}
			p.space()
			if !p.eat(':') {
				return nil, fmt.Errorf("key %q: no colon after it", k)
			}
			p.space()
			e := MapEntry{Key: k}
			switch {
			case strings.HasPrefix(p.s[p.i:], "null"):
				e.Null = true
				p.i += 4
			case p.i < len(p.s) && p.s[p.i] == '"':
				if e.Value, err = p.str(); err != nil {
					return nil, fmt.Errorf("key %q: %v", k, err)
				}
			case p.i < len(p.s) && (p.s[p.i] == '{' || p.s[p.i] == '['):
				return nil, fmt.Errorf("key %q: value is not a string or null (an object or array)", k)
			default:
				return nil, fmt.Errorf("key %q: value %s is not a string or null", k, p.token())
			}
			dst = append(dst, e)
			p.space()
			if p.eat('}') {
				break
			}
			if !p.eat(',') {
				return nil, fmt.Errorf("not a JSON object: after key %q, no comma or closing brace", k)
			}
		}
	}
	p.space()
	if p.i < len(p.s) {
		return nil, errors.New("text after the JSON object")
	}
	if err := noDuplicateKey(dst); err != nil {
		return nil, err
	}
	return dst, nil
}

// noDuplicateKey refuses a key given twice: pairwise for a few entries
// (labels), by a set past that, so a huge object stays linear.
func noDuplicateKey(es []MapEntry) error {
	if len(es) <= 16 {
		for i := range es {
			for j := i + 1; j < len(es); j++ {
				if es[i].Key == es[j].Key {
					return fmt.Errorf("key %q appears twice", es[i].Key)
				}
			}
		}
		return nil
	}
	seen := make(map[string]bool, len(es))
	for _, e := range es {
		if seen[e.Key] {
			return fmt.Errorf("key %q appears twice", e.Key)
		}
		seen[e.Key] = true
	}
	return nil
}

type mapParser struct {
	s string
	i int
}

func (p *mapParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *mapParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// token is the text at p.i up to a delimiter, for an error message.
func (p *mapParser) token() string {
	if p.i >= len(p.s) {
		return "(the end)"
	}
	end := p.i
	for end < len(p.s) && end-p.i < 32 && !strings.ContainsRune(",}] \t\r\n", rune(p.s[end])) {
		end++
	}
	if end == p.i {
		end++
	}
	return p.s[p.i:end]
}

// str reads a JSON string at p.i: a substring of the text when it has no
// escapes.
func (p *mapParser) str() (string, error) {
	if !p.eat('"') {
		return "", errors.New("not a string")
	}
	start := p.i
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			return p.s[start : p.i-1], nil
		case c == '\\':
			return p.unescape(start)
		case c < 0x20:
			return "", errors.New("control character in a string")
		case c >= utf8.RuneSelf:
			// checked here, in the one pass over the string
			if r, size := utf8.DecodeRuneInString(p.s[p.i:]); r == utf8.RuneError && size == 1 {
				return "", errors.New("not valid UTF-8")
			} else {
				p.i += size
			}
			continue
		}
		p.i++
	}
	return "", errors.New("unterminated string")
}

func (p *mapParser) unescape(start int) (string, error) {
	// []byte(p.s) does not copy the text: unescapeJSON neither keeps nor
	// writes p, so the compiler converts it in place (-gcflags=-m says
	// "zero-copy string->[]byte conversion", for wasm too).
	// TestStringMapEntriesEscapedLinear fails if that stops being so.
	out, end, err := unescapeJSON([]byte(p.s[start:p.i]), []byte(p.s), p.i)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(out) {
		return "", errors.New("not valid UTF-8")
	}
	p.i = end
	return string(out), nil
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
// control characters escaped, invalid UTF-8 as U+FFFD (one for each byte
// that starts no rune). The escaping is jsonstr's, shared with variant.
func AppendJSONString(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = toValidUTF8(s)
	}
	return jsonstr.Append(b, s)
}

// toValidUTF8 is s with each byte that starts no rune replaced by U+FFFD,
// as ranging over s reads it (strings.ToValidUTF8 would replace a run of
// such bytes by one).
func toValidUTF8(s string) string {
	var sb strings.Builder
	sb.Grow(len(s) + 8)
	for _, r := range s {
		sb.WriteRune(r)
	}
	return sb.String()
}
