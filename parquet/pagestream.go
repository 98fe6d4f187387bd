package parquet

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// PageStream decodes a data page a window of rows at a time, keeping its
// place in the page's bytes between windows: a reader merging many files
// holds a page of each column of each file open at once, and with a
// PageStream it holds the page's bytes (decompressed; a page of
// DELTA_BINARY_PACKED longs or dictionary indexes is a fraction of its
// values' size) and a window's values, not the whole page decoded.
//
// PLAIN, dictionary indexes (RLE/bit-packed) and DELTA_BINARY_PACKED are
// decoded resumably, definition levels too; a page of another encoding
// (BYTE_STREAM_SPLIT, the DELTA byte-array encodings, RLE booleans) is
// decoded whole when opened and handed out from its values. The rows
// handed out are those Decode appends for the page, window by window,
// except that a window without nulls may add no null map (Nulls nil for
// a dst without one) where Decode adds one for the whole page.
//
// The zero value is ready to Open; a PageStream reuses its decompression
// buffer from page to page, and takes its scratch (a window's levels and
// values) from the PageDecoder it is opened with, which many streams read
// one at a time share.
type PageStream struct {
	c       *Chunk
	dict    *Dictionary
	dec     *PageDecoder // dictionary pages, pages decoded whole, scratch
	raw     []byte       // the decompressed page
	n, pos  int          // the page's rows, rows handed out
	enc     Encoding
	indexes bool // dictionary indexes are handed out, not values
	dictLen int

	hasDefs bool
	defs    hybridReader
	data    []byte // the values' bytes
	vpos    int    // PLAIN: the next value's byte (booleans: bit)
	hyb     hybridReader
	delta   deltaReader

	whole    bool        // decoded whole when opened (other encodings)
	wholeCol rows.Column // its rows
	wholeAt  int
}

// Open starts s on the page at the start of page (header and body) of the
// chunk c and returns the bytes the page takes. A dictionary page fills
// dict (and s has no rows); index pages and unknown pages are skipped. For
// a data page encoded with dict's dictionary, indexes asks for the
// dictionary indexes in dst.Ints (0 for a null row) in place of values, as
// DecodeIndexes does; Indexes reports whether that is what Next hands out.
// page's bytes must stay unchanged until the page is read: an
// uncompressed page is read from them in place.
func (s *PageStream) Open(dec *PageDecoder, c *Chunk, page []byte, dict *Dictionary, indexes bool) (int, error) {
	s.dec, s.c, s.dict, s.n, s.pos, s.whole, s.hasDefs, s.indexes = dec, c, dict, 0, 0, false, false, false
	s.data, s.wholeCol = nil, rows.Column{}
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
	if h.CompressedSize < 0 || int(h.CompressedSize) > len(page)-hlen {
		return 0, fmt.Errorf("%w: page of %d bytes with %d left in the chunk", ErrCorrupt, h.CompressedSize, len(page)-hlen)
	}
	if h.UncompressedSize > maxPageBytes {
		return 0, fmt.Errorf("%w: page of %d bytes (limit %d)", ErrUnsupported, h.UncompressedSize, maxPageBytes)
	}
	switch h.Type {
	case pageDictionary:
		var scratch rows.Column
		return s.dec.Decode(c, page, dict, &scratch)
	case pageData, pageDataV2:
	default:
		return total, nil
	}
	if !h.HasData {
		return 0, fmt.Errorf("%w: data page without its header", ErrCorrupt)
	}
	if !resumable(c.Column.Physical, h.Encoding) {
		if _, err := s.dec.Decode(c, page, dict, &s.wholeCol); err != nil {
			return 0, err
		}
		s.whole, s.wholeAt, s.n = true, 0, s.wholeCol.Len(c.Column.Type)
		return total, nil
	}
	if err := s.openData(c, &h, page[hlen:total], dict, indexes); err != nil {
		return 0, err
	}
	return total, nil
}

