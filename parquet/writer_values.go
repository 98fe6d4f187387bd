package parquet

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"unsafe"
)

// The values of a page as they are added: nulls to definition levels,
// integer and float bounds, and the string dictionary with its fallback to
// PLAIN (colWriter.add calls these; writer.go has the layout).

// appendNonNull appends the values of vs whose null flag is false to dst,
// grown once and filled by position, and returns dst and what was added.
func appendNonNull[T any](dst, vs []T, nulls []bool) ([]T, []T) {
	start := len(dst)
	dst, out := grow(dst, len(vs))
	out = out[:len(vs)]
	k := 0
	for i, null := range nulls {
		if !null {
			out[k] = vs[i]
			k++
		}
	}
	dst = dst[:start+k]
	return dst, dst[start:]
}

// hasNull reports whether any of nulls is true. A bool is one byte of 0 or
// 1, so eight flags are tested a load: the flags of a column without nulls
// are still scanned once per segment, in WebAssembly at a branch per flag.
func hasNull(nulls []bool) bool {
	i := 0
	for ; i+8 <= len(nulls); i += 8 {
		if *(*uint64)(unsafe.Pointer(&nulls[i])) != 0 {
			return true
		}
	}
	for _, null := range nulls[i:] {
		if null {
			return true
		}
	}
	return false
}

// appendAllDefined appends the definition levels of a page of n rows without
// nulls, as appendHybrid writes n ones at width 1: one RLE run from 8 on.
func appendAllDefined(dst []byte, n int) []byte {
	if n < 8 {
		var ones [8]uint32
		for i := range n {
			ones[i] = 1
		}
		return appendHybrid(dst, ones[:n], 1)
	}
	dst = binary.AppendUvarint(dst, uint64(n)<<1)
	return append(dst, 1)
}

// minMaxInts returns the least and greatest of lo, hi and vs. Unrolled by
// four: in WebAssembly each loop iteration goes through the function's
// dispatch.
func minMaxInts(vs []int64, lo, hi int64) (int64, int64) {
	lo1, hi1 := lo, hi
	for len(vs) >= 4 {
		v := (*[4]int64)(vs)
		lo, hi = min(lo, v[0]), max(hi, v[0])
		lo1, hi1 = min(lo1, v[1]), max(hi1, v[1])
		lo, hi = min(lo, v[2]), max(hi, v[2])
		lo1, hi1 = min(lo1, v[3]), max(hi1, v[3])
		vs = vs[4:]
	}
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	return min(lo, lo1), max(hi, hi1)
}

// minMaxFloats returns the least and greatest of lo, hi and the non-NaN
// values of vs (-0 below +0, as min and max order them), and how many of vs
// are NaN. The builtin min and max on floats are calls in WebAssembly; these
// comparisons are instructions.
func minMaxFloats(vs []float64, lo, hi float64) (float64, float64, int) {
	nans := 0
	for _, v := range vs {
		if v != v {
			nans++
			continue
		}
		if v <= lo && (v < lo || math.Signbit(v)) {
			lo = v
		}
		if v >= hi && (v > hi || !math.Signbit(v)) {
			hi = v
		}
	}
	return lo, hi, nans
}

// addStrings adds the non-null strings of vs to the page: as dictionary
// indexes, or PLAIN bytes once the column has fallen back. No reference to
// the caller's strings is kept beyond the page bounds.
//
// The common case, a dictionary column without nulls in vs, has a loop of
// its own: sorted data is mostly runs, and a run is recognised by its
// strings sharing the bytes of the last new value (a pointer comparison,
// where == would be a memequal call per row in WebAssembly). An equal string
// with other bytes (the same value from another input file, say) becomes the
// new reference, so the rest of its run is again a pointer comparison.
func (cw *colWriter) addStrings(vs []string, nulls []bool) {
	if nulls != nil || cw.fallback || len(vs) == 0 {
		cw.addStringsGeneral(vs, nulls)
		return
	}
	if cw.nStrs == 0 {
		// the page's first value starts its bounds and its run
		cw.addStringsGeneral(vs[:1], nil)
		vs = vs[1:]
		if cw.fallback {
			cw.addStringsGeneral(vs, nil)
			return
		}
	}
	// indexes are stored by position in a buffer grown once
	n0 := len(cw.idx)
	idx := slices.Grow(cw.idx, len(vs))[:n0+len(vs)]
	out := idx[n0:]
	last, lastIdx := cw.lastStr, cw.lastIdx
	lastPtr, lastLen := unsafe.StringData(last), len(last)
	for i := 0; i < len(vs); i++ {
		v := vs[i]
		if len(v) == lastLen {
			if unsafe.StringData(v) == lastPtr {
				out[i] = lastIdx
				continue
			}
			if v == last {
				last, lastPtr = v, unsafe.StringData(v)
				out[i] = lastIdx
				continue
			}
		}
		k, ok := cw.newString(v)
		if !ok {
			// the dictionary is full: the page so far becomes PLAIN and so
			// does the rest of vs
			cw.idx, cw.nStrs = idx[:n0+i], cw.nStrs+i
			cw.lastStr, cw.lastIdx = last, lastIdx
			cw.fallBack()
			cw.appendPlain(v)
			cw.nStrs++
			cw.lastStr = v
			cw.addStringsGeneral(vs[i+1:], nil)
			return
		}
		last, lastPtr, lastLen, lastIdx = v, unsafe.StringData(v), len(v), k
		out[i] = k
	}
	cw.idx, cw.nStrs = idx, cw.nStrs+len(vs)
	cw.lastStr, cw.lastIdx = last, lastIdx
}

