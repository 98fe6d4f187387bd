// Package deletionvector reads and writes Iceberg format v3 deletion
// vectors: the blob of type deletion-vector-v1 inside a Puffin file that
// lists the deleted row positions (0-based, in file order) of one data file.
// It is pure (bytes in, bytes out).
//
// The blob (Iceberg Puffin spec, "deletion-vector-v1"; the length and the
// CRC big-endian, as Delta Lake's deletion vectors, everything inside the
// vector little-endian):
//
//	Length       uint32 BE   bytes of Magic + Vector
//	Magic        D1 D3 39 64
//	Vector       a 64-bit Roaring bitmap, "portable" serialization:
//	  Buckets    uint64 LE   number of 32-bit buckets
//	  Bucket₁…ₙ  ascending by Key:
//	    Key      uint32 LE   the positions' high 32 bits (at most 2³¹-1)
//	    Bitmap   a 32-bit Roaring bitmap of the low 32 bits, portable:
//	      Cookie uint32 LE   12346: no run containers; then Size uint32 LE
//	                         12347 | (Size-1)<<16: some are; then a bitset
//	                         of (Size+7)/8 bytes, bit i: container i is runs
//	      Size × (Key uint16 LE, Cardinality-1 uint16 LE), keys ascending
//	      Size × Offset uint32 LE (left out when the cookie is 12347 and
//	                         Size < 4; this package reads the containers in
//	                         order and does not need them)
//	      Size containers:
//	        runs:   Count uint16 LE, Count × (Start, Length-1 uint16 LE)
//	        array:  Cardinality ≤ 4096 × uint16 LE, ascending
//	        bitmap: 1024 × uint64 LE (8 KiB), bit i of the container set
//	CRC          uint32 BE   CRC-32 (IEEE) of Magic + Vector
//
// A position is Key<<32 | container key<<16 | low 16 bits.
//
// Decode allocates in proportion to the blob (a run is kept as a run, never
// expanded), so a hostile blob costs what its bytes cost. Encode writes
// each container in the smallest of the three forms, runs included, as
// Iceberg's Java writer does after run-length encoding.
//
// Why not github.com/RoaringBitmap/roaring (its roaring64 reads and writes
// this portable form): measured with Go 1.26, GOOS=js GOARCH=wasm,
// -ldflags='-s -w', a minimal program that encodes and decodes a vector is
// 209 KB larger (54 KB gzip -9) with roaring64 and 139 KB (36 KB) with
// this package; roaring brings three modules to a module that has four;
// and this package needs only decode, encode and a membership test, with
// what a hostile blob allocates bounded by its bytes, which is easier to
// keep in 400 lines we own.
package deletionvector
