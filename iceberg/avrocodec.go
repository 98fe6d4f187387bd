package iceberg

import (
	"github.com/klauspost/compress/flate"

	"github.com/timelake/timelake/avro"
)

// The codec and deflate level of the manifests and manifest lists Timelake
// writes: deflate (every Iceberg reader reads it) at level 1. An append
// writes a manifest of one entry and a manifest list, mostly the Avro
// header (schemas in JSON, never compressed), so level 1 gives the same
// bytes within 2% at 10-30% less CPU under WebAssembly; the null codec
// would save a little more CPU but makes a list of 50 manifests 1.8x and a
// manifest of 100 entries 5x larger, bytes every later reader fetches.
// Figures: BenchmarkWriteManifestCodec, docs/decisions/wasm-fixed-costs.md.
// Variables only so that benchmark can compare others in one run; nothing
// else changes them.
var (
	manifestCodec        = avro.Deflate
	manifestDeflateLevel = flate.BestSpeed
)