// resumable reports whether pages of encoding enc are decoded a window at
// a time.
func resumable(phys PhysicalType, enc Encoding) bool {
	switch enc {
	case EncPlain, EncPlainDictionary, EncRLEDictionary:
		return true
	case EncDeltaBinaryPacked:
		return phys == TypeInt32 || phys == TypeInt64
	}
	return false
}

// Left is the page's rows not yet handed out.
func (s *PageStream) Left() int { return s.n - s.pos }

// Indexes reports whether Next hands out dictionary indexes.
func (s *PageStream) Indexes() bool { return s.indexes }

// openData reads a data page's levels and value headers (dataPage's
// checks, save those of values not yet decoded).
func (s *PageStream) openData(c *Chunk, h *pageHeader, body []byte, dict *Dictionary, indexes bool) error {
	n := int(h.NumValues)
	if n > maxPageValues {
		return fmt.Errorf("%w: page of %d values (limit %d)", ErrUnsupported, n, maxPageValues)
	}
	if n < 0 {
		return fmt.Errorf("%w: page of %d values", ErrCorrupt, n)
	}
	required := c.Column.Required
	var levels, data []byte
	if h.Type == pageData {
		raw, err := decompress(c.Meta.Codec, s.raw, body, int(h.UncompressedSize))
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		s.keep(raw)
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
		if h.DefLen < 0 || int64(h.DefLen) > int64(len(body)) || h.DefLen > h.UncompressedSize {
			return fmt.Errorf("%w: definition levels of %d bytes in a page of %d", ErrCorrupt, h.DefLen, len(body))
		}
		levels, data = body[:h.DefLen], body[h.DefLen:]
		if h.Compressed && c.Meta.Codec != Uncompressed {
			raw, err := decompress(c.Meta.Codec, s.raw, data, int(h.UncompressedSize-h.DefLen))
			if err != nil {
				return fmt.Errorf("%w: %w", ErrCorrupt, err)
			}
			s.keep(raw)
			data = raw
		}
	}
	nonNull := n
	if !required && !allDefined(levels, n) {
		// count the non-null values (dataPage's checks need them) without
		// holding a level a row
		var counter hybridReader
		if err := counter.init(levels, 1, n); err != nil {
			return fmt.Errorf("%w: definition levels: %w", ErrCorrupt, err)
		}
		var chunk [512]uint32
		nonNull = 0
		for left := n; left > 0; {
			m := min(left, len(chunk))
			if err := counter.read(chunk[:m]); err != nil {
				return fmt.Errorf("%w: definition levels: %w", ErrCorrupt, err)
			}
			for _, l := range chunk[:m] {
				nonNull += int(l)
			}
			left -= m
		}
		s.hasDefs = true
		_ = s.defs.init(levels, 1, n)
	}
	if !required && h.Type == pageDataV2 && int(h.NumNulls) != n-nonNull {
		return fmt.Errorf("%w: page says %d nulls, levels say %d", ErrCorrupt, h.NumNulls, n-nonNull)
	}
	s.enc, s.data, s.vpos, s.n = h.Encoding, data, 0, n
	var err error
	switch h.Encoding {
	case EncPlain:
		err = plainFits(c.Column.Physical, data, nonNull)
	case EncPlainDictionary, EncRLEDictionary:
		if nonNull == 0 {
			break
		}
		if dict == nil || !dict.valid {
			err = fmt.Errorf("dictionary-encoded page without a dictionary page")
			break
		}
		dv := &dict.vals
		s.dictLen = max(len(dv.ints), len(dv.floats), len(dv.bools), len(dv.strs))
		if len(data) < 1 {
			err = errShort
			break
		}
		err = s.hyb.init(data[1:], uint(data[0]), nonNull)
	case EncDeltaBinaryPacked:
		err = s.delta.init(data, nonNull, c.Column.Physical == TypeInt32)
	}
	if err != nil {
		s.n = 0
		return fmt.Errorf("%w: %v values: %w", ErrCorrupt, h.Encoding, err)
	}
	if indexes && (h.Encoding == EncPlainDictionary || h.Encoding == EncRLEDictionary) && dict != nil && dict.valid {
		s.indexes = true
	}
	return nil
}

