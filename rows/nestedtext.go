package rows

import (
	"math"
	"strconv"

	"github.com/timelake/timelake/schema"
)

// The leaves of a nested value's JSON text (Column.Strs of a
// schema.Nested column), written alike by every reader that makes it (the
// Parquet reader's assembly, the Arrow reader) and read back by every
// writer that takes it apart (the Arrow writer): a timestamp as the
// string scan prints (6 digits, 9 for the nanosecond types, Z for the
// zoned ones), NaN and ±Inf as strings.

// AppendJSONTime appends v, a timestamp of type t in t's unit
// (microseconds, nanoseconds for the _ns types), as a JSON string:
// "2006-01-02T15:04:05.000000Z".
func AppendJSONTime(b []byte, v int64, t schema.Type) []byte {
	b = append(b, '"')
	if t.Nanos() {
		b = AppendNanosText(b, v, t.Zoned())
	} else {
		b = AppendMicrosText(b, v, t.Zoned())
	}
	return append(b, '"')
}

// AppendJSONFloat appends x as JSON: the shortest text that reads back as
// the same float of bits (32 or 64) bits; NaN, +Inf and -Inf as strings.
func AppendJSONFloat(b []byte, x float64, bits int) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		b = append(b, '"')
		b = strconv.AppendFloat(b, x, 'g', -1, bits)
		return append(b, '"')
	}
	return strconv.AppendFloat(b, x, 'g', -1, bits)
}

// ParseJSONTime reads s, the text of a timestamp of type t as
// AppendJSONTime writes it (without the quotes), back to t's unit: years
// 0001 to 9999, 6 fraction digits (9 for the _ns types), a Z exactly when
// t is zoned. ok is false for any other text.
func ParseJSONTime(s string, t schema.Type) (v int64, ok bool) {
	digits := 6
	if t.Nanos() {
		digits = 9
	}
	n := 20 + digits
	if t.Zoned() {
		n++
		if len(s) != n || s[n-1] != 'Z' {
			return 0, false
		}
	} else if len(s) != n {
		return 0, false
	}
	num := func(i, w int) (int64, bool) {
		x := int64(0)
		for _, c := range []byte(s[i : i+w]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			x = x*10 + int64(c-'0')
		}
		return x, true
	}
	for i, c := range map[int]byte{4: '-', 7: '-', 10: 'T', 13: ':', 16: ':', 19: '.'} {
		if s[i] != c {
			return 0, false
		}
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	h, ok4 := num(11, 2)
	mi, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	frac, ok7 := num(20, digits)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || y < 1 || mo < 1 || mo > 12 || d < 1 ||
		d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	days := daysFromCivil(y, mo, d)
	secs := days*86400 + h*3600 + mi*60 + sec
	if t.Nanos() {
		return secs*1_000_000_000 + frac, true
	}
	return secs*1_000_000 + frac, true
}
