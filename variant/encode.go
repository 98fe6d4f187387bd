package variant

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
)

// Encode reads one JSON value (any: an object, an array, a string, a
// number, true, false or null, with whitespace around it) into a
// variant's metadata and value, as the package doc says. Invalid JSON, a
// key twice in one object, nesting deeper than MaxDepth and a number out
// of a double's range are refused.
//
// The text is read twice: once for the keys (the dictionary is sorted, so
// every id is known only at the end), once to encode.
func Encode(text string) (metadata, value []byte, err error) {
	var e Encoder
	return e.Encode(text)
}

// Valid reports why text is not one JSON value Encode takes, or nil: the
// first of Encode's two passes, without encoding.
func Valid(text string) error {
	var e Encoder
	return e.Valid(text)
}

// Encoder is Encode for many texts in turn: it keeps its buffers from one
// call to the next, so that encoding a column allocates little. What its
// Encode returns is valid until its next call.
type Encoder struct {
	p    parser
	meta []byte
}

// Encode is the package's Encode, into the encoder's buffers.
func (e *Encoder) Encode(text string) (metadata, value []byte, err error) {
	if !utf8.ValidString(text) {
		return nil, nil, errors.New("not valid UTF-8")
	}
	p := &e.p
	p.reset(text)
	p.collect = true
	if err := p.document(); err != nil {
		return nil, nil, err
	}
	slices.Sort(p.dict)
	p.dict = slices.Compact(p.dict)
	e.meta = appendMetadata(e.meta[:0], p.dict)
	p.at, p.encode, p.collect = 0, true, false
	if err := p.document(); err != nil {
		return nil, nil, err // the first pass would have failed
	}
	return e.meta, p.out, nil
}

// Valid is the package's Valid, with the encoder's buffers.
func (e *Encoder) Valid(text string) error {
	if !utf8.ValidString(text) {
		return errors.New("not valid UTF-8")
	}
	e.p.reset(text)
	return e.p.document()
}

// reset readies p for text, keeping its buffers.
func (p *parser) reset(text string) {
	*p = parser{s: text, dict: p.dict[:0], out: p.out[:0], str: p.str[:0],
		fields: p.fields[:0], offs: p.offs[:0], head: p.head[:0]}
}

// appendMetadata appends the metadata of a sorted dictionary of unique
// keys to b.
func appendMetadata(b []byte, dict []string) []byte {
	total := 0
	for _, k := range dict {
		total += len(k)
	}
	size := uintSize(max(total, len(dict)))
	b = slices.Grow(b, 1+size*(len(dict)+2)+total)
	b = append(b, byte(1|0x10|(size-1)<<6)) // version 1, sorted and unique
	b = appendUint(b, len(dict), size)
	off := 0
	b = appendUint(b, 0, size)
	for _, k := range dict {
		off += len(k)
		b = appendUint(b, off, size)
	}
	for _, k := range dict {
		b = append(b, k...)
	}
	return b
}

// uintSize is the bytes (1 to 4) an unsigned v needs.
func uintSize(v int) int {
	switch {
	case v < 1<<8:
		return 1
	case v < 1<<16:
		return 2
	case v < 1<<24:
		return 3
	}
	return 4
}

