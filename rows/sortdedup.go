package rows

import (
	"cmp"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/timelake/timelake/schema"
)

// SortDedup returns the rows of b sorted by (partition of time, series…,
// time), ascending, with one row per key (series…, time): of rows with the
// same key, the last in b's order wins, as when the rows are applied in
// order. The result is a new Batch; b is not changed.
//
// How: each series column is ranked once (its distinct values sorted, each
// row mapped to its rank), the ranks and the partition are packed into one
// integer per row, rows are ordered by that integer with a counting sort when
// its range is small (else a comparison sort of packed keys), each group of
// equal keys is sorted by time (skipped when already in order, the usual
// case), and the columns are gathered in one Take.
func SortDedup(b *Batch) *Batch {
	n := b.Len
	if n == 0 {
		return Take(b, nil)
	}
	t := b.Schema
	ts := b.Cols[t.Time].Ints[:n]

	// Ranks of the partition and of each series column.
	parts := make([]uint32, n)
	pc := partCache{t: t}
	pmin := pc.apply(ts[0])
	pmax := pmin
	for i, us := range ts {
		v := pc.apply(us)
		parts[i] = uint32(v)
		pmin, pmax = min(pmin, v), max(pmax, v)
	}
	for i, v := range parts {
		parts[i] = uint32(int32(v) - pmin)
	}
	return SortDedupBy(b, parts, uint64(int64(pmax)-int64(pmin))+1)
}

// SortDedupBy is SortDedup with the rows' partitions given rather than
// taken from the time column's transform: parts[i] is the rank of row i's
// partition, below card, which orders the rows first. A table partitioned
// by any spec (package partition) ranks its rows' partition tuples. The
// rows of one key must have one partition (the spec's fields are of the
// key's columns), else duplicates in two partitions both stay.
func SortDedupBy(b *Batch, parts []uint32, card uint64) *Batch {
	n := b.Len
	if n == 0 {
		return Take(b, nil)
	}
	t := b.Schema
	ts := b.Cols[t.Time].Ints[:n]
	ranks := [][]uint32{parts}
	cards := []uint64{card}
	for _, c := range t.Series {
		r, card := rankColumn(&b.Cols[c], t.Fields[c].Type, n)
		ranks = append(ranks, r)
		cards = append(cards, card)
	}

	// Pack the ranks into one key per row, if the product of cardinalities fits.
	total, fits := uint64(1), true
	for _, c := range cards {
		hi, lo := bits.Mul64(total, c)
		if hi != 0 {
			fits = false
			break
		}
		total = lo
	}
	var keep []int32
	switch {
	case fits && total <= uint64(4*n+1<<16):
		keep = countingSortDedup(ranks, cards, ts, total)
	case fits:
		keep = packedSortDedup(ranks, cards, ts)
	default:
		keep = generalSortDedup(ranks, ts)
	}
	return Take(b, keep)
}

// partCache applies a partition transform, remembering the last partition's
// time range: consecutive rows mostly fall in the same one, and a month
// transform is costlier than a range check.
type partCache struct {
	t          *schema.Table // its time column's unit is the values' unit
	start, end int64
	v          int32
	ok         bool
}

func (c *partCache) apply(ts int64) int32 {
	if !c.ok || ts < c.start || ts >= c.end {
		c.v = c.t.PartitionOf(ts)
		c.start, c.end = c.t.PartitionRange(c.v)
		c.ok = true
	}
	return c.v
}

// rankColumn maps each row of a series column (string, long or int, no
// nulls) to the rank of its value among the column's distinct values, and
// returns the number of distinct values (or, for a dense integer range, the
// range's width).
// rankCacheBits sizes rankColumn's pointer cache: 1,024 slots keep a few
// hundred distinct series values mostly apart.
const rankCacheBits = 10

