package parquet

// The value codecs as they were before they were tuned for WebAssembly
// (fewer calls, bounds checks and appends per value): plain loops, kept as
// the reference the tuned ones must match byte for byte (encoders) and
// value for value, error for error (decoders). See codec_diff_test.go.

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
)

// pack64 appends vals packed at width w (0..64), padded to a whole byte.
// Values must be < 2^w.
func refPack64(dst []byte, vals []uint64, w uint) []byte {
	if w == 0 {
		return dst
	}
	var acc uint64
	var n uint // bits held in acc
	for _, v := range vals {
		acc |= v << n
		if n+w >= 64 {
			dst = binary.LittleEndian.AppendUint64(dst, acc)
			// the part of v that did not fit (v >> 64 is 0 in Go when n == 0)
			acc = v >> (64 - n)
			n = n + w - 64
		} else {
			n += w
		}
	}
	for ; n > 0; n -= min(n, 8) {
		dst = append(dst, byte(acc))
		acc >>= 8
	}
	return dst
}

// load64 reads 8 bytes little-endian at off, zero-padding past the end.
func refLoad64(b []byte, off int) uint64 {
	if off+8 <= len(b) {
		return binary.LittleEndian.Uint64(b[off:])
	}
	var v uint64
	for i := 0; off+i < len(b) && i < 8; i++ {
		v |= uint64(b[off+i]) << (8 * i)
	}
	return v
}

// unpack64 fills dst with values of width w (0..64) from src, which must
// hold at least ceil(len(dst)*w/8) bytes.
func refUnpack64(dst []uint64, src []byte, w uint) {
	if w == 0 {
		clear(dst)
		return
	}
	mask := uint64(1)<<w - 1 // all ones for w == 64
	bit := uint(0)
	for i := range dst {
		off, sh := int(bit>>3), bit&7
		v := refLoad64(src, off) >> sh
		if sh+w > 64 {
			v |= uint64(src[off+8]) << (64 - sh)
		}
		dst[i] = v & mask
		bit += w
	}
}

