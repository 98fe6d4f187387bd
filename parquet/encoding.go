package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Value encodings: encoders append to the buffer they are given and never do
// I/O; decoders check every count and length against the bytes they hold.

var errShort = errors.New("unexpected end of page data")

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// ---- bit packing (LSB first, as Parquet's RLE/bit-packed hybrid and
// DELTA_BINARY_PACKED use it) ----

// The loops below run once per value. In WebAssembly every call, growing
// append and bounds check costs far more than natively, so they write into
// buffers sized beforehand, keep slices in locals and call nothing per value
// (binary.LittleEndian's loads and stores become single wasm loads/stores).

// pack64 appends vals packed at width w (0..64), padded to a whole byte.
// Values must be < 2^w.
func pack64(dst []byte, vals []uint64, w uint) []byte {
	if w == 0 {
		return dst
	}
	start := len(dst)
	nbytes := (len(vals)*int(w) + 7) / 8
	// 8 bytes of slack: the last word is stored whole, then cut off
	dst = slices.Grow(dst, nbytes+8)[:start+nbytes+8]
	out := dst[start:]
	var acc uint64
	n := uint(0) // bits held in acc
	o := 0
	// 8 values a round: in WebAssembly each loop iteration costs a jump
	// through the function's dispatch loop
	for len(vals) >= 8 {
		g := vals[:8]
		acc |= g[0] << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = g[0] >> (w - n)
		}
		acc |= g[1] << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = g[1] >> (w - n)
		}
		acc |= g[2] << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = g[2] >> (w - n)
		}
		acc |= g[3] << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = g[3] >> (w - n)
		}
		acc |= g[4] << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = g[4] >> (w - n)
		}
		acc |= g[5] << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = g[5] >> (w - n)
		}
		acc |= g[6] << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = g[6] >> (w - n)
		}
		acc |= g[7] << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = g[7] >> (w - n)
		}
		vals = vals[8:]
	}
	for _, v := range vals {
		acc |= v << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			// the n bits of v that did not fit (v >> 64 is 0 in Go)
			acc = v >> (w - n)
		}
	}
	binary.LittleEndian.PutUint64(out[o:], acc)
	return dst[:start+nbytes]
}

// pack32 is pack64 for uint32 values (w <= 32).
func pack32(dst []byte, vals []uint32, w uint) []byte {
	if w == 0 {
		return dst
	}
	start := len(dst)
	nbytes := (len(vals)*int(w) + 7) / 8
	// 8 bytes of slack: the last word is stored whole, then cut off
	dst = slices.Grow(dst, nbytes+8)[:start+nbytes+8]
	out := dst[start:]
	var acc uint64
	n := uint(0) // bits held in acc
	o := 0
	// 8 values a round: in WebAssembly each loop iteration costs a jump
	// through the function's dispatch loop
	for len(vals) >= 8 {
		g := vals[:8]
		acc |= uint64(g[0]) << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = uint64(g[0]) >> (w - n)
		}
		acc |= uint64(g[1]) << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = uint64(g[1]) >> (w - n)
		}
		acc |= uint64(g[2]) << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = uint64(g[2]) >> (w - n)
		}
		acc |= uint64(g[3]) << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = uint64(g[3]) >> (w - n)
		}
		acc |= uint64(g[4]) << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = uint64(g[4]) >> (w - n)
		}
		acc |= uint64(g[5]) << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = uint64(g[5]) >> (w - n)
		}
		acc |= uint64(g[6]) << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = uint64(g[6]) >> (w - n)
		}
		acc |= uint64(g[7]) << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			acc = uint64(g[7]) >> (w - n)
		}
		vals = vals[8:]
	}
	for _, v := range vals {
		acc |= uint64(v) << n
		n += w
		if n >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			n -= 64
			// the n bits of v that did not fit (v >> 64 is 0 in Go)
			acc = uint64(v) >> (w - n)
		}
	}
	binary.LittleEndian.PutUint64(out[o:], acc)
	return dst[:start+nbytes]
}

// load64 reads 8 bytes little-endian at off, zero-padding past the end.
func load64(b []byte, off int) uint64 {
	if off+8 <= len(b) {
		return binary.LittleEndian.Uint64(b[off:])
	}
	var v uint64
	for i := 0; off+i < len(b) && i < 8; i++ {
		v |= uint64(b[off+i]) << (8 * i)
	}
	return v
}

// unpackable is how many of the first values at width w can be read from
// src with a whole 8-byte load plus, for a value straddling it, the byte
// after: those are the ones the fast loops of unpack64/unpack32 take.
func unpackable(src []byte, w uint, count int) int {
	if len(src) < 9 {
		return 0
	}
	// value i starts in byte i*w/8, which must be <= len(src)-9
	return min(count, (len(src)-9)*8/int(w)+1)
}

// unpack64 fills dst with values of width w (0..64) from src, which must
// hold at least ceil(len(dst)*w/8) bytes.
func unpack64(dst []uint64, src []byte, w uint) {
	if w == 0 {
		clear(dst)
		return
	}
	mask := uint64(1)<<w - 1 // all ones for w == 64
	bit := uint(0)
	nfast := unpackable(src, w, len(dst))
	fast := dst[:nfast]
	if w <= 56 {
		// a value starts at most 7 bits into its first byte: 8 bytes hold
		// it. 8 values a round (see pack64).
		for len(fast) >= 8 {
			f := fast[:8]
			f[0] = binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask
			bit += w
			f[1] = binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask
			bit += w
			f[2] = binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask
			bit += w
			f[3] = binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask
			bit += w
			f[4] = binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask
			bit += w
			f[5] = binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask
			bit += w
			f[6] = binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask
			bit += w
			f[7] = binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask
			bit += w
			fast = fast[8:]
		}
		for i := range fast {
			fast[i] = binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask
			bit += w
		}
	} else {
		for i := range fast {
			off, sh := bit>>3, bit&7
			v := binary.LittleEndian.Uint64(src[off:]) >> sh
			if sh+w > 64 {
				v |= uint64(src[off+8]) << (64 - sh)
			}
			fast[i] = v & mask
			bit += w
		}
	}
	for i := nfast; i < len(dst); i++ {
		off, sh := int(bit>>3), bit&7
		v := load64(src, off) >> sh
		if sh+w > 64 {
			v |= uint64(src[off+8]) << (64 - sh)
		}
		dst[i] = v & mask
		bit += w
	}
}

