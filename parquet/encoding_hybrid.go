package parquet

import (
	"encoding/binary"
	"fmt"
)

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
