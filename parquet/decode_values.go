package parquet

// Values of one page: PLAIN, dictionary indexes (RLE/bit-packed hybrid),
// the DELTA encodings and BYTE_STREAM_SPLIT, decoded into Timelake values
// (decode.go reads the pages around them).

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

func (d *PageDecoder) decodeValues(c *Chunk, enc Encoding, data []byte, n int, dict *Dictionary, v *values) error {
	phys := c.Column.Physical
	switch enc {
	case EncPlain:
		return decodePlain(c, data, n, v)
	case EncPlainDictionary, EncRLEDictionary:
		if n == 0 {
			return nil
		}
		if dict == nil || !dict.valid {
			return fmt.Errorf("dictionary-encoded page without a dictionary page")
		}
		if len(data) < 1 {
			return errShort
		}
		w := uint(data[0])
		dv := &dict.vals
		var err error
		switch {
		case d.indexes: // DecodeIndexes
			k := max(len(dv.ints), len(dv.floats), len(dv.bools), len(dv.strs))
			v.ints, err = lookupHybrid(v.ints, d.iota(k), data[1:], w, n, &d.idx)
		case dv.ints != nil:
			v.ints, err = lookupHybrid(v.ints, dv.ints, data[1:], w, n, &d.idx)
		case dv.floats != nil:
			v.floats, err = lookupHybrid(v.floats, dv.floats, data[1:], w, n, &d.idx)
		case dv.bools != nil:
			v.bools, err = lookupHybrid(v.bools, dv.bools, data[1:], w, n, &d.idx)
		default:
			v.strs, err = lookupHybrid(v.strs, dv.strs, data[1:], w, n, &d.idx)
		}
		return err
	case EncDeltaBinaryPacked:
		if phys != TypeInt32 && phys != TypeInt64 {
			break
		}
		var err error
		v.ints, _, err = decodeDelta(v.ints, data, n, phys == TypeInt32)
		return err
	case EncRLE:
		if phys != TypeBoolean {
			break
		}
		if len(data) < 4 {
			return errShort
		}
		l := binary.LittleEndian.Uint32(data)
		if uint64(l) > uint64(len(data)-4) {
			return errShort
		}
		if cap(d.idx) < n {
			d.idx = make([]uint32, n)
		}
		idx := d.idx[:n]
		if err := decodeHybrid(idx, data[4:4+l], 1); err != nil {
			return err
		}
		for _, b := range idx {
			v.bools = append(v.bools, b != 0)
		}
		return nil
	case EncDeltaLengthByteArray:
		if phys != TypeByteArray {
			break
		}
		var used int
		var err error
		d.lens, used, err = decodeDelta(d.lens[:0], data, n, true)
		if err != nil {
			return fmt.Errorf("lengths: %w", err)
		}
		return splitStrings(v, data[used:], d.lens)
	case EncDeltaByteArray:
		if phys != TypeByteArray {
			break
		}
		return d.deltaByteArray(data, n, v)
	case EncByteStreamSplit:
		width := map[PhysicalType]int{TypeFloat: 4, TypeDouble: 8, TypeInt32: 4, TypeInt64: 8}[phys]
		if width == 0 {
			break
		}
		if len(data) < n*width {
			return errShort
		}
		tmp := make([]byte, n*width)
		for i := range n {
			for b := range width {
				tmp[i*width+b] = data[b*n+i]
			}
		}
		return decodePlain(c, tmp, n, v)
	}
	return fmt.Errorf("encoding %v is not supported for %v", enc, phys)
}

