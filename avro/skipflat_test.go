package avro

import (
	"bytes"
	"strings"
	"testing"
)

// An array of flat records (Decoder.skipFlat, with its one-byte varint
// paths) skips as Next reads: values of one byte and of several, negative
// lengths' neighbours, every primitive type, and every cut of the file.
func TestSkipFlatMatchesNext(t *testing.T) {
	s, err := ParseSchema([]byte(`{"type":"record","name":"r","fields":[{"name":"a","type":{"type":"array","items":{"type":"record","name":"kv","fields":[` +
		`{"name":"k","type":"int"},{"name":"v","type":"long"},{"name":"b","type":"bytes"},{"name":"s","type":"string"},` +
		`{"name":"f","type":"boolean"},{"name":"x","type":"float"},{"name":"y","type":"double"},{"name":"z","type":{"type":"fixed","name":"z3","size":3}},{"name":"n","type":"null"}]}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, s, WriterOptions{Codec: Null, BlockSize: 200})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		var items []any
		for j, v := range []int64{0, -1, 63, -64, 64, -65, 1 << 20, -1 << 40} {
			items = append(items, map[string]any{
				"k": int32(v >> 10), "v": v, "b": bytes.Repeat([]byte{byte(j)}, (i*j*9)%140),
				"s": strings.Repeat("é", i+j), "f": j%2 == 0, "x": float32(j), "y": float64(v),
				"z": []byte{1, 2, byte(i)}, "n": nil,
			})
		}
		if err := w.Append(map[string]any{"a": items}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	if n, err := nextAll(file); err != nil || n != 8 {
		t.Fatalf("Next: %d records, %v", n, err)
	}
	for cut := range len(file) + 1 {
		checkSkipMatchesNext(t, file[:cut])
	}
}
