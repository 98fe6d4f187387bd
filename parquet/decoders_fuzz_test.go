package parquet

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/timelake/timelake/internal/core/lz4"
)

// lz4Sample is "abcdabcdabcdx" as one LZ4 block: literals "abcd", a match of
// 8 at offset 4, then the literal "x".
var lz4Sample = []byte{0x44, 'a', 'b', 'c', 'd', 4, 0, 0x10, 'x'}

func hadoopFrame(blocks ...[]byte) []byte {
	var out []byte
	for _, b := range blocks {
		dec, err := lz4.Block(nil, b, 1<<20)
		if err != nil {
			panic(err)
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(dec)))
		out = binary.BigEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
	}
	return out
}

func TestDecompressLZ4(t *testing.T) {
	want := []byte("abcdabcdabcdx")
	for _, c := range []struct {
		name  string
		codec Codec
		src   []byte
		want  []byte
	}{
		{"raw", LZ4Raw, lz4Sample, want},
		{"hadoop one frame", LZ4, hadoopFrame(lz4Sample), want},
		{"hadoop two frames", LZ4, hadoopFrame(lz4Sample, []byte{0x20, 'y', 'z'}), append(append([]byte{}, want...), 'y', 'z')},
		{"legacy bare block", LZ4, lz4Sample, want},
	} {
		got, err := decompress(c.codec, nil, c.src, len(c.want))
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	// wrong sizes and cut frames are errors
	for _, c := range []struct {
		codec Codec
		src   []byte
		size  int
	}{
		{LZ4Raw, lz4Sample, 12},
		{LZ4Raw, lz4Sample, 14},
		{LZ4, hadoopFrame(lz4Sample), 12},
		{LZ4, hadoopFrame(lz4Sample)[:10], 13},
		{LZ4Raw, []byte{0x44, 'a', 'b', 'c', 'd', 9, 0}, 12}, // match before the start
	} {
		if got, err := decompress(c.codec, nil, c.src, c.size); err == nil {
			t.Errorf("%v %x size %d: got %q, want an error", c.codec, c.src, c.size, got)
		}
	}
	if _, err := decompress(Brotli, nil, []byte{1}, 1); err == nil {
		t.Error("brotli decompressed")
	}
}

// FuzzDecompress feeds arbitrary bytes to every codec's decoder: errors are
// fine; a result must have exactly the declared size.
func FuzzDecompress(f *testing.F) {
	f.Add(uint8(LZ4Raw), uint16(13), lz4Sample)
	f.Add(uint8(LZ4), uint16(13), hadoopFrame(lz4Sample))
	f.Add(uint8(Snappy), uint16(3), []byte{3, 8, 'a', 'b', 'c'})
	f.Add(uint8(Gzip), uint16(0), []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(Zstd), uint16(0), []byte{0x28, 0xb5, 0x2f, 0xfd, 0x20, 0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, codec uint8, size uint16, src []byte) {
		c := Codec(codec % uint8(codecUnknown+1))
		out, err := decompress(c, nil, src, int(size))
		if err == nil && len(out) != int(size) {
			t.Fatalf("%v: %d bytes, declared %d", c, len(out), size)
		}
	})
}

// FuzzValues decodes arbitrary bytes as a page's values in every encoding
// for every physical type (the decoders of PLAIN, dictionary indexes, RLE
// booleans, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY
// and BYTE_STREAM_SPLIT): errors are fine, panics and results of the wrong
// length are not.
func FuzzValues(f *testing.F) {
	var s deltaScratch
	delta := appendDelta(nil, []int64{3, 1, 4, 1, 5}, false, &s)
	f.Add(uint8(EncDeltaBinaryPacked), uint8(TypeInt64), uint8(5), delta)
	f.Add(uint8(EncDeltaLengthByteArray), uint8(TypeByteArray), uint8(2), append(appendDelta(nil, []int64{1, 2}, true, &s), "abc"...))
	f.Add(uint8(EncDeltaByteArray), uint8(TypeByteArray), uint8(2), append(append(appendDelta(nil, []int64{0, 1}, true, &s), appendDelta(nil, []int64{2, 1}, true, &s)...), "abc"...))
	f.Add(uint8(EncByteStreamSplit), uint8(TypeDouble), uint8(1), []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(uint8(EncRLE), uint8(TypeBoolean), uint8(8), []byte{2, 0, 0, 0, 16, 1})
	f.Add(uint8(EncRLEDictionary), uint8(TypeInt32), uint8(3), []byte{1, 6, 1})
	f.Add(uint8(EncPlain), uint8(TypeInt96), uint8(1), make([]byte, 12))
	f.Fuzz(func(t *testing.T, enc, phys uint8, n uint8, data []byte) {
		pt := PhysicalType(phys % 7)
		if pt == TypeFixedLenByteArray {
			return
		}
		c := &Chunk{Column: ColumnInfo{Name: "x", Physical: pt}}
		var dict Dictionary
		dict.vals.ints, dict.vals.strs = []int64{7, 8}, nil
		dict.valid = true
		var d PageDecoder
		var v values
		if err := d.decodeValues(c, Encoding(enc%10), data, int(n), &dict, &v); err != nil {
			return
		}
		if got := len(v.ints) + len(v.floats) + len(v.bools) + len(v.strs); got != int(n) {
			t.Fatalf("%v %v: %d values, want %d", Encoding(enc%10), pt, got, n)
		}
	})
}

// FuzzScanPages finds the pages of arbitrary chunk bytes: errors are fine;
// pages found lie in the chunk, in order, and cover exactly the rows.
func FuzzScanPages(f *testing.F) {
	for _, b := range seedFiles(f) {
		file, err := Open(b)
		if err != nil {
			continue
		}
		for rg := range file.NumRowGroups() {
			cc := &file.Meta().RowGroups[rg].Columns[0]
			f.Add(b[cc.Start():cc.Start()+cc.Meta.TotalCompressedSize], uint32(file.Meta().RowGroups[rg].NumRows))
		}
	}
	f.Fuzz(func(t *testing.T, chunk []byte, rows uint32) {
		c := &Chunk{Column: ColumnInfo{Name: "x"}, NumRows: int64(rows)}
		oi, err := ScanPages(c, chunk, 100)
		if err != nil {
			return
		}
		end, row := int64(100), int64(0)
		for i, p := range oi.Pages {
			if p.Offset < end || p.CompressedPageSize <= 0 || p.Offset+int64(p.CompressedPageSize) > 100+int64(len(chunk)) || p.FirstRowIndex < row || (i > 0 && p.FirstRowIndex == row) {
				t.Fatalf("page %d: %+v after offset %d, row %d", i, p, end, row)
			}
			end, row = p.Offset+int64(p.CompressedPageSize), p.FirstRowIndex
		}
		if rows > 0 && len(oi.Pages) == 0 {
			t.Fatalf("no pages for %d rows", rows)
		}
	})
}
