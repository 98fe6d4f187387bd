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
//	identity of timestamptz  "2024-01-02T03:04:05.000006+00:00" (ISO 8601:
//	                         seconds always, the fraction without trailing
//	                         zeros and only when not zero, a year past 9999
//	                         signed "+10000")
//	identity of double/float Java's Double.toString/Float.toString ("1.0E10")
//	boolean "true"           string as is           null (and void) "null"
//
// Years are written with at least four digits ("0001", "-001" as Java's
// %04d): testdata/java-values.tsv holds Java's forms and TestJavaValues
// holds Human to them.
func (t Transform) Human(src schema.Type, v any) string {
	return human(t.Kind, classify(src), isLocal(src), src == schema.Float, v)
}

// human is Human for a source of class c; local is a timestamp without a
// zone, f32 a float column (its values print as Java's float).
func human(k Kind, c class, local, f32 bool, v any) string {
	if v == nil || k == Void {
		return "null"
	}
	// A partition value read from a manifest is an Iceberg int; take it as
	// Apply's int64 rather than print an ordinal as a bare number.
	switch x := v.(type) {
	case int32:
		v = int64(x)
	case int:
		v = int64(x)
	}
	switch x := v.(type) {
	case int64:
		switch {
		case k == Year:
			return fmt.Sprintf("%04d", 1970+x)
		case k == Month:
			return fmt.Sprintf("%04d-%02d", 1970+floorDiv(x, 12), floorMod(x, 12)+1)
		case k == Day, k == Identity && c == clsDays:
			return humanDay(x)
		case k == Hour:
			return fmt.Sprintf("%s-%02d", humanDay(floorDiv(x, 24)), floorMod(x, 24))
		case k == Identity && (c == clsMicros || c == clsNanos):
			zone := "+00:00"
			if local {
				zone = ""
			}
			if c == clsMicros {
				return humanTimestamp(floorDiv(x, 1_000_000), floorMod(x, 1_000_000)*1000, zone)
			}
			return humanTimestamp(floorDiv(x, 1_000_000_000), floorMod(x, 1_000_000_000), zone)
		}
		return strconv.FormatInt(x, 10)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if f32 {
			return javaFloat(x, 32)
		}
		return javaFloat(x, 64)
	}
	return fmt.Sprint(v)
}

// humanDay is Java's form of a day count: yyyy-MM-dd with the year as %04d
// (so year 10000 is "10000", year -1 "-001").
func humanDay(days int64) string {
	y, m, d := civil(days)
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

// humanTimestamp is Java's ISO_LOCAL_DATE_TIME form of a time sec seconds
// and nano nanoseconds (0..999999999) after the epoch, followed by zone:
// yyyy-MM-ddTHH:mm:ss, then the fraction without its trailing zeros when
// it is not zero. The year is ISO's: four digits at least, a sign before a
// negative year and before one past 9999.
func humanTimestamp(sec, nano int64, zone string) string {
	y, mo, d := civil(floorDiv(sec, 86400))
	s := floorMod(sec, 86400)
	var b strings.Builder
	switch {
	case y > 9999:
		b.WriteString("+" + strconv.FormatInt(y, 10))
	case y < 0:
		fmt.Fprintf(&b, "-%04d", -y)
	default:
		fmt.Fprintf(&b, "%04d", y)
	}
	fmt.Fprintf(&b, "-%02d-%02dT%02d:%02d:%02d", mo, d, s/3600, s/60%60, s%60)
	if nano != 0 {
		b.WriteString(strings.TrimRight(fmt.Sprintf(".%09d", nano), "0"))
	}
	b.WriteString(zone)
	return b.String()
}

// javaFloat is Java's Double.toString (bits 64) or Float.toString (bits 32)
// of f as Java specifies it since Java 19 (Java 17, which printed the golden
// file, agrees on every value there): the shortest decimal that reads back to f, but at least two
// significant digits, the two-digit one nearest f when one digit would do
// (so Double.MIN_VALUE is 4.9E-324, not 5.0E-324); plain notation with at
// least one fraction digit for 10^-3 <= |f| < 10^7, else d.dddE±n.
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
	digits, exp := decimalDigits(strconv.FormatFloat(f, 'e', -1, bits))
	if len(digits) == 1 {
		two := strconv.FormatFloat(f, 'e', 1, bits)
		if back, err := strconv.ParseFloat(two, bits); err == nil && back == f {
			digits, exp = decimalDigits(two)
		}
	}
	sign := ""
	if f < 0 {
		sign = "-"
	}
	if a := math.Abs(f); a < 1e-3 || a >= 1e7 {
		frac := digits[1:]
		if frac == "" {
			frac = "0"
		}
		return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	for len(digits) <= exp+1 {
		digits += "0"
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:]
}

// decimalDigits splits strconv's "-d.ddde±xx" into its significant digits
// without trailing zeros (at least one) and the decimal exponent of the
// first.
func decimalDigits(s string) (string, int) {
	mant, e, _ := strings.Cut(strings.TrimPrefix(s, "-"), "e")
	exp, _ := strconv.Atoi(e)
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	if digits == "" {
		digits = "0"
	}
	return digits, exp
}
