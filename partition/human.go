package partition

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/timelake/timelake/schema"
)

// Human is Iceberg's human-readable form of partition value v (a result of
// Apply for a source of type src), as Java's Transform.toHumanString writes
// it into partition paths (ts_day=2024-01-02) and shows it to users, so the
// same partition has the same name whichever engine wrote it:
//
//	year   "2024"            month  "2024-01"
//	day    "2024-01-02"      hour   "2024-01-02-03"
//	bucket "3"               truncate and identity of long/int "-10"
//	identity of timestamptz  "2024-01-02T03:04:05.000006Z" (Java's
//	                         OffsetDateTime form: seconds and fraction only
//	                         when not zero, fraction in 3, 6 or 9 digits)
//	identity of double/float Java's Double.toString/Float.toString ("1.0E10")
//	string                   as is;  null (and void)  "null"
func (t Transform) Human(src schema.Type, v any) string {
	if v == nil || t.Kind == Void {
		return "null"
	}
	c := classify(src)
	if n, ok := v.(int64); ok {
		switch t.Kind {
		case Year:
			return fmt.Sprintf("%04d", 1970+n)
		case Month:
			return fmt.Sprintf("%04d-%02d", 1970+floorDiv(n, 12), floorMod(n, 12)+1)
		case Day:
			y, m, d := civil(n)
			return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
		case Hour:
			y, m, d := civil(floorDiv(n, 24))
			return fmt.Sprintf("%04d-%02d-%02d-%02d", y, m, d, floorMod(n, 24))
		case Identity:
			switch c {
			case clsMicros:
				return humanTimestamp(floorDiv(n, 1_000_000), floorMod(n, 1_000_000)*1000, "Z")
			case clsNanos:
				return humanTimestamp(floorDiv(n, 1_000_000_000), floorMod(n, 1_000_000_000), "Z")
			case clsDays:
				y, m, d := civil(n)
				return isoDate(y, m, d)
			}
		}
		return strconv.FormatInt(n, 10)
	}
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if src == schema.Float {
			return javaFloat(x, 32)
		}
		return javaFloat(x, 64)
	}
	return fmt.Sprint(v)
}

// humanTimestamp is Java's OffsetDateTime.toString of a time sec seconds and
// nano nanoseconds (0..999999999) after the epoch, in UTC, with zone
// appended: yyyy-MM-ddTHH:mm, then :ss when seconds or fraction are not
// zero, then the fraction in the fewest of 3, 6 or 9 digits that hold it.
func humanTimestamp(sec, nano int64, zone string) string {
	y, mo, d := civil(floorDiv(sec, 86400))
	s := floorMod(sec, 86400)
	var b strings.Builder
	b.WriteString(isoDate(y, mo, d))
	fmt.Fprintf(&b, "T%02d:%02d", s/3600, s/60%60)
	if s%60 != 0 || nano != 0 {
		fmt.Fprintf(&b, ":%02d", s%60)
	}
	switch {
	case nano == 0:
	case nano%1_000_000 == 0:
		fmt.Fprintf(&b, ".%03d", nano/1_000_000)
	case nano%1000 == 0:
		fmt.Fprintf(&b, ".%06d", nano/1000)
	default:
		fmt.Fprintf(&b, ".%09d", nano)
	}
	b.WriteString(zone)
	return b.String()
}

// isoDate is Java's LocalDate.toString: a year of four digits or more, with
// a sign before a negative year and before a year past 9999.
func isoDate(y int64, m, d int) string {
	var ys string
	switch {
	case y > 9999:
		ys = "+" + strconv.FormatInt(y, 10)
	case y < 0:
		ys = fmt.Sprintf("-%04d", -y)
	default:
		ys = fmt.Sprintf("%04d", y)
	}
	return fmt.Sprintf("%s-%02d-%02d", ys, m, d)
}

// javaFloat is Java's Double.toString (bits 64) or Float.toString (bits 32)
// of f: the shortest digits that read back to f, in plain notation with at
// least one fraction digit for 10^-3 <= |f| < 10^7, else as d.dddE±n.
func javaFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, bits) // "-1.25e+10"
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
