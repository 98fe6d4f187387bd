package avro

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// testSchemaJSON covers every type the reader supports, with Iceberg-style
// attributes, a logical-type map array and a named-type reference.
const testSchemaJSON = `{"type":"record","name":"entry","fields":[` +
	`{"name":"status","type":"int","field-id":0},` +
	`{"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},` +
	`{"name":"flag","type":"boolean"},` +
	`{"name":"f32","type":"float"},` +
	`{"name":"f64","type":"double"},` +
	`{"name":"blob","type":"bytes"},` +
	`{"name":"path","type":"string","doc":"where"},` +
	`{"name":"md5","type":{"type":"fixed","name":"md5","size":4}},` +
	`{"name":"md5b","type":"md5"},` +
	`{"name":"kind","type":{"type":"enum","name":"kind","symbols":["A","B"]}},` +
	`{"name":"day","type":["null",{"type":"int","logicalType":"date"}],"default":null,"field-id":1000},` +
	`{"name":"offsets","type":["null",{"type":"array","items":"long","element-id":133}],"default":null,"field-id":132},` +
	`{"name":"sizes","type":{"type":"array","items":{"type":"record","name":"k117_v118","fields":[{"name":"key","type":"int","field-id":117},{"name":"value","type":"long","field-id":118}]},"logicalType":"map"},"field-id":108},` +
	`{"name":"props","type":{"type":"map","values":"string"}}` +
	`]}`

func testRecord(i int) map[string]any {
	var snap any
	if i%2 == 0 {
		snap = int64(-1) << 40
	}
	return map[string]any{
		"status": int32(i), "snapshot_id": snap, "flag": i%3 == 0,
		"f32": float32(1.5), "f64": float64(i) / 3, "blob": []byte{0, byte(i)},
		"path": strings.Repeat("é", i), "md5": []byte{1, 2, 3, 4}, "md5b": []byte{5, 6, 7, 8},
		"kind": "B", "day": int32(20000 + i), "offsets": []any{int64(4), int64(1 << 40)},
		"sizes": []any{map[string]any{"key": int32(1), "value": int64(99)}},
		"props": map[string]any{"a": "b"},
	}
}

