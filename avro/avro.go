// Package avro reads and writes Avro object container files (OCF), the file
// format of Iceberg manifests and manifest lists.
//
// It is written by hand rather than taken from a general Avro library because
// Iceberg readers need exact control of what lands in the file: the header
// metadata keys (`schema`, `partition-spec`, `format-version`, …), the
// `field-id`, `element-id` and `logicalType` attributes on the schema, the
// order of those attributes, and the deflate stream itself (see Deflate). It
// uses no reflection and no global state, which keeps the WebAssembly build
// small and makes every byte it writes a function of its inputs: the caller
// supplies the 16-byte sync marker.
//
// File layout (Avro 1.11 specification, "Object Container Files"):
//
//	+------------+--------------------------------------+-------------+
//	| "Obj" 0x01 | metadata: map<string, bytes>          | sync (16 B) |   header
//	|            |   avro.schema = writer schema (JSON)  |             |
//	|            |   avro.codec  = null | deflate | …    |             |
//	|            |   caller's keys (e.g. Iceberg's)      |             |
//	+------------+--------------------------------------+-------------+
//	| count: long | size: long | size bytes of records (compressed) | sync |   block 1
//	+-------------+------------+------------------------------------+------+
//	| …                                                                    |   block n
//
// A map is written as blocks of (count: long, entries…) ended by a 0 count;
// ints and longs are zig-zag varints; strings and bytes are a long length
// then the bytes. Records are their fields in schema order; a union is the
// branch index (long) then the branch value.
//
// Writing:
//
//	w, err := avro.NewWriter(&buf, sch, avro.WriterOptions{
//		Codec: avro.Deflate,
//		Sync:  sync, // 16 bytes from the caller, e.g. derived from a file id
//		Meta:  map[string][]byte{"format-version": []byte("2")},
//	})
//	rec := avro.AppendLong(nil, 42) // a record encoded field by field, or w.Append(map[string]any{…})
//	err = w.AppendEncoded(rec)
//	err = w.Close()
//
// Reading decodes with the writer's schema from the header into generic
// values (see Decode for the mapping):
//
//	r, err := avro.NewReader(file)
//	for {
//		v, err := r.Next()
//		if err == io.EOF { break }
//		…
//	}
package avro

import "errors"

// Magic starts every object container file. persisted: must not change.
var Magic = [4]byte{'O', 'b', 'j', 1}

// SyncSize is the length of the sync marker that ends the header and every block.
const SyncSize = 16

// Header metadata keys the format itself uses. persisted: must not change.
const (
	MetaSchema = "avro.schema"
	MetaCodec  = "avro.codec"
)

// Codec names a block compression codec. persisted: must not change.
type Codec string

const (
	Null    Codec = "null"
	Deflate Codec = "deflate" // raw RFC 1951 deflate, no zlib header
	Snappy  Codec = "snappy"  // snappy block + 4-byte big-endian CRC-32 of the uncompressed data
	Zstd    Codec = "zstandard"
)

// Limits that keep a corrupt or hostile file from causing huge allocations.
const (
	// MaxBlockSize bounds one block, compressed or decompressed.
	MaxBlockSize = 64 << 20
	// maxZeroSizeItems bounds how many items whose encoding takes no bytes
	// (nulls, empty records) one file may hold, since their count cannot be
	// checked against the bytes left.
	maxZeroSizeItems = 1 << 20
	// maxDepth bounds schema nesting and value nesting while decoding.
	maxDepth = 128
)

// Errors wrapped by the reader; test with errors.Is.
var (
	ErrNotAvro  = errors.New("avro: not an object container file (bad magic)")
	ErrCorrupt  = errors.New("avro: corrupt file")
	ErrTooLarge = errors.New("avro: size in file exceeds limit")
)