// unpack32 is unpack64 for widths up to 32 into uint32s.
func unpack32(dst []uint32, src []byte, w uint) {
	if w == 0 {
		clear(dst)
		return
	}
	mask := uint64(1)<<w - 1
	bit := uint(0)
	nfast := unpackable(src, w, len(dst))
	fast := dst[:nfast]
	for len(fast) >= 8 {
		f := fast[:8]
		f[0] = uint32(binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask)
		bit += w
		f[1] = uint32(binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask)
		bit += w
		f[2] = uint32(binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask)
		bit += w
		f[3] = uint32(binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask)
		bit += w
		f[4] = uint32(binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask)
		bit += w
		f[5] = uint32(binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask)
		bit += w
		f[6] = uint32(binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask)
		bit += w
		f[7] = uint32(binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask)
		bit += w
		fast = fast[8:]
	}
	for i := range fast {
		fast[i] = uint32(binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask)
		bit += w
	}
	for i := nfast; i < len(dst); i++ {
		dst[i] = uint32(load64(src, int(bit>>3)) >> (bit & 7) & mask)
		bit += w
	}
}

// ---- RLE / bit-packed hybrid ----

// appendHybrid appends v (values < 2^w) in the RLE/bit-packed hybrid
// encoding, without a length prefix. Runs of 8 or more equal values become
// RLE runs; the rest is bit-packed in groups of 8 (the last group padded with
// zeros, which readers ignore since they know the count).
func appendHybrid(dst []byte, v []uint32, w uint) []byte {
	byteW := int(w+7) / 8
	n := len(v)
	i := 0
	for i < n {
		x := v[i]
		j := i + 1
		// 8 values a round while the run lasts (see pack64)
		for ; j+8 <= n; j += 8 {
			g := v[j : j+8]
			if g[0] != x || g[1] != x || g[2] != x || g[3] != x || g[4] != x || g[5] != x || g[6] != x || g[7] != x {
				break
			}
		}
		for _, y := range v[j:] {
			if y != x {
				break
			}
			j++
		}
		if j-i >= 8 {
			dst = binary.AppendUvarint(dst, uint64(j-i)<<1)
			for k := 0; k < byteW; k++ {
				dst = append(dst, byte(x))
				x >>= 8
			}
			i = j
			continue
		}
		start, groups := i, 0
		for i < n && groups < 63 {
			i += 8
			groups++
			if i+8 <= n && runOf8(v[i:i+8]) {
				break
			}
		}
		end := min(i, n)
		dst = binary.AppendUvarint(dst, uint64(groups)<<1|1)
		// the padding values are zeros: zero bytes up to the groups' end
		runEnd := len(dst) + groups*int(w)
		dst = pack32(dst, v[start:end], w)
		for len(dst) < runEnd {
			dst = append(dst, 0)
		}
		i = end
	}
	return dst
}

func runOf8(v []uint32) bool {
	x := v[0]
	return v[1] == x && v[2] == x && v[3] == x && v[4] == x && v[5] == x && v[6] == x && v[7] == x
}

// decodeHybrid fills dst from the hybrid encoding in src at width w (<= 32).
// A final bit-packed run may be cut short, as long as it holds the values
// still wanted.
func decodeHybrid(dst []uint32, src []byte, w uint) error {
	if w > 32 {
		return fmt.Errorf("RLE bit width %d is over 32", w)
	}
	byteW := int(w+7) / 8
	pos, filled := 0, 0
	for filled < len(dst) {
		h, k := binary.Uvarint(src[pos:])
		if k <= 0 {
			return fmt.Errorf("RLE run header: %w", errShort)
		}
		pos += k
		if h&1 == 0 {
			count := h >> 1
			if pos+byteW > len(src) {
				return fmt.Errorf("RLE run value: %w", errShort)
			}
			var x uint32
			for b := 0; b < byteW; b++ {
				x |= uint32(src[pos+b]) << (8 * b)
			}
			pos += byteW
			if w < 32 && x>>w != 0 {
				return fmt.Errorf("RLE run value %d wider than %d bits", x, w)
			}
			m := min(count, uint64(len(dst)-filled))
			run := dst[filled : filled+int(m)]
			for len(run) >= 8 {
				g := run[:8]
				g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7] = x, x, x, x, x, x, x, x
				run = run[8:]
			}
			for i := range run {
				run[i] = x
			}
			filled += int(m)
			continue
		}
		groups := h >> 1
		if groups > uint64(len(src)) {
			return fmt.Errorf("bit-packed run of %d groups: %w", groups, errShort)
		}
		count := int(groups) * 8
		nbytes := int(groups) * int(w)
		avail := len(src) - pos
		m := min(count, len(dst)-filled)
		if need := (m*int(w) + 7) / 8; need > avail {
			return fmt.Errorf("bit-packed run: %w", errShort)
		}
		unpack32(dst[filled:filled+m], src[pos:], w)
		filled += m
		pos += min(nbytes, avail)
	}
	return nil
}

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
