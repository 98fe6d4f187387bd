package schema

import (
	"fmt"
	"math"
	"time"
)

// Time bounds accepted for the time column: years 0001 through 9999, the range
// every reader's timestamp type can hold.
const (
	MinMicros int64 = -62135596800000000 // 0001-01-01T00:00:00Z
	MaxMicros int64 = 253402300799999999 // 9999-12-31T23:59:59.999999Z
)

// Time bounds of a nanosecond timestamp: all of int64,
// 1677-09-21T00:12:43.145224192Z through 2262-04-11T23:47:16.854775807Z.
const (
	MinNanos int64 = math.MinInt64
	MaxNanos int64 = math.MaxInt64
)

// TimeBounds are the least and greatest value a time column of type t
// holds, in t's unit.
func (t Type) TimeBounds() (lo, hi int64) {
	if t.Nanos() {
		return MinNanos, MaxNanos
	}
	return MinMicros, MaxMicros
}

// ScaleMicros returns microseconds us in units of which a microsecond holds
// per (1 or 1000), saturated at the int64 bounds (a partition's start or
// end past 2262 in nanoseconds).
func ScaleMicros(us, per int64) int64 {
	switch {
	case per == 1:
		return us
	case us > math.MaxInt64/per:
		return math.MaxInt64
	case us < math.MinInt64/per:
		return math.MinInt64
	}
	return us * per
}

// FloorMicros returns v (in units of which a microsecond holds per) in
// whole microseconds, floored: 1 ns before the epoch is -1 µs.
func FloorMicros(v, per int64) int64 {
	if per == 1 {
		return v
	}
	return floorDiv(v, per)
}

// PartitionOf is the partition value of a time column value (in the time
// column's unit: nanoseconds for timestamp_ns, microseconds otherwise).
func (t *Table) PartitionOf(v int64) int32 {
	return t.Partition.Apply(FloorMicros(v, t.TimeField().Type.PerMicro()))
}

// PartitionRange is the half-open range [start, end) of partition value p
// in the time column's unit (saturated at the int64 bounds).
func (t *Table) PartitionRange(p int32) (start, end int64) {
	per := t.TimeField().Type.PerMicro()
	s, e := t.Partition.Range(p)
	return ScaleMicros(s, per), ScaleMicros(e, per)
}

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
