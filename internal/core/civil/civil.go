// Package civil prints days and times since 1970-01-01 as the civil
// calendar's date and clock, as scan prints them (YYYY-MM-DD,
// HH:MM:SS.ffffff). The core names no function of package time, so the date
// is computed here, once for every package that prints one (rows' nested
// values, variant's JSON text): H. Hinnant's days-to-civil algorithm.
package civil

import "strconv"

// AppendDate appends days since 1970-01-01 as YYYY-MM-DD, a year before 0
// with a leading '-'.
func AppendDate(b []byte, days int64) []byte {
	z := days + 719468
	era := FloorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	if y < 0 {
		b = append(b, '-')
		y = -y
	}
	b = Pad(b, y, 4)
	b = append(b, '-')
	b = Pad(b, m, 2)
	b = append(b, '-')
	return Pad(b, d, 2)
}

// AppendClock appends a time of day given in units (per a second) as
// HH:MM:SS.ffffff (9 fraction digits for nanoseconds).
func AppendClock(b []byte, t, per int64) []byte {
	b = Pad(b, t/(3600*per), 2)
	b = append(b, ':')
	b = Pad(b, t/(60*per)%60, 2)
	b = append(b, ':')
	b = Pad(b, t/per%60, 2)
	b = append(b, '.')
	w := 6
	if per == 1_000_000_000 {
		w = 9
	}
	return Pad(b, t%per, w)
}

// Pad appends v (not negative) in decimal, zero-padded to w digits.
func Pad(b []byte, v int64, w int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for range w - len(s) {
		b = append(b, '0')
	}
	return append(b, s...)
}

// FloorDiv is a/b rounded toward negative infinity.
func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
