package parquet

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/klauspost/compress/s2"
	"github.com/timelake/timelake/schema"
)

// A page and a column chunk as they are finished: values encoded and
// compressed, page headers, statistics, the column and offset indexes
// (colWriter.flushPage and flushChunk; writer.go has the layout).

// valueCount is the number of non-null values in the current page.
func (cw *colWriter) valueCount() int {
	switch {
	case cw.spec.Type.IsInteger():
		return len(cw.ints)
	case cw.spec.Type.IsFloat():
		return len(cw.floats)
	case cw.spec.Type == schema.Boolean:
		return len(cw.bools)
	}
	return cw.nStrs
}

// encodeValues writes the page's values into cw.raw and returns the
// encoding used.
func (cw *colWriter) encodeValues() Encoding {
	compat := cw.w.opt.Compat
	raw := cw.raw[:0]
	enc := EncPlain
	switch cw.spec.Type {
	case schema.Long, schema.Timestamptz, schema.Timestamp, schema.TimestamptzNs, schema.TimestampNs:
		if compat {
			for _, v := range cw.ints {
				raw = binary.LittleEndian.AppendUint64(raw, uint64(v))
			}
		} else {
			raw, enc = appendDelta(raw, cw.ints, false, &cw.delta), EncDeltaBinaryPacked
		}
	case schema.Int:
		if compat {
			for _, v := range cw.ints {
				raw = binary.LittleEndian.AppendUint32(raw, uint32(int32(v)))
			}
		} else {
			raw, enc = appendDelta(raw, cw.ints, true, &cw.delta), EncDeltaBinaryPacked
		}
	case schema.Double:
		// stored into a buffer grown once: an append per value is a call
		// per value in WebAssembly
		n := len(raw)
		raw = slices.Grow(raw, 8*len(cw.floats))[:n+8*len(cw.floats)]
		out := raw[n:]
		for i, v := range cw.floats {
			binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(v))
		}
	case schema.Float:
		for _, v := range cw.floats {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(v)))
		}
	case schema.Boolean:
		var acc byte
		for i, v := range cw.bools {
			if v {
				acc |= 1 << (i & 7)
			}
			if i&7 == 7 {
				raw = append(raw, acc)
				acc = 0
			}
		}
		if len(cw.bools)&7 != 0 {
			raw = append(raw, acc)
		}
	case schema.String:
		if cw.nStrs > 0 && !cw.fallback {
			width := uint(bits.Len(uint(len(cw.dictOff) - 1)))
			raw = append(raw, byte(width))
			raw = appendHybrid(raw, cw.idx, width)
			enc = EncRLEDictionary
			if compat {
				enc = EncPlainDictionary
			}
		} else {
			raw = append(raw, cw.plain...)
		}
	}
	cw.raw = raw
	return enc
}

// compress returns the compressed form of src (src itself when
// uncompressed), in a reused buffer.
func (cw *colWriter) compress(src []byte) []byte {
	switch cw.w.opt.Codec {
	case Zstd:
		cw.comp = cw.w.enc.EncodeAll(src, cw.comp[:0])
	case Snappy:
		if n := s2.MaxEncodedLen(len(src)); cap(cw.comp) < n {
			cw.comp = make([]byte, n)
		}
		cw.comp = s2.EncodeSnappy(cw.comp[:cap(cw.comp)], src)
	default:
		return src
	}
	return cw.comp
}

