package deletionvector

import (
	"fmt"
	"iter"
	"math/bits"
	"slices"
)

// MaxPosition is the greatest position a vector holds: Iceberg's Java
// reader refuses a bucket key past 2³¹-1.
const MaxPosition = 1<<63 - 1

// Container kinds, as Roaring has them.
const (
	kindArray  = iota // sorted uint16 values, at most arrayMax
	kindBitmap        // 1024 words
	kindRuns          // (start, length-1) pairs
)

// arrayMax is the most values an array container holds (Roaring's
// DEFAULT_MAX_SIZE); more are a bitmap.
const arrayMax = 4096

// container holds the low 16 bits of the positions sharing their high 48.
type container struct {
	kind uint8
	vals []uint16 // kindArray: the values; kindRuns: start, length-1, …
	bits []uint64 // kindBitmap: 1024 words
	card int      // 1 … 65536
}

// Vector is a set of row positions of one data file. The zero Vector is
// empty. A Vector is not changed once built (Merge returns a new one).
type Vector struct {
	keys []uint64 // position>>16 of each container, ascending
	cons []container
	card int64
}

// Cardinality is the number of positions in v.
func (v *Vector) Cardinality() int64 {
	if v == nil {
		return 0
	}
	return v.card
}

// Contains reports whether pos is in v.
func (v *Vector) Contains(pos int64) bool {
	if v == nil || pos < 0 {
		return false
	}
	i, ok := slices.BinarySearch(v.keys, uint64(pos)>>16)
	return ok && v.cons[i].contains(uint16(pos))
}

func (c *container) contains(lo uint16) bool {
	switch c.kind {
	case kindBitmap:
		return c.bits[lo>>6]&(1<<(lo&63)) != 0
	case kindRuns:
		// the last run starting at or before lo
		n := len(c.vals) / 2
		lo32 := uint32(lo)
		j := sortSearch(n, func(k int) bool { return uint32(c.vals[2*k]) > lo32 }) - 1
		return j >= 0 && lo32 <= uint32(c.vals[2*j])+uint32(c.vals[2*j+1])
	default:
		_, ok := slices.BinarySearch(c.vals, lo)
		return ok
	}
}

// sortSearch is sort.Search without the import.
func sortSearch(n int, f func(int) bool) int {
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if !f(h) {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// All yields v's positions in ascending order.
func (v *Vector) All() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		if v == nil {
			return
		}
		for i, key := range v.keys {
			if !v.cons[i].each(int64(key<<16), yield) {
				return
			}
		}
	}
}

func (c *container) each(base int64, yield func(int64) bool) bool {
	switch c.kind {
	case kindBitmap:
		for w, word := range c.bits {
			for word != 0 {
				t := bits.TrailingZeros64(word)
				if !yield(base + int64(w*64+t)) {
					return false
				}
				word &= word - 1
			}
		}
	case kindRuns:
		for k := 0; k < len(c.vals); k += 2 {
			start, end := int64(c.vals[k]), int64(c.vals[k])+int64(c.vals[k+1])
			for x := start; x <= end; x++ {
				if !yield(base + x) {
					return false
				}
			}
		}
	default:
		for _, x := range c.vals {
			if !yield(base + int64(x)) {
				return false
			}
		}
	}
	return true
}

// Positions returns v's positions, ascending.
func (v *Vector) Positions() []int64 {
	out := make([]int64, 0, v.Cardinality())
	for p := range v.All() {
		out = append(out, p)
	}
	return out
}

// Of returns the vector of positions (any order, repeats allowed). A
// negative position is an error.
func Of(positions ...int64) (*Vector, error) {
	s := slices.Clone(positions)
	slices.Sort(s)
	s = slices.Compact(s)
	if len(s) > 0 && s[0] < 0 {
		return nil, fmt.Errorf("deletionvector: position %d is negative", s[0])
	}
	var b builder
	for _, p := range s {
		b.add(p)
	}
	return b.done(), nil
}

// Merge returns the union of a and b (either may be nil).
func Merge(a, b *Vector) *Vector {
	x, y := a.Positions(), b.Positions()
	var out builder
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case j == len(y) || (i < len(x) && x[i] < y[j]):
			out.add(x[i])
			i++
		case i == len(x) || y[j] < x[i]:
			out.add(y[j])
			j++
		default: // equal
			out.add(x[i])
			i, j = i+1, j+1
		}
	}
	return out.done()
}

// builder builds a Vector from positions given in ascending order.
type builder struct {
	v    Vector
	key  uint64
	lows []uint16
}

func (b *builder) add(p int64) {
	key := uint64(p) >> 16
	if len(b.lows) > 0 && key != b.key {
		b.flush()
	}
	b.key = key
	b.lows = append(b.lows, uint16(p))
}

func (b *builder) flush() {
	if len(b.lows) == 0 {
		return
	}
	c := container{kind: kindArray, card: len(b.lows)}
	if len(b.lows) <= arrayMax {
		c.vals = slices.Clone(b.lows)
	} else {
		c.kind, c.bits = kindBitmap, make([]uint64, 1024)
		for _, x := range b.lows {
			c.bits[x>>6] |= 1 << (x & 63)
		}
	}
	b.v.keys = append(b.v.keys, b.key)
	b.v.cons = append(b.v.cons, c)
	b.v.card += int64(c.card)
	b.lows = b.lows[:0]
}

func (b *builder) done() *Vector {
	b.flush()
	v := b.v
	return &v
}

// Max is v's greatest position, or -1 when v is empty.
func (v *Vector) Max() int64 {
	if v == nil || len(v.keys) == 0 {
		return -1
	}
	c := &v.cons[len(v.cons)-1]
	var lo int
	switch c.kind {
	case kindBitmap:
		for w := len(c.bits) - 1; w >= 0; w-- {
			if c.bits[w] != 0 {
				lo = w*64 + 63 - bits.LeadingZeros64(c.bits[w])
				break
			}
		}
	case kindRuns:
		n := len(c.vals)
		lo = int(c.vals[n-2]) + int(c.vals[n-1])
	default:
		lo = int(c.vals[len(c.vals)-1])
	}
	return int64(v.keys[len(v.keys)-1]<<16) + int64(lo)
}
