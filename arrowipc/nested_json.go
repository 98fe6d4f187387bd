package arrowipc

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonText walks a nested value's JSON text (rows' form: compact, but any
// valid JSON is read), handing out scalars as tokens; the caller drives it
// by the type it expects. Hand-written rather than encoding/json's
// Decoder: it runs over every value of every nested column a scan writes,
// and a string without escapes is a substring of the text.
type jsonText struct {
	s string
	i int
}

func (p *jsonText) errf(format string, args ...any) error {
	return fmt.Errorf("at byte %d of its JSON text: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *jsonText) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *jsonText) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// lit consumes the literal word (null, true, false) if it is next.
func (p *jsonText) lit(word string) bool {
	if strings.HasPrefix(p.s[p.i:], word) && !p.wordAt(p.i+len(word)) {
		p.i += len(word)
		return true
	}
	return false
}

// wordAt says whether a number or literal goes on at i.
func (p *jsonText) wordAt(i int) bool {
	if i >= len(p.s) {
		return false
	}
	switch c := p.s[i]; c {
	case ',', ']', '}', ':', ' ', '\t', '\n', '\r':
		return false
	}
	return true
}

// scalar reads a string (unescaped, quoted true), a number or true/false.
func (p *jsonText) scalar() (tok string, quoted bool, err error) {
	p.space()
	if p.i >= len(p.s) {
		return "", false, p.errf("the text ends where a value should be")
	}
	switch c := p.s[p.i]; {
	case c == '"':
		s, err := p.str()
		return s, true, err
	case c == '{' || c == '[':
		return "", false, p.errf("an object or array where a primitive value should be")
	}
	start := p.i
	for p.wordAt(p.i) {
		p.i++
	}
	return p.s[start:p.i], false, nil
}

// str reads a JSON string at p.i.
func (p *jsonText) str() (string, error) {
	if !p.eat('"') {
		return "", p.errf("not a JSON string")
	}
	start := p.i
	var high byte // the OR of the bytes: UTF-8 is checked only past ASCII
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c >= 0x20 && c != '"' && c != '\\' {
			high |= c
			p.i++
			continue
		}
		switch {
		case c == '"':
			s := p.s[start:p.i]
			p.i++
			if high >= utf8.RuneSelf && !utf8.ValidString(s) {
				return "", p.errf("a string that is not valid UTF-8")
			}
			return s, nil
		case c == '\\':
			return p.unescape(start)
		}
		return "", p.errf("a control character in a string")
	}
	return "", p.errf("an unterminated string")
}

// unescape reads the rest of a string from start, where an escape is.
func (p *jsonText) unescape(start int) (string, error) {
	out := []byte(p.s[start:p.i])
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			if !utf8.Valid(out) {
				return "", p.errf("a string that is not valid UTF-8")
			}
			return string(out), nil
		case c < 0x20:
			return "", p.errf("a control character in a string")
		case c != '\\':
			out = append(out, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.s) {
			break
		}
		e := p.s[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.errf("a bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				lo := rune(-1)
				if strings.HasPrefix(p.s[p.i:], `\u`) {
					p.i += 2
					lo, _ = p.hex4()
				}
				if r = utf16.DecodeRune(r, lo); r == utf8.RuneError {
					return "", p.errf("a lone UTF-16 surrogate")
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", p.errf("a bad escape \\%c", e)
		}
	}
	return "", p.errf("an unterminated string")
}

func (p *jsonText) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

// members reads an object's members after its '{', calling each with its
// name, p at its value.
func (p *jsonText) members(each func(name string) error) error {
	if p.eat('}') {
		return nil
	}
	for {
		p.space()
		name, err := p.str()
		if err != nil {
			return err
		}
		if !p.eat(':') {
			return p.errf("no colon after member %q", name)
		}
		if err := each(name); err != nil {
			return err
		}
		if p.eat('}') {
			return nil
		}
		if !p.eat(',') {
			return p.errf("no comma or closing brace in an object")
		}
	}
}

var errTooDeep = errors.New("nested too deep")

// skip passes over the value at p.
func (p *jsonText) skip(depth int) error {
	if depth > 2*maxDepth {
		return p.errf("%v", errTooDeep)
	}
	switch {
	case p.eat('{'):
		return p.members(func(string) error { return p.skip(depth + 1) })
	case p.eat('['):
		if p.eat(']') {
			return nil
		}
		for {
			if err := p.skip(depth + 1); err != nil {
				return err
			}
			if p.eat(']') {
				return nil
			}
			if !p.eat(',') {
				return p.errf("no comma or closing bracket in an array")
			}
		}
	}
	_, _, err := p.scalar()
	return err
}
