//go:build js && wasm

package main

import (
	"strings"
	"syscall/js"
	"unicode/utf8"
	"unsafe"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// columnsToJS is a scan batch in the form client/src/scanwire.ts decodes:
// a few JavaScript calls per column rather than one per cell (a 50k-row
// batch of five columns was 1.5 s cell by cell).
//
//	{length, columns: [{name, kind, nulls?, data?, us?, str?, off?}]}
//
//	kind "f64"  data: float64 per row (double, float, int)
//	     "i64"  data: int64 per row (long; the client makes bigints)
//	     "ts"   data: float64 epoch ms per row (floor), us: uint16 microseconds within the ms
//	     "bool" data: one byte per row, 0 or 1
//	     "str"  str: every value concatenated (one JavaScript string), off: rows+1 int32 UTF-16 offsets
//	     "json" as "str", each value a nested column's JSON text, which the client parses
//	            (big: the type holds a long, integers past 2^53 become bigints)
//	nulls: one byte per row, 1 for null; absent when no row is
//
// latest() hands its rows over the same way.
func columnsToJS(b *rows.Batch) js.Value {
	n := b.Len
	cols := jsArray.New(len(b.Schema.Fields))
	for c, f := range b.Schema.Fields {
		col := &b.Cols[c]
		o := jsObject.New()
		o.Set("name", f.Name)
		if nulls := col.Nulls; nulls != nil && anyTrue(nulls[:n]) {
			o.Set("nulls", toJSBytes(boolBytes(nulls[:n])))
		}
		switch f.Type {
		case schema.Long:
			o.Set("kind", "i64")
			o.Set("data", toJSBytes(sliceBytes(padded(col.Ints, n))))
		case schema.Int:
			ints := padded(col.Ints, n)
			fs := make([]float64, n)
			for i, v := range ints {
				fs[i] = float64(v)
			}
			o.Set("kind", "f64")
			o.Set("data", toJSBytes(sliceBytes(fs)))
		case schema.Timestamptz, schema.Timestamp:
			ints := padded(col.Ints, n)
			ms := make([]float64, n)
			us := make([]uint16, n)
			for i, v := range ints {
				m, r := v/1000, v%1000
				if r < 0 {
					m, r = m-1, r+1000
				}
				ms[i], us[i] = float64(m), uint16(r)
			}
			o.Set("kind", "ts")
			o.Set("data", toJSBytes(sliceBytes(ms)))
			o.Set("us", toJSBytes(sliceBytes(us)))
		case schema.TimestamptzNs, schema.TimestampNs:
			// milliseconds (exact in a float64 for every int64 of ns) and
			// the nanoseconds past them
			ints := padded(col.Ints, n)
			ms := make([]float64, n)
			ns := make([]uint32, n)
			for i, v := range ints {
				m, r := v/1_000_000, v%1_000_000
				if r < 0 {
					m, r = m-1, r+1_000_000
				}
				ms[i], ns[i] = float64(m), uint32(r)
			}
			o.Set("kind", "tsns")
			o.Set("data", toJSBytes(sliceBytes(ms)))
			o.Set("ns", toJSBytes(sliceBytes(ns)))
		case schema.Double, schema.Float:
			o.Set("kind", "f64")
			o.Set("data", toJSBytes(sliceBytes(padded(col.Floats, n))))
		case schema.Boolean:
			o.Set("kind", "bool")
			o.Set("data", toJSBytes(boolBytes(padded(col.Bools, n))))
		default:
			strs := padded(col.Strs, n)
			off := make([]int32, n+1)
			var sb strings.Builder
			size := 0
			for _, s := range strs {
				size += len(s)
			}
			sb.Grow(size)
			pos := int32(0)
			for i, s := range strs {
				l, ok := utf16LenValid(s)
				if !ok { // as TextDecoder would show it, so the offsets agree
					s = strings.ToValidUTF8(s, "\uFFFD")
					l = utf16Len(s)
				}
				sb.WriteString(s)
				pos += l
				off[i+1] = pos
			}
			o.Set("kind", "str")
			if f.Type == schema.Nested {
				o.Set("kind", "json")
				if hasLong(f.Nested) {
					o.Set("big", true)
				}
			}
			o.Set("str", sb.String())
			o.Set("off", toJSBytes(sliceBytes(off)))
		}
		cols.SetIndex(c, o)
	}
	out := jsObject.New()
	out.Set("length", n)
	out.Set("columns", cols)
	return out
}

// padded is s with at least n elements (a column of nulls may carry none).
func padded[T any](s []T, n int) []T {
	if len(s) >= n {
		return s[:n]
	}
	return append(s[:len(s):len(s)], make([]T, n-len(s))...)
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// boolBytes is bs as bytes 0 and 1 (Go's bool layout).
func boolBytes(bs []bool) []byte {
	if len(bs) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&bs[0])), len(bs))
}

// sliceBytes is the memory of s (little-endian, as the client's typed arrays read it).
func sliceBytes[T float64 | int64 | int32 | uint32 | uint16](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(zero)))
}

// utf16Len is the length of valid UTF-8 s in UTF-16 code units.
// utf16LenValid is utf16Len of s and whether s is valid UTF-8, in one
// pass that takes ASCII 8 bytes at a time: the scan's texts are mostly
// ASCII, and validating them and then measuring them was 8% of a scan of
// 100,000 labelled rows in workerd.
func utf16LenValid(s string) (int32, bool) {
	n := int32(0)
	i := 0
	for i < len(s) {
		if i+8 <= len(s) {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if w&0x8080808080808080 == 0 {
				n += 8
				i += 8
				continue
			}
		}
		if s[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			return 0, false
		}
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += w
	}
	return n, true
}

func utf16Len(s string) int32 {
	n := int32(0)
	for i := 0; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			n++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += w - 1
	}
	return n
}
