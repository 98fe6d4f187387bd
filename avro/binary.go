package avro

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Append functions encode one Avro value onto dst and return the extended
// slice, so a caller can build a record field by field without allocating.

// AppendLong appends a zig-zag varint long.
func AppendLong(dst []byte, v int64) []byte {
	return binary.AppendUvarint(dst, uint64(v<<1)^uint64(v>>63))
}

// AppendInt appends a zig-zag varint int.
func AppendInt(dst []byte, v int32) []byte { return AppendLong(dst, int64(v)) }

// AppendBool appends a boolean as one byte.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// AppendFloat appends a float as 4 little-endian bytes.
func AppendFloat(dst []byte, v float32) []byte {
	return binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
}

// AppendDouble appends a double as 8 little-endian bytes.
func AppendDouble(dst []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendBytes appends a length-prefixed byte string.
func AppendBytes(dst []byte, v []byte) []byte {
	return append(AppendLong(dst, int64(len(v))), v...)
}

// AppendString appends a length-prefixed UTF-8 string.
func AppendString(dst []byte, v string) []byte {
	return append(AppendLong(dst, int64(len(v))), v...)
}

// AppendUnion appends the branch index of a union value; the branch value
// follows.
func AppendUnion(dst []byte, branch int) []byte { return AppendLong(dst, int64(branch)) }

// decoder reads Avro binary values from a byte slice. Every length read is
// checked against the bytes left before anything is allocated.
type decoder struct {
	b         []byte
	pos       int
	zeroItems int // items decoded that took no bytes; bounded by maxZeroSizeItems
}

func (d *decoder) remaining() int { return len(d.b) - d.pos }

func (d *decoder) errf(format string, args ...any) error {
	return fmt.Errorf("%w: at byte %d: %s", ErrCorrupt, d.pos, fmt.Sprintf(format, args...))
}

func (d *decoder) long() (int64, error) {
	var u uint64
	var shift uint
	for i := 0; ; i++ {
		if d.pos >= len(d.b) {
			return 0, d.errf("truncated varint")
		}
		c := d.b[d.pos]
		d.pos++
		if i == 9 && c > 1 {
			return 0, d.errf("varint overflows 64 bits")
		}
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
		shift += 7
	}
	return int64(u>>1) ^ -int64(u&1), nil
}

func (d *decoder) int() (int32, error) {
	v, err := d.long()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, d.errf("int %d out of 32-bit range", v)
	}
	return int32(v), nil
}

func (d *decoder) boolean() (bool, error) {
	if d.pos >= len(d.b) {
		return false, d.errf("truncated boolean")
	}
	c := d.b[d.pos]
	d.pos++
	if c > 1 {
		return false, d.errf("boolean byte %d is not 0 or 1", c)
	}
	return c == 1, nil
}

func (d *decoder) fixed(n int) ([]byte, error) {
	if n < 0 || n > d.remaining() {
		return nil, d.errf("%d bytes wanted, %d left", n, d.remaining())
	}
	v := d.b[d.pos : d.pos+n : d.pos+n]
	d.pos += n
	return v, nil
}

// bytes returns a length-prefixed byte string. The result aliases the input.
func (d *decoder) bytes() ([]byte, error) {
	n, err := d.long()
	if err != nil {
		return nil, err
	}
	if n < 0 || n > int64(d.remaining()) {
		return nil, d.errf("length %d exceeds the %d bytes left", n, d.remaining())
	}
	return d.fixed(int(n))
}

func (d *decoder) float() (float32, error) {
	b, err := d.fixed(4)
	if err != nil {
		return 0, err
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
}

func (d *decoder) double() (float64, error) {
	b, err := d.fixed(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

// blockCount reads the item count of an array or map block. A negative count
// is followed by the block's byte size, which is read and ignored. The count
// is checked against the bytes left given the smallest encoding of one item.
func (d *decoder) blockCount(minItemSize int) (int, error) {
	n, err := d.long()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		if n == math.MinInt64 {
			return 0, d.errf("block count out of range")
		}
		n = -n
		if _, err := d.long(); err != nil {
			return 0, err
		}
	}
	if minItemSize > 0 {
		if n > int64(d.remaining()/minItemSize) {
			return 0, d.errf("block of %d items cannot fit in the %d bytes left", n, d.remaining())
		}
	} else {
		if n > int64(maxZeroSizeItems-d.zeroItems) {
			return 0, fmt.Errorf("%w: more than %d zero-size items", ErrTooLarge, maxZeroSizeItems)
		}
		d.zeroItems += int(n)
	}
	return int(n), nil
}
