package parquet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// streamFiles are files whose pages take every encoding the reader
// decodes: the seeds (this writer's modes, pyarrow's and the foreign
// writers' files) and larger pages of this writer, so that delta blocks,
// hybrid runs and null runs cross many windows.
func streamFiles(t testing.TB) [][]byte {
	files := seedFiles(t)
	for _, opt := range []Options{{}, {Compat: true}, {Codec: Snappy, PageRowLimit: 1000}} {
		data, _ := writeFile(t, allTypes, opt, makeRows(3000, 5), 3000)
		files = append(files, data)
	}
	return files
}

// normal is col with an all-false null map dropped: a window without
// nulls may carry none where the whole page has one.
func normal(col rows.Column) rows.Column {
	if col.Nulls != nil && !slices.Contains(col.Nulls, true) {
		col.Nulls = nil
	}
	return col
}

// sameRows compares the rows of a and b of type t (NaNs by their bits).
func sameRows(a, b rows.Column, t schema.Type) bool {
	if a.Len(t) != b.Len(t) || !slices.Equal(a.Nulls, b.Nulls) {
		return false
	}
	switch {
	case t.IsInteger():
		return slices.Equal(a.Ints, b.Ints)
	case t.IsFloat():
		return slices.EqualFunc(a.Floats, b.Floats, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
	case t == schema.Boolean:
		return slices.Equal(a.Bools, b.Bools)
	}
	return slices.Equal(a.Strs, b.Strs)
}

// checkStream reads every page of every flat column of file b whole
// (Decode, DecodeIndexes) and with a PageStream in windows of sizes from
// next, and reports the first difference. Pages Decode rejects are read
// by the stream too (no panic), their rows not compared.
func checkStream(b []byte, next func(left int) int, compared *int) error {
	file, err := Open(b)
	if err != nil {
		return nil
	}
	m := file.Meta()
	for rg := range m.RowGroups {
		for col := range m.Columns {
			cc := &m.RowGroups[rg].Columns[col]
			start, size := cc.Start(), cc.Meta.TotalCompressedSize
			if start < 0 || size <= 0 || start+size > int64(len(b)) {
				continue
			}
			chunk := b[start : start+size]
			for _, indexes := range []bool{false, true} {
				c, err := m.Chunk(rg, col)
				if err != nil {
					continue
				}
				var wholeDict, streamDict Dictionary
				var dec PageDecoder
				var s PageStream
				var sdec PageDecoder
				for pos := 0; pos < len(chunk); {
					page := chunk[pos:]
					var want rows.Column
					k, err := 0, error(nil)
					ok := false
					if indexes {
						k, ok, err = dec.DecodeIndexes(c, page, &wholeDict, &want)
					}
					if err == nil && !ok {
						k, err = dec.Decode(c, page, &wholeDict, &want)
					}
					ks, serr := s.Open(&sdec, c, page, &streamDict, indexes)
					if err != nil {
						// the stream must not panic, nor claim rows it cannot hand out
						for serr == nil && s.Left() > 0 {
							var got rows.Column
							serr = s.Next(min(s.Left(), next(s.Left())), &got)
						}
						break
					}
					if serr != nil {
						return fmt.Errorf("rg %d column %d page at %d: Decode read it, Open: %v", rg, col, pos, serr)
					}
					if ks != k {
						return fmt.Errorf("rg %d column %d page at %d: %d bytes, Decode %d", rg, col, pos, ks, k)
					}
					if ok != s.Indexes() && s.Left() > 0 {
						return fmt.Errorf("rg %d column %d page at %d: indexes %v, DecodeIndexes %v", rg, col, pos, s.Indexes(), ok)
					}
					typ := c.Column.Type
					if ok {
						typ = schema.Long
					}
					var got rows.Column
					var sizes []int
					for s.Left() > 0 {
						n := min(s.Left(), next(s.Left()))
						sizes = append(sizes, n)
						if err := s.Next(n, &got); err != nil {
							return fmt.Errorf("rg %d column %d page at %d windows %v: %v", rg, col, pos, sizes, err)
						}
					}
					if !sameRows(normal(got), normal(want), typ) {
						return fmt.Errorf("rg %d column %d (%v, indexes %v) page at %d windows %v:\n got %+v\nwant %+v", rg, col, c.Column.Type, indexes, pos, sizes, normal(got), normal(want))
					}
					*compared += want.Len(typ)
					pos += k
				}
			}
		}
	}
	return nil
}

// TestPageStream: every page read in windows of random sizes (and of 1,
// and whole) gives the rows Decode gives.
func TestPageStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	policies := map[string]func(int) int{
		"one":    func(int) int { return 1 },
		"whole":  func(left int) int { return left },
		"random": func(left int) int { return 1 + rng.IntN(min(left, 700)) },
		"sevens": func(int) int { return 7 },
	}
	files := streamFiles(t)
	for name, next := range policies {
		compared := 0
		for i, b := range files {
			if err := checkStream(b, next, &compared); err != nil {
				t.Fatalf("%s, file %d: %v", name, i, err)
			}
		}
		// the rows of the three 3,000-row files of 12 columns, read twice
		if compared < 2*3*3000*12 {
			t.Errorf("%s: %d rows compared", name, compared)
		}
	}
}

