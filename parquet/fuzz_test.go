package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/timelake/timelake/parquet/internal/thrift"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// seedFiles are small files we write, in every mode, plus the committed
// pyarrow files.
func seedFiles(t testing.TB) [][]byte {
	var out [][]byte
	for _, opt := range []Options{{}, {Compat: true}, {Codec: Uncompressed, PageRowLimit: 7}, {Codec: Snappy}} {
		data, _ := writeFile(t, allTypes, opt, makeRows(12, 1), 12)
		out = append(out, data)
	}
	paths, _ := filepath.Glob("testdata/pyarrow/*.parquet")
	foreign, _ := filepath.Glob("testdata/foreign/*_v[12]_*.parquet")
	nested, _ := filepath.Glob("testdata/nested/*.parquet")
	variants, _ := filepath.Glob("testdata/variant/*.parquet")
	paths = append(append(append(paths, foreign...), nested...), variants...)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzOpen opens arbitrary bytes and reads everything it can: errors are
// fine, panics and huge allocations are not. The seeds are kilobytes long,
// so minimizing a new input takes long: run with -fuzzminimizetime=1s.
func FuzzOpen(f *testing.F) {
	for _, b := range seedFiles(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Open(b)
		if err != nil {
			return
		}
		for rg := range file.NumRowGroups() {
			for k := range file.Meta().Nested {
				col, err := file.ReadNested(rg, k, nil)
				if err == nil && int64(len(col.Strs)) != file.Meta().RowGroups[rg].NumRows {
					t.Fatalf("ReadNested gave %d rows, row group has %d", len(col.Strs), file.Meta().RowGroups[rg].NumRows)
				}
			}
			for c := range file.Schema() {
				if file.Schema()[c].InNested {
					continue
				}
				col, err := file.ReadColumn(rg, c)
				if err == nil {
					if n := col.Len(file.Schema()[c].Type); int64(n) != file.Meta().RowGroups[rg].NumRows {
						t.Fatalf("ReadColumn gave %d rows, row group has %d", n, file.Meta().RowGroups[rg].NumRows)
					}
				}
				_, _ = file.OffsetIndex(rg, c)
				_, _ = file.ColumnIndex(rg, c)
			}
		}
	})
}

// FuzzMetadata parses arbitrary bytes as each Thrift structure; page
// indexes that parse are re-encoded and must parse to the same value.
func FuzzMetadata(f *testing.F) {
	for _, b := range seedFiles(f) {
		file, err := Open(b)
		if err != nil {
			f.Fatal(err)
		}
		n, _ := FooterSize(b[len(b)-8:], int64(len(b)))
		f.Add(b[len(b)-8-n : len(b)-8])
		cc := file.Meta().RowGroups[0].Columns[0]
		f.Add(b[cc.Start():])
		if cc.HasColumnIndex {
			f.Add(b[cc.ColumnIndexOffset : cc.ColumnIndexOffset+int64(cc.ColumnIndexLength)])
		}
		if cc.HasOffsetIndex {
			f.Add(b[cc.OffsetIndexOffset : cc.OffsetIndexOffset+int64(cc.OffsetIndexLength)])
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = readFileMeta(b)
		_, _, _ = readPageHeader(b)
		if ci, err := ParseColumnIndex(b); err == nil {
			var w thrift.Writer
			writeColumnIndex(&w, ci)
			ci2, err := ParseColumnIndex(w.Buf)
			if err != nil {
				t.Fatalf("re-encoded column index: %v", err)
			}
			if !sameIndex(ci, ci2) {
				t.Fatalf("column index changed: %+v vs %+v", ci, ci2)
			}
		}
		if oi, err := ParseOffsetIndex(b); err == nil {
			var w thrift.Writer
			writeOffsetIndex(&w, oi)
			oi2, err := ParseOffsetIndex(w.Buf)
			if err != nil {
				t.Fatalf("re-encoded offset index: %v", err)
			}
			if len(oi.Pages) != len(oi2.Pages) {
				t.Fatalf("offset index changed")
			}
			for i := range oi.Pages {
				if oi.Pages[i] != oi2.Pages[i] {
					t.Fatalf("page %d: %+v vs %+v", i, oi.Pages[i], oi2.Pages[i])
				}
			}
		}
	})
}

