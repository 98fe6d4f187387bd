package partition

import "math"

// Units of a time source, per day and per hour. A class that counts days
// has no hours: hour does not apply to a date.
const (
	microsPerHour = 3_600_000_000
	microsPerDay  = 24 * microsPerHour
	nanosPerHour  = 1000 * microsPerHour
	nanosPerDay   = 1000 * microsPerDay
)

// perDay is how many units of c make a day (1 for a date).
func (c class) perDay() int64 {
	switch c {
	case clsMicros:
		return microsPerDay
	case clsNanos:
		return nanosPerDay
	}
	return 1
}

// perHour is how many units of c make an hour, or 0 when c has no hours.
func (c class) perHour() int64 {
	switch c {
	case clsMicros:
		return microsPerHour
	case clsNanos:
		return nanosPerHour
	}
	return 0
}

// floorDiv is a/b rounded toward negative infinity (b > 0). Iceberg counts
// time before 1970 in whole units that end at the value's start, so
// 1969-12-31T23:59:59 is day -1, not day 0 as Go's truncating / would make it.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// floorMod is a - b*floorDiv(a, b): in [0, b) for b > 0.
func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// civil is the proleptic Gregorian date of a day count from 1970-01-01
// (month 1..12, day 1..31). It counts in 400-year eras of 146097 days, each
// starting on March 1 so that the leap day ends a year; this is the
// well-known days-to-civil arithmetic, exact for every int64 day count a
// timestamp can reach.
func civil(days int64) (year int64, month, day int) {
	z := days + 719468 // days from 0000-03-01 to 1970-01-01
	era := floorDiv(z, 146097)
	doe := z - era*146097                                  // day of era, 0..146096
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // year of era, 0..399
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // day of the March-based year, 0..365
	mp := (5*doy + 2) / 153                                // March-based month, 0..11
	day = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		month = int(mp + 3)
	} else {
		month = int(mp - 9)
	}
	year = yoe + era*400
	if month <= 2 {
		year++
	}
	return year, month, day
}

// daysFromCivil is the inverse of civil: the days from 1970-01-01 to the
// first of month (1..12) of year, in the same March-based eras.
func daysFromCivil(year int64, month int) int64 {
	if month <= 2 {
		year--
	}
	era := floorDiv(year, 400)
	yoe := year - era*400
	mp := int64((month + 9) % 12)
	doy := (153*mp + 2) / 5
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// timeOrdinal is the year, month, day or hour transform of v, a time of
// class c: the count of whole units from 1970 to the unit v falls in, as
// Iceberg's 32-bit int. An hour count past ±2^31 (beyond year ±245000) wraps
// as Java's (int) cast wraps it, so even such a value lands in the partition
// Java puts it in.
func timeOrdinal(k Kind, c class, v int64) int64 {
	var n int64
	switch k {
	case Hour:
		n = floorDiv(v, c.perHour())
	case Day:
		n = floorDiv(v, c.perDay())
	default:
		y, m, _ := civil(floorDiv(v, c.perDay()))
		n = y - 1970
		if k == Month {
			n = n*12 + int64(m-1)
		}
	}
	return int64(int32(n))
}

// timeRange is the range [lo, hi) of times of class c that transform k
// maps to ordinal v, saturated at the ends of int64 for an ordinal beyond
// any time (so a pruning test stays correct: it only widens).
func timeRange(k Kind, c class, v int64) (lo, hi int64, ok bool) {
	switch k {
	case Identity:
		return v, satAdd(v, 1), true
	case Hour:
		if c.perHour() == 0 {
			return 0, 0, false
		}
		return satMul(v, c.perHour()), satMul(satAdd(v, 1), c.perHour()), true
	case Day:
		return satMul(v, c.perDay()), satMul(satAdd(v, 1), c.perDay()), true
	case Month, Year:
		months := int64(12)
		if k == Month {
			months = 1
		}
		// An ordinal beyond ±(2^31 years) cannot come from a time; clamp it
		// before the calendar arithmetic, which would overflow.
		const maxMonths = 12 << 31
		first := satMul(v, months)
		first = max(min(first, maxMonths), -maxMonths)
		next := max(min(satAdd(first, months), maxMonths), -maxMonths)
		at := func(m int64) int64 {
			return satMul(daysFromCivil(1970+floorDiv(m, 12), int(floorMod(m, 12))+1), c.perDay())
		}
		return at(first), at(next), true
	}
	return 0, 0, false
}

// satAdd is a+b, clamped to the int64 range.
func satAdd(a, b int64) int64 {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		if b > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return s
}

// satMul is a*b for b > 0, clamped to the int64 range.
func satMul(a, b int64) int64 {
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	if a < math.MinInt64/b {
		return math.MinInt64
	}
	return a * b
}
