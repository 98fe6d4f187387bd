package deletionvector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/bits"
)

// BlobType is the Puffin blob type of a deletion vector. persisted: must
// not change.
const BlobType = "deletion-vector-v1"

// Blob properties the spec requires of a deletion-vector-v1 blob.
// persisted: must not change.
const (
	PropReferencedDataFile = "referenced-data-file"
	PropCardinality        = "cardinality"
)

// magic starts the blob's checked bytes. persisted: must not change.
const magic = "\xD1\xD3\x39\x64"

// Roaring's portable cookies. persisted: must not change.
const (
	cookieNoRuns = 12346 // then a uint32 container count
	cookieRuns   = 12347 // | (count-1)<<16, then a bitset of run containers
	// noOffsetThreshold: with cookieRuns, fewer containers than this
	// are written without the offset header.
	noOffsetThreshold = 4
)

// ErrFormat: the bytes are not a deletion vector this package reads.
var ErrFormat = errors.New("deletionvector: not a readable deletion vector")

// maxKey is the greatest bucket key (the high 32 bits of a position).
const maxKey = 1<<31 - 1

// Decode reads a deletion-vector-v1 blob: its length, magic and CRC are
// checked before the bitmap is read, and every byte must be used.
func Decode(blob []byte) (*Vector, error) {
	if len(blob) < 4+4+8+4 {
		return nil, fmt.Errorf("%w: %d bytes is too short", ErrFormat, len(blob))
	}
	n := binary.BigEndian.Uint32(blob)
	if uint64(n) != uint64(len(blob))-8 {
		return nil, fmt.Errorf("%w: length says %d bytes of magic and vector, the blob has %d", ErrFormat, n, len(blob)-8)
	}
	body := blob[4 : len(blob)-4]
	if string(body[:4]) != magic {
		return nil, fmt.Errorf("%w: magic is % X, want D1 D3 39 64", ErrFormat, body[:4])
	}
	if got, want := crc32.ChecksumIEEE(body), binary.BigEndian.Uint32(blob[len(blob)-4:]); got != want {
		return nil, fmt.Errorf("%w: CRC-32 is %08X, the blob says %08X", ErrFormat, got, want)
	}
	r := reader{b: body[4:]}
	v, err := r.vector64()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the bitmap", ErrFormat, len(r.b))
	}
	return v, nil
}

// reader consumes little-endian values from b.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = fmt.Errorf("truncated: %d bytes needed, %d left", n, len(r.b))
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u16() uint16 {
	if b := r.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) vector64() (*Vector, error) {
	b := r.take(8)
	if b == nil {
		return nil, r.err
	}
	buckets := binary.LittleEndian.Uint64(b)
	// Each bucket takes at least 12 bytes (key, cookie, size): a count
	// past that is refused before anything is allocated for it.
	if buckets > uint64(len(r.b))/12 {
		return nil, fmt.Errorf("%d buckets in %d bytes", buckets, len(r.b))
	}
	v := &Vector{}
	var last int64 = -1
	for range buckets {
		key := r.u32()
		if r.err != nil {
			return nil, r.err
		}
		if int64(key) <= last {
			return nil, fmt.Errorf("bucket key %d after %d: keys must ascend", key, last)
		}
		if key > maxKey {
			return nil, fmt.Errorf("bucket key %d is past %d (positions past 2^63)", key, maxKey)
		}
		last = int64(key)
		if err := r.bitmap32(v, uint64(key)<<16); err != nil {
			return nil, fmt.Errorf("bucket %d: %v", key, err)
		}
	}
	return v, nil
}

// bitmap32 reads a portable 32-bit Roaring bitmap into v, its container
// keys offset by high (the bucket key << 16).
func (r *reader) bitmap32(v *Vector, high uint64) error {
	cookie := r.u32()
	var size int
	var runs []byte // bit i: container i is runs
	switch {
	case cookie&0xFFFF == cookieRuns:
		size = int(cookie>>16) + 1
		runs = r.take((size + 7) / 8)
	case cookie == cookieNoRuns:
		size = int(r.u32())
	default:
		if r.err != nil {
			return r.err
		}
		return fmt.Errorf("cookie %d is neither %d nor %d", cookie&0xFFFF, cookieNoRuns, cookieRuns)
	}
	if r.err != nil {
		return r.err
	}
	if size > 1<<16 {
		return fmt.Errorf("%d containers (at most 65536)", size)
	}
	header := r.take(4 * size)
	if r.err != nil {
		return r.err
	}
	if runs == nil || size >= noOffsetThreshold {
		r.take(4 * size) // offsets: the containers are read in order
	}
	lastKey := -1
	for i := range size {
		key := int(binary.LittleEndian.Uint16(header[4*i:]))
		card := int(binary.LittleEndian.Uint16(header[4*i+2:])) + 1
		if key <= lastKey {
			return fmt.Errorf("container key %d after %d: keys must ascend", key, lastKey)
		}
		lastKey = key
		c := container{card: card}
		switch {
		case runs != nil && runs[i/8]&(1<<(i%8)) != 0:
			c.kind = kindRuns
			n := int(r.u16())
			b := r.take(4 * n)
			if r.err != nil {
				return r.err
			}
			c.vals = make([]uint16, 2*n)
			got, end := 0, -1
			for k := range c.vals {
				c.vals[k] = binary.LittleEndian.Uint16(b[2*k:])
			}
			for k := 0; k < n; k++ {
				start, length := int(c.vals[2*k]), int(c.vals[2*k+1])+1
				if start <= end || start+length > 1<<16 {
					return fmt.Errorf("container %d: run %d (start %d, length %d) overlaps or leaves the container", key, k, start, length)
				}
				end = start + length - 1
				got += length
			}
			if got != card {
				return fmt.Errorf("container %d: cardinality %d in the header, %d in the runs", key, card, got)
			}
		case card <= arrayMax:
			c.kind = kindArray
			b := r.take(2 * card)
			if r.err != nil {
				return r.err
			}
			c.vals = make([]uint16, card)
			for k := range c.vals {
				c.vals[k] = binary.LittleEndian.Uint16(b[2*k:])
				if k > 0 && c.vals[k] <= c.vals[k-1] {
					return fmt.Errorf("container %d: values must ascend (%d after %d)", key, c.vals[k], c.vals[k-1])
				}
			}
		default:
			c.kind = kindBitmap
			b := r.take(8192)
			if r.err != nil {
				return r.err
			}
			c.bits = make([]uint64, 1024)
			got := 0
			for k := range c.bits {
				c.bits[k] = binary.LittleEndian.Uint64(b[8*k:])
				got += bits.OnesCount64(c.bits[k])
			}
			if got != card {
				return fmt.Errorf("container %d: cardinality %d in the header, %d bits set", key, card, got)
			}
		}
		v.keys = append(v.keys, high|uint64(key))
		v.cons = append(v.cons, c)
		v.card += int64(card)
	}
	return r.err
}

