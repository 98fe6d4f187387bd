package partition

import "github.com/timelake/timelake/schema"

// class is what a transform needs to know of a source type: how its values
// are held and in which unit a time counts. The transforms are written
// against classes, not schema types, so a type schema adds later is one case
// in classify: the class of a date (days) and of a timestamp_ns
// (nanoseconds) are already handled, and tested through the class.
type class uint8

const (
	clsUnknown class = iota // a type no transform knows: every transform refuses it
	clsInt                  // int: 32-bit, truncated in 32-bit arithmetic as Java does
	clsLong                 // long
	clsMicros               // timestamp, timestamptz: microseconds since the epoch
	clsNanos                // timestamp_ns, timestamptz_ns: nanoseconds since the epoch
	clsDays                 // date: days since 1970-01-01
	clsString               // string: UTF-8
	clsFloat                // double, float (float held widened to float64)
	clsBool                 // boolean
)

// classify is the class of a source column type. A timestamp without zone
// classifies as its zoned type: both count from the epoch and the
// transforms treat them alike (only Human's identity form differs: isLocal).
func classify(t schema.Type) class {
	switch t {
	case schema.Int:
		return clsInt
	case schema.Long:
		return clsLong
	case schema.Timestamptz, schema.Timestamp:
		return clsMicros
	case schema.TimestamptzNs, schema.TimestampNs:
		return clsNanos
	case schema.String:
		return clsString
	case schema.Double, schema.Float:
		return clsFloat
	case schema.Boolean:
		return clsBool
	}
	return clsUnknown
}

// isLocal reports whether t is a timestamp without a zone (timestamp,
// timestamp_ns): its identity partition values print without an offset.
// Its class is that of the zoned type.
func isLocal(t schema.Type) bool {
	return t == schema.Timestamp || t == schema.TimestampNs
}

// integral reports whether values of c are int64s in rows (and so hash as
// Iceberg's longs).
func (c class) integral() bool {
	switch c {
	case clsInt, clsLong, clsMicros, clsNanos, clsDays:
		return true
	}
	return false
}

// isTime reports whether c counts time from the epoch.
func (c class) isTime() bool { return c == clsMicros || c == clsNanos || c == clsDays }
