package parquet

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/timelake/timelake/parquet/internal/thrift"
	"github.com/timelake/timelake/schema"
)

// No writer at hand (pyarrow, DuckDB) writes the old LZ4 codec any more;
// parquet-mr writes it in Hadoop's framing. toHadoopLZ4 rewrites one of our
// uncompressed files so: every page body becomes one Hadoop frame holding
// an LZ4 block, the chunks say LZ4, the page index is dropped. pyarrow reads
// the result (so the framing is the real one), and so must we.

// lz4Literals is src as one LZ4 block of literals only (what a compressor
// makes of incompressible data).
func lz4Literals(src []byte) []byte {
	n := len(src)
	var out []byte
	if n < 15 {
		out = append(out, byte(n<<4))
	} else {
		out = append(out, 0xF0)
		for k := n - 15; ; k -= 255 {
			if k < 255 {
				out = append(out, byte(k))
				break
			}
			out = append(out, 255)
		}
	}
	return append(out, src...)
}

func toHadoopLZ4(t *testing.T, data []byte) []byte {
	t.Helper()
	m, err := ParseFooter(data, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	out := []byte("PAR1")
	for r := range m.RowGroups {
		rg := &m.RowGroups[r]
		for c := range rg.Columns {
			cc := &rg.Columns[c]
			start, end := cc.Start(), cc.Start()+cc.Meta.TotalCompressedSize
			chunkStart := int64(len(out))
			for pos := start; pos < end; {
				h, hlen, err := readPageHeader(data[pos:])
				if err != nil {
					t.Fatal(err)
				}
				body := data[pos+int64(hlen) : pos+int64(hlen)+int64(h.CompressedSize)]
				if h.Type == pageDataV2 {
					t.Fatal("v2 pages: write the file with Compat")
				}
				block := lz4Literals(body)
				frame := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
				frame = binary.BigEndian.AppendUint32(frame, uint32(len(block)))
				frame = append(frame, block...)
				h.CompressedSize = int32(len(frame))
				if h.Type == pageDictionary {
					cc.Meta.DictionaryPageOffset = int64(len(out))
				} else if pos == cc.Meta.DataPageOffset {
					cc.Meta.DataPageOffset = int64(len(out))
				}
				var w thrift.Writer
				writePageHeader(&w, &h)
				out = append(append(out, w.Buf...), frame...)
				pos += int64(hlen) + int64(len(body))
			}
			cc.Meta.Codec = LZ4
			cc.Meta.TotalCompressedSize = int64(len(out)) - chunkStart
			cc.HasColumnIndex, cc.HasOffsetIndex = false, false
		}
	}
	exact := make([][]exactness, len(m.RowGroups))
	for r := range exact {
		exact[r] = make([]exactness, len(m.Columns))
	}
	var w thrift.Writer
	writeFileMeta(&w, &fileMetaOut{version: m.Version, schema: m.schema, numRows: m.NumRows, rowGroups: m.RowGroups,
		kv: m.KeyValue, createdBy: "timelake test (hadoop lz4)", exact: exact})
	out = append(out, w.Buf...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(w.Buf)))
	return append(out, "PAR1"...)
}

func TestReadHadoopLZ4File(t *testing.T) {
	const n = 3000
	cols := makeRows(n, 3)
	orig, _ := writeFile(t, allTypes, Options{Codec: Uncompressed, Compat: true, PageRowLimit: 500, RowGroupBytes: 16 << 10}, cols, n)
	data := toHadoopLZ4(t, orig)
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRowGroups() < 2 {
		t.Fatalf("%d row groups, want several", f.NumRowGroups())
	}
	for c, spec := range allTypes {
		if f.Meta().RowGroups[0].Columns[c].Meta.Codec != LZ4 {
			t.Fatalf("column %s is not LZ4", spec.Name)
		}
		got, err := readWholeColumn(f, c)
		if err != nil {
			t.Fatalf("column %s: %v", spec.Name, err)
		}
		sameColumn(t, spec.Name, got, cols[c], n)
	}
	// pyarrow reads the same file the same way: the framing is Hadoop's
	path := filepath.Join(t.TempDir(), "hadoop-lz4.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var got inspected
	decodeJSON(t, runPython(t, "testdata/inspect_file.py", path, "--no-duckdb"), &got)
	for c, spec := range allTypes {
		want := cols[c]
		if spec.Type == schema.Float {
			want.Floats = slices.Clone(want.Floats)
			for i, v := range want.Floats {
				want.Floats[i] = float64(float32(v))
			}
		}
		checkValues(t, "pyarrow", spec.Name, spec.Type, want, got.Columns[spec.Name])
		// pyarrow names Arrow's LZ4_HADOOP "UNKNOWN" (it has no string for it)
		if codec := got.RowGroups[0].Columns[c].Compression; codec != "LZ4" && codec != "UNKNOWN" {
			t.Errorf("pyarrow sees column %s as %s", spec.Name, codec)
		}
	}
}