func rankColumn(c *Column, typ schema.Type, n int) ([]uint32, uint64) {
	r := make([]uint32, n)
	if typ == schema.String {
		strs := c.Strs[:n]
		ids := make(map[string]uint32)
		var distinct []string
		// Readers intern short strings and the WASM bridge slices a
		// column's dictionary out of one buffer, so equal values mostly
		// share their bytes: a direct-mapped cache keyed by the data
		// pointer skips most map lookups (hashing the string is the cost
		// here, more so in WebAssembly, which has no AES hashing). The
		// pointer is spread by a Fibonacci multiply: strings sliced from
		// one buffer lie a few bytes apart, and taking address bits as they
		// are put several of them in one slot, missing on every row.
		cache := make([]struct {
			p  *byte
			n  int
			id uint32
		}, 1<<rankCacheBits)
		for i, s := range strs {
			p := unsafe.StringData(s)
			h := uint64(uintptr(unsafe.Pointer(p)))
			slot := &cache[(h*0x9E3779B97F4A7C15)>>(64-rankCacheBits)]
			if slot.p == p && slot.n == len(s) && p != nil {
				r[i] = slot.id
				continue
			}
			id, ok := ids[s]
			if !ok {
				id = uint32(len(distinct))
				ids[s] = id
				distinct = append(distinct, s)
			}
			r[i] = id
			slot.p, slot.n, slot.id = p, len(s), id
		}
		return remap(r, distinct, cmp.Compare[string])
	}
	ints := c.Ints[:n]
	lo, hi := ints[0], ints[0]
	for _, v := range ints {
		lo, hi = min(lo, v), max(hi, v)
	}
	if width := uint64(hi - lo); width < uint64(2*n) { // dense: the offset is the rank
		for i, v := range ints {
			r[i] = uint32(v - lo)
		}
		return r, width + 1
	}
	ids := make(map[int64]uint32)
	var distinct []int64
	for i, v := range ints {
		id, ok := ids[v]
		if !ok {
			id = uint32(len(distinct))
			ids[v] = id
			distinct = append(distinct, v)
		}
		r[i] = id
	}
	return remap(r, distinct, cmp.Compare[int64])
}

// remap turns first-seen ids into ranks in sorted order of the values.
func remap[T any](r []uint32, distinct []T, compare func(a, b T) int) ([]uint32, uint64) {
	order := make([]uint32, len(distinct))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return compare(distinct[a], distinct[b]) })
	rank := make([]uint32, len(distinct))
	for k, id := range order {
		rank[id] = uint32(k)
	}
	for i, id := range r {
		r[i] = rank[id]
	}
	return r, uint64(len(distinct))
}

// packKeys combines the ranks in mixed radix, the first rank most significant.
func packKeys(ranks [][]uint32, cards []uint64, n int) []uint64 {
	keys := make([]uint64, n)
	for k, r := range ranks {
		if k == 0 {
			for i, v := range r {
				keys[i] = uint64(v)
			}
			continue
		}
		card := cards[k]
		for i, v := range r {
			keys[i] = keys[i]*card + uint64(v)
		}
	}
	return keys
}

// countingSortDedup orders rows by packed key (keys below total) and time
// with stable counting sorts, which leaves them in (key, time, input order);
// the last row of each (key, time) is kept. Rows already in time order (as
// collectors usually send them) need one counting sort by key. Otherwise,
// when key × time rank spans a small range (times a whole number of seconds
// or milliseconds apart over a short stretch, the usual batch), one counting
// sort by that pair does it; else an LSD radix sort by time comes first.
func countingSortDedup(ranks [][]uint32, cards []uint64, ts []int64, total uint64) []int32 {
	n := len(ts)
	keys := packKeys(ranks, cards, n)
	lo, hi, sorted := timeSpan(ts)
	if !sorted {
		step := timeStep(ts, lo)
		width := uint64(hi-lo)/uint64(step) + 1
		limit := uint64(4*n + 1<<16)
		if over, slots := bits.Mul64(total, width); over != 0 || slots > limit {
			// Series columns are often correlated (a host is in one
			// region): the keys present are far fewer than total.
			// Numbered densely, in order, they may fit.
			distinct := denseKeys(keys, total)
			if over, slots = bits.Mul64(distinct, width); over != 0 || slots > limit {
				width = 0
			}
			total = distinct
		}
		if width > 0 {
			for i, k := range keys {
				keys[i] = k*width + uint64(ts[i]-lo)/uint64(step)
			}
			return dedupRuns(countingOrder(keys, total*width, nil), keys, nil)
		}
	}
	var byTime []int32
	if !sorted {
		byTime = radixByTime(ts, lo, hi)
	}
	return dedupRuns(countingOrder(keys, total, byTime), keys, ts)
}