func appendUint(b []byte, v, size int) []byte {
	for i := range size {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

// parser reads JSON text; with encode set it appends the variant value to
// out, else it only checks the text (and, with collect, gathers its keys
// in dict).
type parser struct {
	s       string
	at      int
	dict    []string // the keys: gathered (collect), then sorted and unique (encode)
	collect bool
	encode  bool
	out     []byte
	depth   int
	str     []byte  // scratch for unescaped strings
	fields  []field // the open objects' members, innermost last
	offs    []int   // the open arrays' element offsets, innermost last
	head    []byte  // scratch for a container's header
}

func (p *parser) fail(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", p.at, fmt.Sprintf(format, args...))
}

func (p *parser) space() {
	for p.at < len(p.s) {
		switch p.s[p.at] {
		case ' ', '\t', '\n', '\r':
			p.at++
		default:
			return
		}
	}
}

func (p *parser) document() error {
	p.space()
	if err := p.value(); err != nil {
		return err
	}
	p.space()
	if p.at != len(p.s) {
		return p.fail("text after the JSON value")
	}
	return nil
}

func (p *parser) value() error {
	if p.at >= len(p.s) {
		return p.fail("the text ends where a value should be")
	}
	switch c := p.s[p.at]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		if err != nil {
			return err
		}
		if p.encode {
			p.appendString(s)
		}
		return nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, w := range [...]struct {
		word string
		id   byte
	}{{"null", tNull}, {"true", tTrue}, {"false", tFalse}} {
		if len(p.s)-p.at >= len(w.word) && p.s[p.at:p.at+len(w.word)] == w.word {
			p.at += len(w.word)
			if p.encode {
				p.out = append(p.out, w.id<<2)
			}
			return nil
		}
	}
	return p.fail("not a JSON value")
}

func (p *parser) appendString(s []byte) {
	if len(s) < 64 {
		p.out = append(p.out, byte(len(s))<<2|basicShortString)
	} else {
		p.out = append(p.out, tString<<2)
		p.out = binary.LittleEndian.AppendUint32(p.out, uint32(len(s)))
	}
	p.out = append(p.out, s...)
}

// field is one member of an object being encoded: its key's id and where
// its value starts in out (relative to the object's first value).
type field struct {
	key string
	id  int
	off int
}

func (p *parser) object() error {
	if p.depth++; p.depth > MaxDepth {
		return p.fail("nested deeper than %d", MaxDepth)
	}
	p.at++ // {
	start := len(p.out)
	base := len(p.fields)
	p.space()
	if p.at < len(p.s) && p.s[p.at] == '}' {
		p.at++
	} else {
		for {
			p.space()
			if p.at >= len(p.s) || p.s[p.at] != '"' {
				return p.fail("want an object key")
			}
			key, err := p.key()
			if err != nil {
				return err
			}
			p.space()
			if p.at >= len(p.s) || p.s[p.at] != ':' {
				return p.fail("want : after key %q", key)
			}
			p.at++
			p.space()
			p.fields = append(p.fields, field{key: key, off: len(p.out) - start})
			if p.collect {
				p.dict = append(p.dict, key)
			}
			if err := p.value(); err != nil {
				return err
			}
			p.space()
			if p.at < len(p.s) && p.s[p.at] == ',' {
				p.at++
				continue
			}
			if p.at < len(p.s) && p.s[p.at] == '}' {
				p.at++
				break
			}
			return p.fail("want , or } in an object")
		}
	}
	p.depth--
	fields := p.fields[base:]
	defer func() { p.fields = p.fields[:base] }()
	slices.SortFunc(fields, func(a, b field) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	for i := 1; i < len(fields); i++ {
		if fields[i-1].key == fields[i].key {
			return fmt.Errorf("key %q twice in one object", fields[i].key)
		}
	}
	if !p.encode {
		return nil
	}
	maxID := 0
	for i := range fields {
		fields[i].id, _ = slices.BinarySearch(p.dict, fields[i].key)
		maxID = max(maxID, fields[i].id)
	}
	size := len(p.out) - start
	idSize, offSize := uintSize(maxID), uintSize(size)
	large := len(fields) > 255
	h := byte(offSize-1) | byte(idSize-1)<<2
	if large {
		h |= 16
	}
	head := append(p.head[:0], h<<2|basicObject)
	head = appendCount(head, len(fields), large)
	for _, f := range fields {
		head = appendUint(head, f.id, idSize)
	}
	for _, f := range fields {
		head = appendUint(head, f.off, offSize)
	}
	head = appendUint(head, size, offSize)
	p.out = slices.Insert(p.out, start, head...)
	p.head = head
	return nil
}

func appendCount(b []byte, n int, large bool) []byte {
	if large {
		return binary.LittleEndian.AppendUint32(b, uint32(n))
	}
	return append(b, byte(n))
}

func (p *parser) array() error {
	if p.depth++; p.depth > MaxDepth {
		return p.fail("nested deeper than %d", MaxDepth)
	}
	p.at++ // [
	start := len(p.out)
	base := len(p.offs)
	defer func() { p.offs = p.offs[:base] }()
	p.space()
	if p.at < len(p.s) && p.s[p.at] == ']' {
		p.at++
	} else {
		for {
			p.space()
			p.offs = append(p.offs, len(p.out)-start)
			if err := p.value(); err != nil {
				return err
			}
			p.space()
			if p.at < len(p.s) && p.s[p.at] == ',' {
				p.at++
				continue
			}
			if p.at < len(p.s) && p.s[p.at] == ']' {
				p.at++
				break
			}
			return p.fail("want , or ] in an array")
		}
	}
	p.depth--
	if !p.encode {
		return nil
	}
	offs := p.offs[base:]
	size := len(p.out) - start
	offSize := uintSize(size)
	large := len(offs) > 255
	h := byte(offSize - 1)
	if large {
		h |= 4
	}
	head := append(p.head[:0], h<<2|basicArray)
	head = appendCount(head, len(offs), large)
	for _, o := range offs {
		head = appendUint(head, o, offSize)
	}
	head = appendUint(head, size, offSize)
	p.out = slices.Insert(p.out, start, head...)
	p.head = head
	return nil
}