// lookupHybrid appends dict[i] for each of the n dictionary indexes in the
// RLE/bit-packed hybrid src of bit width w (the errors of decodeHybrid, and
// an index past the dictionary's end), into dst grown once. An RLE run is
// looked up once and repeated, without writing its indexes out: a sorted
// page's series columns are mostly runs. Bit-packed groups are unpacked into
// scratch first. dst is returned as it was on error.
func lookupHybrid[T any](dst, dict []T, src []byte, w uint, n int, scratch *[]uint32) ([]T, error) {
	if w > 32 {
		return dst, fmt.Errorf("RLE bit width %d is over 32", w)
	}
	grown, out := grow(dst, n)
	byteW := int(w+7) / 8
	pos, filled := 0, 0
	for filled < n {
		h, k := binary.Uvarint(src[pos:])
		if k <= 0 {
			return dst, fmt.Errorf("RLE run header: %w", errShort)
		}
		pos += k
		if h&1 == 0 {
			count := h >> 1
			if pos+byteW > len(src) {
				return dst, fmt.Errorf("RLE run value: %w", errShort)
			}
			var x uint32
			for b := 0; b < byteW; b++ {
				x |= uint32(src[pos+b]) << (8 * b)
			}
			pos += byteW
			if w < 32 && x>>w != 0 {
				return dst, fmt.Errorf("RLE run value %d wider than %d bits", x, w)
			}
			m := int(min(count, uint64(n-filled)))
			if m == 0 {
				continue
			}
			if uint64(x) >= uint64(len(dict)) {
				return dst, fmt.Errorf("dictionary index %d with %d entries", x, len(dict))
			}
			val := dict[x]
			run := out[filled : filled+m]
			for i := range run {
				run[i] = val
			}
			filled += m
			continue
		}
		groups := h >> 1
		if groups > uint64(len(src)) {
			return dst, fmt.Errorf("bit-packed run of %d groups: %w", groups, errShort)
		}
		count := int(groups) * 8
		nbytes := int(groups) * int(w)
		avail := len(src) - pos
		m := min(count, n-filled)
		if need := (m*int(w) + 7) / 8; need > avail {
			return dst, fmt.Errorf("bit-packed run: %w", errShort)
		}
		if cap(*scratch) < m {
			*scratch = make([]uint32, max(m, 1024))
		}
		idx := (*scratch)[:m]
		unpack32(idx, src[pos:], w)
		vals := out[filled : filled+m]
		for k, i := range idx {
			if uint64(i) >= uint64(len(dict)) {
				return dst, fmt.Errorf("dictionary index %d with %d entries", i, len(dict))
			}
			vals[k] = dict[i]
		}
		filled += m
		pos += min(nbytes, avail)
	}
	return grown, nil
}

// splitStrings cuts data into strings of the given lengths; all share one
// allocation.
func splitStrings(v *values, data []byte, lens []int64) error {
	var total int64
	for _, l := range lens {
		if l < 0 || l > int64(len(data))-total {
			return fmt.Errorf("string length %d with %d bytes left", l, int64(len(data))-total)
		}
		total += l
	}
	all := string(data[:total])
	off := int64(0)
	for _, l := range lens {
		v.strs = append(v.strs, all[off:off+l])
		off += l
	}
	return nil
}

func (d *PageDecoder) deltaByteArray(data []byte, n int, v *values) error {
	var used int
	var err error
	d.pfx, used, err = decodeDelta(d.pfx[:0], data, n, true)
	if err != nil {
		return fmt.Errorf("prefix lengths: %w", err)
	}
	data = data[used:]
	d.lens, used, err = decodeDelta(d.lens[:0], data, n, true)
	if err != nil {
		return fmt.Errorf("suffix lengths: %w", err)
	}
	data = data[used:]
	// build all values into one buffer, checking its size as it grows
	var out []byte
	starts := make([]int, 0, n+1)
	prevStart, prevLen := 0, 0
	off := 0
	for i := range n {
		p, s := d.pfx[i], d.lens[i]
		if p < 0 || p > int64(prevLen) {
			return fmt.Errorf("prefix length %d longer than the previous value (%d)", p, prevLen)
		}
		if s < 0 || s > int64(len(data)-off) {
			return fmt.Errorf("suffix length %d with %d bytes left", s, len(data)-off)
		}
		if int64(len(out))+p+s > maxPageBytes {
			return fmt.Errorf("values longer than %d bytes in one page", maxPageBytes)
		}
		start := len(out)
		out = append(out, out[prevStart:prevStart+int(p)]...)
		out = append(out, data[off:off+int(s)]...)
		off += int(s)
		starts = append(starts, start)
		prevStart, prevLen = start, len(out)-start
	}
	starts = append(starts, len(out))
	all := string(out)
	for i := range n {
		v.strs = append(v.strs, all[starts[i]:starts[i+1]])
	}
	return nil
}