// denseKeys renumbers keys (each below total) 0, 1, … in order of value,
// and returns how many distinct keys there are.
func denseKeys(keys []uint64, total uint64) uint64 {
	id := make([]uint32, total)
	for _, k := range keys {
		id[k] = 1
	}
	next := uint32(0)
	for k, present := range id {
		id[k] = next
		next += present
	}
	for i, k := range keys {
		keys[i] = uint64(id[k])
	}
	return uint64(next)
}

// timeSpan returns the least and greatest of ts and whether ts is in order.
func timeSpan(ts []int64) (lo, hi int64, sorted bool) {
	lo, hi, sorted = ts[0], ts[0], true
	prev := ts[0]
	for _, v := range ts {
		lo, hi = min(lo, v), max(hi, v)
		sorted = sorted && v >= prev
		prev = v
	}
	return lo, hi, sorted
}

// timeStep returns a step (a second, a millisecond, or 1 µs) that every
// time's distance from lo is a multiple of.
func timeStep(ts []int64, lo int64) int64 {
	for _, step := range [...]int64{1_000_000, 1_000} {
		whole := true
		for _, v := range ts {
			if (v-lo)%step != 0 {
				whole = false
				break
			}
		}
		if whole {
			return step
		}
	}
	return 1
}

// countingOrder returns row indexes ordered by keys (each below total) with
// a stable counting sort: by index, or in the order of visit when given.
func countingOrder(keys []uint64, total uint64, visit []int32) []int32 {
	start := make([]int32, total+1)
	for _, k := range keys {
		start[k+1]++
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	order := make([]int32, len(keys))
	if visit == nil {
		for i, k := range keys {
			order[start[k]] = int32(i)
			start[k]++
		}
	} else {
		for _, i := range visit {
			k := keys[i]
			order[start[k]] = i
			start[k]++
		}
	}
	return order
}

// dedupRuns keeps the last row of each run of order with equal keys (and
// equal ts, when given), in place.
func dedupRuns(order []int32, keys []uint64, ts []int64) []int32 {
	if len(order) == 0 {
		return order
	}
	// the previous row's key and time held in locals: one random read of
	// each per row
	w := 0
	prev := order[0]
	pk := keys[prev]
	var pt int64
	if ts != nil {
		pt = ts[prev]
	}
	for _, i := range order[1:] {
		k := keys[i]
		var t int64
		if ts != nil {
			t = ts[i]
		}
		if k != pk || t != pt {
			order[w] = prev // written behind the read position
			w++
		}
		prev, pk, pt = i, k, t
	}
	order[w] = prev
	return order[:w+1]
}

// radixByTime returns row indexes in (time, index) order; lo and hi are the
// least and greatest time.
func radixByTime(ts []int64, lo, hi int64) []int32 {
	const digit = 11
	type entry struct {
		v uint64 // time - lo
		i int32
	}
	src, dst := make([]entry, len(ts)), make([]entry, len(ts))
	for i, v := range ts {
		src[i] = entry{uint64(v - lo), int32(i)}
	}
	width := bits.Len64(uint64(hi - lo))
	var count [1 << digit]int32
	for shift := 0; shift < width; shift += digit {
		clear(count[:])
		for _, e := range src {
			count[(e.v>>shift)&(1<<digit-1)]++
		}
		sum := int32(0)
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, e := range src {
			d := (e.v >> shift) & (1<<digit - 1)
			dst[count[d]] = e
			count[d]++
		}
		src, dst = dst, src
	}
	out := make([]int32, len(ts))
	for k, e := range src {
		out[k] = e.i
	}
	return out
}

// packedSortDedup sorts (key, time, index) triples when keys span too wide
// a range for counting.
func packedSortDedup(ranks [][]uint32, cards []uint64, ts []int64) []int32 {
	type entry struct {
		key uint64
		ts  int64
		i   int32
	}
	keys := packKeys(ranks, cards, len(ts))
	es := make([]entry, len(ts))
	for i := range es {
		es[i] = entry{keys[i], ts[i], int32(i)}
	}
	slices.SortFunc(es, func(a, b entry) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		if a.ts != b.ts {
			return cmp.Compare(a.ts, b.ts)
		}
		return cmp.Compare(a.i, b.i)
	})
	keep := make([]int32, 0, len(es))
	for j, e := range es {
		if j+1 < len(es) && es[j+1].key == e.key && es[j+1].ts == e.ts {
			continue
		}
		keep = append(keep, e.i)
	}
	return keep
}

