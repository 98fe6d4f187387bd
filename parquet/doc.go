// Package parquet writes and reads flat Apache Parquet files: one level of
// columns, no nesting, at most one definition level, no repetition.
//
// It is written by hand rather than on a general Parquet library because
// Timelake needs exact control of the file: data pages of exactly
// Options.PageRowLimit rows (8,192), a page index (column and offset index)
// on every column chunk, Iceberg field ids on every column, sorting_columns,
// a small WebAssembly binary and low memory in a 128 MB isolate; and, later,
// a reader driven by byte ranges (getRange) planned from the offset index,
// for streaming compaction. DecodePage is that reader's building block.
//
// Writing:
//
//	w, err := parquet.NewWriter([]parquet.ColumnSpec{
//		{Name: "ts", FieldID: 1, Type: schema.Timestamptz, Required: true},
//		{Name: "host", FieldID: 2, Type: schema.String, Required: true},
//		{Name: "cpu", FieldID: 3, Type: schema.Double},
//	}, parquet.Options{Sorting: []parquet.SortingColumn{{Column: 1}, {Column: 0}}})
//	err = w.Write(cols, n) // as often as needed
//	file, stats, err := w.Finish()
//
// Reading:
//
//	f, err := parquet.Open(file)
//	for rg := range f.NumRowGroups() {
//		col, err := f.ReadColumn(rg, 0)
//	}
//
// # File layout
//
//	"PAR1"
//	row group 0:  column chunk 0: [dictionary page] data page … data page
//	              column chunk 1: …
//	row group 1:  …                     (a row group closes at the first page
//	                                     boundary past Options.RowGroupBytes)
//	column indexes of every chunk       (per-page min/max, null counts)
//	offset indexes of every chunk       (per-page offset, size, first row)
//	footer: FileMetaData (Thrift compact)
//	footer length (4 bytes LE), "PAR1"
//
// The page indexes sit together between the row groups and the footer, so
// a range reader gets the footer and then every index it needs with one
// more request, and then exactly the pages it wants.
//
// # What is written
//
//   - Data pages v2 (levels uncompressed, values compressed); Options.Compat
//     writes v1 pages, PLAIN numbers and PLAIN_DICTIONARY strings for older
//     vectorized readers.
//   - long/int/timestamps: DELTA_BINARY_PACKED (32-bit arithmetic for int,
//     wrapping); double/float/boolean: PLAIN; string: a dictionary page (PLAIN)
//     and RLE_DICTIONARY data pages. When a page would take a chunk's
//     dictionary past DictionaryLimit (1 MiB of PLAIN bytes), that page and the
//     rest of the chunk are PLAIN; the next row group starts a new dictionary.
//   - ZSTD (klauspost/compress, one shared encoder per level, no goroutines,
//     low-memory mode) at DefaultZstdLevel; Uncompressed and Snappy on request.
//   - timestamptz is INT64 TIMESTAMP(isAdjustedToUTC, MICROS) with converted
//     type TIMESTAMP_MICROS, timestamp the same without isAdjustedToUTC nor
//     converted type; timestamptz_ns and timestamp_ns are TIMESTAMP(NANOS),
//     the same way (no converted type: the old ones have no nanos); string is BYTE_ARRAY STRING/UTF8; int INT32; long
//     INT64; float FLOAT; double DOUBLE; boolean BOOLEAN. The root is "table";
//     every leaf has its field_id. column_orders say TYPE_DEFINED_ORDER.
//   - Statistics (min_value/max_value, null_count) per chunk and per page in
//     the column index, over non-null, non-NaN values; a zero float min is
//     written -0 and a zero max +0. String bounds are cut to 64 bytes at a
//     UTF-8 boundary: the min is a prefix; the max has its last code point
//     that can be incremented incremented (the rest dropped), or is kept whole
//     when none can be (see statsTruncate). A chunk with a page of only NaNs
//     gets no column index (it has no bounds to give).
//
// # What is read
//
// Our files and ordinary flat files from pyarrow, DuckDB, Spark (parquet-mr)
// and others: PLAIN for every type, PLAIN_DICTIONARY/RLE_DICTIONARY
// (including a chunk whose dictionary falls back to PLAIN mid-chunk),
// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, RLE
// booleans, BYTE_STREAM_SPLIT; v1 pages (RLE definition levels with their
// 4-byte length) and v2 pages; any number of row groups, with or without
// statistics and page index; UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW and
// the old LZ4 (Hadoop's framing as parquet-mr writes it, or a bare block as
// old parquet-cpp did). testdata/foreign_write.py makes every codec × page
// version × encoding with pyarrow (TestReadForeignFiles; testdata/foreign is
// a small copy checked without Python); no writer at hand makes the old LZ4
// any more, so TestReadHadoopLZ4File rewrites one of our files into it, and
// pyarrow reads that file the same way. Types map to Timelake types as
// ColumnInfo says: INT32 (and INT(8/16/32, signed)) is int, INT(32,
// unsigned) is long, INT64 is long, TIMESTAMP in MILLIS/MICROS is
// timestamptz (timestamp without isAdjustedToUTC) in micros, TIMESTAMP in
// NANOS is timestamptz_ns (timestamp_ns) in nanos as written — Chunk.As
// reads a chunk in the other unit for a table column of it (nanos floored
// to micros, micros and millis scaled to nanos) — INT96 is
// converted from Julian day and nanos to micros, BYTE_ARRAY with STRING/UTF8,
// ENUM or JSON is string. Plain binary, DATE, TIME, DECIMAL, UINT64 and
// FIXED_LEN_BYTE_ARRAY are refused with an error naming the column
// (ErrUnsupported), and so are BROTLI and LZO, when a page of the column is
// decoded.
//
// Nested columns (MAP, LIST in its 3- and 2-level forms, groups as
// structs, to schema.MaxNestDepth) are read from their repetition and
// definition levels, a row group at a time, each row as compact JSON text
// (FileMeta.Nested, File.ReadNested). JSON text because it is the simplest
// form package rows can carry: a string, which every path already
// carries, slices, sorts and takes, costing its bytes (a map[string]any
// per row would cost allocations and pointers per element), and printed
// as it is. Memory is bounded: a leaf holds at most its chunk's
// num_values and 16 Mi entries a row group, the tree is at most 32 deep.
// nested_schema.go, nested_levels.go and nested_read.go say how. The
// leaves are among Columns, flagged InNested: ReadColumn refuses them.
//
// Codecs and their WebAssembly cost: zstd, snappy (klauspost's s2) and
// gzip (the standard library) were already linked; LZ4_RAW and LZ4 reuse the
// block decoder of internal/core/lz4 that the Arrow IPC reader also uses, and
// added 7,040 bytes to the wasm module (GOOS=js GOARCH=wasm go build ./wasm:
// 7,938,779 → 7,945,819 bytes, 2026-12-01). Brotli (a pure-Go decoder with
// its 120 KiB dictionary) was left out: no default writer uses it.
//
// Every length and count read from a file is checked before memory is
// allocated by it: list sizes and strings against the bytes left, chunk
// offsets against the file size, pages against maxPageBytes (64 MiB) and
// maxPageValues (2^20), zstd and snappy sizes against the page header.
package parquet
