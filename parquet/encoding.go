package parquet

import "errors"

// Value encodings: encoders append to the buffer they are given and never do
// I/O; decoders check every count and length against the bytes they hold.
// By family: LSB-first bit packing in encoding_bitpack.go, the RLE/bit-packed
// hybrid in encoding_hybrid.go, DELTA_BINARY_PACKED in encoding_delta.go.

var errShort = errors.New("unexpected end of page data")

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