// decodePlain decodes n PLAIN values of c's physical type.
func decodePlain(c *Chunk, data []byte, n int, v *values) error {
	if n < 0 {
		return fmt.Errorf("%d values", n)
	}
	need := func(width int) error {
		if n > len(data)/width {
			return fmt.Errorf("%d values of %d bytes in %d bytes: %w", n, width, len(data), errShort)
		}
		return nil
	}
	switch c.Column.Physical {
	case TypeBoolean:
		if n > len(data)*8 {
			return fmt.Errorf("%d booleans in %d bytes: %w", n, len(data), errShort)
		}
		for i := range n {
			v.bools = append(v.bools, data[i>>3]>>(i&7)&1 != 0)
		}
	case TypeInt32:
		if err := need(4); err != nil {
			return err
		}
		var out []int64
		v.ints, out = grow(v.ints, n)
		for i := range out {
			out[i] = int64(int32(binary.LittleEndian.Uint32(data[4*i:])))
		}
	case TypeInt64:
		if err := need(8); err != nil {
			return err
		}
		var out []int64
		v.ints, out = grow(v.ints, n)
		if littleEndian {
			copy(asBytes(out), data[:8*n])
			break
		}
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(data[8*i:]))
		}
	case TypeInt96:
		if err := need(12); err != nil {
			return err
		}
		for i := range n {
			b := data[12*i:]
			nanos := int64(binary.LittleEndian.Uint64(b))
			day := int64(int32(binary.LittleEndian.Uint32(b[8:])))
			// 2440588 is the Julian day of 1970-01-01
			v.ints = append(v.ints, (day-2440588)*86400_000_000+floorDiv(nanos, 1000))
		}
	case TypeFloat:
		if err := need(4); err != nil {
			return err
		}
		var out []float64
		v.floats, out = grow(v.floats, n)
		for i := range out {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])))
		}
	case TypeDouble:
		if err := need(8); err != nil {
			return err
		}
		var out []float64
		v.floats, out = grow(v.floats, n)
		if littleEndian {
			copy(asBytes(out), data[:8*n])
			break
		}
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
		}
	case TypeByteArray:
		if err := need(4); err != nil {
			return err
		}
		// one string for the whole page; values are substrings of it
		all := string(data)
		pos := 0
		for range n {
			if len(data)-pos < 4 {
				return errShort
			}
			l := int(binary.LittleEndian.Uint32(data[pos:]))
			pos += 4
			if l < 0 || l > len(data)-pos {
				return fmt.Errorf("string of %d bytes with %d left: %w", l, len(data)-pos, errShort)
			}
			v.strs = append(v.strs, all[pos:pos+l])
			pos += l
		}
	default:
		return fmt.Errorf("physical type %v is not supported", c.Column.Physical)
	}
	return nil
}

// littleEndian is whether this machine stores numbers as PLAIN does (amd64,
// arm64, WebAssembly): 8-byte PLAIN values are then copied in one go.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// asBytes is the memory of v as bytes.
func asBytes[T int64 | float64](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*8)
}

// grow extends vs by n values and returns it with the new part, to be
// filled by index rather than appended to value by value.
func grow[T any](vs []T, n int) ([]T, []T) {
	k := len(vs)
	vs = slices.Grow(vs, n)[:k+n]
	return vs, vs[k:]
}

// convert turns physical values into Timelake values: timestamps to micros
// (nanos are floored: the sub-microsecond part is lost), uint32 zero-extended.
func convert(c *Chunk, ints []int64) error {
	switch c.conv {
	case convUnsigned32:
		for i, x := range ints {
			ints[i] = int64(uint32(x))
		}
	case convMillis:
		for i, x := range ints {
			if x > math.MaxInt64/1000 || x < math.MinInt64/1000 {
				return fmt.Errorf("%w: column %q: timestamp %d ms is out of range in microseconds", ErrUnsupported, c.Column.Name, x)
			}
			ints[i] = x * 1000
		}
	case convNanos:
		for i, x := range ints {
			ints[i] = floorDiv(x, 1000)
		}
	case convMillisNanos, convMicrosNanos:
		m := int64(1000)
		if c.conv == convMillisNanos {
			m = 1_000_000
		}
		for i, x := range ints {
			if x > math.MaxInt64/m || x < math.MinInt64/m {
				return fmt.Errorf("%w: column %q: timestamp %d is outside the nanosecond range", ErrUnsupported, c.Column.Name, x)
			}
			ints[i] = x * m
		}
	}
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