// newString takes v, which differs from the previous value, into the page
// bounds and the dictionary, and returns its index. ok is false if v took
// the dictionary past DictionaryLimit: then v is in neither the dictionary
// nor the page's values (but in its bounds), and the caller falls back.
func (cw *colWriter) newString(v string) (k uint32, ok bool) {
	p := &cw.page
	if !p.has {
		p.minS, p.maxS, p.has = v, v, true
	} else if v < p.minS {
		p.minS = v
	} else if v > p.maxS {
		p.maxS = v
	}
	k, ok = cw.dict[v]
	if ok {
		return k, true
	}
	k = uint32(len(cw.dictOff))
	cw.dict[strings.Clone(v)] = k
	cw.dictOff = append(cw.dictOff, uint32(len(cw.dictBuf)))
	cw.dictBuf = binary.LittleEndian.AppendUint32(cw.dictBuf, uint32(len(v)))
	cw.dictBuf = append(cw.dictBuf, v...)
	return k, len(cw.dictBuf) <= DictionaryLimit
}

func (cw *colWriter) appendPlain(v string) {
	cw.plain = binary.LittleEndian.AppendUint32(cw.plain, uint32(len(v)))
	cw.plain = append(cw.plain, v...)
}

// addStringsGeneral is addStrings for values with nulls, after the fallback
// and for a page's first value.
func (cw *colWriter) addStringsGeneral(vs []string, nulls []bool) {
	p := &cw.page
	last, lastIdx := cw.lastStr, cw.lastIdx
	idx, nStrs := cw.idx, cw.nStrs
	if !cw.fallback {
		idx = slices.Grow(idx, len(vs))
	}
	for i, v := range vs {
		if nulls != nil && nulls[i] {
			continue
		}
		nStrs++
		if nStrs > 1 && len(v) == len(last) && (unsafe.StringData(v) == unsafe.StringData(last) || v == last) {
			last = v // its bytes are the likelier ones to come next
			if cw.fallback {
				cw.appendPlain(v)
			} else {
				idx = append(idx, lastIdx)
			}
			continue
		}
		last = v
		if cw.fallback {
			if !p.has {
				p.minS, p.maxS, p.has = v, v, true
			} else if v < p.minS {
				p.minS = v
			} else if v > p.maxS {
				p.maxS = v
			}
			cw.appendPlain(v)
			continue
		}
		k, ok := cw.newString(v)
		if !ok {
			cw.idx = idx
			cw.fallBack()
			idx = cw.idx
			cw.appendPlain(v)
			continue
		}
		idx = append(idx, k)
		lastIdx = k
	}
	cw.idx, cw.nStrs = idx, nStrs
	cw.lastStr, cw.lastIdx = last, lastIdx
}

// fallBack switches the column to PLAIN for the rest of the row group: the
// page's indexes so far become PLAIN bytes and the entries the page added
// leave the dictionary, so it never passes DictionaryLimit.
func (cw *colWriter) fallBack() {
	for _, k := range cw.idx {
		off := cw.dictOff[k]
		n := binary.LittleEndian.Uint32(cw.dictBuf[off:])
		cw.plain = append(cw.plain, cw.dictBuf[off:off+4+n]...)
	}
	cw.idx = cw.idx[:0]
	for _, off := range cw.dictOff[cw.pageDict0:] {
		n := binary.LittleEndian.Uint32(cw.dictBuf[off:])
		delete(cw.dict, string(cw.dictBuf[off+4:off+4+n]))
	}
	if cw.pageDict0 < len(cw.dictOff) {
		cw.dictBuf = cw.dictBuf[:cw.dictOff[cw.pageDict0]]
	}
	cw.dictOff = cw.dictOff[:cw.pageDict0]
	cw.fallback = true
}
