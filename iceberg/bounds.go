package iceberg

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/timelake/timelake/schema"
)

// Bounds use Iceberg's single-value binary serialization (spec appendix D):
//
//	int, date            4 bytes little-endian
//	long, timestamptz    8 bytes little-endian (microseconds for timestamptz)
//	float, double        IEEE 754 bits, 4 / 8 bytes little-endian
//	boolean              1 byte, 0 or 1
//	string               UTF-8 bytes, no length, no padding
//
// Strings are compared as UTF-8 bytes (= Unicode code point order).

// MetricsTruncateLength is the code-point length of string bounds, Iceberg's
// default metrics mode truncate(16).
const MetricsTruncateLength = 16

// EncodeInt returns the bound of an int or date value.
func EncodeInt(v int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }

// EncodeLong returns the bound of a long or timestamptz value.
func EncodeLong(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }

// EncodeFloat returns the bound of a float value.
func EncodeFloat(v float32) []byte {
	return binary.LittleEndian.AppendUint32(nil, math.Float32bits(v))
}

// EncodeDouble returns the bound of a double value.
func EncodeDouble(v float64) []byte {
	return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))
}

// EncodeBool returns the bound of a boolean value.
func EncodeBool(v bool) []byte {
	if v {
		return []byte{1}
	}
	return []byte{0}
}

// EncodeValue returns the bound of v, held as Column holds it: int64 for
// long, int and timestamptz; float64 for double and float; bool; string.
func EncodeValue(t schema.Type, v any) ([]byte, error) {
	switch x := v.(type) {
	case int64:
		switch t {
		case schema.Long, schema.Timestamptz, schema.Timestamp, schema.TimestamptzNs, schema.TimestampNs:
			return EncodeLong(x), nil
		case schema.Int:
			if x < math.MinInt32 || x > math.MaxInt32 {
				return nil, fmt.Errorf("iceberg: bound %d out of int range", x)
			}
			return EncodeInt(int32(x)), nil
		}
	case float64:
		switch t {
		case schema.Double:
			return EncodeDouble(x), nil
		case schema.Float:
			return EncodeFloat(float32(x)), nil
		}
	case bool:
		if t == schema.Boolean {
			return EncodeBool(x), nil
		}
	case string:
		if t == schema.String {
			return []byte(x), nil
		}
	}
	return nil, fmt.Errorf("iceberg: cannot encode a %T bound for a %v column", v, t)
}

// DecodeValue reads a bound of type t: int64 for long, int and timestamptz;
// float64 for double and float; bool; string. A long or double bound of 4
// bytes is an int or float one, written before the column was promoted
// (files keep the bounds they were written with; Iceberg's Java reader
// reads them so too).
func DecodeValue(t schema.Type, b []byte) (any, error) {
	switch {
	case t == schema.Long && len(b) == 4:
		t = schema.Int
	case t == schema.Double && len(b) == 4:
		t = schema.Float
	}
	want := map[schema.Type]int{schema.Long: 8, schema.Timestamptz: 8, schema.Timestamp: 8, schema.Int: 4,
		schema.TimestamptzNs: 8, schema.TimestampNs: 8,
		schema.Double: 8, schema.Float: 4, schema.Boolean: 1}[t]
	if want != 0 && len(b) != want {
		return nil, fmt.Errorf("iceberg: %v bound has %d bytes, want %d", t, len(b), want)
	}
	switch t {
	case schema.Long, schema.Timestamptz, schema.Timestamp, schema.TimestamptzNs, schema.TimestampNs:
		return int64(binary.LittleEndian.Uint64(b)), nil
	case schema.Int:
		return int64(int32(binary.LittleEndian.Uint32(b))), nil
	case schema.Double:
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	case schema.Float:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), nil
	case schema.Boolean:
		if b[0] > 1 {
			return nil, fmt.Errorf("iceberg: boolean bound byte %d is not 0 or 1", b[0])
		}
		return b[0] == 1, nil
	case schema.String:
		return string(b), nil
	}
	return nil, fmt.Errorf("iceberg: no bound encoding for type %v", t)
}

// StringLowerBound returns the lower bound of a column whose minimum is
// lowest: its first MetricsTruncateLength code points. A prefix never sorts
// above the string.
func StringLowerBound(lowest string) []byte {
	if !utf8.ValidString(lowest) {
		return []byte(lowest[:min(len(lowest), MetricsTruncateLength)])
	}
	n := 0
	for i := range lowest {
		if n == MetricsTruncateLength {
			return []byte(lowest[:i])
		}
		n++
	}
	return []byte(lowest)
}

// StringUpperBound returns the upper bound of a column whose maximum is
// highest. Up to MetricsTruncateLength code points it is highest itself; a longer
// maximum is truncated and its last code point incremented so that the bound
// still sorts at or above highest. When no code point of the prefix can be
// incremented (all U+10FFFF), there is no upper bound and ok is false.
func StringUpperBound(highest string) (bound []byte, ok bool) {
	if !utf8.ValidString(highest) {
		return bytesUpperBound([]byte(highest), MetricsTruncateLength)
	}
	if utf8.RuneCountInString(highest) <= MetricsTruncateLength {
		return []byte(highest), true
	}
	runes := []rune(highest)[:MetricsTruncateLength]
	for i := len(runes) - 1; i >= 0; i-- {
		next := runes[i] + 1
		if next == 0xD800 { // surrogates are not code points; skip them
			next = 0xE000
		}
		if next <= utf8.MaxRune {
			runes[i] = next
			return []byte(string(runes[:i+1])), true
		}
	}
	return nil, false
}

// bytesUpperBound truncates b to n bytes and increments the last byte that
// can be, for strings that are not valid UTF-8.
func bytesUpperBound(b []byte, n int) ([]byte, bool) {
	if len(b) <= n {
		return b, true
	}
	out := append([]byte{}, b[:n]...)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i] < 0xff {
			out[i]++
			return out[:i+1], true
		}
	}
	return nil, false
}
