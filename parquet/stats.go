package parquet

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/timelake/timelake/schema"
)

// FileStats is what an Iceberg data-file entry needs to know about a file
// the Writer produced.
type FileStats struct {
	Rows            int64
	RowGroupOffsets []int64 // file offset of each row group (Iceberg split_offsets)
	Columns         []ColumnStats
}

// ColumnStats are one column's statistics over the whole file. Bounds are
// over non-null, non-NaN values and are exact (strings are not truncated:
// Iceberg truncates its own bounds). Only the fields of the column's type are
// set: Int for long/int/timestamptz, Float for double/float, Bool, Str.
type ColumnStats struct {
	CompressedSize     int64 // bytes of the column's chunks on disk, page headers included
	Values             int64 // values, nulls included
	Nulls              int64
	NaNs               int64 // double/float only
	HasBounds          bool
	MinInt, MaxInt     int64
	MinFloat, MaxFloat float64
	MinBool, MaxBool   bool
	MinStr, MaxStr     string
}

// bounds tracks min and max of non-null, non-NaN values.
type bounds struct {
	has        bool
	minI, maxI int64
	minF, maxF float64
	minB, maxB bool
	minS, maxS string
}

// merge folds o into b; strings taken from o are cloned when clone is set,
// so that bounds kept for long do not pin a caller's batch in memory.
func (b *bounds) merge(o *bounds, clone bool) {
	if !o.has {
		return
	}
	if !b.has {
		*b = *o
		if clone {
			b.minS, b.maxS = strings.Clone(o.minS), strings.Clone(o.maxS)
		}
		return
	}
	b.minI, b.maxI = min(b.minI, o.minI), max(b.maxI, o.maxI)
	if o.minF < b.minF || (o.minF == 0 && b.minF == 0 && math.Signbit(o.minF)) {
		b.minF = o.minF
	}
	if o.maxF > b.maxF || (o.maxF == 0 && b.maxF == 0 && !math.Signbit(o.maxF)) {
		b.maxF = o.maxF
	}
	b.minB = b.minB && o.minB
	b.maxB = b.maxB || o.maxB
	if o.minS < b.minS {
		b.minS = o.minS
		if clone {
			b.minS = strings.Clone(o.minS)
		}
	}
	if o.maxS > b.maxS {
		b.maxS = o.maxS
		if clone {
			b.maxS = strings.Clone(o.maxS)
		}
	}
}

// statsTruncate is the length to which string bounds in Parquet statistics
// and the column index are cut. A cut min is a prefix (never above the true
// min). A cut max is rounded up: its last code point that can be incremented
// is, and what follows is dropped, so it stays at or above every value with
// that prefix; when no code point can be (all U+10FFFF, or invalid UTF-8
// with only 0xFF bytes), the full max is kept.
const statsTruncate = 64

// appendBound appends the PLAIN encoding (strings without length) of the
// min (isMax false) or max of b for type t, and whether it is exact.
func appendBound(dst []byte, t schema.Type, b *bounds, isMax bool) ([]byte, bool) {
	switch t {
	case schema.Int:
		v := b.minI
		if isMax {
			v = b.maxI
		}
		return binary.LittleEndian.AppendUint32(dst, uint32(int32(v))), true
	case schema.Long, schema.Timestamptz, schema.Timestamp, schema.TimestamptzNs, schema.TimestampNs:
		v := b.minI
		if isMax {
			v = b.maxI
		}
		return binary.LittleEndian.AppendUint64(dst, uint64(v)), true
	case schema.Float, schema.Double:
		// Parquet's rule for signed zeros: a zero min is written -0, a zero
		// max +0, so either zero is inside the bounds.
		v := b.minF
		if v == 0 {
			v = math.Copysign(0, -1)
		}
		if isMax {
			v = b.maxF
			if v == 0 {
				v = 0
			}
		}
		if t == schema.Float {
			return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(v))), true
		}
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v)), true
	case schema.Boolean:
		v := b.minB
		if isMax {
			v = b.maxB
		}
		if v {
			return append(dst, 1), true
		}
		return append(dst, 0), true
	case schema.String:
		if isMax {
			return appendMaxString(dst, b.maxS)
		}
		s := b.minS
		if len(s) <= statsTruncate {
			return append(dst, s...), true
		}
		cut := statsTruncate
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return append(dst, s[:cut]...), false
	}
	return dst, false
}

func appendMaxString(dst []byte, s string) ([]byte, bool) {
	if len(s) <= statsTruncate {
		return append(dst, s...), true
	}
	cut := statsTruncate
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	p := s[:cut]
	if utf8.ValidString(p) {
		for end := len(p); end > 0; {
			r, size := utf8.DecodeLastRuneInString(p[:end])
			start := end - size
			if r < utf8.MaxRune {
				r++
				if r == 0xD800 { // skip the surrogate range
					r = 0xE000
				}
				dst = append(dst, p[:start]...)
				return utf8.AppendRune(dst, r), false
			}
			end = start
		}
	} else {
		for i := len(p) - 1; i >= 0; i-- {
			if p[i] != 0xFF {
				dst = append(dst, p[:i]...)
				return append(dst, p[i]+1), false
			}
		}
	}
	return append(dst, s...), true
}

// compareBound compares two PLAIN-encoded bounds of type t.
func compareBound(t schema.Type, a, b []byte) int {
	switch t {
	case schema.Int:
		return cmp3(int64(int32(binary.LittleEndian.Uint32(a))), int64(int32(binary.LittleEndian.Uint32(b))))
	case schema.Long, schema.Timestamptz, schema.Timestamp, schema.TimestamptzNs, schema.TimestampNs:
		return cmp3(int64(binary.LittleEndian.Uint64(a)), int64(binary.LittleEndian.Uint64(b)))
	case schema.Float:
		return cmp3(float64(math.Float32frombits(binary.LittleEndian.Uint32(a))), float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
	case schema.Double:
		return cmp3(math.Float64frombits(binary.LittleEndian.Uint64(a)), math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}
	return bytes.Compare(a, b)
}

func cmp3[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
