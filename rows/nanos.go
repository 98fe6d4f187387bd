package rows

import (
	"math"
	"strconv"
	"strings"

	"github.com/timelake/timelake/schema"
)

// Values of timestamp_ns and timestamptz_ns columns are int64 nanoseconds
// since the epoch. Every input keeps its nanoseconds: RFC 3339 text with up
// to 9 fraction digits, integers in any time unit, decimal text (a seconds
// epoch "1700000000.123456789" is read digit by digit, not through a
// float), and time.Time. Only a float64 (JSON numbers past 2^53, a JS
// number) rounds, to the nearest nanosecond a float can tell.

// nanosPer is how many nanoseconds one unit holds.
func (u TimeUnit) nanosPer() int64 {
	switch u {
	case Seconds:
		return 1_000_000_000
	case Microseconds:
		return 1_000
	case Nanoseconds:
		return 1
	default:
		return 1_000_000
	}
}

// intTimeNs converts an integer time in unit u to nanoseconds, exactly.
func intTimeNs(v int64, u TimeUnit) (int64, *convErr) {
	m := u.nanosPer()
	if v > schema.MaxNanos/m || v < schema.MinNanos/m {
		return 0, nsRange(strconv.FormatInt(v, 10) + " " + u.String())
	}
	return v * m, nil
}

// floatTimeNs converts a float time in unit u to nanoseconds, rounded to
// the nearest (half away from zero).
func floatTimeNs(f float64, u TimeUnit) (int64, *convErr) {
	ns := f * float64(u.nanosPer())
	r := math.Trunc(ns)
	if math.Abs(ns-r) >= 0.5 {
		r += math.Copysign(1, ns)
	}
	// 2^63 is exactly a float; every float below it fits in int64.
	if !(r >= -0x1p63 && r < 0x1p63) {
		return 0, nsRange(strconv.FormatFloat(f, 'g', -1, 64) + " " + u.String())
	}
	return int64(r), nil
}

// numberTimeNs converts a decimal number in unit u to nanoseconds: an
// integer or a plain decimal exactly (digits below a nanosecond rounded
// half away from zero), a number with an exponent through a float.
func numberTimeNs(s string, isInt bool, u TimeUnit) (int64, *convErr) {
	if isInt {
		v, _, overflow := parseInt(s)
		if overflow {
			return 0, nsRange(shortValue(s) + " " + u.String())
		}
		return intTimeNs(v, u)
	}
	if !strings.ContainsAny(s, "eE") {
		if ns, ok := decimalNanos(s, u.nanosPer()); ok {
			return ns, nil
		}
		return 0, nsRange(shortValue(s) + " " + u.String())
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, nsRange(shortValue(s) + " " + u.String())
	}
	return floatTimeNs(f, u)
}

// decimalNanos reads [sign]digits[.digits] (scanNumber has checked the
// form) times m nanoseconds; ok is false when int64 does not hold it.
func decimalNanos(s string, m int64) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	ip, fp, _ := strings.Cut(s, ".")
	// Work in the magnitude's negative, which reaches math.MinInt64.
	var v int64
	for _, c := range []byte(ip) {
		d := int64(c - '0')
		if v < (math.MinInt64+d)/10 {
			return 0, false
		}
		v = v*10 - d
	}
	if v < math.MinInt64/m {
		return 0, false
	}
	v *= m
	// The fraction's first digits count tenths of a unit and so on: its
	// k-th digit is worth m / 10^k nanoseconds while that is whole.
	var frac int64
	unit := m
	for _, c := range []byte(fp) {
		d := int64(c - '0')
		if unit < 10 {
			if d >= 5 { // the first digit below a nanosecond rounds
				frac++
			}
			break
		}
		unit /= 10
		frac += d * unit
	}
	if v < math.MinInt64+frac {
		return 0, false
	}
	v -= frac
	if !neg {
		if v == math.MinInt64 {
			return 0, false
		}
		v = -v
	}
	return v, true
}