// TestPageStreamEncodings: the test files hold pages of every encoding the
// stream decodes a window at a time, and of others decoded whole.
func TestPageStreamEncodings(t *testing.T) {
	seen := map[Encoding]bool{}
	for _, b := range streamFiles(t) {
		file, err := Open(b)
		if err != nil {
			continue
		}
		for _, rg := range file.Meta().RowGroups {
			for _, cc := range rg.Columns {
				for _, e := range cc.Meta.Encodings {
					seen[Encoding(e)] = true
				}
			}
		}
	}
	for _, e := range []Encoding{EncPlain, EncRLEDictionary, EncPlainDictionary, EncDeltaBinaryPacked} {
		if !seen[e] {
			t.Errorf("no page encoded %v", e)
		}
	}
	t.Logf("encodings: %v", seen)
}

// FuzzPageStream reads arbitrary page bytes in arbitrary windows: errors
// are fine; where Decode reads the pages the stream gives its rows.
func FuzzPageStream(f *testing.F) {
	for _, b := range seedFiles(f) {
		f.Add(b, uint64(1))
	}
	f.Fuzz(func(t *testing.T, b []byte, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 7))
		compared := 0
		if err := checkStream(b, func(left int) int { return 1 + rng.IntN(min(left, 300)) }, &compared); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzStreamReaders reads arbitrary bytes as n values of the hybrid
// encoding (width w) and of DELTA_BINARY_PACKED in windows of arbitrary
// sizes: the resumable readers accept exactly what decodeHybrid and
// decodeDelta accept, and give the same values.
func FuzzStreamReaders(f *testing.F) {
	var s deltaScratch
	f.Add(appendHybrid(nil, []uint32{1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 0, 1}, 2), uint8(2), uint16(13), uint64(1), false)
	f.Add(appendDelta(nil, []int64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5, 0, 2, 8}, false, &s), uint8(0), uint16(35), uint64(2), false)
	f.Add(appendDelta(nil, []int64{-1 << 40, 1 << 40, 7}, true, &s), uint8(0), uint16(3), uint64(3), true)
	f.Fuzz(func(t *testing.T, data []byte, w uint8, n uint16, seed uint64, is32 bool) {
		rng := rand.New(rand.NewPCG(seed, 9))
		// hybrid
		want := make([]uint32, n)
		werr := decodeHybrid(want, data, uint(w))
		var h hybridReader
		got := make([]uint32, 0, n)
		gerr := h.init(data, uint(w), int(n))
		for gerr == nil && len(got) < int(n) {
			k := min(int(n)-len(got), 1+rng.IntN(40))
			gerr = h.read(got[len(got) : len(got)+k])
			got = got[:len(got)+k]
		}
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("hybrid w=%d n=%d: decodeHybrid %v, stream %v", w, n, werr, gerr)
		}
		if werr == nil && !slices.Equal(got, want) {
			t.Fatalf("hybrid w=%d n=%d: got %v, want %v", w, n, got, want)
		}
		// delta
		wantD, _, derr := decodeDelta(nil, data, int(n), is32)
		var d deltaReader
		var gotD []int64
		serr := d.init(data, int(n), is32)
		for serr == nil && len(gotD) < int(n) {
			gotD, serr = d.read(gotD, min(int(n)-len(gotD), 1+rng.IntN(70)))
		}
		if (derr == nil) != (serr == nil) {
			t.Fatalf("delta n=%d: decodeDelta %v, stream %v", n, derr, serr)
		}
		if derr == nil && !slices.Equal(gotD, wantD) {
			t.Fatalf("delta n=%d: got %v, want %v", n, gotD, wantD)
		}
	})
}
