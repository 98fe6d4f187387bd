package variant

// Encode's scalars: JSON strings, keys and numbers.

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// key reads an object key at p.at: a substring of the text when it has no
// escapes (no allocation), else its unescaped copy.
func (p *parser) key() (string, error) {
	start := p.at + 1
	for i := start; i < len(p.s); i++ {
		switch c := p.s[i]; {
		case c == '"':
			p.at = i + 1
			return p.s[start:i], nil
		case c == '\\' || c < 0x20:
			k, err := p.string()
			return string(k), err
		}
	}
	k, err := p.string()
	return string(k), err
}

// string reads a JSON string at p.at and returns its unescaped bytes
// (valid only until the next call).
func (p *parser) string() ([]byte, error) {
	p.at++ // "
	p.str = p.str[:0]
	for {
		if p.at >= len(p.s) {
			return nil, p.fail("the text ends inside a string")
		}
		c := p.s[p.at]
		switch {
		case c == '"':
			p.at++
			return p.str, nil
		case c < 0x20:
			return nil, p.fail("a control character inside a string")
		case c != '\\':
			p.str = append(p.str, c)
			p.at++
			continue
		}
		if p.at+1 >= len(p.s) {
			return nil, p.fail("the text ends inside a string")
		}
		e := p.s[p.at+1]
		p.at += 2
		switch e {
		case '"', '\\', '/':
			p.str = append(p.str, e)
		case 'b':
			p.str = append(p.str, '\b')
		case 'f':
			p.str = append(p.str, '\f')
		case 'n':
			p.str = append(p.str, '\n')
		case 'r':
			p.str = append(p.str, '\r')
		case 't':
			p.str = append(p.str, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return nil, p.fail("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				var r2 rune = -1
				if p.at+1 < len(p.s) && p.s[p.at] == '\\' && p.s[p.at+1] == 'u' {
					p.at += 2
					r2, ok = p.hex4()
					if !ok {
						return nil, p.fail("bad \\u escape")
					}
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return nil, p.fail("a lone UTF-16 surrogate")
				}
			}
			p.str = utf8.AppendRune(p.str, r)
		default:
			return nil, p.fail("bad escape \\%c", e)
		}
	}
}

func (p *parser) hex4() (rune, bool) {
	if len(p.s)-p.at < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.at:p.at+4], 16, 16)
	if err != nil {
		return 0, false
	}
	p.at += 4
	return rune(v), true
}

// number reads a JSON number: an integer literal as the smallest int
// type that holds it, a literal with a fraction and no exponent of at
// most 38 digits as a decimal of its scale, anything else as a double.
func (p *parser) number() error {
	start := p.at
	if p.s[p.at] == '-' {
		p.at++
	}
	intStart := p.at
	digits := func() int {
		n := 0
		for p.at < len(p.s) && p.s[p.at] >= '0' && p.s[p.at] <= '9' {
			p.at++
			n++
		}
		return n
	}
	nInt := digits()
	if nInt == 0 || nInt > 1 && p.s[intStart] == '0' {
		return p.fail("bad number")
	}
	fracStart, nFrac, exp := 0, 0, false
	if p.at < len(p.s) && p.s[p.at] == '.' {
		p.at++
		fracStart = p.at
		if nFrac = digits(); nFrac == 0 {
			return p.fail("bad number")
		}
	}
	if p.at < len(p.s) && (p.s[p.at] == 'e' || p.s[p.at] == 'E') {
		p.at++
		if p.at < len(p.s) && (p.s[p.at] == '+' || p.s[p.at] == '-') {
			p.at++
		}
		if digits() == 0 {
			return p.fail("bad number")
		}
		exp = true
	}
	lit := p.s[start:p.at]
	if !exp && nFrac == 0 {
		if v, err := strconv.ParseInt(lit, 10, 64); err == nil {
			if p.encode {
				p.appendInt(v)
			}
			return nil
		}
	}
	if !exp && nFrac <= 38 {
		// the unscaled value's digits: the integer's and the fraction's
		ds := p.s[intStart : intStart+nInt]
		if nFrac > 0 {
			ds += p.s[fracStart : fracStart+nFrac]
		}
		sig := len(ds)
		for sig > 1 && ds[len(ds)-sig] == '0' {
			sig--
		}
		if sig <= 38 {
			if p.encode {
				p.appendDecimal(ds, sig, nFrac, p.s[start] == '-')
			}
			return nil
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return p.fail("number %s is out of a double's range", lit)
	}
	if p.encode {
		p.out = append(p.out, tDouble<<2)
		p.out = binary.LittleEndian.AppendUint64(p.out, math.Float64bits(f))
	}
	return nil
}

func (p *parser) appendInt(v int64) {
	le := binary.LittleEndian
	switch {
	case v == int64(int8(v)):
		p.out = append(p.out, tInt8<<2, byte(v))
	case v == int64(int16(v)):
		p.out = le.AppendUint16(append(p.out, tInt16<<2), uint16(v))
	case v == int64(int32(v)):
		p.out = le.AppendUint32(append(p.out, tInt32<<2), uint32(v))
	default:
		p.out = le.AppendUint64(append(p.out, tInt64<<2), uint64(v))
	}
}

// appendDecimal encodes the decimal digits ds (sig of them significant,
// at most 38) at scale, negated when neg, in the narrowest decimal type
// its precision allows.
func (p *parser) appendDecimal(ds string, sig, scale int, neg bool) {
	var hi, lo uint64
	for i := len(ds) - sig; i < len(ds); i++ {
		// (hi, lo) = (hi, lo)*10 + digit; 38 digits stay under 2^127
		h1, l1 := bits.Mul64(lo, 10)
		hi = hi*10 + h1
		var c uint64
		lo, c = bits.Add64(l1, uint64(ds[i]-'0'), 0)
		hi += c
	}
	if neg {
		var c uint64
		lo, c = bits.Add64(^lo, 1, 0)
		hi = ^hi + c
	}
	le := binary.LittleEndian
	switch {
	case sig <= 9:
		p.out = le.AppendUint32(append(p.out, tDecimal4<<2, byte(scale)), uint32(lo))
	case sig <= 18:
		p.out = le.AppendUint64(append(p.out, tDecimal8<<2, byte(scale)), lo)
	default:
		p.out = le.AppendUint64(le.AppendUint64(append(p.out, tDecimal16<<2, byte(scale)), lo), hi)
	}
}
