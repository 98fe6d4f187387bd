package parquet

// Pages of a nested column's leaf: repetition and definition levels
// (RLE/bit-packed hybrid, in data pages v1 and v2) beside the values of
// the entries defined down to the leaf, in any value encoding a flat
// column is read in.

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
)

// maxNestedEntries bounds the level entries one leaf of a nested column
// may hold in one row group: a list of a million elements a row, or a
// row group of millions of rows with a few each, is read; a chunk whose
// pages add up to more, or to more than its num_values (RLE makes a page
// of a few bytes claim a million entries), is refused before their levels
// are held. At the bound a leaf holds 2 bytes of levels and at most 16
// bytes of value an entry (a string's header; its bytes are the page's).
const maxNestedEntries = 1 << 24

// leafData is a leaf's entries in one row group: the levels of every
// entry, and the values of the entries defined down to the leaf (definition
// level MaxDef), in order.
type leafData struct {
	rep, def []uint8
	vals     values
	nvals    int // values held (the length of the slice the type uses)

	// A string leaf's dictionary-encoded values are held as indexes into
	// dict (4 bytes a value, no pointer for the collector to trace)
	// rather than as strings (16 bytes a value, each a pointer): labels
	// repeat, and a map of 8 labels a row holds 1.6 million of them in a
	// row group of 100,000 rows. Values [0, len(idx)) are dict[idx[i]];
	// the rest, vals.strs[i-len(idx)] (a chunk falling back to PLAIN
	// after its dictionary pages).
	idx  []int32
	dict []string
}

// str is the leaf's i'th value of a string type (i < nvals).
func (l *leafData) str(i int) (string, bool) {
	if i < len(l.idx) {
		return l.dict[l.idx[i]], true
	}
	i -= len(l.idx)
	if i < 0 || i >= len(l.vals.strs) {
		return "", false
	}
	return l.vals.strs[i], true
}

// presizeEntries caps what a leaf's level slices are made for up front
// from its chunk's num_values (a claim the pages are checked against;
// beyond it they grow as pages come).
const presizeEntries = 1 << 21

