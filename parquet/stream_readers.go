package parquet

// Resumable decoders of the RLE/bit-packed hybrid and DELTA_BINARY_PACKED
// encodings: each keeps its place in the page's bytes between calls, so a
// page is decoded a window of values at a time (PageStream) and a reader
// holding many pages open at once holds their bytes, not their values.
// They accept and reject what decodeHybrid and decodeDelta do.

import (
	"encoding/binary"
	"fmt"
)

// hybridReader reads the hybrid encoding of width w from src, left values
// in all: a final bit-packed run may be cut short as long as it holds
// them, as decodeHybrid allows.
type hybridReader struct {
	src    []byte
	pos    int // the next run header
	w      uint
	left   int    // values still to be read
	rle    int    // values left in the current RLE run
	val    uint32 // its value
	bp     int    // values left in the current bit-packed run (with padding)
	bpPos  int    // its next group of 8
	grp    [8]uint32
	gi, gn int // grp[gi:gn] unpacked and not yet read
}

func (h *hybridReader) init(src []byte, w uint, left int) error {
	if w > 32 {
		return fmt.Errorf("RLE bit width %d is over 32", w)
	}
	*h = hybridReader{src: src, w: w, left: left}
	return nil
}

// read fills dst with the next values.
func (h *hybridReader) read(dst []uint32) error {
	if len(dst) > h.left {
		return fmt.Errorf("%d values wanted with %d left: %w", len(dst), h.left, errShort)
	}
	filled := 0
	for filled < len(dst) {
		need := len(dst) - filled
		switch {
		case h.gi < h.gn:
			m := copy(dst[filled:], h.grp[h.gi:h.gn])
			h.gi += m
			filled += m
		case h.rle > 0:
			m := min(h.rle, need)
			run := dst[filled : filled+m]
			for i := range run {
				run[i] = h.val
			}
			h.rle -= m
			filled += m
		case h.bp > 0:
			avail := len(h.src) - h.bpPos
			if g := min(need, h.bp) / 8; g > 0 {
				// whole groups straight into dst
				if g*int(h.w) > avail {
					return fmt.Errorf("bit-packed run: %w", errShort)
				}
				unpack32(dst[filled:filled+8*g], h.src[h.bpPos:], h.w)
				h.bpPos += g * int(h.w)
				h.bp -= 8 * g
				filled += 8 * g
				continue
			}
			// a group of which only some values are wanted now; of the
			// page's last, only those it holds are unpacked
			m := min(8, h.bp, h.left-filled)
			if (m*int(h.w)+7)/8 > avail {
				return fmt.Errorf("bit-packed run: %w", errShort)
			}
			unpack32(h.grp[:m], h.src[h.bpPos:], h.w)
			h.bpPos += min(int(h.w), avail)
			h.bp -= 8
			h.gi, h.gn = 0, m
		default:
			if h.pos >= len(h.src) {
				return fmt.Errorf("RLE run header: %w", errShort)
			}
			x, k := binary.Uvarint(h.src[h.pos:])
			if k <= 0 {
				return fmt.Errorf("RLE run header: %w", errShort)
			}
			h.pos += k
			if x&1 == 0 {
				byteW := int(h.w+7) / 8
				if h.pos+byteW > len(h.src) {
					return fmt.Errorf("RLE run value: %w", errShort)
				}
				var v uint32
				for b := 0; b < byteW; b++ {
					v |= uint32(h.src[h.pos+b]) << (8 * b)
				}
				h.pos += byteW
				if h.w < 32 && v>>h.w != 0 {
					return fmt.Errorf("RLE run value %d wider than %d bits", v, h.w)
				}
				h.val, h.rle = v, int(min(x>>1, uint64(h.left)))
				continue
			}
			groups := x >> 1
			if groups > uint64(len(h.src)) {
				return fmt.Errorf("bit-packed run of %d groups: %w", groups, errShort)
			}
			h.bp, h.bpPos = int(groups)*8, h.pos
			h.pos += min(int(groups)*int(h.w), len(h.src)-h.pos)
		}
	}
	h.left -= len(dst)
	return nil
}

