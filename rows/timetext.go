package rows

import "strconv"

// AppendMicrosText appends microseconds since the epoch as
// 2006-01-02T15:04:05.000000 (with a Z when zone), as scan prints a
// timestamp inside a nested value; computed here because the core names no
// function of package time (civil date from days: H. Hinnant's algorithm).
func AppendMicrosText(b []byte, us int64, zone bool) []byte {
	days := floorDivInt(us, 86_400_000_000)
	rem := us - days*86_400_000_000
	z := days + 719468
	era := floorDivInt(z, 146097)
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
	b = padInt(b, y, 4)
	b = append(b, '-')
	b = padInt(b, m, 2)
	b = append(b, '-')
	b = padInt(b, d, 2)
	b = append(b, 'T')
	b = padInt(b, rem/3_600_000_000, 2)
	b = append(b, ':')
	b = padInt(b, rem/60_000_000%60, 2)
	b = append(b, ':')
	b = padInt(b, rem/1_000_000%60, 2)
	b = append(b, '.')
	b = padInt(b, rem%1_000_000, 6)
	if zone {
		b = append(b, 'Z')
	}
	return b
}

// AppendNanosText is AppendMicrosText of nanoseconds: 9 fraction digits.
func AppendNanosText(b []byte, ns int64, zone bool) []byte {
	us := floorDivInt(ns, 1000)
	sub := ns - us*1000
	b = AppendMicrosText(b, us, false)
	b = append(b, byte('0'+sub/100), byte('0'+sub/10%10), byte('0'+sub%10))
	if zone {
		b = append(b, 'Z')
	}
	return b
}

func padInt(b []byte, v int64, w int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for range w - len(s) {
		b = append(b, '0')
	}
	return append(b, s...)
}

func floorDivInt(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
