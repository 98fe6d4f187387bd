package parquet

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Dictionary holds the decoded dictionary page of a column chunk, already
// converted to Timelake values (timestamps in micros).
type Dictionary struct {
	vals  values
	valid bool
}

// values are decoded non-null values of one page.
type values struct {
	ints   []int64
	floats []float64
	bools  []bool
	strs   []string
}

func (v *values) reset() {
	v.ints, v.floats, v.bools = v.ints[:0], v.floats[:0], v.bools[:0]
	clear(v.strs)
	v.strs = v.strs[:0]
}

// PageDecoder decodes pages; it keeps scratch buffers between calls. The
// zero value is ready to use.
type PageDecoder struct {
	buf  []byte
	defs []uint32
	idx  []uint32
	vals values
	lens []int64
	pfx  []int64
}

// DecodePage decodes the page at the start of page (header and body) of the
// chunk c. A dictionary page fills dict; a data page appends its rows to dst,
// looking values up in dict if it is dictionary-encoded. It returns the
// number of bytes the page takes. It is the building block of a reader that
// fetches page ranges planned from the offset index: fetch the dictionary
// page (from Meta.DictionaryPageOffset to the first data page), then any
// data pages.
func DecodePage(c *Chunk, page []byte, dict *Dictionary, dst *rows.Column) (int, error) {
	var d PageDecoder
	return d.Decode(c, page, dict, dst)
}

// Decode is DecodePage reusing d's buffers.
func (d *PageDecoder) Decode(c *Chunk, page []byte, dict *Dictionary, dst *rows.Column) (int, error) {
	switch c.Meta.Codec {
	case Zstd, Uncompressed, Snappy, Gzip, LZ4Raw, LZ4:
	default:
		return 0, fmt.Errorf("%w: column %q: compression codec %v", ErrUnsupported, c.Column.Name, c.Meta.Codec)
	}
	h, hlen, err := readPageHeader(page)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	total := hlen + int(h.CompressedSize)
	if int(h.CompressedSize) > len(page)-hlen {
		return 0, fmt.Errorf("%w: page of %d bytes with %d left in the chunk", ErrCorrupt, h.CompressedSize, len(page)-hlen)
	}
	if h.UncompressedSize > maxPageBytes {
		return 0, fmt.Errorf("%w: page of %d bytes (limit %d)", ErrUnsupported, h.UncompressedSize, maxPageBytes)
	}
	body := page[hlen:total]
	switch h.Type {
	case pageDictionary:
		if dict == nil {
			return 0, fmt.Errorf("%w: dictionary page without a dictionary to fill", ErrCorrupt)
		}
		if h.Encoding != EncPlain && h.Encoding != EncPlainDictionary {
			return 0, fmt.Errorf("%w: dictionary page encoded %v", ErrUnsupported, h.Encoding)
		}
		raw, err := decompress(c.Meta.Codec, d.buf, body, int(h.UncompressedSize))
		if err != nil {
			return 0, fmt.Errorf("%w: dictionary page: %w", ErrCorrupt, err)
		}
		d.keep(raw)
		dict.vals.reset()
		if err := decodePlain(c, raw, int(h.NumValues), &dict.vals); err != nil {
			return 0, fmt.Errorf("%w: dictionary page: %w", ErrCorrupt, err)
		}
		if err := convert(c, dict.vals.ints); err != nil {
			return 0, err
		}
		dict.valid = true
		return total, nil
	case pageData, pageDataV2:
		if !h.HasData {
			return 0, fmt.Errorf("%w: data page without its header", ErrCorrupt)
		}
		if err := d.dataPage(c, &h, body, dict, dst); err != nil {
			return 0, err
		}
		return total, nil
	}
	return total, nil // index pages and unknown pages are skipped
}

// keep remembers a decompression buffer for reuse (never the page itself).
func (d *PageDecoder) keep(raw []byte) {
	if cap(raw) > cap(d.buf) {
		d.buf = raw[:0]
	}
}

