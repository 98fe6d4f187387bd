package iceberg

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/klauspost/compress/flate"
	"github.com/timelake/timelake/avro"
	"github.com/timelake/timelake/internal/benchcpu"
)

// BenchmarkWriteManifestCodec writes what an append writes — a manifest of
// one entry and a manifest list of 1 or 50 manifests — and a compaction's
// manifest of 100 entries, with each codec and deflate level, and
// reports the bytes written per op beside the CPU (natively, and under
// GOOS=js GOARCH=wasm with go_js_wasm_exec as -exec):
//
//	go test ./iceberg -run '^$' -bench WriteManifestCodec
func BenchmarkWriteManifestCodec(b *testing.B) {
	_, mf := benchManifest(b, 1)
	m := NewTableMetadata(fixtureTable(b), fixtureUUID, fixtureLocation, fixtureNowMs, nil)
	base := fixtureEntries()
	entries100 := make([]ManifestEntry, 100)
	for i := range entries100 {
		entries100[i] = base[i%len(base)]
		entries100[i].DataFile.Path = fmt.Sprintf("%s/data/ts_day=2025-11-%02d/%05d-x.parquet", fixtureLocation, 1+i%28, i)
	}
	defer func(c avro.Codec, l int) { manifestCodec, manifestDeflateLevel = c, l }(manifestCodec, manifestDeflateLevel)
	for _, c := range []struct {
		name  string
		codec avro.Codec
		level int
	}{
		{"deflate-default", avro.Deflate, flate.DefaultCompression},
		{"deflate-1", avro.Deflate, flate.BestSpeed},
		{"deflate-huffman", avro.Deflate, flate.HuffmanOnly},
		{"null", avro.Null, 0},
	} {
		for _, shape := range []struct{ entries, list int }{{1, 1}, {1, 50}, {100, 1}} {
			listLen, entry := shape.list, entries100[:shape.entries]
			files := make([]ManifestFile, listLen)
			for i := range files {
				files[i] = mf
				files[i].ManifestPath = fmt.Sprintf("%s/metadata/%05d-m0.avro", fixtureLocation, i)
			}
			b.Run(fmt.Sprintf("%s/entries=%d/list=%d", c.name, shape.entries, listLen), func(b *testing.B) {
				manifestCodec, manifestDeflateLevel = c.codec, c.level
				var buf bytes.Buffer
				cpu0 := benchcpu.Now()
				var n int
				for b.Loop() {
					buf.Reset()
					if _, err := WriteManifest(&buf, m.Schemas[0], m.PartitionSpecs[0], entry, sync16(1)); err != nil {
						b.Fatal(err)
					}
					n = buf.Len()
					buf.Reset()
					if err := WriteManifestList(&buf, fixtureSnapshot, nil, 2, files, sync16(2)); err != nil {
						b.Fatal(err)
					}
					n += buf.Len()
				}
				benchcpu.ReportPerOp(b, cpu0)
				b.ReportMetric(float64(n), "bytes/op")
			})
		}
	}
}