// keep remembers a decompression buffer for the next page.
func (s *PageStream) keep(raw []byte) {
	if cap(raw) > cap(s.raw) {
		s.raw = raw[:0]
	}
}

// plainFits checks that data holds n PLAIN values as decodePlain does.
func plainFits(phys PhysicalType, data []byte, n int) error {
	width := map[PhysicalType]int{TypeInt32: 4, TypeInt64: 8, TypeInt96: 12, TypeFloat: 4, TypeDouble: 8, TypeByteArray: 4}[phys]
	switch {
	case phys == TypeBoolean:
		if n > len(data)*8 {
			return fmt.Errorf("%d booleans in %d bytes: %w", n, len(data), errShort)
		}
	case width == 0:
		return fmt.Errorf("physical type %v is not supported", phys)
	case n > len(data)/width:
		return fmt.Errorf("%d values of %d bytes in %d bytes: %w", n, width, len(data), errShort)
	}
	return nil
}

// Next appends the page's next n rows to dst, as Decode appends the
// page's rows (dictionary indexes if Indexes).
func (s *PageStream) Next(n int, dst *rows.Column) error {
	if n < 0 || n > s.Left() {
		return fmt.Errorf("%w: %d rows wanted of a page with %d left", ErrCorrupt, n, s.Left())
	}
	typ := s.c.Column.Type
	if s.indexes {
		typ = schema.Long
	}
	if s.whole {
		appendWindow(dst, &s.wholeCol, s.pos, s.pos+n, typ)
		s.pos += n
		return nil
	}
	nonNull := n
	var defs []uint32
	if s.hasDefs {
		if cap(s.dec.defs) < n {
			s.dec.defs = make([]uint32, n)
		}
		defs = s.dec.defs[:n]
		if err := s.defs.read(defs); err != nil {
			return fmt.Errorf("%w: definition levels: %w", ErrCorrupt, err)
		}
		nonNull = 0
		for _, l := range defs {
			nonNull += int(l)
		}
	}
	prev := dst.Len(typ)
	var v *values
	if nonNull == n {
		v = &values{ints: dst.Ints, floats: dst.Floats, bools: dst.Bools, strs: dst.Strs}
	} else {
		v = &s.dec.vals
		v.reset()
	}
	before := len(v.ints)
	if err := s.values(nonNull, v); err != nil {
		return fmt.Errorf("%w: %v values: %w", ErrCorrupt, s.enc, err)
	}
	if s.enc != EncPlainDictionary && s.enc != EncRLEDictionary {
		if err := convert(s.c, v.ints[before:]); err != nil {
			return err
		}
	}
	s.pos += n
	if nonNull < n && dst.Nulls == nil {
		dst.Nulls = make([]bool, prev, prev+n)
	}
	if dst.Nulls != nil {
		k := len(dst.Nulls)
		dst.Nulls = slices.Grow(dst.Nulls, n)[:k+n]
		nulls := dst.Nulls[k:]
		for i := range nulls {
			nulls[i] = defs != nil && defs[i] == 0
		}
	}
	if nonNull == n {
		dst.Ints, dst.Floats, dst.Bools, dst.Strs = v.ints, v.floats, v.bools, v.strs
		return nil
	}
	switch {
	case typ.IsInteger():
		dst.Ints = scatterT(dst.Ints, v.ints, defs, false)
	case typ.IsFloat():
		dst.Floats = scatterT(dst.Floats, v.floats, defs, false)
	case typ == schema.Boolean:
		dst.Bools = scatterT(dst.Bools, v.bools, defs, false)
	default:
		dst.Strs = scatterT(dst.Strs, v.strs, defs, false)
	}
	return nil
}

