package rows

import "github.com/timelake/timelake/internal/core/civil"

// AppendMicrosText appends microseconds since the epoch as
// 2006-01-02T15:04:05.000000 (with a Z when zone), as scan prints a
// timestamp inside a nested value; computed here because the core names no
// function of package time (package civil).
func AppendMicrosText(b []byte, us int64, zone bool) []byte {
	days := civil.FloorDiv(us, 86_400_000_000)
	b = civil.AppendDate(b, days)
	b = append(b, 'T')
	b = civil.AppendClock(b, us-days*86_400_000_000, 1_000_000)
	if zone {
		b = append(b, 'Z')
	}
	return b
}

// AppendNanosText is AppendMicrosText of nanoseconds: 9 fraction digits.
func AppendNanosText(b []byte, ns int64, zone bool) []byte {
	us := civil.FloorDiv(ns, 1000)
	sub := ns - us*1000
	b = AppendMicrosText(b, us, false)
	b = append(b, byte('0'+sub/100), byte('0'+sub/10%10), byte('0'+sub%10))
	if zone {
		b = append(b, 'Z')
	}
	return b
}