// deltaReader reads a DELTA_BINARY_PACKED run of values 32 at a time.
type deltaReader struct {
	src       []byte
	pos       int // the next block header (or miniblock)
	is32      bool
	total     int // values in the run
	got       int // values decoded into pend (or before)
	prev      int64
	miniSize  int
	miniCount int
	minD      int64
	widths    []byte // the current block's miniblock bit widths
	wi        int    // the next miniblock
	w         uint   // the current miniblock's bit width
	mPos      int    // the current miniblock's next 32 values
	mLeft     int    // values left in the current miniblock
	pend      [deltaMini]int64
	pi, pn    int
	unp       [deltaMini]uint64
}

// init reads the header, which must say want values.
func (r *deltaReader) init(src []byte, want int, is32 bool) error {
	*r = deltaReader{src: src, is32: is32}
	next := func() uint64 {
		if r.pos < 0 || r.pos >= len(src) {
			r.pos = -1
			return 0
		}
		v, k := binary.Uvarint(src[r.pos:])
		if k <= 0 {
			r.pos = -1
			return 0
		}
		r.pos += k
		return v
	}
	blockSize, miniCount, total, first := next(), next(), next(), unzigzag(next())
	if r.pos < 0 {
		return fmt.Errorf("delta header: %w", errShort)
	}
	if blockSize == 0 || blockSize%128 != 0 || blockSize > 1<<16 || miniCount == 0 || blockSize%miniCount != 0 || (blockSize/miniCount)%32 != 0 {
		return fmt.Errorf("delta header: bad block size %d / %d miniblocks", blockSize, miniCount)
	}
	if total != uint64(want) {
		return fmt.Errorf("delta encoding holds %d values, want %d", total, want)
	}
	r.total, r.miniSize, r.miniCount = want, int(blockSize/miniCount), int(miniCount)
	if want > 0 {
		r.pend[0], r.pn, r.got, r.prev = first, 1, 1, first
		if is32 {
			r.pend[0] = int64(int32(first))
		}
	}
	return nil
}

// read appends the next n values to dst.
func (r *deltaReader) read(dst []int64, n int) ([]int64, error) {
	for n > 0 {
		if r.pi < r.pn {
			m := min(n, r.pn-r.pi)
			dst = append(dst, r.pend[r.pi:r.pi+m]...)
			r.pi += m
			n -= m
			continue
		}
		if err := r.fill(); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// fill decodes the next up to 32 values into pend.
func (r *deltaReader) fill() error {
	if r.got >= r.total {
		return fmt.Errorf("delta encoding of %d values read past its end", r.total)
	}
	for r.mLeft == 0 {
		if r.widths == nil || r.wi >= len(r.widths) {
			// a block header
			k := 0
			if r.pos < len(r.src) {
				var u uint64
				u, k = binary.Uvarint(r.src[r.pos:])
				r.minD = unzigzag(u)
			}
			if k <= 0 || r.pos+k+r.miniCount > len(r.src) {
				return fmt.Errorf("delta block header: %w", errShort)
			}
			r.pos += k
			r.widths = r.src[r.pos : r.pos+r.miniCount]
			r.pos += r.miniCount
			r.wi = 0
		}
		w := uint(r.widths[r.wi])
		r.wi++
		if w > 64 {
			return fmt.Errorf("delta miniblock bit width %d is over 64", w)
		}
		m := min(r.miniSize, r.total-r.got)
		if (m*int(w)+7)/8 > len(r.src)-r.pos {
			return fmt.Errorf("delta miniblock: %w", errShort)
		}
		r.w, r.mPos, r.mLeft = w, r.pos, m
		r.pos += min(r.miniSize*int(w)/8, len(r.src)-r.pos)
	}
	m := min(deltaMini, r.mLeft)
	o := r.pend[:m]
	if r.w == 0 {
		for i := range o {
			r.prev += r.minD
			o[i] = r.prev
		}
	} else {
		a := r.unp[:m]
		unpack64(a, r.src[r.mPos:], r.w)
		for i := range o {
			r.prev += r.minD + int64(a[i])
			o[i] = r.prev
		}
	}
	if r.is32 {
		for i, v := range o {
			o[i] = int64(int32(v))
		}
	}
	r.mPos += 4 * int(r.w)
	r.mLeft -= m
	r.got += m
	r.pi, r.pn = 0, m
	return nil
}
