package rows

import "fmt"

// TimeUnit is the unit of numeric times (numbers given for a timestamptz
// column). The zero value is Milliseconds, the unit of JavaScript's Date.now().
type TimeUnit uint8

const (
	Milliseconds TimeUnit = iota // default
	Seconds
	Microseconds
	Nanoseconds
)

// unitNames are the names accepted by ParseTimeUnit, as users write them in
// scripts and table settings. persisted: must not change.
var unitNames = [...]string{Milliseconds: "ms", Seconds: "s", Microseconds: "us", Nanoseconds: "ns"}

func (u TimeUnit) String() string {
	if int(u) < len(unitNames) {
		return unitNames[u]
	}
	return fmt.Sprintf("TimeUnit(%d)", uint8(u))
}

// ParseTimeUnit reads "s", "ms", "us" or "ns".
func ParseTimeUnit(s string) (TimeUnit, error) {
	for u, n := range unitNames {
		if n == s {
			return TimeUnit(u), nil
		}
	}
	return 0, fmt.Errorf("unknown time unit %q (want s, ms, us or ns)", s)
}

// microsPer returns how many microseconds one unit holds; 0 for nanoseconds,
// which are divided instead.
func (u TimeUnit) microsPer() int64 {
	switch u {
	case Seconds:
		return 1_000_000
	case Microseconds:
		return 1
	case Nanoseconds:
		return 0
	default:
		return 1_000
	}
}

// Options control how input is aligned to the schema. The zero value is the
// default: numeric times in milliseconds, unknown columns rejected.
type Options struct {
	// TimeUnit is the unit of numeric times.
	TimeUnit TimeUnit
	// IgnoreUnknown skips columns (CSV header names, NDJSON keys, map keys)
	// that are not in the schema instead of failing with UNKNOWN_COLUMN.
	// _ingest_ts is rejected either way: the writer sets it.
	IgnoreUnknown bool
	// MaxLineBytes and MaxHeaderBytes bound a line and the CSV header
	// line (0: DefaultMaxLineBytes, DefaultMaxHeaderBytes; see limits.go).
	MaxLineBytes, MaxHeaderBytes int64
}
