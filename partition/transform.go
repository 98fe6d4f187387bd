// Package partition holds Iceberg's partition transforms: the functions that
// turn a row's source value into the partition value a data file is filed
// under (identity, bucket[N], truncate[W], year, month, day, hour, void), as
// the Iceberg table spec defines them ("Partition Transforms" and Appendix B,
// "32-bit Hash Requirements").
//
// Engines that share a table must agree on every partition value, bit for
// bit, or a reader prunes files that hold its rows. So the results here are
// checked against Iceberg's Java implementation: testdata/java-values.tsv was
// printed by org.apache.iceberg.transforms.Transforms (testdata/java) and
// TestJavaValues compares every row.
//
// Values are held as package rows holds them: int64 for long, int and
// timestamptz (microseconds since the epoch, UTC), float64 for double and
// float, bool, string. Every function that depends on the source column's
// type takes its schema.Type, so a type added to schema later (date,
// timestamp, timestamp_ns) needs one case in classify (and a timestamp
// without zone one in isLocal); the transforms already handle their classes
// (days, nanoseconds), which TestJavaValues checks against Java.
//
//	t, err := partition.Parse("bucket[16]")
//	if err != nil { ... }
//	rt, err := t.ResultType(schema.String) // schema.Int
//	b := t.Apply(schema.String, "iceberg")  // int64(bucket of the string)
//	d, _ := partition.Parse("day")
//	day := d.ApplyInt(schema.Timestamptz, micros) // days since 1970-01-01
//	path := d.Human(schema.Timestamptz, day)        // "2024-01-02"
//
// The package is pure: no I/O, no clock, no randomness.
package partition

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/timelake/timelake/schema"
)

// Kind is the family of a transform. The zero Kind is no transform.
type Kind uint8

const (
	Identity Kind = iota + 1 // the source value, unmodified
	Bucket                   // Murmur3 hash of the value, mod N
	Truncate                 // the value truncated to width W (ints) or W code points (strings)
	Year                     // years since 1970
	Month                    // months since 1970-01
	Day                      // days since 1970-01-01
	Hour                     // hours since 1970-01-01 00:00
	Void                     // always null: a dropped partition field in a v1 table
)

