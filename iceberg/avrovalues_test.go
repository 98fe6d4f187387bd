package iceberg

import "fmt"

// getter reads fields of a record decoded by avro.Decode, remembering the
// first error (a missing field or one of the wrong type) so that a decoder
// can read every field and check once.
type getter struct {
	rec  map[string]any
	path string // prefix for error messages, e.g. "data_file."
	err  error
}

func (g *getter) fail(format string, args ...any) {
	if g.err == nil {
		g.err = fmt.Errorf(format, args...)
	}
}

func (g *getter) get(name string, required bool) any {
	v, ok := g.rec[name]
	if !ok && required {
		g.fail("field %s%s is missing", g.path, name)
	}
	if v == nil && ok && required {
		g.fail("field %s%s is null", g.path, name)
	}
	return v
}

func (g *getter) wrong(name string, v any, want string) {
	g.fail("field %s%s is a %T, want %s", g.path, name, v, want)
}

func (g *getter) int32(name string) int32 {
	v := g.get(name, true)
	if x, ok := v.(int32); ok {
		return x
	}
	if v != nil {
		g.wrong(name, v, "int")
	}
	return 0
}

func (g *getter) int64(name string) int64 {
	v := g.get(name, true)
	n, ok := asInt64(v)
	if !ok && v != nil {
		g.wrong(name, v, "long")
	}
	return n
}

// optInt64 reads an optional int or long; ok is false when it is null or absent.
func (g *getter) optInt64(name string) (int64, bool) {
	v := g.get(name, false)
	if v == nil {
		return 0, false
	}
	n, ok := asInt64(v)
	if !ok {
		g.wrong(name, v, "long")
	}
	return n, ok
}

func (g *getter) optBool(name string) *bool {
	v := g.get(name, false)
	if v == nil {
		return nil
	}
	b, ok := v.(bool)
	if !ok {
		g.wrong(name, v, "boolean")
		return nil
	}
	return &b
}

func (g *getter) bool(name string) bool {
	v := g.get(name, true)
	b, ok := v.(bool)
	if !ok && v != nil {
		g.wrong(name, v, "boolean")
	}
	return b
}

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	}
	return 0, false
}

func (g *getter) string(name string) string {
	v := g.get(name, true)
	s, ok := v.(string)
	if !ok && v != nil {
		g.wrong(name, v, "string")
	}
	return s
}

func (g *getter) optBytes(name string) []byte {
	v := g.get(name, false)
	if v == nil {
		return nil
	}
	b, ok := v.([]byte)
	if !ok {
		g.wrong(name, v, "bytes")
		return nil
	}
	return append([]byte{}, b...) // do not alias the file buffer
}

func (g *getter) record(name string) map[string]any {
	v := g.get(name, true)
	r, ok := v.(map[string]any)
	if !ok && v != nil {
		g.wrong(name, v, "record")
	}
	return r
}

func (g *getter) list(name string) []any {
	v := g.get(name, false)
	if v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		g.wrong(name, v, "array")
	}
	return l
}

func (g *getter) longList(name string) []int64 {
	l := g.list(name)
	if l == nil {
		return nil
	}
	out := make([]int64, 0, len(l))
	for _, it := range l {
		n, ok := asInt64(it)
		if !ok {
			g.wrong(name+"[]", it, "long")
			return nil
		}
		out = append(out, n)
	}
	return out
}

// kv walks an Iceberg int-keyed map (an array of key/value records).
func (g *getter) kv(name string, each func(k int32, v any)) bool {
	l := g.list(name)
	if l == nil {
		return false
	}
	for _, it := range l {
		r, ok := it.(map[string]any)
		k, kok := r["key"].(int32)
		if !ok || !kok {
			g.fail("field %s%s: entry is not a {key: int, value} record", g.path, name)
			return true
		}
		each(k, r["value"])
	}
	return true
}

func (g *getter) longMap(name string) map[int32]int64 {
	m := map[int32]int64{}
	if !g.kv(name, func(k int32, v any) {
		n, ok := asInt64(v)
		if !ok {
			g.wrong(name+" value", v, "long")
		}
		m[k] = n
	}) {
		return nil
	}
	return m
}

func (g *getter) bytesMap(name string) map[int32][]byte {
	m := map[int32][]byte{}
	if !g.kv(name, func(k int32, v any) {
		b, ok := v.([]byte)
		if !ok {
			g.wrong(name+" value", v, "bytes")
		}
		m[k] = append([]byte{}, b...)
	}) {
		return nil
	}
	return m
}
