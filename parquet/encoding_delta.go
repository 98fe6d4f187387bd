package parquet

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// ---- DELTA_BINARY_PACKED ----

const (
	deltaBlock     = 128
	deltaMiniCount = 4
	deltaMini      = deltaBlock / deltaMiniCount
)

// deltaScratch holds the encoder's per-block buffers.
type deltaScratch struct {
	deltas [deltaBlock]int64
	adj    [deltaBlock]uint64
}

// appendDelta appends v in DELTA_BINARY_PACKED encoding (blocks of 128,
// four miniblocks of 32). Deltas use wrapping arithmetic, in 32 bits for
// INT32 columns (is32) as readers of INT32 expect widths <= 32.
func appendDelta(dst []byte, v []int64, is32 bool, s *deltaScratch) []byte {
	dst = binary.AppendUvarint(dst, deltaBlock)
	dst = binary.AppendUvarint(dst, deltaMiniCount)
	dst = binary.AppendUvarint(dst, uint64(len(v)))
	if len(v) == 0 {
		return binary.AppendUvarint(dst, 0)
	}
	dst = binary.AppendUvarint(dst, zigzag(v[0]))
	prev := v[0]
	deltas, adj := s.deltas[:], s.adj[:]
	for start := 1; start < len(v); start += deltaBlock {
		block := v[start : start+min(deltaBlock, len(v)-start)]
		cnt := len(block)
		minD := int64(math.MaxInt64)
		// 8 values a round (see pack64)
		b, d := block, deltas[:cnt]
		if is32 {
			for len(b) >= 8 {
				x, e := b[:8], d[:8]
				e[0] = int64(int32(x[0] - prev))
				e[1] = int64(int32(x[1] - x[0]))
				e[2] = int64(int32(x[2] - x[1]))
				e[3] = int64(int32(x[3] - x[2]))
				e[4] = int64(int32(x[4] - x[3]))
				e[5] = int64(int32(x[5] - x[4]))
				e[6] = int64(int32(x[6] - x[5]))
				e[7] = int64(int32(x[7] - x[6]))
				prev = x[7]
				minD = min(minD, e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7])
				b, d = b[8:], d[8:]
			}
			for k, x := range b {
				e := int64(int32(x - prev))
				prev = x
				d[k] = e
				minD = min(minD, e)
			}
		} else {
			for len(b) >= 8 {
				x, e := b[:8], d[:8]
				e[0] = x[0] - prev
				e[1] = x[1] - x[0]
				e[2] = x[2] - x[1]
				e[3] = x[3] - x[2]
				e[4] = x[4] - x[3]
				e[5] = x[5] - x[4]
				e[6] = x[6] - x[5]
				e[7] = x[7] - x[6]
				prev = x[7]
				minD = min(minD, e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7])
				b, d = b[8:], d[8:]
			}
			for k, x := range b {
				e := x - prev
				prev = x
				d[k] = e
				minD = min(minD, e)
			}
		}
		dst = binary.AppendUvarint(dst, zigzag(minD))
		d, as := deltas[:cnt], adj[:cnt]
		if is32 {
			for len(d) >= 8 {
				e, a := d[:8], as[:8]
				a[0] = uint64(uint32(e[0] - minD))
				a[1] = uint64(uint32(e[1] - minD))
				a[2] = uint64(uint32(e[2] - minD))
				a[3] = uint64(uint32(e[3] - minD))
				a[4] = uint64(uint32(e[4] - minD))
				a[5] = uint64(uint32(e[5] - minD))
				a[6] = uint64(uint32(e[6] - minD))
				a[7] = uint64(uint32(e[7] - minD))
				d, as = d[8:], as[8:]
			}
			for k, e := range d {
				as[k] = uint64(uint32(e - minD))
			}
		} else {
			for len(d) >= 8 {
				e, a := d[:8], as[:8]
				a[0] = uint64(e[0] - minD)
				a[1] = uint64(e[1] - minD)
				a[2] = uint64(e[2] - minD)
				a[3] = uint64(e[3] - minD)
				a[4] = uint64(e[4] - minD)
				a[5] = uint64(e[5] - minD)
				a[6] = uint64(e[6] - minD)
				a[7] = uint64(e[7] - minD)
				d, as = d[8:], as[8:]
			}
			for k, e := range d {
				as[k] = uint64(e - minD)
			}
		}
		clear(adj[cnt:])
		var widths [deltaMiniCount]uint
		used := (cnt + deltaMini - 1) / deltaMini
		for m := range used {
			var or uint64
			for a := adj[m*deltaMini : (m+1)*deltaMini]; len(a) >= 8; a = a[8:] {
				or |= a[0] | a[1] | a[2] | a[3] | a[4] | a[5] | a[6] | a[7]
			}
			widths[m] = uint(bits.Len64(or))
		}
		dst = append(dst, byte(widths[0]), byte(widths[1]), byte(widths[2]), byte(widths[3]))
		for m := range used {
			dst = pack64(dst, adj[m*deltaMini:(m+1)*deltaMini], widths[m])
		}
	}
	return dst
}