func (d *PageDecoder) dataPage(c *Chunk, h *pageHeader, body []byte, dict *Dictionary, dst *rows.Column) error {
	n := int(h.NumValues)
	if n > maxPageValues {
		return fmt.Errorf("%w: page of %d values (limit %d)", ErrUnsupported, n, maxPageValues)
	}
	required := c.Column.Required
	var levels, data []byte
	if h.Type == pageData {
		raw, err := decompress(c.Meta.Codec, d.buf, body, int(h.UncompressedSize))
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		d.keep(raw)
		data = raw
		if !required {
			if h.DefEncoding != EncRLE {
				return fmt.Errorf("%w: definition levels encoded %v", ErrUnsupported, h.DefEncoding)
			}
			if len(data) < 4 {
				return fmt.Errorf("%w: definition levels: %w", ErrCorrupt, errShort)
			}
			l := binary.LittleEndian.Uint32(data)
			if uint64(l) > uint64(len(data)-4) {
				return fmt.Errorf("%w: definition levels of %d bytes with %d left", ErrCorrupt, l, len(data)-4)
			}
			levels, data = data[4:4+l], data[4+l:]
		}
	} else {
		if h.NumRows != h.NumValues {
			return fmt.Errorf("%w: v2 page with %d rows and %d values in a flat column", ErrCorrupt, h.NumRows, h.NumValues)
		}
		if h.RepLen != 0 {
			return fmt.Errorf("%w: repetition levels in a flat column", ErrCorrupt)
		}
		if int64(h.DefLen) > int64(len(body)) || h.DefLen > h.UncompressedSize {
			return fmt.Errorf("%w: definition levels of %d bytes in a page of %d", ErrCorrupt, h.DefLen, len(body))
		}
		levels, data = body[:h.DefLen], body[h.DefLen:]
		if h.Compressed && c.Meta.Codec != Uncompressed {
			raw, err := decompress(c.Meta.Codec, d.buf, data, int(h.UncompressedSize-h.DefLen))
			if err != nil {
				return fmt.Errorf("%w: %w", ErrCorrupt, err)
			}
			d.keep(raw)
			data = raw
		}
	}
	// definition levels
	nonNull := n
	var defs []uint32
	if !required && !allDefined(levels, n) {
		if cap(d.defs) < n {
			d.defs = make([]uint32, n)
		}
		defs = d.defs[:n]
		if err := decodeHybrid(defs, levels, 1); err != nil {
			return fmt.Errorf("%w: definition levels: %w", ErrCorrupt, err)
		}
		nonNull = 0
		for _, l := range defs {
			nonNull += int(l)
		}
	}
	if !required && h.Type == pageDataV2 && int(h.NumNulls) != n-nonNull {
		return fmt.Errorf("%w: page says %d nulls, levels say %d", ErrCorrupt, h.NumNulls, n-nonNull)
	}
	// values: a page without nulls is decoded straight into dst (no
	// scratch to fill and copy again); dst is only extended on success
	if nonNull == n {
		v := values{ints: dst.Ints, floats: dst.Floats, bools: dst.Bools, strs: dst.Strs}
		prev := len(v.ints)
		if err := d.decodeValues(c, h.Encoding, data, n, dict, &v); err != nil {
			return fmt.Errorf("%w: %v values: %w", ErrCorrupt, h.Encoding, err)
		}
		if h.Encoding != EncPlainDictionary && h.Encoding != EncRLEDictionary {
			if err := convert(c, v.ints[prev:]); err != nil {
				return err
			}
		}
		appendNulls(c, dst, nil, n, n)
		dst.Ints, dst.Floats, dst.Bools, dst.Strs = v.ints, v.floats, v.bools, v.strs
		return nil
	}
	v := &d.vals
	v.reset()
	if err := d.decodeValues(c, h.Encoding, data, nonNull, dict, v); err != nil {
		return fmt.Errorf("%w: %v values: %w", ErrCorrupt, h.Encoding, err)
	}
	if h.Encoding != EncPlainDictionary && h.Encoding != EncRLEDictionary {
		if err := convert(c, v.ints); err != nil {
			return err
		}
	}
	scatter(c, v, defs, n, nonNull, dst)
	return nil
}

// allDefined reports whether the definition levels (bit width 1) of a
// page of n values start with one RLE run of at least n ones, the way a page
// without nulls is written: then no level needs decoding or counting.
func allDefined(levels []byte, n int) bool {
	h, k := binary.Uvarint(levels)
	return k > 0 && h&1 == 0 && h>>1 >= uint64(n) && len(levels) > k && levels[k] == 1
}

// appendNulls extends dst.Nulls by n rows (true where defs is 0) when dst
// has a null map or the page needs one.
func appendNulls(c *Chunk, dst *rows.Column, defs []uint32, n, nonNull int) {
	if nonNull < n && dst.Nulls == nil {
		prev := columnLen(dst, c.Column.Type)
		dst.Nulls = make([]bool, prev, prev+n)
	}
	if dst.Nulls == nil {
		return
	}
	if defs == nil {
		dst.Nulls = append(dst.Nulls, make([]bool, n)...)
		return
	}
	k := len(dst.Nulls)
	dst.Nulls = slices.Grow(dst.Nulls, len(defs))[:k+len(defs)]
	nulls := dst.Nulls[k:]
	for i, l := range defs {
		nulls[i] = l == 0
	}
}

// scatter appends n rows to dst: the decoded values, with zero values and
// Nulls set where defs is 0.
func scatter(c *Chunk, v *values, defs []uint32, n, nonNull int, dst *rows.Column) {
	t := c.Column.Type
	appendNulls(c, dst, defs, n, nonNull)
	switch {
	case t.IsInteger():
		dst.Ints = scatterT(dst.Ints, v.ints, defs, nonNull == n)
	case t.IsFloat():
		dst.Floats = scatterT(dst.Floats, v.floats, defs, nonNull == n)
	case t == schema.Boolean:
		dst.Bools = scatterT(dst.Bools, v.bools, defs, nonNull == n)
	default:
		dst.Strs = scatterT(dst.Strs, v.strs, defs, nonNull == n)
	}
}

func scatterT[T any](dst, vals []T, defs []uint32, dense bool) []T {
	if dense {
		return append(dst, vals...)
	}
	n := len(dst)
	dst = slices.Grow(dst, len(defs))[:n+len(defs)]
	out := dst[n:]
	k := 0
	for i, l := range defs {
		if l != 0 {
			out[i] = vals[k]
			k++
		} else {
			var zero T
			out[i] = zero
		}
	}
	return dst
}

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
