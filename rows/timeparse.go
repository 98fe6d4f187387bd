package rows

import (
	"fmt"

	"github.com/timelake/timelake/schema"
)

// ParseTime reads an RFC 3339 / ISO 8601 time and returns microseconds since
// the Unix epoch, UTC. Accepted forms (see the package doc for the rules):
//
//	2026-11-29T10:00:00Z            T, t or a space between date and time
//	2026-11-29T10:00:00.123456789Z  '.' or ',' then 1 to 9 fraction digits
//	2026-11-29T10:00:00+01:00       offsets ±hh:mm, ±hhmm, ±hh; Z or z for UTC
//	2026-11-29T10:00                seconds may be left out
//	2026-11-29T10:00:00             no zone: UTC
//	2026-11-29                      midnight UTC
//
// Digits below a microsecond are dropped, which is a floor in time (the
// fraction always counts forward from the second). The error is an *Error
// with code BAD_TIME or TIME_OUT_OF_RANGE and no row or column.
//
// It is a hand parser rather than time.Parse: it runs once per row, and the
// common form costs a few nanoseconds this way.
func ParseTime(s string) (int64, error) {
	us, ce := parseTime(s)
	if ce != nil {
		return 0, &Error{Code: ce.code, Value: errValue(s), Msg: ce.msg}
	}
	return us, nil
}

func badTime(s, why string) *convErr {
	return &convErr{CodeBadTime, fmt.Sprintf("cannot parse %q as a time: %s", shortValue(s), why)}
}

const wantTime = "want RFC 3339 like 2026-11-29T10:00:00Z or a date like 2026-11-29"

// digits2 reads two ASCII digits at s[i:i+2]; ok is false if either is not a digit.
func digits2(s string, i int) (int64, bool) {
	if i+2 > len(s) {
		return 0, false
	}
	a, b := s[i]-'0', s[i+1]-'0'
	if a > 9 || b > 9 {
		return 0, false
	}
	return int64(a)*10 + int64(b), true
}

func parseTime(s string) (int64, *convErr) {
	us, _, ce := parseTimeSub(s)
	return us, ce
}

// ParseTimeNanos is ParseTime in nanoseconds, every fraction digit kept:
// the values of a timestamp_ns or timestamptz_ns column. A time outside
// 1677-09-21T00:12:43.145224192Z..2262-04-11T23:47:16.854775807Z is
// TIME_OUT_OF_RANGE.
func ParseTimeNanos(s string) (int64, error) {
	ns, ce := parseTimeNs(s)
	if ce != nil {
		return 0, &Error{Code: ce.code, Value: errValue(s), Msg: ce.msg}
	}
	return ns, nil
}

func parseTimeNs(s string) (int64, *convErr) {
	us, sub, ce := parseTimeSub(s)
	if ce != nil {
		return 0, ce
	}
	ns, ok := nanosOf(us, sub)
	if !ok {
		return 0, nsRange(shortValue(s))
	}
	return ns, nil
}

// nanosOf is us microseconds and sub (0 to 999) nanoseconds in nanoseconds,
// and whether int64 holds it. The least microsecond, whose start is before
// math.MinInt64 ns, holds only its last 808 nanoseconds.
func nanosOf(us, sub int64) (int64, bool) {
	const lo = schema.MinNanos/1000 - 1 // -9223372036854776 µs
	switch {
	case us > (schema.MaxNanos-sub)/1000 || us < lo:
		return 0, false
	case us == lo:
		if sub < 192 {
			return 0, false
		}
		return schema.MinNanos + (sub - 192), true
	}
	return us*1000 + sub, true
}

func nsRange(v any) *convErr {
	return &convErr{CodeTimeOutOfRange, fmt.Sprintf("time %v is outside the nanosecond range 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z", v)}
}

// parseTimeSub parses s into microseconds (floor) and the nanoseconds past
// them (0 to 999, from the 7th to 9th fraction digits).
func parseTimeSub(s string) (us, sub int64, ce *convErr) {
	us, sub, ce = parseTimeParts(s)
	if ce == nil {
		us, ce = checkRange(s, us)
	}
	return us, sub, ce
}

