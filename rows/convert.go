package rows

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/timelake/timelake/schema"
)

// scanNumber reports whether s is a decimal number, [+-]digits[.digits][e[+-]digits]
// (".5" and "5." allowed), and whether it is an integer (no point, no exponent).
func scanNumber(s string) (isInt, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intDigits := i - start
	isInt = true
	if i < len(s) && s[i] == '.' {
		isInt = false
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if intDigits == 0 && i == fs {
			return false, false
		}
	} else if intDigits == 0 {
		return false, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		isInt = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		es := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == es {
			return false, false
		}
	}
	return isInt, i == len(s)
}

// parseInt reads [+-]digits exactly; overflow reports a value outside int64.
func parseInt(s string) (v int64, ok, overflow bool) {
	neg := false
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) {
		return 0, false, false
	}
	var u uint64
	for ; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false, false
		}
		if u > (math.MaxUint64-9)/10 {
			overflow = true // keep scanning: a later non-digit makes it not a number
			continue
		}
		u = u*10 + uint64(d)
	}
	switch {
	case overflow:
	case neg && u <= 1<<63:
		return -int64(u), true, false
	case !neg && u <= math.MaxInt64:
		return int64(u), true, false
	default:
		overflow = true
	}
	return 0, true, overflow
}

// textInt converts text to a long or int: an integer, or a number with a
// point or exponent whose value is an exact integer ("3.0", "1e3").
func textInt(s string, t schema.Type) (int64, *convErr) {
	v, ok, overflow := parseInt(s)
	if !ok {
		isInt, num := scanNumber(s)
		if !num || isInt {
			return 0, mismatch("cannot parse %q as %s", shortValue(s), t)
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, mismatch("%s is out of range for %s", shortValue(s), t)
		}
		return floatInt(f, t)
	}
	if overflow {
		return 0, mismatch("%s is out of range for %s", shortValue(s), t)
	}
	return checkInt(v, t)
}

func checkInt(v int64, t schema.Type) (int64, *convErr) {
	if t == schema.Int && (v < math.MinInt32 || v > math.MaxInt32) {
		return 0, mismatch("%d is out of range for int", v)
	}
	return v, nil
}

// maxExactFloat is 2^53: above it a float64 no longer holds every integer,
// so an integral float there may not be the integer the writer meant.
const maxExactFloat = 1 << 53

func floatInt(f float64, t schema.Type) (int64, *convErr) {
	switch {
	case f != math.Trunc(f): // also NaN and ±Inf
		return 0, mismatch("%v has a fraction; %s wants an integer", f, t)
	case f > maxExactFloat || f < -maxExactFloat:
		return 0, mismatch("%v is beyond ±2^53, where a float is not an exact integer; write it without a point or exponent", f)
	}
	return checkInt(int64(f), t)
}

// textFloat converts text to a double or float: a decimal number, or NaN,
// Inf or Infinity with an optional sign (any case).
func textFloat(s string, t schema.Type) (float64, *convErr) {
	bits := 64
	if t == schema.Float {
		bits = 32
	}
	if _, ok := scanNumber(s); !ok {
		body := strings.TrimLeft(s, "+-")
		if len(s)-len(body) <= 1 {
			switch {
			case strings.EqualFold(body, "nan"):
				return math.NaN(), nil
			case strings.EqualFold(body, "inf"), strings.EqualFold(body, "infinity"):
				if s[0] == '-' {
					return math.Inf(-1), nil
				}
				return math.Inf(1), nil
			}
		}
		return 0, mismatch("cannot parse %q as %s", shortValue(s), t)
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		return 0, mismatch("%s is out of range for %s", shortValue(s), t)
	}
	return f, nil
}

// narrow converts a float64 to a float column's value, failing on overflow.
func narrow(v float64) (float64, *convErr) {
	n := float32(v)
	if math.IsInf(float64(n), 0) && !math.IsInf(v, 0) {
		return 0, mismatch("%v is out of range for float", v)
	}
	return float64(n), nil
}

func textBool(s string) (v, ok bool) {
	switch {
	case s == "1", strings.EqualFold(s, "true"):
		return true, true
	case s == "0", strings.EqualFold(s, "false"):
		return false, true
	}
	return false, false
}

func timeRange(v any, u TimeUnit) *convErr {
	return &convErr{CodeTimeOutOfRange, fmt.Sprintf("time %v (unit %s) is outside years 0001 to 9999", v, u)}
}