// values appends the next m non-null values to v.
func (s *PageStream) values(m int, v *values) error {
	if m == 0 {
		return nil
	}
	switch s.enc {
	case EncPlain:
		return s.plain(m, v)
	case EncDeltaBinaryPacked:
		var err error
		v.ints, err = s.delta.read(v.ints, m)
		return err
	}
	// dictionary indexes
	if cap(s.dec.idx) < m {
		s.dec.idx = make([]uint32, m)
	}
	idx := s.dec.idx[:m]
	if err := s.hyb.read(idx); err != nil {
		return err
	}
	for _, i := range idx {
		if int(i) >= s.dictLen {
			return fmt.Errorf("dictionary index %d with %d entries", i, s.dictLen)
		}
	}
	dv := &s.dict.vals
	switch {
	case s.indexes:
		for _, i := range idx {
			v.ints = append(v.ints, int64(i))
		}
	case dv.ints != nil:
		v.ints = lookup(v.ints, dv.ints, idx)
	case dv.floats != nil:
		v.floats = lookup(v.floats, dv.floats, idx)
	case dv.bools != nil:
		v.bools = lookup(v.bools, dv.bools, idx)
	default:
		v.strs = lookup(v.strs, dv.strs, idx)
	}
	return nil
}

func lookup[T any](dst, dict []T, idx []uint32) []T {
	dst, out := grow(dst, len(idx))
	for k, i := range idx {
		out[k] = dict[i]
	}
	return dst
}

// plain decodes the next m PLAIN values.
func (s *PageStream) plain(m int, v *values) error {
	data := s.data
	switch phys := s.c.Column.Physical; phys {
	case TypeBoolean:
		for range m {
			i := s.vpos
			v.bools = append(v.bools, data[i>>3]>>(i&7)&1 != 0)
			s.vpos++
		}
		return nil
	case TypeByteArray:
		// the window's strings share one allocation
		end := s.vpos
		for range m {
			if len(data)-end < 4 {
				return errShort
			}
			l := int(binary.LittleEndian.Uint32(data[end:]))
			end += 4
			if l < 0 || l > len(data)-end {
				return fmt.Errorf("string of %d bytes with %d left: %w", l, len(data)-end, errShort)
			}
			end += l
		}
		all := string(data[s.vpos:end])
		pos := 0
		for range m {
			l := int(binary.LittleEndian.Uint32(data[s.vpos+pos:]))
			pos += 4
			v.strs = append(v.strs, all[pos:pos+l])
			pos += l
		}
		s.vpos = end
		return nil
	default:
		width := map[PhysicalType]int{TypeInt32: 4, TypeInt64: 8, TypeInt96: 12, TypeFloat: 4, TypeDouble: 8}[phys]
		if err := decodePlain(s.c, data[s.vpos:], m, v); err != nil {
			return err
		}
		s.vpos += m * width
		return nil
	}
}

// appendWindow appends rows [a, z) of src (of type t) to dst.
func appendWindow(dst, src *rows.Column, a, z int, t schema.Type) {
	n := z - a
	if src.Nulls != nil && dst.Nulls == nil && slices.Contains(src.Nulls[a:z], true) {
		prev := dst.Len(t)
		dst.Nulls = make([]bool, prev, prev+n)
	}
	if dst.Nulls != nil {
		if src.Nulls != nil {
			dst.Nulls = append(dst.Nulls, src.Nulls[a:z]...)
		} else {
			dst.Nulls = append(dst.Nulls, make([]bool, n)...)
		}
	}
	switch {
	case t.IsInteger():
		dst.Ints = append(dst.Ints, src.Ints[a:z]...)
	case t.IsFloat():
		dst.Floats = append(dst.Floats, src.Floats[a:z]...)
	case t == schema.Boolean:
		dst.Bools = append(dst.Bools, src.Bools[a:z]...)
	default:
		dst.Strs = append(dst.Strs, src.Strs[a:z]...)
	}
}