// appendHybrid appends v (values < 2^w) in the RLE/bit-packed hybrid
// encoding, without a length prefix. Runs of 8 or more equal values become
// RLE runs; the rest is bit-packed in groups of 8 (the last group padded with
// zeros, which readers ignore since they know the count).
func refAppendHybrid(dst []byte, v []uint32, w uint, scratch []uint64) ([]byte, []uint64) {
	byteW := int(w+7) / 8
	n := len(v)
	i := 0
	for i < n {
		j := i + 1
		for j < n && v[j] == v[i] {
			j++
		}
		if j-i >= 8 {
			dst = binary.AppendUvarint(dst, uint64(j-i)<<1)
			for k, x := 0, v[i]; k < byteW; k++ {
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
			if i+8 <= n && refRunOf8(v[i:i+8]) {
				break
			}
		}
		end := min(i, n)
		scratch = scratch[:0]
		for _, x := range v[start:end] {
			scratch = append(scratch, uint64(x))
		}
		for len(scratch) < groups*8 {
			scratch = append(scratch, 0)
		}
		dst = binary.AppendUvarint(dst, uint64(groups)<<1|1)
		dst = refPack64(dst, scratch, w)
		i = end
	}
	return dst, scratch
}

// decodeHybrid fills dst from the hybrid encoding in src at width w (<= 32).
// A final bit-packed run may be cut short, as long as it holds the values
// still wanted.
func refDecodeHybrid(dst []uint32, src []byte, w uint) error {
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
			for i := range dst[filled : filled+int(m)] {
				dst[filled+i] = x
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
		refUnpack32(dst[filled:filled+m], src[pos:], w)
		filled += m
		pos += min(nbytes, avail)
	}
	return nil
}

// appendDelta appends v in DELTA_BINARY_PACKED encoding (blocks of 128,
// four miniblocks of 32). Deltas use wrapping arithmetic, in 32 bits for
// INT32 columns (is32) as readers of INT32 expect widths <= 32.
func refAppendDelta(dst []byte, v []int64, is32 bool, s *deltaScratch) []byte {
	dst = binary.AppendUvarint(dst, deltaBlock)
	dst = binary.AppendUvarint(dst, deltaMiniCount)
	dst = binary.AppendUvarint(dst, uint64(len(v)))
	if len(v) == 0 {
		return binary.AppendUvarint(dst, 0)
	}
	dst = binary.AppendUvarint(dst, zigzag(v[0]))
	prev := v[0]
	for start := 1; start < len(v); start += deltaBlock {
		cnt := min(deltaBlock, len(v)-start)
		minD := int64(math.MaxInt64)
		for k, x := range v[start : start+cnt] {
			d := x - prev
			if is32 {
				d = int64(int32(d))
			}
			prev = x
			s.deltas[k] = d
			minD = min(minD, d)
		}
		dst = binary.AppendUvarint(dst, zigzag(minD))
		for k, d := range s.deltas[:cnt] {
			a := uint64(d - minD)
			if is32 {
				a = uint64(uint32(a))
			}
			s.adj[k] = a
		}
		clear(s.adj[cnt:])
		var widths [deltaMiniCount]uint
		used := (cnt + deltaMini - 1) / deltaMini
		for m := range used {
			var or uint64
			for _, a := range s.adj[m*deltaMini : (m+1)*deltaMini] {
				or |= a
			}
			widths[m] = uint(bits.Len64(or))
		}
		for _, w := range widths {
			dst = append(dst, byte(w))
		}
		for m := range used {
			dst = refPack64(dst, s.adj[m*deltaMini:(m+1)*deltaMini], widths[m])
		}
	}
	return dst
}

// decodeDelta decodes a DELTA_BINARY_PACKED run of exactly want values from
// src, appending to dst; is32 truncates them to int32. It returns the bytes
// used.
func refDecodeDelta(dst []int64, src []byte, want int, is32 bool) ([]int64, int, error) {
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
	dst = append(dst, first)
	prev := first
	got := 1
	var buf [deltaMini]uint64
	for got < want {
		minD := unzigzag(next())
		if pos < 0 || pos+int(miniCount) > len(src) {
			return dst, 0, fmt.Errorf("delta block header: %w", errShort)
		}
		widths := src[pos : pos+int(miniCount)]
		pos += int(miniCount)
		for _, wb := range widths {
			if got >= want {
				break
			}
			w := uint(wb)
			if w > 64 {
				return dst, 0, fmt.Errorf("delta miniblock bit width %d is over 64", w)
			}
			nbytes := miniSize * int(w) / 8
			m := min(miniSize, want-got)
			if (m*int(w)+7)/8 > len(src)-pos {
				return dst, 0, fmt.Errorf("delta miniblock: %w", errShort)
			}
			// 32 values (4w bytes) at a time: miniblocks are multiples of 32
			for k := 0; k < m; k += deltaMini {
				c := min(deltaMini, m-k)
				refUnpack64(buf[:c], src[pos+k/8*int(w):], w)
				// 64-bit wrapping arithmetic, truncated for INT32 below:
				// the same result modulo 2^32 whether the writer used 32-bit
				// deltas (as the spec asks) or 64-bit ones (as some do)
				for _, a := range buf[:c] {
					prev += minD + int64(a)
					dst = append(dst, prev)
				}
			}
			pos += min(nbytes, len(src)-pos)
			got += m
		}
	}
	if is32 {
		for i, v := range dst[start:] {
			dst[start+i] = int64(int32(v))
		}
	}
	return dst, pos, nil
}

// unpack32 is unpack64 for widths up to 32 into uint32s.
func refUnpack32(dst []uint32, src []byte, w uint) {
	if w == 0 {
		clear(dst)
		return
	}
	mask := uint64(1)<<w - 1
	bit := uint(0)
	i := 0
	// fast path while 8 bytes can be loaded directly
	for ; i < len(dst) && int(bit>>3)+8 <= len(src); i++ {
		dst[i] = uint32(binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & mask)
		bit += w
	}
	for ; i < len(dst); i++ {
		dst[i] = uint32(refLoad64(src, int(bit>>3)) >> (bit & 7) & mask)
		bit += w
	}
}

func refRunOf8(v []uint32) bool {
	x := v[0]
	return v[1] == x && v[2] == x && v[3] == x && v[4] == x && v[5] == x && v[6] == x && v[7] == x
}