func parseTimeParts(s string) (int64, int64, *convErr) {
	var sub int64
	// Date: YYYY-MM-DD.
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return 0, 0, badTime(s, wantTime)
	}
	y1, ok1 := digits2(s, 0)
	y2, ok2 := digits2(s, 2)
	mon, ok3 := digits2(s, 5)
	day, ok4 := digits2(s, 8)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return 0, 0, badTime(s, wantTime)
	}
	year := y1*100 + y2
	if mon < 1 || mon > 12 {
		return 0, 0, badTime(s, fmt.Sprintf("month %d is not 1 to 12", mon))
	}
	if day < 1 || day > daysIn(year, mon) {
		return 0, 0, badTime(s, fmt.Sprintf("day %d is not in %04d-%02d", day, year, mon))
	}
	us := daysFromCivil(year, mon, day) * microsPerDay
	if len(s) == 10 {
		return us, sub, nil
	}
	if c := s[10]; c != 'T' && c != 't' && c != ' ' {
		return 0, 0, badTime(s, wantTime)
	}
	// Time: HH:MM[:SS[.fffffffff]].
	hh, ok1 := digits2(s, 11)
	mm, ok2 := digits2(s, 14)
	if !ok1 || !ok2 || len(s) < 16 || s[13] != ':' {
		return 0, 0, badTime(s, wantTime)
	}
	if hh > 23 || mm > 59 {
		return 0, 0, badTime(s, fmt.Sprintf("time %s is not a time of day", s[11:16]))
	}
	us += (hh*3600 + mm*60) * 1_000_000
	i := 16
	if i < len(s) && s[i] == ':' {
		ss, ok := digits2(s, i+1)
		if !ok {
			return 0, 0, badTime(s, wantTime)
		}
		if ss > 59 {
			return 0, 0, badTime(s, fmt.Sprintf("second %d is not 0 to 59 (leap seconds are not accepted)", ss))
		}
		us += ss * 1_000_000
		i += 3
		if i < len(s) && (s[i] == '.' || s[i] == ',') {
			i++
			start := i
			var frac int64
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				if i-start < 6 {
					frac = frac*10 + int64(s[i]-'0')
				} else if i-start < 9 {
					sub = sub*10 + int64(s[i]-'0')
				}
				i++
			}
			n := i - start
			if n == 0 {
				return 0, 0, badTime(s, "no digits after the decimal point")
			}
			if n > 9 {
				return 0, 0, badTime(s, "more than 9 fraction digits")
			}
			for k := n; k < 6; k++ {
				frac *= 10
			}
			for k := max(n, 6); k < 9; k++ {
				sub *= 10
			}
			us += frac
		}
	}
	// Zone.
	if i == len(s) {
		return us, sub, nil
	}
	switch c := s[i]; c {
	case 'Z', 'z':
		if i+1 != len(s) {
			return 0, 0, badTime(s, "text after the zone")
		}
	case '+', '-':
		oh, ok := digits2(s, i+1)
		if !ok {
			return 0, 0, badTime(s, "bad zone offset (want Z, ±hh:mm or ±hhmm)")
		}
		var om int64
		switch rest := s[i+3:]; {
		case rest == "":
		case len(rest) == 3 && rest[0] == ':':
			om, ok = digits2(rest, 1)
		case len(rest) == 2:
			om, ok = digits2(rest, 0)
		default:
			ok = false
		}
		if !ok || oh > 23 || om > 59 {
			return 0, 0, badTime(s, "bad zone offset (want Z, ±hh:mm or ±hhmm)")
		}
		off := (oh*3600 + om*60) * 1_000_000
		if c == '+' {
			us -= off // 10:00+01:00 is 09:00Z
		} else {
			us += off
		}
	default:
		return 0, 0, badTime(s, wantTime)
	}
	return us, sub, nil
}

const microsPerDay = 86_400_000_000

func checkRange(s string, us int64) (int64, *convErr) {
	if us < schema.MinMicros || us > schema.MaxMicros {
		return 0, &convErr{CodeTimeOutOfRange, fmt.Sprintf("time %q is outside years 0001 to 9999", shortValue(s))}
	}
	return us, nil
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns days since 1970-01-01 of a proleptic Gregorian date
// (Howard Hinnant's algorithm; eras of 400 years make it branch-free).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}