// numberTime converts a decimal number in unit u to microseconds.
func numberTime(s string, isInt bool, u TimeUnit) (int64, *convErr) {
	if isInt {
		v, _, overflow := parseInt(s)
		if overflow {
			return 0, timeRange(shortValue(s), u)
		}
		return intTime(v, u)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, timeRange(shortValue(s), u)
	}
	return floatTime(f, u)
}

// intTime converts an integer time in unit u to microseconds; nanoseconds
// are divided with floor, like every sub-microsecond part.
func intTime(v int64, u TimeUnit) (int64, *convErr) {
	var us int64
	switch m := u.microsPer(); m {
	case 0:
		us = v / 1000
		if v%1000 < 0 {
			us--
		}
	case 1:
		us = v
	default:
		if v > schema.MaxMicros/m || v < schema.MinMicros/m {
			return 0, timeRange(v, u)
		}
		us = v * m
	}
	if us < schema.MinMicros || us > schema.MaxMicros {
		return 0, timeRange(v, u)
	}
	return us, nil
}

// floatTime converts a float time in unit u to microseconds, rounded to the
// nearest (half away from zero): a float's decimal digits are not exact in
// binary, so 1700000000.123456 s is 1700000000123455.99… µs and a floor
// would lose a microsecond.
func floatTime(f float64, u TimeUnit) (int64, *convErr) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, timeRange(f, u)
	}
	var us float64
	if m := u.microsPer(); m == 0 {
		us = f / 1000
	} else {
		us = f * float64(m)
	}
	if n, ok := roundMicros(us); ok {
		return n, nil
	}
	return 0, timeRange(f, u)
}

// roundMicros rounds us to the nearest integer (half away from zero, as
// math.Round) and reports whether it is within years 0001 to 9999. Small
// enough to inline: ConvertFloat64s calls it per value.
func roundMicros(us float64) (int64, bool) {
	// math.Round is a call in WebAssembly; Trunc, Abs and Copysign are
	// instructions, and us - Trunc(us) is exact.
	r := math.Trunc(us)
	if math.Abs(us-r) >= 0.5 {
		r += math.Copysign(1, us)
	}
	// The float bounds are a little wider than the int64 ones (rounding);
	// the second check catches the difference. NaN and ±Inf fail the first.
	if !(r >= float64(schema.MinMicros) && r <= float64(schema.MaxMicros)) {
		return 0, false
	}
	n := int64(r)
	return n, n >= schema.MinMicros && n <= schema.MaxMicros
}

// ConvertFloat64s converts every value of vs as Builder.AppendFloat64 would
// for a column of type typ (numeric times in unit u), into ints (long, int,
// timestamptz) or floats (double, float), which are at least len(vs) long. It
// returns the index of the first value AppendFloat64 would refuse, or -1; the
// values before it are converted. A column-at-a-time reader converts in one
// loop and, at a refused value, goes value by value through the Builder for
// the error.
func ConvertFloat64s(typ schema.Type, u TimeUnit, vs []float64, ints []int64, floats []float64) int {
	switch typ {
	case schema.Double:
		copy(floats[:len(vs)], vs)
	case schema.Float:
		floats = floats[:len(vs)]
		for i, v := range vs {
			n, ce := narrow(v)
			if ce != nil {
				return i
			}
			floats[i] = n
		}
	case schema.Long, schema.Int:
		// floatInt's tests inline, with no call per value (costly in
		// WebAssembly); a refused value goes back to floatInt for its error
		ints = ints[:len(vs)]
		lo, hi := float64(-maxExactFloat), float64(maxExactFloat)
		if typ == schema.Int {
			lo, hi = math.MinInt32, math.MaxInt32
		}
		for i, v := range vs {
			if v != math.Trunc(v) || !(v >= lo && v <= hi) { // also NaN and ±Inf
				return i
			}
			ints[i] = int64(v)
		}
	case schema.TimestamptzNs, schema.TimestampNs:
		ints = ints[:len(vs)]
		for i, v := range vs {
			n, ce := floatTimeNs(v, u)
			if ce != nil {
				return i
			}
			ints[i] = n
		}
	case schema.Timestamptz, schema.Timestamp:
		ints = ints[:len(vs)]
		m := u.microsPer()
		scale := float64(m)
		for i, v := range vs {
			us := v * scale
			if m == 0 {
				us = v / 1000 // as floatTime
			}
			n, ok := roundMicros(us)
			if !ok {
				return i
			}
			ints[i] = n
		}
	default:
		if len(vs) > 0 {
			return 0
		}
	}
	return -1
}
