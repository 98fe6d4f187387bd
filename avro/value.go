package avro

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// Decode reads one value of schema s from the front of b and returns it with
// the bytes that follow. Values map to Go as:
//
//	null → nil            boolean → bool       int → int32     long → int64
//	float → float32       double → float64     bytes, fixed → []byte (aliasing b)
//	string → string       enum → string        array → []any   map → map[string]any
//	record → map[string]any keyed by field name
//	union → the value of the branch taken (nil for the null branch)
//
// Logical types do not change the Go value (a date is an int32).
func Decode(s *Schema, b []byte) (v any, rest []byte, err error) {
	d := &decoder{b: b}
	v, err = d.value(s, 0)
	if err != nil {
		return nil, nil, err
	}
	return v, b[d.pos:], nil
}

func (d *decoder) value(s *Schema, depth int) (any, error) {
	if depth > maxDepth {
		return nil, d.errf("values nested more than %d levels", maxDepth)
	}
	switch s.Type {
	case TypeNull:
		return nil, nil
	case TypeBoolean:
		return d.boolean()
	case TypeInt:
		return d.int()
	case TypeLong:
		return d.long()
	case TypeFloat:
		return d.float()
	case TypeDouble:
		return d.double()
	case TypeBytes:
		return d.bytes()
	case TypeString:
		b, err := d.bytes()
		return string(b), err
	case TypeFixed:
		return d.fixed(s.Size)
	case TypeEnum:
		i, err := d.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(s.Symbols)) {
			return nil, d.errf("enum %s index %d out of range", s.FullName(), i)
		}
		return s.Symbols[i], nil
	case TypeUnion:
		i, err := d.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(s.Branches)) {
			return nil, d.errf("union branch %d out of range (%d branches)", i, len(s.Branches))
		}
		return d.value(s.Branches[i], depth+1)
	case TypeRecord:
		m := make(map[string]any, len(s.Fields))
		for _, f := range s.Fields {
			v, err := d.value(f.Type, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", s.FullName(), f.Name, err)
			}
			m[f.Name] = v
		}
		return m, nil
	case TypeArray:
		min := s.Items.minSize(map[*Schema]bool{})
		var out []any
		for {
			n, err := d.blockCount(min)
			if err != nil {
				return nil, err
			}
			if n == 0 {
				break
			}
			if out == nil {
				out = make([]any, 0, n)
			}
			for ; n > 0; n-- {
				v, err := d.value(s.Items, depth+1)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	case TypeMap:
		min := 1 + s.Values.minSize(map[*Schema]bool{})
		out := map[string]any{}
		for {
			n, err := d.blockCount(min)
			if err != nil {
				return nil, err
			}
			if n == 0 {
				break
			}
			for ; n > 0; n-- {
				k, err := d.bytes()
				if err != nil {
					return nil, err
				}
				v, err := d.value(s.Values, depth+1)
				if err != nil {
					return nil, err
				}
				out[string(k)] = v
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("avro: cannot decode schema type %v", s.Type)
}

// AppendValue encodes v as schema s onto dst. It accepts the Go values Decode
// returns, and also int, int32, int64 for int/long (range-checked), float64
// for float, string for bytes, map[string]any for records (a missing field is
// written as null when its type allows null) and []any or typed slices of
// the primitives for arrays. A union takes the first branch v fits.
func AppendValue(dst []byte, s *Schema, v any) ([]byte, error) {
	return appendValue(dst, s, v, 0)
}

func appendValue(dst []byte, s *Schema, v any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("avro: values nested more than %d levels", maxDepth)
	}
	bad := func() ([]byte, error) {
		return nil, fmt.Errorf("avro: cannot encode %T as %v", v, s.Type)
	}
	switch s.Type {
	case TypeNull:
		if v != nil {
			return bad()
		}
		return dst, nil
	case TypeBoolean:
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		return AppendBool(dst, b), nil
	case TypeInt, TypeLong:
		var n int64
		switch x := v.(type) {
		case int:
			n = int64(x)
		case int32:
			n = int64(x)
		case int64:
			n = x
		default:
			return bad()
		}
		if s.Type == TypeInt && (n < math.MinInt32 || n > math.MaxInt32) {
			return nil, fmt.Errorf("avro: %d out of int range", n)
		}
		return AppendLong(dst, n), nil
	case TypeFloat:
		switch x := v.(type) {
		case float32:
			return AppendFloat(dst, x), nil
		case float64:
			return AppendFloat(dst, float32(x)), nil
		}
		return bad()
	case TypeDouble:
		x, ok := v.(float64)
		if !ok {
			return bad()
		}
		return AppendDouble(dst, x), nil
	case TypeBytes, TypeString:
		switch x := v.(type) {
		case []byte:
			return AppendBytes(dst, x), nil
		case string:
			return AppendString(dst, x), nil
		}
		return bad()
	case TypeFixed:
		x, ok := v.([]byte)
		if !ok {
			return bad()
		}
		if len(x) != s.Size {
			return nil, fmt.Errorf("avro: fixed %s wants %d bytes, got %d", s.FullName(), s.Size, len(x))
		}
		return append(dst, x...), nil
	case TypeEnum:
		x, ok := v.(string)
		if !ok {
			return bad()
		}
		for i, sym := range s.Symbols {
			if sym == x {
				return AppendLong(dst, int64(i)), nil
			}
		}
		return nil, fmt.Errorf("avro: %q is not a symbol of enum %s", x, s.FullName())
	case TypeUnion:
		for i, b := range s.Branches {
			if !fits(b, v) {
				continue
			}
			return appendValue(AppendUnion(dst, i), b, v, depth+1)
		}
		return nil, fmt.Errorf("avro: %T fits no branch of union %s", v, s)
	case TypeRecord:
		m, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		var err error
		for _, f := range s.Fields {
			if dst, err = appendValue(dst, f.Type, m[f.Name], depth+1); err != nil {
				return nil, fmt.Errorf("%s.%s: %w", s.FullName(), f.Name, err)
			}
		}
		return dst, nil
	case TypeArray:
		items, ok := asSlice(v)
		if !ok {
			return bad()
		}
		if len(items) > 0 {
			dst = AppendLong(dst, int64(len(items)))
			var err error
			for _, it := range items {
				if dst, err = appendValue(dst, s.Items, it, depth+1); err != nil {
					return nil, err
				}
			}
		}
		return AppendLong(dst, 0), nil
	case TypeMap:
		m, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		if len(m) > 0 {
			dst = AppendLong(dst, int64(len(m)))
			var err error
			for _, k := range sortedKeys(m) {
				dst = AppendString(dst, k)
				if dst, err = appendValue(dst, s.Values, m[k], depth+1); err != nil {
					return nil, err
				}
			}
		}
		return AppendLong(dst, 0), nil
	}
	return bad()
}

// fits reports whether v can be encoded as s, for choosing a union branch.
func fits(s *Schema, v any) bool {
	switch v.(type) {
	case nil:
		return s.Type == TypeNull
	case bool:
		return s.Type == TypeBoolean
	case int, int32, int64:
		return s.Type == TypeInt || s.Type == TypeLong
	case float32, float64:
		return s.Type == TypeFloat || s.Type == TypeDouble
	case string:
		return s.Type == TypeString || s.Type == TypeEnum || s.Type == TypeBytes
	case []byte:
		return s.Type == TypeBytes || s.Type == TypeFixed
	case map[string]any:
		return s.Type == TypeRecord || s.Type == TypeMap
	}
	_, ok := asSlice(v)
	return ok && s.Type == TypeArray
}

func asSlice(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case []int64:
		return toAny(x), true
	case []int32:
		return toAny(x), true
	case []string:
		return toAny(x), true
	case []float64:
		return toAny(x), true
	case []map[string]any:
		return toAny(x), true
	}
	return nil, false
}

func toAny[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
