package parquet

import (
	"encoding/binary"
	"slices"
)

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