func sameIndex(a, b *ColumnIndex) bool {
	if a.BoundaryOrder != b.BoundaryOrder || len(a.NullPages) != len(b.NullPages) || (a.NullCounts == nil) != (b.NullCounts == nil) {
		return false
	}
	for i := range a.NullPages {
		if a.NullPages[i] != b.NullPages[i] || !bytes.Equal(a.MinValues[i], b.MinValues[i]) || !bytes.Equal(a.MaxValues[i], b.MaxValues[i]) {
			return false
		}
		if a.NullCounts != nil && a.NullCounts[i] != b.NullCounts[i] {
			return false
		}
	}
	return true
}

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// TestHostileSizes: sizes claimed by a file are checked before anything is
// allocated by them.
func TestHostileSizes(t *testing.T) {
	good, _ := writeFile(t, allTypes, Options{}, makeRows(100, 0), 100)
	withFooter := func(footer []byte) []byte {
		b := append([]byte("PAR1"), footer...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(footer)))
		return append(b, "PAR1"...)
	}
	var big thrift.Writer
	big.I32(1, 1)
	big.ListBegin(2, thrift.Struct, 1_000_000_000)
	var bigName thrift.Writer
	bigName.I32(1, 1)
	bigName.ListBegin(2, thrift.Struct, 1)
	bigName.ElemBegin()
	bigName.I32(4, 0) // wrong type for name: skipped
	bigName.Buf = append(bigName.Buf, 0x18, 0x80, 0x80, 0x80, 0x80, 0x04)
	claims1GB := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(claims1GB[len(claims1GB)-8:], 1<<30)

	files := []struct {
		name string
		data []byte
	}{
		{"footer length 1 GiB", claims1GB},
		{"a billion schema elements", withFooter(big.Buf)},
		{"a 1 GiB name", withFooter(bigName.Buf)},
		{"truncated", good[:len(good)/2]},
		{"empty", nil},
	}
	for _, tc := range files {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = Open(tc.data) })
			if err == nil {
				t.Fatal("Open succeeded")
			}
			if n > 1<<20 {
				t.Errorf("Open allocated %d bytes before failing: %v", n, err)
			}
		})
	}

	// pages: rewrite the first data page header of a chunk
	f, err := Open(good)
	if err != nil {
		t.Fatal(err)
	}
	chunk, _ := f.Meta().Chunk(0, 2) // "l": optional long, DELTA_BINARY_PACKED
	p := good[chunk.Meta.DataPageOffset:]
	h, hlen, err := readPageHeader(p)
	if err != nil {
		t.Fatal(err)
	}
	body := p[hlen : hlen+int(h.CompressedSize)]
	// A zstd bomb: a frame without a content size that expands to 60 MiB,
	// under a header that declares the page's true small size.
	bomb := zstdBomb(t, 60<<20)
	pages := []struct {
		name string
		edit func(h *pageHeader)
		want error
		body []byte // replaces the page's body when set
	}{
		{"uncompressed 1 GiB", func(h *pageHeader) { h.UncompressedSize = 1 << 30 }, ErrUnsupported, nil},
		{"a billion values", func(h *pageHeader) { h.NumValues, h.NumRows = 1e9, 1e9 }, ErrUnsupported, nil},
		{"compressed size past the chunk", func(h *pageHeader) { h.CompressedSize = 1 << 30 }, ErrCorrupt, nil},
		{"zstd frame disagrees with the header", func(h *pageHeader) { h.UncompressedSize = 60 << 20 }, ErrCorrupt, nil},
		{"levels longer than the page", func(h *pageHeader) { h.DefLen = h.CompressedSize + 1 }, ErrCorrupt, nil},
		{"zstd bomb", func(h *pageHeader) { h.CompressedSize = int32(len(bomb)) }, ErrCorrupt, bomb},
	}
	for _, tc := range pages {
		t.Run(tc.name, func(t *testing.T) {
			h2 := h
			tc.edit(&h2)
			var w thrift.Writer
			writePageHeader(&w, &h2)
			b := body
			if tc.body != nil {
				b = tc.body
			}
			page := append(w.Buf, b...)
			var col rows.Column
			var err error
			n := allocated(func() { _, err = DecodePage(chunk, page, nil, &col) })
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if n > 1<<20 {
				t.Errorf("DecodePage allocated %d bytes before failing: %v", n, err)
			}
		})
	}
}