// flushPage encodes, compresses and appends the current page to the chunk.
func (cw *colWriter) flushPage() error {
	w := cw.w
	rowsInPage := w.pageRows
	values := cw.valueCount()
	enc := cw.encodeValues()
	// definition levels: RLE/bit-packed hybrid at width 1
	levels := cw.levels[:0]
	repLen := 0
	if cw.leaf != leafFlat {
		levels, repLen = cw.nestedLevels(levels)
	} else if !cw.spec.Required {
		if w.opt.Compat {
			levels = append(levels, 0, 0, 0, 0) // length prefix, set below
		}
		if cw.pageNulls == 0 {
			levels = appendAllDefined(levels, rowsInPage)
		} else {
			levels = appendHybrid(levels, cw.defs, 1)
		}
		if w.opt.Compat {
			binary.LittleEndian.PutUint32(levels, uint32(len(levels)-4))
		}
	}
	cw.levels = levels
	h := pageHeader{NumValues: int32(rowsInPage), Encoding: enc}
	if cw.leaf != leafFlat {
		h.NumValues = int32(len(cw.defs)) // level entries, not rows
	}
	var body, prefix []byte // prefix is stored uncompressed before body
	uncompressed := 0
	if w.opt.Compat {
		h.Type = pageData
		h.DefEncoding, h.RepEncoding = EncRLE, EncRLE
		page := append(levels, cw.raw...)
		cw.levels = page
		uncompressed = len(page)
		body = cw.compress(page)
	} else {
		h.Type = pageDataV2
		h.NumNulls = int32(cw.pageNulls)
		h.NumRows = int32(rowsInPage)
		h.RepLen = int32(repLen)
		h.DefLen = int32(len(levels) - repLen)
		// an all-null page has no values to compress
		h.Compressed = w.opt.Codec != Uncompressed && len(cw.raw) > 0
		prefix = levels
		uncompressed = len(levels) + len(cw.raw)
		body = cw.raw
		if h.Compressed {
			body = cw.compress(cw.raw)
		}
	}
	if uncompressed > math.MaxInt32 || len(prefix)+len(body) > math.MaxInt32 {
		return fmt.Errorf("parquet: column %q: page of %d bytes is too large", cw.spec.Name, uncompressed)
	}
	h.UncompressedSize = int32(uncompressed)
	h.CompressedSize = int32(len(prefix) + len(body))
	w.hdr.Reset()
	writePageHeader(&w.hdr, &h)

	offset := len(cw.chunk)
	cw.chunk = append(cw.chunk, w.hdr.Buf...)
	cw.chunk = append(cw.chunk, prefix...)
	cw.chunk = append(cw.chunk, body...)
	size := len(cw.chunk) - offset
	cw.pages = append(cw.pages, PageLocation{Offset: int64(offset), CompressedPageSize: int32(size), FirstRowIndex: cw.chunkRows})
	cw.chunkUncompressed += int64(len(w.hdr.Buf) + uncompressed)
	cw.usedEncoding[enc] = true
	if enc == EncRLEDictionary || enc == EncPlainDictionary {
		cw.dictPages++
	} else {
		cw.plainPages++
	}

	if cw.leaf != leafFlat {
		// a nested leaf's chunk has bounds but no column index
		// (writer_nested.go)
		cw.noColumnIndex = true
		cw.chunkLevels += int64(len(cw.defs))
		cw.reps = cw.reps[:0]
	}
	// column index entry
	nullPage := values == 0
	cw.ci.NullPages = append(cw.ci.NullPages, nullPage)
	cw.ci.NullCounts = append(cw.ci.NullCounts, int64(cw.pageNulls))
	if nullPage {
		cw.ci.MinValues = append(cw.ci.MinValues, nil)
		cw.ci.MaxValues = append(cw.ci.MaxValues, nil)
	} else if !cw.page.has {
		cw.noColumnIndex = true // only NaNs
		cw.ci.MinValues = append(cw.ci.MinValues, nil)
		cw.ci.MaxValues = append(cw.ci.MaxValues, nil)
	} else {
		var lo, hi []byte
		lo, _ = appendBound(nil, cw.spec.Type, &cw.page, false)
		hi, _ = appendBound(nil, cw.spec.Type, &cw.page, true)
		cw.ci.MinValues = append(cw.ci.MinValues, lo)
		cw.ci.MaxValues = append(cw.ci.MaxValues, hi)
	}

	cw.chunkBounds.merge(&cw.page, true)
	cw.chunkNulls += int64(cw.pageNulls)
	cw.chunkRows += int64(rowsInPage)
	cw.file.NaNs += int64(cw.pageNaNs)

	// reset the page
	cw.ints, cw.floats, cw.bools = cw.ints[:0], cw.floats[:0], cw.bools[:0]
	cw.defs, cw.idx, cw.plain = cw.defs[:0], cw.idx[:0], cw.plain[:0]
	cw.nStrs, cw.lastStr, cw.pageDict0 = 0, "", len(cw.dictOff)
	cw.pageNulls, cw.pageNaNs = 0, 0
	cw.page = bounds{}
	return nil
}