// Encode returns the deletion-vector-v1 blob of v.
func Encode(v *Vector) []byte {
	out := make([]byte, 4, 64)
	out = append(out, magic...)
	if v == nil {
		v = &Vector{}
	}
	// buckets: runs of containers sharing their high 32 bits
	var starts []int
	for i, k := range v.keys {
		if i == 0 || k>>16 != v.keys[i-1]>>16 {
			starts = append(starts, i)
		}
	}
	out = binary.LittleEndian.AppendUint64(out, uint64(len(starts)))
	for s, i := range starts {
		j := len(v.keys)
		if s+1 < len(starts) {
			j = starts[s+1]
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(v.keys[i]>>16))
		out = appendBitmap32(out, v.keys[i:j], v.cons[i:j])
	}
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[4:]))
}

// appendBitmap32 appends the portable form of one bucket's containers,
// each in its smallest form.
func appendBitmap32(out []byte, keys []uint64, cons []container) []byte {
	forms := make([]container, len(cons))
	anyRuns := false
	for i := range cons {
		forms[i] = smallest(&cons[i])
		anyRuns = anyRuns || forms[i].kind == kindRuns
	}
	size := len(forms)
	if anyRuns {
		out = binary.LittleEndian.AppendUint32(out, cookieRuns|uint32(size-1)<<16)
		flags := make([]byte, (size+7)/8)
		for i, c := range forms {
			if c.kind == kindRuns {
				flags[i/8] |= 1 << (i % 8)
			}
		}
		out = append(out, flags...)
	} else {
		out = binary.LittleEndian.AppendUint32(out, cookieNoRuns)
		out = binary.LittleEndian.AppendUint32(out, uint32(size))
	}
	for i, c := range forms {
		out = binary.LittleEndian.AppendUint16(out, uint16(keys[i]))
		out = binary.LittleEndian.AppendUint16(out, uint16(c.card-1))
	}
	if !anyRuns || size >= noOffsetThreshold {
		// offsets from the bitmap's start: after the offsets themselves
		off := 4 + 4 + 4*size + 4*size
		if anyRuns {
			off = 4 + (size+7)/8 + 4*size + 4*size
		}
		for _, c := range forms {
			out = binary.LittleEndian.AppendUint32(out, uint32(off))
			off += c.bytes()
		}
	}
	for _, c := range forms {
		switch c.kind {
		case kindRuns:
			out = binary.LittleEndian.AppendUint16(out, uint16(len(c.vals)/2))
			for _, x := range c.vals {
				out = binary.LittleEndian.AppendUint16(out, x)
			}
		case kindBitmap:
			for _, w := range c.bits {
				out = binary.LittleEndian.AppendUint64(out, w)
			}
		default:
			for _, x := range c.vals {
				out = binary.LittleEndian.AppendUint16(out, x)
			}
		}
	}
	return out
}

// bytes is the serialized size of c's container.
func (c *container) bytes() int {
	switch c.kind {
	case kindRuns:
		return 2 + 2*len(c.vals)
	case kindBitmap:
		return 8192
	default:
		return 2 * len(c.vals)
	}
}

// smallest returns c in the smallest of its array, bitmap and runs forms
// (an array is only possible up to arrayMax values: Roaring reads a larger
// cardinality as a bitmap).
func smallest(c *container) container {
	var runs []uint16
	start, prev := -2, -2
	for x := range c.all() {
		if x != prev+1 {
			if start >= 0 {
				runs = append(runs, uint16(start), uint16(prev-start))
			}
			start = x
		}
		prev = x
	}
	runs = append(runs, uint16(start), uint16(prev-start))
	runBytes := 2 + 2*len(runs)
	plain := 8192
	if c.card <= arrayMax {
		plain = 2 * c.card
	}
	if runBytes < plain {
		return container{kind: kindRuns, vals: runs, card: c.card}
	}
	if c.card <= arrayMax {
		if c.kind == kindArray {
			return *c
		}
		vals := make([]uint16, 0, c.card)
		for x := range c.all() {
			vals = append(vals, uint16(x))
		}
		return container{kind: kindArray, vals: vals, card: c.card}
	}
	if c.kind == kindBitmap {
		return *c
	}
	words := make([]uint64, 1024)
	for x := range c.all() {
		words[x>>6] |= 1 << (x & 63)
	}
	return container{kind: kindBitmap, bits: words, card: c.card}
}

// all yields c's low 16 bits, ascending.
func (c *container) all() func(func(int) bool) {
	return func(yield func(int) bool) {
		c.each(0, func(x int64) bool { return yield(int(x)) })
	}
}