// generalSortDedup compares rank by rank, for keys too wide to pack.
func generalSortDedup(ranks [][]uint32, ts []int64) []int32 {
	order := make([]int32, len(ts))
	for i := range order {
		order[i] = int32(i)
	}
	sameKey := func(a, b int32) int {
		for _, r := range ranks {
			if c := cmp.Compare(r[a], r[b]); c != 0 {
				return c
			}
		}
		return cmp.Compare(ts[a], ts[b])
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := sameKey(a, b); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	keep := order[:0]
	for j, i := range order {
		if j+1 < len(order) && sameKey(order[j+1], i) == 0 {
			continue
		}
		keep = append(keep, i)
	}
	return keep
}

// Take returns a new Batch of the rows idx of b, in that order.
func Take(b *Batch, idx []int32) *Batch {
	out := &Batch{Schema: b.Schema, Cols: make([]Column, len(b.Cols)), Len: len(idx)}
	for c := range b.Cols {
		src, dst := &b.Cols[c], &out.Cols[c]
		kind := kindOf(b.Schema.Fields[c].Type)
		switch kind {
		case kindInt:
			dst.Ints = gather(src.Ints, idx)
		case kindFloat:
			dst.Floats = gather(src.Floats, idx)
		case kindBool:
			dst.Bools = gather(src.Bools, idx)
		default:
			dst.Strs = gather(src.Strs, idx)
		}
		if src.Nulls != nil {
			dst.Nulls = gather(src.Nulls, idx)
			if !slices.Contains(dst.Nulls, true) {
				dst.Nulls = nil
			}
		}
	}
	return out
}

// gather returns src[idx[0]], src[idx[1]], …. Unrolled by eight: in
// WebAssembly each loop iteration goes through the function's dispatch.
func gather[T any](src []T, idx []int32) []T {
	dst := make([]T, len(idx))
	k := 0
	for ; k+8 <= len(idx); k += 8 {
		ix, d := (*[8]int32)(idx[k:]), (*[8]T)(dst[k:])
		d[0], d[1], d[2], d[3] = src[ix[0]], src[ix[1]], src[ix[2]], src[ix[3]]
		d[4], d[5], d[6], d[7] = src[ix[4]], src[ix[5]], src[ix[6]], src[ix[7]]
	}
	for ; k < len(idx); k++ {
		dst[k] = src[idx[k]]
	}
	return dst
}

// Slice returns rows [start, end) of b, sharing its memory.
func Slice(b *Batch, start, end int) *Batch {
	out := &Batch{Schema: b.Schema, Cols: make([]Column, len(b.Cols)), Len: end - start}
	for c := range b.Cols {
		out.Cols[c] = b.Cols[c].Slice(start, end, b.Schema.Fields[c].Type)
	}
	return out
}

// Partition is a run of rows [Start, End) of one partition Value (the
// Iceberg partition value of the time column: days, hours or months since
// 1970-01-01).
type Partition struct {
	Value      int32
	Start, End int
}

// SplitByPartition returns the runs of rows of b that share a partition
// value, in order. After SortDedup each partition is one run.
func SplitByPartition(b *Batch) []Partition {
	t := b.Schema
	ts := b.Cols[t.Time].Ints[:b.Len]
	var out []Partition
	for i := 0; i < len(ts); {
		v := t.PartitionOf(ts[i])
		start, end := t.PartitionRange(v)
		j := i + 1
		for j < len(ts) && ts[j] >= start && ts[j] < end {
			j++
		}
		out = append(out, Partition{Value: v, Start: i, End: j})
		i = j
	}
	return out
}

// SetIngest sets every row's _ingest_ts to micros, the append's time, which
// the caller reads from its clock. In a table without _ingest_ts
// (schema.NewWithoutIngest) it does nothing.
func SetIngest(b *Batch, micros int64) {
	if b.Schema.Ingest < 0 {
		return
	}
	c := &b.Cols[b.Schema.Ingest]
	if cap(c.Ints) < b.Len {
		c.Ints = make([]int64, b.Len)
	}
	c.Ints = c.Ints[:b.Len]
	for i := range c.Ints {
		c.Ints[i] = micros
	}
	c.Nulls = nil
}
