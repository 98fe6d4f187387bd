package variant

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/timelake/timelake/internal/core/civil"
)

// appendFloat appends x in ES6's shortest form (as encoding/json and
// JSON.stringify print it): plain digits from 1e-6 to 1e21, an exponent
// outside; NaN and the infinities as JSON strings.
func appendFloat(b []byte, x float64, size int) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		b = append(b, '"')
		b = strconv.AppendFloat(b, x, 'g', -1, size)
		return append(b, '"')
	}
	if x == 0 {
		x = 0 // -0 prints as 0, as JSON.stringify prints it
	}
	abs := math.Abs(x)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, x, format, -1, size)
	if format == 'e' {
		// e-07 → e-7, as ES6 prints it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendDecimal appends the 128-bit two's complement unscaled value
// (hi, lo) with scale digits after the point: 150 at scale 2 is 1.50.
// ok is false for a value of more than 38 digits, which no decimal type
// holds.
func appendDecimal(b []byte, hi, lo uint64, scale int) (_ []byte, ok bool) {
	if int64(hi) < 0 {
		b = append(b, '-')
		var c uint64
		lo, c = bits.Add64(^lo, 1, 0)
		hi = ^hi + c
	}
	// digits of the 128-bit magnitude, 19 at a time
	var digits [40]byte
	i := len(digits)
	for hi != 0 || lo != 0 {
		var r uint64
		hi, r = bits.Div64(0, hi, 1e19)
		lo, r = bits.Div64(r, lo, 1e19)
		for k := 0; k < 19 && (hi != 0 || lo != 0 || r != 0); k++ {
			i--
			digits[i] = byte('0' + r%10)
			r /= 10
		}
	}
	ds := digits[i:]
	if len(ds) > 38 {
		return b, false
	}
	for len(ds) <= scale { // at least one digit before the point
		i--
		digits[i] = '0'
		ds = digits[i:]
	}
	b = append(b, ds[:len(ds)-scale]...)
	if scale > 0 {
		b = append(b, '.')
		b = append(b, ds[len(ds)-scale:]...)
	}
	return b, true
}

// appendTimestamp appends a quoted timestamp of t units (per a second)
// since the epoch, as scan prints one: 2024-03-01T12:00:00.000000, with a
// Z when zoned.
func appendTimestamp(b []byte, t, per int64, zoned bool) []byte {
	day := 86_400 * per
	days := civil.FloorDiv(t, day)
	b = append(b, '"')
	b = civil.AppendDate(b, days)
	b = append(b, 'T')
	b = civil.AppendClock(b, t-days*day, per)
	if zoned {
		b = append(b, 'Z')
	}
	return append(b, '"')
}
