package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Value is one value of a column, held as a row holds it: Int for integer
// and time columns (microseconds), Float for float and double, Bool, Str.
type Value struct {
	Int   int64
	Float float64
	Bool  bool
	Str   string
}

// ParseDefault reads a column default as Iceberg's metadata writes it (the
// JSON single-value serialization: a number, a boolean, a string; a
// timestamp as an ISO-8601 string, with an offset for timestamptz). A JSON
// null is no default (nil).
func ParseDefault(t Type, raw json.RawMessage) (*Value, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("default %s: %v", raw, err)
	}
	bad := func() (*Value, error) { return nil, fmt.Errorf("default %s is not a %s value", raw, t) }
	switch {
	case t == Long || t == Int:
		n, ok := v.(json.Number)
		if !ok {
			return bad()
		}
		i, err := n.Int64()
		if err != nil || (t == Int && (i < math.MinInt32 || i > math.MaxInt32)) {
			return bad()
		}
		return &Value{Int: i}, nil
	case t.IsFloat():
		n, ok := v.(json.Number)
		if !ok {
			return bad()
		}
		f, err := n.Float64()
		if err != nil {
			return bad()
		}
		return &Value{Float: f}, nil
	case t == Boolean:
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		return &Value{Bool: b}, nil
	case t == String:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		return &Value{Str: s}, nil
	case t.IsTime():
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		layouts := []string{"2006-01-02T15:04:05.999999Z07:00", "2006-01-02T15:04:05.999999"}
		if t.Nanos() {
			layouts = []string{"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999"}
		}
		if !t.Zoned() {
			layouts = layouts[1:]
		}
		for _, l := range layouts {
			tm, err := time.Parse(l, s)
			switch {
			case err != nil:
			case !t.Nanos():
				return &Value{Int: tm.UnixMicro()}, nil
			case time.Unix(0, tm.UnixNano()).Equal(tm): // int64 nanoseconds hold it
				return &Value{Int: tm.UnixNano()}, nil
			}
		}
		return bad()
	}
	return bad()
}

// DefaultJSON is v as Iceberg's metadata writes a default of type t.
func DefaultJSON(t Type, v *Value) json.RawMessage {
	var out any
	switch {
	case t == Long || t == Int:
		out = v.Int
	case t.IsFloat():
		out = v.Float
	case t == Boolean:
		out = v.Bool
	case t == String:
		out = v.Str
	case t == Timestamptz:
		out = time.UnixMicro(v.Int).UTC().Format("2006-01-02T15:04:05.000000+00:00")
	case t == Timestamp:
		out = time.UnixMicro(v.Int).UTC().Format("2006-01-02T15:04:05.000000")
	case t == TimestamptzNs:
		out = time.Unix(0, v.Int).UTC().Format("2006-01-02T15:04:05.000000000+00:00")
	case t == TimestampNs:
		out = time.Unix(0, v.Int).UTC().Format("2006-01-02T15:04:05.000000000")
	}
	b, _ := json.Marshal(out)
	return b
}