// flushChunk appends the chunk (dictionary page, then data pages) to the
// file and returns its metadata, resetting the chunk state.
func (cw *colWriter) flushChunk() (ColumnChunk, exactness, idxRef) {
	w := cw.w
	start := int64(len(w.out))
	m := ColumnMeta{
		Type:  cw.phys,
		Path:  cw.path(),
		Codec: w.opt.Codec,
	}
	var encStats []PageEncodingStats
	if cw.dictPages > 0 {
		h := pageHeader{Type: pageDictionary, NumValues: int32(len(cw.dictOff)), Encoding: EncPlain}
		if w.opt.Compat {
			h.Encoding = EncPlainDictionary
		}
		body := cw.compress(cw.dictBuf)
		h.UncompressedSize, h.CompressedSize = int32(len(cw.dictBuf)), int32(len(body))
		w.hdr.Reset()
		writePageHeader(&w.hdr, &h)
		w.out = append(w.out, w.hdr.Buf...)
		w.out = append(w.out, body...)
		m.HasDictionaryPage, m.DictionaryPageOffset = true, start
		m.TotalUncompressedSize += int64(len(w.hdr.Buf) + len(cw.dictBuf))
		encStats = append(encStats, PageEncodingStats{PageType: int32(pageDictionary), Encoding: h.Encoding, Count: 1})
		m.Encodings = append(m.Encodings, h.Encoding)
	}
	dataStart := int64(len(w.out))
	w.out = append(w.out, cw.chunk...)
	m.DataPageOffset = dataStart
	m.TotalUncompressedSize += cw.chunkUncompressed
	m.TotalCompressedSize = int64(len(w.out)) - start
	m.NumValues = cw.chunkRows
	if cw.leaf != leafFlat {
		m.NumValues = cw.chunkLevels
		cw.chunkLevels = 0
	}
	if !cw.spec.Required || cw.leaf != leafFlat {
		m.Encodings = appendEncoding(m.Encodings, EncRLE)
	}
	for e, used := range cw.usedEncoding {
		if used {
			m.Encodings = appendEncoding(m.Encodings, Encoding(e))
		}
	}
	dataType := int32(pageDataV2)
	if w.opt.Compat {
		dataType = int32(pageData)
	}
	if cw.dictPages > 0 {
		e := EncRLEDictionary
		if w.opt.Compat {
			e = EncPlainDictionary
		}
		encStats = append(encStats, PageEncodingStats{PageType: dataType, Encoding: e, Count: cw.dictPages})
	}
	if cw.plainPages > 0 {
		for e, used := range cw.usedEncoding {
			if used && Encoding(e) != EncRLEDictionary && Encoding(e) != EncPlainDictionary {
				encStats = append(encStats, PageEncodingStats{PageType: dataType, Encoding: Encoding(e), Count: cw.plainPages})
			}
		}
	}
	m.EncodingStats = encStats

	// statistics
	m.HasStats = true
	m.Stats.HasNullCount, m.Stats.NullCount = true, cw.chunkNulls
	var ex exactness
	if cw.chunkBounds.has {
		m.Stats.HasMin, m.Stats.HasMax = true, true
		m.Stats.Min, ex.min = appendBound(nil, cw.spec.Type, &cw.chunkBounds, false)
		m.Stats.Max, ex.max = appendBound(nil, cw.spec.Type, &cw.chunkBounds, true)
	}

	// page indexes
	var ref idxRef
	for i := range cw.pages {
		cw.pages[i].Offset += dataStart
	}
	w.hdr.Reset()
	writeOffsetIndex(&w.hdr, &OffsetIndex{Pages: cw.pages})
	ref.offOff, ref.offLen = len(w.offIdxBuf), len(w.hdr.Buf)
	w.offIdxBuf = append(w.offIdxBuf, w.hdr.Buf...)
	if !cw.noColumnIndex {
		cw.ci.BoundaryOrder = boundaryOrder(cw.spec.Type, &cw.ci)
		w.hdr.Reset()
		writeColumnIndex(&w.hdr, &cw.ci)
		ref.colOff, ref.colLen = len(w.colIdxBuf), len(w.hdr.Buf)
		w.colIdxBuf = append(w.colIdxBuf, w.hdr.Buf...)
	}

	// file statistics
	cw.file.CompressedSize += m.TotalCompressedSize
	cw.file.Values += cw.chunkRows
	cw.file.Nulls += cw.chunkNulls
	cw.fileBounds.merge(&cw.chunkBounds, false)

	// reset the chunk
	cw.chunk = cw.chunk[:0]
	cw.pages = cw.pages[:0]
	cw.ci = ColumnIndex{NullPages: cw.ci.NullPages[:0], MinValues: cw.ci.MinValues[:0], MaxValues: cw.ci.MaxValues[:0], NullCounts: cw.ci.NullCounts[:0]}
	cw.noColumnIndex = false
	cw.chunkBounds = bounds{}
	cw.chunkUncompressed, cw.chunkNulls, cw.chunkRows = 0, 0, 0
	cw.dictPages, cw.plainPages = 0, 0
	cw.usedEncoding = [10]bool{}
	if cw.dict != nil {
		clear(cw.dict)
		cw.dictBuf, cw.dictOff, cw.fallback, cw.pageDict0 = cw.dictBuf[:0], cw.dictOff[:0], false, 0
	}
	return ColumnChunk{FileOffset: start, Meta: m}, ex, ref
}

func appendEncoding(list []Encoding, e Encoding) []Encoding {
	for _, x := range list {
		if x == e {
			return list
		}
	}
	return append(list, e)
}

// boundaryOrder finds whether the non-null pages' bounds ascend or descend.
func boundaryOrder(t schema.Type, ci *ColumnIndex) BoundaryOrder {
	asc, desc := true, true
	prev := -1
	for i, null := range ci.NullPages {
		if null {
			continue
		}
		if prev >= 0 {
			cmin := compareBound(t, ci.MinValues[prev], ci.MinValues[i])
			cmax := compareBound(t, ci.MaxValues[prev], ci.MaxValues[i])
			if cmin > 0 || cmax > 0 {
				asc = false
			}
			if cmin < 0 || cmax < 0 {
				desc = false
			}
		}
		prev = i
	}
	switch {
	case asc:
		return Ascending
	case desc:
		return Descending
	}
	return Unordered
}
