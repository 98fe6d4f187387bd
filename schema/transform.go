package schema

import (
	"fmt"
	"time"
)

// Time bounds accepted for the time column: years 0001 through 9999, the range
// every reader's timestamp type can hold.
const (
	MinMicros int64 = -62135596800000000 // 0001-01-01T00:00:00Z
	MaxMicros int64 = 253402300799999999 // 9999-12-31T23:59:59.999999Z
)

const microsPerHour = int64(3600_000_000)
const microsPerDay = 24 * microsPerHour

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Apply returns the Iceberg partition value of a timestamp in microseconds:
// days, hours or months since 1970-01-01 (floor for times before it).
func (t Transform) Apply(micros int64) int32 {
	switch t {
	case Hour:
		return int32(floorDiv(micros, microsPerHour))
	case Month:
		d := time.UnixMicro(micros).UTC()
		return int32((d.Year()-1970)*12 + int(d.Month()) - 1)
	default:
		return int32(floorDiv(micros, microsPerDay))
	}
}

// Range returns the half-open time range [start, end) in microseconds covered
// by partition value v.
func (t Transform) Range(v int32) (start, end int64) {
	switch t {
	case Hour:
		return int64(v) * microsPerHour, int64(v+1) * microsPerHour
	case Month:
		y, m := 1970+int(floorDiv(int64(v), 12)), int(int64(v)-floorDiv(int64(v), 12)*12)+1
		s := time.Date(y, time.Month(m), 1, 0, 0, 0, 0, time.UTC)
		return s.UnixMicro(), s.AddDate(0, 1, 0).UnixMicro()
	default:
		return int64(v) * microsPerDay, int64(v+1) * microsPerDay
	}
}

// Format renders partition value v the way Iceberg renders it in paths:
// day "2026-11-29", hour "2026-11-29-10", month "2026-11".
func (t Transform) Format(v int32) string {
	start, _ := t.Range(v)
	d := time.UnixMicro(start).UTC()
	switch t {
	case Hour:
		return fmt.Sprintf("%04d-%02d-%02d-%02d", d.Year(), d.Month(), d.Day(), d.Hour())
	case Month:
		return fmt.Sprintf("%04d-%02d", d.Year(), d.Month())
	default:
		return fmt.Sprintf("%04d-%02d-%02d", d.Year(), d.Month(), d.Day())
	}
}
