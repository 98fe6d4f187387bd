package parquet

import (
	"encoding/binary"
	"fmt"
	"slices"

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

	indexes bool    // DecodeIndexes: dictionary indexes into dst.Ints, not values
	iotas   []int64 // 0, 1, 2, …: the "dictionary" of indexes
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
	if d.indexes {
		appendNulls(c, dst, defs, n, nonNull)
		dst.Ints = scatterT(dst.Ints, v.ints, defs, false)
		return nil
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
		prev := dst.Len(c.Column.Type)
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
