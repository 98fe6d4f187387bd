// The lexer under metadataDecoder: whitespace, literals, strings, numbers and
// skipping the values of members the format does not declare.

package iceberg

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxSkipDepth bounds the nesting of unknown members the fast path reads;
// deeper documents go to encoding/json, which has its own limit.
const maxSkipDepth = 1000

// peek skips whitespace and returns the next byte, 0 at the end.
func (d *metadataDecoder) peek() byte {
	for d.pos < len(d.data) {
		switch c := d.data[d.pos]; c {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return c
		}
	}
	return 0
}

func (d *metadataDecoder) consume(c byte) bool {
	if d.peek() != c {
		return false
	}
	d.pos++
	return true
}

// literal reads lit if it is next (a following letter is left for the
// caller to trip over).
func (d *metadataDecoder) literal(lit string) bool {
	if d.peek() == lit[0] && strings.HasPrefix(d.text[d.pos:], lit) {
		d.pos += len(lit)
		return true
	}
	return false
}

func (d *metadataDecoder) null() bool { return d.literal("null") }

// scanString finds the end of the string at d.pos, checking its escapes and
// that it has no control characters, as encoding/json's scanner does.
func (d *metadataDecoder) scanString() (end int, escaped, nonASCII, ok bool) {
	for i := d.pos + 1; i < len(d.data); {
		if plainStringByte[d.data[i]] {
			i++
			continue
		}
		switch c := d.data[i]; {
		case c == '"':
			return i + 1, escaped, nonASCII, true
		case c == '\\':
			escaped = true
			if i+1 >= len(d.data) {
				return 0, false, false, false
			}
			switch d.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d.data) {
					return 0, false, false, false
				}
				for _, h := range d.data[i+2 : i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return 0, false, false, false
					}
				}
				i += 6
			default:
				return 0, false, false, false
			}
		case c < 0x20:
			return 0, false, false, false
		default:
			nonASCII = nonASCII || c >= utf8.RuneSelf
			i++
		}
	}
	return 0, false, false, false
}

// plainStringByte marks the bytes that stand for themselves in a JSON
// string and that encoding/json writes unchanged: printable ASCII but for
// " and \.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// htmlSafeByte marks the bytes encoding/json writes into a string as they
// are: plainStringByte but for < > &.
var htmlSafeByte = func() (t [256]bool) {
	t = plainStringByte
	t['<'], t['>'], t['&'] = false, false, false
	return t
}()

// memberName reads the name of a struct member: plain ASCII only, since
// encoding/json unescapes names and folds non-ASCII ones before matching.
func (d *metadataDecoder) memberName() (string, bool) {
	if d.peek() != '"' {
		return "", false
	}
	end, escaped, nonASCII, ok := d.scanString()
	if !ok || escaped || nonASCII {
		return "", false
	}
	s := d.text[d.pos+1 : end-1]
	d.pos = end
	return s, true
}

// stringValue reads a string (not null).
func (d *metadataDecoder) stringValue() (string, bool) {
	if d.peek() != '"' {
		return "", false
	}
	start := d.pos
	end, escaped, nonASCII, ok := d.scanString()
	if !ok {
		return "", false
	}
	d.pos = end
	if !escaped && (!nonASCII || utf8.Valid(d.data[start+1:end-1])) {
		return d.text[start+1 : end-1], true
	}
	// Escapes, or invalid UTF-8 that encoding/json replaces with U+FFFD.
	return unquote(d.data[start:end])
}

// unquote decodes a JSON string as encoding/json does.
func unquote(quoted []byte) (string, bool) {
	var s string
	err := json.Unmarshal(quoted, &s)
	return s, err == nil
}

// string reads a string, or null (leaving *p unchanged).
func (d *metadataDecoder) string(p *string) bool {
	if d.null() {
		return true
	}
	s, ok := d.stringValue()
	*p = s
	return ok
}

func (d *metadataDecoder) bool(p *bool) bool {
	switch {
	case d.literal("true"):
		*p = true
	case d.literal("false"):
		*p = false
	default:
		return d.null()
	}
	return true
}

// integer reads a JSON number that is an integer of the given bit size. A
// fraction or an exponent gives up: encoding/json refuses them for Go
// integers.
func (d *metadataDecoder) integer(bitSize int) (int64, bool) {
	d.peek()
	start, i := d.pos, d.pos
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	digits := i
	var n uint64
	for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
		n = n*10 + uint64(d.data[i]-'0')
		i++
	}
	switch {
	case i == digits, d.data[digits] == '0' && i > digits+1:
		return 0, false
	case i < len(d.data) && (d.data[i] == '.' || d.data[i] == 'e' || d.data[i] == 'E'):
		return 0, false
	}
	d.pos = i
	if i-digits > 18 || bitSize < 64 { // may overflow: let strconv decide
		v, err := strconv.ParseInt(d.text[start:i], 10, bitSize)
		return v, err == nil
	}
	if digits > start {
		return -int64(n), true
	}
	return int64(n), true
}

// int64 reads an integer, or null (leaving *p unchanged).
func (d *metadataDecoder) int64(p *int64) bool {
	if d.null() {
		return true
	}
	v, ok := d.integer(64)
	*p = v
	return ok
}

func (d *metadataDecoder) int(p *int) bool {
	if d.null() {
		return true
	}
	v, ok := d.integer(strconv.IntSize)
	*p = int(v)
	return ok
}

// int64Ptr reads an integer into a new *int64, or null (nil).
func (d *metadataDecoder) int64Ptr(p **int64) bool {
	if d.null() {
		return true
	}
	if len(d.int64s) == cap(d.int64s) {
		d.int64s = make([]int64, 0, 64)
	}
	d.int64s = d.int64s[:len(d.int64s)+1]
	*p = &d.int64s[len(d.int64s)-1]
	return d.int64(*p)
}

func (d *metadataDecoder) intPtr(p **int) bool {
	if d.null() {
		return true
	}
	if len(d.ints) == cap(d.ints) {
		d.ints = make([]int, 0, 64)
	}
	d.ints = d.ints[:len(d.ints)+1]
	*p = &d.ints[len(d.ints)-1]
	return d.int(*p)
}

// raw reads any value (null included) and stores a copy of its bytes.
func (d *metadataDecoder) raw(p *[]byte) bool {
	d.peek()
	start := d.pos
	if !d.skip(0) {
		return false
	}
	*p = append([]byte(nil), d.data[start:d.pos]...)
	return true
}

// skip reads over one value, checking its syntax.
func (d *metadataDecoder) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	switch d.peek() {
	case '"':
		end, _, _, ok := d.scanString()
		d.pos = end
		return ok
	case '{':
		d.pos++
		if d.peek() == '}' {
			d.pos++
			return true
		}
		for {
			if d.peek() != '"' {
				return false
			}
			end, _, _, ok := d.scanString()
			if d.pos = end; !ok || !d.consume(':') || !d.skip(depth+1) {
				return false
			}
			switch d.peek() {
			case ',':
				d.pos++
			case '}':
				d.pos++
				return true
			default:
				return false
			}
		}
	case '[':
		d.pos++
		if d.peek() == ']' {
			d.pos++
			return true
		}
		for {
			if !d.skip(depth + 1) {
				return false
			}
			switch d.peek() {
			case ',':
				d.pos++
			case ']':
				d.pos++
				return true
			default:
				return false
			}
		}
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	}
	return d.number()
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *metadataDecoder) number() bool {
	i := d.pos
	digits := func() bool {
		start := i
		for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	if i < len(d.data) && d.data[i] == '0' {
		i++
	} else if !digits() {
		return false
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	d.pos = i
	return true
}