func TestUnsupportedSchemas(t *testing.T) {
	leaf := func(name string, typ PhysicalType, edit func(*schemaElement)) schemaElement {
		e := schemaElement{Name: name, Type: typ, HasType: true, HasRepetition: true, Repetition: repOptional}
		if edit != nil {
			edit(&e)
		}
		return e
	}
	tests := []struct {
		name string
		els  []schemaElement
		want string
	}{
		// nested columns are read (nested_test.go); these are refused
		{"nested decimal", []schemaElement{{Name: "schema", NumChildren: 1}, {Name: "g", NumChildren: 1}, leaf("x", TypeInt64, func(e *schemaElement) { e.Logical.Kind = logicalDecimal })}, `column "x": DECIMAL`},
		{"map of three", []schemaElement{{Name: "schema", NumChildren: 1}, {Name: "m", NumChildren: 1, Logical: logicalType{Kind: logicalMap}},
			{Name: "key_value", NumChildren: 3, Repetition: repRepeated, HasRepetition: true}, leaf("k", TypeInt32, func(e *schemaElement) { e.Repetition = repRequired }), leaf("v", TypeInt32, nil), leaf("w", TypeInt32, nil)}, `key_value group has 3 fields`},
		{"too deep", deepList(40), `nested deeper than 32 levels`},
		{"binary", []schemaElement{{Name: "schema", NumChildren: 1}, leaf("b", TypeByteArray, nil)}, `column "b": BYTE_ARRAY without a string annotation`},
		{"decimal", []schemaElement{{Name: "schema", NumChildren: 1}, leaf("d", TypeInt64, func(e *schemaElement) { e.Logical.Kind = logicalDecimal })}, `column "d": DECIMAL`},
		{"date", []schemaElement{{Name: "schema", NumChildren: 1}, leaf("d", TypeInt32, func(e *schemaElement) { e.Converted, e.HasConverted = convDate, true })}, `column "d": DATE`},
		{"fixed", []schemaElement{{Name: "schema", NumChildren: 1}, leaf("u", TypeFixedLenByteArray, nil)}, `column "u": FIXED_LEN_BYTE_ARRAY`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var w thrift.Writer
			writeFileMeta(&w, &fileMetaOut{schema: tc.els})
			data := append([]byte("PAR1"), w.Buf...)
			data = binary.LittleEndian.AppendUint32(data, uint32(len(w.Buf)))
			data = append(data, "PAR1"...)
			_, err := Open(data)
			if !errors.Is(err, ErrUnsupported) || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
				t.Fatalf("got %v, want ErrUnsupported containing %q", err, tc.want)
			}
		})
	}
	_ = schema.Long
}

// zstdBomb is a zstd frame without a content size that expands to n zero bytes.
func zstdBomb(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]byte, 1<<20)
	for range n >> 20 {
		if _, err := zw.Write(zero); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// deepList is the schema of a column of n structs, one in the other.
func deepList(n int) []schemaElement {
	els := []schemaElement{{Name: "schema", NumChildren: 1}}
	for i := range n {
		els = append(els, schemaElement{Name: fmt.Sprintf("g%d", i), NumChildren: 1, HasRepetition: true, Repetition: repOptional})
	}
	return append(els, schemaElement{Name: "x", Type: TypeInt32, HasType: true, HasRepetition: true, Repetition: repOptional})
}