// decodeDelta decodes a DELTA_BINARY_PACKED run of exactly want values from
// src, appending to dst; is32 truncates them to int32. It returns the bytes
// used.
func decodeDelta(dst []int64, src []byte, want int, is32 bool) ([]int64, int, error) {
	pos := 0
	next := func() uint64 {
		if pos < 0 {
			return 0
		}
		v, k := binary.Uvarint(src[pos:])
		if k <= 0 {
			pos = -1
			return 0
		}
		pos += k
		return v
	}
	blockSize, miniCount, total, first := next(), next(), next(), unzigzag(next())
	if pos < 0 {
		return dst, 0, fmt.Errorf("delta header: %w", errShort)
	}
	if blockSize == 0 || blockSize%128 != 0 || blockSize > 1<<16 || miniCount == 0 || blockSize%miniCount != 0 || (blockSize/miniCount)%32 != 0 {
		return dst, 0, fmt.Errorf("delta header: bad block size %d / %d miniblocks", blockSize, miniCount)
	}
	if total != uint64(want) {
		return dst, 0, fmt.Errorf("delta encoding holds %d values, want %d", total, want)
	}
	if want == 0 {
		return dst, pos, nil
	}
	miniSize := int(blockSize / miniCount)
	start := len(dst)
	// the values are written in place: dst grows once, and is cut back to
	// what was decoded if the encoding ends early
	dst = slices.Grow(dst, want)[:start+want]
	out := dst[start:]
	out[0] = first
	prev := first
	got := 1
	var buf [deltaMini]uint64
	for got < want {
		minD := unzigzag(next())
		if pos < 0 || pos+int(miniCount) > len(src) {
			return dst[:start+got], 0, fmt.Errorf("delta block header: %w", errShort)
		}
		widths := src[pos : pos+int(miniCount)]
		pos += int(miniCount)
		for _, wb := range widths {
			if got >= want {
				break
			}
			w := uint(wb)
			if w > 64 {
				return dst[:start+got], 0, fmt.Errorf("delta miniblock bit width %d is over 64", w)
			}
			nbytes := miniSize * int(w) / 8
			m := min(miniSize, want-got)
			if (m*int(w)+7)/8 > len(src)-pos {
				return dst[:start+got], 0, fmt.Errorf("delta miniblock: %w", errShort)
			}
			// 32 values (4w bytes) at a time: miniblocks are multiples of 32
			for k := 0; k < m; k += deltaMini {
				o := out[got+k : got+min(k+deltaMini, m)]
				// 64-bit wrapping arithmetic, truncated for INT32 below:
				// the same result modulo 2^32 whether the writer used 32-bit
				// deltas (as the spec asks) or 64-bit ones (as some do)
				if w == 0 {
					for i := range o {
						prev += minD
						o[i] = prev
					}
					continue
				}
				a := buf[:len(o)]
				unpack64(a, src[pos+k/8*int(w):], w)
				for len(o) >= 8 {
					e, g := o[:8], a[:8]
					prev += minD + int64(g[0])
					e[0] = prev
					prev += minD + int64(g[1])
					e[1] = prev
					prev += minD + int64(g[2])
					e[2] = prev
					prev += minD + int64(g[3])
					e[3] = prev
					prev += minD + int64(g[4])
					e[4] = prev
					prev += minD + int64(g[5])
					e[5] = prev
					prev += minD + int64(g[6])
					e[6] = prev
					prev += minD + int64(g[7])
					e[7] = prev
					o, a = o[8:], a[8:]
				}
				for i := range o {
					prev += minD + int64(a[i])
					o[i] = prev
				}
			}
			pos += min(nbytes, len(src)-pos)
			got += m
		}
	}
	if is32 {
		for i, v := range out {
			out[i] = int64(int32(v))
		}
	}
	return dst, pos, nil
}