// kindNames are Iceberg's transform names. persisted: must not change.
var kindNames = [...]string{
	Identity: "identity", Bucket: "bucket", Truncate: "truncate",
	Year: "year", Month: "month", Day: "day", Hour: "hour", Void: "void",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Transform is one partition transform. N is the bucket count of a Bucket
// or the width of a Truncate, and 0 for every other kind, so two transforms
// are the same exactly when they are == (and when their Strings are equal).
type Transform struct {
	Kind Kind
	N    int
}

// ErrUnknown is wrapped by Parse's error for a name Iceberg's Java reader
// takes for an unknown transform ("zorder", "days", "bucket[-1]", "day[3]":
// any name that is neither a known name nor bucket or truncate with a
// decimal width in brackets). The spec asks readers to ignore a partition
// field with an unknown transform (only pruning is lost) and writers to
// refuse to write through it, so a caller must tell it from a known
// transform with a bad width ("bucket[0]", "bucket[2147483648]"), which
// Java refuses to read and which does not wrap ErrUnknown.
var ErrUnknown = errors.New("unknown partition transform")

// Parse reads Iceberg's name of a transform: "identity", "bucket[16]",
// "truncate[4]", "year", "month", "day", "hour" or "void". Names match
// without regard to case, as in Iceberg's Java reader, so a transform
// another engine wrote in capitals still reads; String gives the lower-case
// form back. N is decimal digits only and must be 1..2^31-1 (a Java int).
// testdata/java-values.tsv holds what Java makes of many names and
// TestJavaValues holds Parse to it.
func Parse(s string) (Transform, error) {
	if i := strings.IndexByte(s, '['); i >= 0 && strings.HasSuffix(s, "]") {
		k, arg := kindOf(s[:i]), s[i+1:len(s)-1]
		switch {
		case k != Bucket && k != Truncate:
			return Transform{}, fmt.Errorf("partition transform %q: %w (only bucket and truncate take a width)", s, ErrUnknown)
		case arg == "" || strings.TrimLeft(arg, "0123456789") != "":
			return Transform{}, fmt.Errorf("partition transform %q: %w (the width %q is not a decimal number)", s, ErrUnknown, arg)
		}
		n, err := strconv.ParseInt(arg, 10, 64)
		switch {
		case err != nil || n > math.MaxInt32:
			return Transform{}, fmt.Errorf("partition transform %q: the width is more than %d", s, math.MaxInt32)
		case n < 1:
			return Transform{}, fmt.Errorf("partition transform %q: the width must be at least 1", s)
		}
		return Transform{Kind: k, N: int(n)}, nil
	}
	switch k := kindOf(s); k {
	case 0:
		return Transform{}, fmt.Errorf("partition transform %q: %w (want identity, bucket[N], truncate[W], year, month, day, hour or void)", s, ErrUnknown)
	case Bucket, Truncate:
		return Transform{}, fmt.Errorf("partition transform %q: %w (%s needs a width in brackets, as in %s[16])", s, ErrUnknown, k, k)
	default:
		return Transform{Kind: k}, nil
	}
}

// kindOf is the Kind named name (any case), or 0.
func kindOf(name string) Kind {
	for k, n := range kindNames {
		if n != "" && strings.EqualFold(n, name) {
			return Kind(k)
		}
	}
	return 0
}

// String is Iceberg's name of t, as written into table metadata ("day",
// "bucket[16]"); Parse reads it back. persisted: must not change.
func (t Transform) String() string {
	if t.Kind == Bucket || t.Kind == Truncate {
		return t.Kind.String() + "[" + strconv.Itoa(t.N) + "]"
	}
	return t.Kind.String()
}

// ResultType is the type of t's partition values for a source column of
// type src, or an error when the spec does not allow t on src (day of a
// string, bucket of a double, truncate of a boolean, hour of a date).
//
// Year, month, day and hour give schema.Int as the spec's table says;
// Iceberg's Java implementation types day's value as a date (the same
// 32-bit int, annotated), and so do its manifests: a writer of the partition
// struct annotates day's field as a date (package iceberg does).
func (t Transform) ResultType(src schema.Type) (schema.Type, error) {
	switch {
	case t.Kind < Identity || t.Kind > Void:
		return 0, fmt.Errorf("partition transform %s is not a transform", t)
	case (t.Kind == Bucket || t.Kind == Truncate) && (t.N < 1 || t.N > math.MaxInt32):
		return 0, fmt.Errorf("partition transform %s: width must be 1..%d", t, math.MaxInt32)
	case !t.appliesTo(classify(src)):
		return 0, fmt.Errorf("partition transform %s does not apply to a %s column", t, src)
	}
	switch t.Kind {
	case Identity, Truncate, Void:
		return src, nil
	}
	return schema.Int, nil
}

// appliesTo reports whether the spec allows t on a source of class c.
func (t Transform) appliesTo(c class) bool {
	switch t.Kind {
	case Identity, Void:
		return c != clsUnknown
	case Bucket:
		return c.integral() || c == clsString
	case Truncate:
		return c == clsInt || c == clsLong || c == clsString
	case Year, Month, Day:
		return c.isTime()
	case Hour:
		return c == clsMicros || c == clsNanos
	}
	return false
}

// PreservesOrder reports whether t is monotonic (a <= b implies t(a) <=
// t(b)), so a range of source values maps to a range of partition values
// and a scan can prune partitions by range: identity, truncate and the time
// transforms do; bucket scatters and void forgets.
func (t Transform) PreservesOrder() bool {
	switch t.Kind {
	case Identity, Truncate, Year, Month, Day, Hour:
		return true
	}
	return false
}

// Satisfies reports whether rows ordered by t are also ordered by other, so
// a sort order on t meets a requested order on other: any transform
// satisfies itself, identity satisfies every order-preserving transform, a
// finer time transform satisfies a coarser one (hour satisfies day, month
// and year), and anything satisfies void (a constant). Truncates satisfy
// only an equal truncate: which widths nest depends on the source type
// (truncate[2] nests in truncate[4] for ints, truncate[4] in truncate[2] for
// strings), which this method does not take.
func (t Transform) Satisfies(other Transform) bool {
	switch {
	case t == other, other.Kind == Void:
		return true
	case t.Kind == Identity:
		return other.PreservesOrder()
	case t.Kind.timeRank() > 0 && other.Kind.timeRank() > 0:
		return t.Kind.timeRank() >= other.Kind.timeRank()
	}
	return false
}

// timeRank orders the time transforms from coarse to fine; 0 for others.
func (k Kind) timeRank() int {
	switch k {
	case Year:
		return 1
	case Month:
		return 2
	case Day:
		return 3
	case Hour:
		return 4
	}
	return 0
}