// decodeLeafPage decodes the page at the start of page (header and body)
// of nested leaf c: a dictionary page fills dict (through dictDec, whose
// buffers the dictionary's strings keep); a data page appends its levels
// and values to out. It returns the bytes the page takes.
func (d *PageDecoder) decodeLeafPage(c *Chunk, page []byte, dict *Dictionary, dictDec *PageDecoder, out *leafData) (int, error) {
	h, hlen, err := readPageHeader(page)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if h.Type != pageData && h.Type != pageDataV2 {
		if len(out.idx) > 0 {
			// values held as indexes point into the dictionary this
			// page would overwrite; a chunk has one dictionary page
			return 0, fmt.Errorf("%w: column %q: a dictionary page after dictionary-encoded data", ErrCorrupt, c.Column.Name)
		}
		return dictDec.Decode(c, page, dict, nil)
	}
	switch c.Meta.Codec {
	case Zstd, Uncompressed, Snappy, Gzip, LZ4Raw, LZ4:
	default:
		return 0, fmt.Errorf("%w: column %q: compression codec %v", ErrUnsupported, c.Column.Name, c.Meta.Codec)
	}
	total := hlen + int(h.CompressedSize)
	if h.CompressedSize < 0 || int(h.CompressedSize) > len(page)-hlen {
		return 0, fmt.Errorf("%w: page of %d bytes with %d left in the chunk", ErrCorrupt, h.CompressedSize, len(page)-hlen)
	}
	if h.UncompressedSize < 0 || h.UncompressedSize > maxPageBytes {
		return 0, fmt.Errorf("%w: page of %d bytes (limit %d)", ErrUnsupported, h.UncompressedSize, maxPageBytes)
	}
	if !h.HasData {
		return 0, fmt.Errorf("%w: data page without its header", ErrCorrupt)
	}
	n := int(h.NumValues)
	if n < 0 || n > maxPageValues {
		return 0, fmt.Errorf("%w: page of %d values (limit %d)", ErrUnsupported, n, maxPageValues)
	}
	if len(out.def)+n > maxNestedEntries {
		return 0, fmt.Errorf("%w: column %q holds over %d entries in a row group", ErrUnsupported, c.Column.Name, maxNestedEntries)
	}
	if int64(len(out.def)+n) > c.Meta.NumValues {
		// the chunk's num_values counts its entries: pages claiming more
		// are refused before their levels are held
		return 0, fmt.Errorf("%w: pages hold over %d entries, the chunk's num_values", ErrCorrupt, c.Meta.NumValues)
	}
	body := page[hlen:total]
	maxRep, maxDef := c.Column.MaxRep, c.Column.MaxDef
	var repBytes, defBytes, data []byte
	if h.Type == pageData {
		raw, err := decompress(c.Meta.Codec, d.buf, body, int(h.UncompressedSize))
		if err != nil {
			return 0, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		d.keep(raw)
		data = raw
		prefixed := func(what string, enc Encoding) ([]byte, error) {
			if enc != EncRLE {
				return nil, fmt.Errorf("%w: %s levels encoded %v", ErrUnsupported, what, enc)
			}
			if len(data) < 4 {
				return nil, fmt.Errorf("%w: %s levels: %w", ErrCorrupt, what, errShort)
			}
			l := binary.LittleEndian.Uint32(data)
			if uint64(l) > uint64(len(data)-4) {
				return nil, fmt.Errorf("%w: %s levels of %d bytes with %d left", ErrCorrupt, what, l, len(data)-4)
			}
			b := data[4 : 4+l]
			data = data[4+l:]
			return b, nil
		}
		if maxRep > 0 {
			if repBytes, err = prefixed("repetition", h.RepEncoding); err != nil {
				return 0, err
			}
		}
		if maxDef > 0 {
			if defBytes, err = prefixed("definition", h.DefEncoding); err != nil {
				return 0, err
			}
		}
	} else {
		if h.RepLen < 0 || h.DefLen < 0 || int64(h.RepLen)+int64(h.DefLen) > int64(len(body)) || h.RepLen+h.DefLen > h.UncompressedSize {
			return 0, fmt.Errorf("%w: levels of %d+%d bytes in a page of %d", ErrCorrupt, h.RepLen, h.DefLen, len(body))
		}
		repBytes, defBytes, data = body[:h.RepLen], body[h.RepLen:h.RepLen+h.DefLen], body[h.RepLen+h.DefLen:]
		if h.Compressed && c.Meta.Codec != Uncompressed {
			raw, err := decompress(c.Meta.Codec, d.buf, data, int(h.UncompressedSize-h.RepLen-h.DefLen))
			if err != nil {
				return 0, fmt.Errorf("%w: %w", ErrCorrupt, err)
			}
			d.keep(raw)
			data = raw
		}
	}
	at := len(out.def)
	if out.def == nil {
		// one allocation for the row group's levels, not a doubling per page
		want := int(min(c.Meta.NumValues, presizeEntries))
		out.rep, out.def = make([]uint8, 0, want), make([]uint8, 0, want)
	}
	if out.rep, err = d.levels(out.rep, repBytes, n, maxRep); err != nil {
		return 0, fmt.Errorf("%w: repetition levels: %w", ErrCorrupt, err)
	}
	if out.def, err = d.levels(out.def, defBytes, n, maxDef); err != nil {
		return 0, fmt.Errorf("%w: definition levels: %w", ErrCorrupt, err)
	}
	if at == 0 && n > 0 && out.rep[0] != 0 {
		return 0, fmt.Errorf("%w: the first entry of the row group continues a row (repetition level %d)", ErrCorrupt, out.rep[0])
	}
	defined := 0
	for _, l := range out.def[at:] {
		if l == maxDef {
			defined++
		}
	}
	v := &d.vals
	v.reset()
	isDict := h.Encoding == EncPlainDictionary || h.Encoding == EncRLEDictionary
	// indexes only while no PLAIN string precedes them (str's order)
	asIdx := isDict && dict != nil && dict.valid && dict.vals.strs != nil && len(out.vals.strs) == 0
	d.indexes = asIdx
	err = d.decodeValues(c, h.Encoding, data, defined, dict, v)
	d.indexes = false
	if err != nil {
		return 0, fmt.Errorf("%w: %v values: %w", ErrCorrupt, h.Encoding, err)
	}
	if asIdx {
		if len(v.ints) != defined {
			return 0, fmt.Errorf("%w: %d values for %d defined entries", ErrCorrupt, len(v.ints), defined)
		}
		if out.idx == nil {
			out.idx = make([]int32, 0, min(c.Meta.NumValues, presizeEntries))
		}
		out.dict = dict.vals.strs
		for _, x := range v.ints {
			out.idx = append(out.idx, int32(x))
		}
		out.nvals += defined
		return total, nil
	}
	if !isDict {
		if err := convert(c, v.ints); err != nil {
			return 0, err
		}
	}
	got := max(len(v.ints), len(v.floats), len(v.bools), len(v.strs))
	if got != defined {
		return 0, fmt.Errorf("%w: %d values for %d defined entries", ErrCorrupt, got, defined)
	}
	o := &out.vals
	o.ints = append(o.ints, v.ints...)
	o.floats = append(o.floats, v.floats...)
	o.bools = append(o.bools, v.bools...)
	o.strs = append(o.strs, v.strs...) // decoded strings own their bytes (decode_values.go copies them out of the page)
	out.nvals += defined
	return total, nil
}

// levels appends n levels (at most max) decoded from src to dst: all 0
// when max is 0 (the level is not stored).
func (d *PageDecoder) levels(dst []uint8, src []byte, n int, most uint8) ([]uint8, error) {
	k := len(dst)
	dst = slices.Grow(dst, n)[:k+n]
	clear(dst[k:])
	if most == 0 || n == 0 {
		return dst, nil
	}
	if cap(d.defs) < n {
		d.defs = make([]uint32, n)
	}
	tmp := d.defs[:n]
	if err := decodeHybrid(tmp, src, uint(bits.Len8(most))); err != nil {
		return nil, err
	}
	for i, l := range tmp {
		if l > uint32(most) {
			return nil, fmt.Errorf("level %d over the maximum %d", l, most)
		}
		dst[k+i] = uint8(l)
	}
	return dst, nil
}
