package partition

import "github.com/timelake/timelake/schema"

// Apply is t of v, a value of a source column of type src held as package
// rows holds it (int64, float64, bool or string), or nil for null. The
// result is nil for a null v and for void; an int64 for bucket and the time
// transforms (Iceberg's int: the bucket, or the years, months, days or hours
// since 1970); and v's own Go type for identity and truncate.
//
// A (t, src) pair ResultType refuses, or a v not of src's Go type, gives
// nil: callers check the spec with ResultType once, not every value.
func (t Transform) Apply(src schema.Type, v any) any {
	return t.apply(classify(src), v)
}

// apply is Apply for a source of class c.
func (t Transform) apply(c class, v any) any {
	if v == nil || t.Kind == Void {
		return nil
	}
	switch x := v.(type) {
	case int64:
		if !c.integral() {
			return nil
		}
		if r, ok := t.applyInt(c, x); ok {
			return r
		}
	case string:
		if c != clsString {
			return nil
		}
		switch t.Kind {
		case Identity:
			return x
		case Truncate:
			return truncateString(x, t.N)
		case Bucket:
			return bucketOf(hashString(x), t.N)
		}
	case float64:
		if c == clsFloat && t.Kind == Identity {
			return x
		}
	case bool:
		if c == clsBool && t.Kind == Identity {
			return x
		}
	}
	return nil
}

// ApplyInt is Apply for a non-null value of an integer source (long, int,
// timestamptz; later date and timestamps), without boxing: a writer calls it
// once per row. It gives the bucket, the truncated value, the time ordinal
// or v itself for identity. Void gives 0, as does a (t, src) pair ResultType
// refuses: the caller writes null for void and checked the pair beforehand.
func (t Transform) ApplyInt(src schema.Type, v int64) int64 {
	r, _ := t.applyInt(classify(src), v)
	return r
}

// applyInt is t of integer v of class c; ok is false when t does not apply.
func (t Transform) applyInt(c class, v int64) (r int64, ok bool) {
	switch t.Kind {
	case Identity:
		return v, true
	case Bucket:
		if c == clsNanos {
			// Appendix B: nanoseconds hash as their microseconds, so a
			// timestamp keeps its bucket when its precision changes.
			v = floorDiv(v, 1000)
		}
		if t.N < 1 {
			return 0, false
		}
		return bucketOf(hashLong(v), t.N), true
	case Truncate:
		if t.N < 1 {
			return 0, false
		}
		switch c {
		case clsInt:
			return truncateInt32(v, t.N), true
		case clsLong:
			return truncateInt64(v, t.N), true
		}
	case Year, Month, Day:
		if c.isTime() {
			return timeOrdinal(t.Kind, c, v), true
		}
	case Hour:
		if c.perHour() > 0 {
			return timeOrdinal(t.Kind, c, v), true
		}
	}
	return 0, false
}

// ApplyString is t of a non-null string: the bucket for Bucket (and "" as
// the string), or the string for Truncate (its first N code points) and
// Identity (and 0 as the bucket). Any other kind gives (0, ""): it does not
// apply to strings. One function rather than two so a writer's per-row loop
// over a string column has one call whatever the transform.
func (t Transform) ApplyString(v string) (int64, string) {
	switch t.Kind {
	case Bucket:
		if t.N < 1 {
			return 0, ""
		}
		return bucketOf(hashString(v), t.N), ""
	case Truncate:
		return 0, truncateString(v, t.N)
	case Identity:
		return 0, v
	}
	return 0, ""
}

// truncateInt32 is the spec's v - (((v % W) + W) % W) in Java's 32-bit int
// arithmetic, wrapping where Java wraps (an int near -2^31 truncates past
// the bottom and wraps to the top), so an int column's partitions match
// Java's bit for bit.
func truncateInt32(v int64, w int) int64 {
	x, n := int32(v), int32(w)
	return int64(x - (((x % n) + n) % n))
}

// truncateInt64 is the spec's v - (((v % W) + W) % W) in 64-bit arithmetic:
// the largest multiple of W at or below v (the remainder taken positive).
func truncateInt64(v int64, w int) int64 {
	n := int64(w)
	return v - (((v % n) + n) % n)
}

// truncateString is the first w code points of s: the spec truncates
// strings by code points, not bytes, so the result stays valid UTF-8 and an
// emoji counts once. A byte of s that is not UTF-8 counts as one code point.
func truncateString(s string, w int) string {
	if w < 1 {
		return ""
	}
	n := 0
	for i := range s {
		if n == w {
			return s[:i]
		}
		n++
	}
	return s
}

// TimeRange is the range [lo, hi) of source values, in the source's unit
// (microseconds for a timestamptz), that partition value v of t covers: a
// whole hour, day, month or year for the time transforms, [v, v+1) for
// identity. ok is false for a transform that does not follow time (bucket,
// truncate, void) and for a source that is not a time. A scan compares its
// time bounds with it to skip a partition.
func (t Transform) TimeRange(src schema.Type, v int64) (lo, hi int64, ok bool) {
	c := classify(src)
	if !c.isTime() {
		return 0, 0, false
	}
	return timeRange(t.Kind, c, v)
}