func TestSchemaJSONRoundTrip(t *testing.T) {
	s, err := ParseSchema([]byte(testSchemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.String(); got != testSchemaJSON {
		t.Errorf("schema JSON changed:\n got %s\nwant %s", got, testSchemaJSON)
	}
	if id, ok := s.Field("day").FieldID(); !ok || id != 1000 {
		t.Errorf("field-id of day: got %d %v, want 1000", id, ok)
	}
	if lt := s.Field("day").Type.Branches[1].LogicalType; lt != "date" {
		t.Errorf("logicalType of day: got %q, want date", lt)
	}
	if s.Field("md5b").Type != s.Field("md5").Type {
		t.Errorf("named reference md5 not resolved to the same schema")
	}
}

func TestParseSchemaErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"nope"`, `unknown type "nope"`},
		{`{"type":"record","fields":[]}`, "without a name"},
		{`{"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]}`, `field "a" defined twice`},
		{`[]`, "no branches"},
		{`["null",["int"]]`, "union directly inside a union"},
		{`{"type":"enum","name":"e","symbols":[]}`, "non-empty"},
		{`{"type":"array"}`, "without \"items\""},
		{`{"type":"fixed","name":"f","size":-1}`, "non-negative"},
		{`{"type":"record","name":"r","fields":[`, "unexpected EOF"},
		{strings.Repeat(`{"type":"array","items":`, 200) + `"int"` + strings.Repeat(`}`, 200), "nested more than"},
	} {
		_, err := ParseSchema([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSchema(%.40s): got %v, want error containing %q", tc.in, err, tc.want)
		}
	}
}

func writeFile(t testing.TB, codec Codec, n, blockSize int) []byte {
	s, err := ParseSchema([]byte(testSchemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, s, WriterOptions{Codec: codec, Sync: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
		Meta: map[string][]byte{"format-version": []byte("2"), "content": []byte("data")}, BlockSize: blockSize})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := w.Append(testRecord(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriteReadRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		codec     Codec
		n, blockB int
	}{{Null, 0, 0}, {Null, 5, 0}, {Deflate, 5, 0}, {Deflate, 50, 100}, {Null, 50, 1}} {
		file := writeFile(t, tc.codec, tc.n, tc.blockB)
		r, err := NewReader(file)
		if err != nil {
			t.Fatalf("%s/%d: %v", tc.codec, tc.n, err)
		}
		if r.Codec != tc.codec {
			t.Errorf("codec: got %q, want %q", r.Codec, tc.codec)
		}
		if got := string(r.Meta["format-version"]); got != "2" {
			t.Errorf("meta format-version: got %q, want 2", got)
		}
		if got := r.Schema.String(); got != testSchemaJSON {
			t.Errorf("schema from header: got %s", got)
		}
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatalf("%s/%d: %v", tc.codec, tc.n, err)
		}
		if len(recs) != tc.n {
			t.Fatalf("%s: got %d records, want %d", tc.codec, len(recs), tc.n)
		}
		for i, got := range recs {
			if want := any(testRecord(i)); !reflect.DeepEqual(got, want) {
				t.Errorf("%s record %d:\n got %#v\nwant %#v", tc.codec, i, got, want)
			}
		}
	}
}

// TestDeflateEndsWithoutEmptyStoredBlock checks the property DESIGN.md
// relies on: the stream does not end with the empty stored block (…00 00 ff
// ff) that Go's compress/flate appends and JavaScript inflaters mis-read.
func TestDeflateEndsWithoutEmptyStoredBlock(t *testing.T) {
	file := writeFile(t, Deflate, 20, 0)
	r, err := NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	d := &decoder{b: file, pos: r.pos}
	d.long()
	size, _ := d.long()
	block := file[d.pos : d.pos+int(size)]
	if bytes.HasSuffix(block, []byte{0, 0, 0xff, 0xff}) {
		t.Errorf("deflate block ends with an empty stored block: % x", block[len(block)-8:])
	}
	// and the standard library inflater reads it
	out, err := io.ReadAll(flate.NewReader(bytes.NewReader(block)))
	if err != nil || len(out) == 0 {
		t.Errorf("compress/flate cannot inflate the block: %v", err)
	}
}

// rewriteBlocks re-encodes every block of a null-codec file with compress.
func rewriteBlocks(t *testing.T, file []byte, codec Codec, compress func([]byte) []byte) []byte {
	r, err := NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	r.Meta[MetaCodec] = []byte(codec)
	out := append([]byte{}, Magic[:]...)
	out = AppendLong(out, int64(len(r.Meta)))
	for _, k := range sortedKeys(r.Meta) {
		out = AppendString(out, k)
		out = AppendBytes(out, r.Meta[k])
	}
	out = AppendLong(out, 0)
	out = append(out, r.Sync[:]...)
	d := &decoder{b: file, pos: r.pos}
	for d.remaining() > 0 {
		count, _ := d.long()
		size, _ := d.long()
		data, _ := d.fixed(int(size))
		d.fixed(SyncSize)
		z := compress(data)
		out = AppendLong(out, count)
		out = AppendBytes(out, z)
		out = append(out, r.Sync[:]...)
	}
	return out
}

func TestReadSnappyAndZstd(t *testing.T) {
	plain := writeFile(t, Null, 30, 200)
	enc, _ := zstd.NewWriter(nil)
	for _, tc := range []struct {
		codec Codec
		fn    func([]byte) []byte
	}{
		{Snappy, func(b []byte) []byte {
			return binary.BigEndian.AppendUint32(s2.EncodeSnappy(nil, b), crc32.ChecksumIEEE(b))
		}},
		{Zstd, func(b []byte) []byte { return enc.EncodeAll(b, nil) }},
	} {
		file := rewriteBlocks(t, plain, tc.codec, tc.fn)
		r, err := NewReader(file)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", tc.codec, err)
		}
		if len(recs) != 30 || !reflect.DeepEqual(recs[29], any(testRecord(29))) {
			t.Errorf("%s: got %d records, last %v", tc.codec, len(recs), recs[len(recs)-1])
		}
	}
	// a snappy block with a wrong checksum is refused
	bad := rewriteBlocks(t, plain, Snappy, func(b []byte) []byte {
		return binary.BigEndian.AppendUint32(s2.EncodeSnappy(nil, b), 0)
	})
	r, err := NewReader(bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("bad snappy checksum: got %v, want checksum error", err)
	}
}

func TestReaderCorruptInputs(t *testing.T) {
	good := writeFile(t, Null, 3, 0)
	r, _ := NewReader(good)
	hdr := r.pos
	for _, tc := range []struct {
		name string
		mess func([]byte) []byte
		want error
	}{
		{"empty", func(b []byte) []byte { return nil }, ErrNotAvro},
		{"bad magic", func(b []byte) []byte { b[3] = 2; return b }, ErrNotAvro},
		{"truncated header", func(b []byte) []byte { return b[:hdr-3] }, ErrCorrupt},
		{"truncated block", func(b []byte) []byte { return b[:len(b)-20] }, ErrCorrupt},
		{"wrong sync", func(b []byte) []byte { b[len(b)-1] ^= 0xff; return b }, ErrCorrupt},
		{"huge block count", func(b []byte) []byte {
			return append(AppendLong(AppendLong(b[:hdr], 1<<50), 0), r.Sync[:]...)
		}, ErrCorrupt},
		{"huge header map", func(b []byte) []byte { return AppendLong(b[:4], 1<<60) }, ErrCorrupt},
	} {
		file := tc.mess(append([]byte{}, good...))
		var err error
		if rr, e := NewReader(file); e != nil {
			err = e
		} else {
			_, err = rr.ReadAll()
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestArrayOfNullsIsBounded(t *testing.T) {
	s, _ := ParseSchema([]byte(`{"type":"array","items":"null"}`))
	b := AppendLong(nil, maxZeroSizeItems+1)
	if _, _, err := Decode(s, b); !errors.Is(err, ErrTooLarge) {
		t.Errorf("array of %d nulls: got %v, want ErrTooLarge", maxZeroSizeItems+1, err)
	}
	b = AppendLong(AppendLong(nil, 3), 0)
	v, rest, err := Decode(s, b)
	if err != nil || len(v.([]any)) != 3 || len(rest) != 0 {
		t.Errorf("array of 3 nulls: got %v %v %v", v, rest, err)
	}
}

func TestAppendPrimitives(t *testing.T) {
	for _, tc := range []struct {
		got, want []byte
	}{
		{AppendLong(nil, 0), []byte{0}},
		{AppendLong(nil, -1), []byte{1}},
		{AppendLong(nil, 1), []byte{2}},
		{AppendLong(nil, 64), []byte{0x80, 1}},
		{AppendInt(nil, -65), []byte{0x81, 1}},
		{AppendString(nil, "ab"), []byte{4, 'a', 'b'}},
		{AppendDouble(nil, 1), []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{AppendFloat(nil, 1), []byte{0, 0, 0x80, 0x3f}},
	} {
		if !bytes.Equal(tc.got, tc.want) {
			t.Errorf("got % x, want % x", tc.got, tc.want)
		}
	}
	d := &decoder{b: AppendLong(nil, -1<<63)}
	if v, err := d.long(); err != nil || v != -1<<63 {
		t.Errorf("min long round trip: got %d %v", v, err)
	}
	d = &decoder{b: bytes.Repeat([]byte{0xff}, 11)}
	if _, err := d.long(); err == nil {
		t.Errorf("11-byte varint: got no error")
	}
}

func FuzzReader(f *testing.F) {
	f.Add(writeFile(f, Null, 3, 0))
	f.Add(writeFile(f, Deflate, 10, 100))
	if b, err := os.ReadFile("testdata/pyiceberg-manifest.avro"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		r, err := NewReader(file)
		if err != nil {
			return
		}
		for i := 0; i < 10000; i++ {
			if _, err := r.Next(); err != nil {
				return
			}
		}
	})
}

func BenchmarkWriteDeflate(b *testing.B) {
	b.ReportAllocs()
	s, _ := ParseSchema([]byte(testSchemaJSON))
	rec := testRecord(7)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		w, _ := NewWriter(&buf, s, WriterOptions{Codec: Deflate})
		for range 1000 {
			w.Append(rec)
		}
		w.Close()
	}
}

// TestReadPyicebergManifest reads a manifest pyiceberg wrote (copied from
// iceberg/testdata/pyiceberg): the writer's schema from the header decodes it.
func TestReadPyicebergManifest(t *testing.T) {
	file, err := os.ReadFile("testdata/pyiceberg-manifest.avro")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("got %d records, want 1", len(recs))
	}
	df := recs[0].(map[string]any)["data_file"].(map[string]any)
	if df["record_count"] != int64(3) || df["file_format"] != "PARQUET" {
		t.Errorf("data_file: got record_count %v format %v", df["record_count"], df["file_format"])
	}
	if id, _ := r.Schema.Field("data_file").FieldID(); id != 2 {
		t.Errorf("data_file field-id: got %d, want 2", id)
	}
}

// Files with the same schema text share one parsed schema (readers only
// read it), and each reader still decodes its own records; concurrent
// readers are safe (go test -race).
func TestReadersShareParsedSchema(t *testing.T) {
	a, b := writeFile(t, Null, 3, 0), writeFile(t, Deflate, 4, 0)
	ra, err := NewReader(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := NewReader(b)
	if err != nil {
		t.Fatal(err)
	}
	if ra.Schema != rb.Schema {
		t.Errorf("two files with the same schema text parsed it twice")
	}
	other := bytes.Replace(a, []byte(`"name":"entry"`), []byte(`"name":"entrx"`), 1)
	ro, err := NewReader(other)
	if err != nil {
		t.Fatal(err)
	}
	if ro.Schema == ra.Schema || ro.Schema.Name != "entrx" {
		t.Errorf("a different schema text got the shared schema %q", ro.Schema.Name)
	}
	done := make(chan error)
	for k := range 4 {
		go func() {
			file := [][]byte{a, b, other, b}[k]
			for range 20 {
				r, err := NewReader(file)
				if err != nil {
					done <- err
					return
				}
				if _, err := r.ReadAll(); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	for _, tc := range []struct {
		r *Reader
		n int
	}{{ra, 3}, {rb, 4}} {
		recs, err := tc.r.ReadAll()
		if err != nil || len(recs) != tc.n {
			t.Errorf("got %d records, %v; want %d", len(recs), err, tc.n)
		}
	}
}
