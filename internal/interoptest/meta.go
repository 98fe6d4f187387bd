package interoptest

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// ParquetMeta is `readers.py parquet-meta FILE`: DuckDB's view of a Parquet
// footer (parquet_file_metadata, parquet_kv_metadata, parquet_schema,
// parquet_metadata) and, read by a small Thrift decoder of its own, every
// page header and the page index of each column chunk.
type ParquetMeta struct {
	File []struct {
		CreatedBy     string `json:"created_by"`
		NumRows       int64  `json:"num_rows"`
		NumRowGroups  int64  `json:"num_row_groups"`
		FormatVersion int64  `json:"format_version"`
	} `json:"file"`
	KeyValue map[string]string `json:"key_value"`
	Schema   []struct {
		Name           string `json:"name"`
		Type           string `json:"type"` // physical type; "" for the root
		RepetitionType string `json:"repetition_type"`
		ConvertedType  string `json:"converted_type"`
		LogicalType    string `json:"logical_type"` // e.g. TimestampType(isAdjustedToUTC=1, unit=...MICROS...)
		FieldID        *int   `json:"field_id"`
	} `json:"schema"`
	Columns []struct { // one per column chunk, by row group then column
		RowGroupID          int64   `json:"row_group_id"`
		RowGroupNumRows     int64   `json:"row_group_num_rows"`
		ColumnID            int64   `json:"column_id"`
		PathInSchema        string  `json:"path_in_schema"`
		Type                string  `json:"type"`
		NumValues           int64   `json:"num_values"`
		Compression         string  `json:"compression"`
		Encodings           string  `json:"encodings"` // e.g. "RLE, DELTA_BINARY_PACKED"
		StatsMinValue       *string `json:"stats_min_value"`
		StatsMaxValue       *string `json:"stats_max_value"`
		StatsNullCount      *int64  `json:"stats_null_count"`
		TotalCompressedSize int64   `json:"total_compressed_size"`
	} `json:"columns"`
	// SortingColumns holds, per row group, its sorting_columns.
	SortingColumns [][]struct {
		Column     int  `json:"column"`
		Descending bool `json:"descending"`
		NullsFirst bool `json:"nulls_first"`
	} `json:"sorting_columns"`
	Chunks []ParquetChunk  `json:"chunks"`
	Raw    json.RawMessage `json:"-"` // the whole output
}

// ParquetChunk is one column chunk as read from the page headers and the
// page index.
type ParquetChunk struct {
	RowGroup       int           `json:"row_group"`
	Column         int           `json:"column"`
	Path           string        `json:"path"`
	HasColumnIndex bool          `json:"has_column_index"`
	HasOffsetIndex bool          `json:"has_offset_index"`
	Pages          []ParquetPage `json:"pages"`
	// OffsetIndexRows is the row count of each data page, from the offset index.
	OffsetIndexRows       []int64 `json:"offset_index_rows"`
	ColumnIndexPages      int     `json:"column_index_pages"`
	ColumnIndexNullCounts []int64 `json:"column_index_null_counts"`
}

// ParquetPage is one page header.
type ParquetPage struct {
	Type             string `json:"type"`     // DATA_PAGE, DATA_PAGE_V2, DICTIONARY_PAGE
	Encoding         string `json:"encoding"` // e.g. DELTA_BINARY_PACKED, RLE_DICTIONARY, PLAIN
	NumValues        int64  `json:"num_values"`
	NumRows          *int64 `json:"num_rows"`  // v2 pages only
	NumNulls         *int64 `json:"num_nulls"` // v2 pages only
	CompressedSize   int64  `json:"compressed_size"`
	UncompressedSize int64  `json:"uncompressed_size"`
}

// AvroMeta is `readers.py avro-meta FILE`: an Avro object container file's
// header, read by a hand decoder independent of any Avro library.
type AvroMeta struct {
	Metadata map[string]string `json:"metadata"` // header metadata; binary values as "hex:..."
	Schema   json.RawMessage   `json:"schema"`   // avro.schema
	Codec    string            `json:"codec"`
	Blocks   int64             `json:"blocks"`
	Records  int64             `json:"records"`
}

// ReadParquetMeta runs `readers.py parquet-meta` on file; it fails t if the
// file cannot be read.
func ReadParquetMeta(t testing.TB, file string) ParquetMeta {
	t.Helper()
	raw := runReadersPy(t, "parquet-meta", file)
	var m ParquetMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("interoptest: parquet-meta %s: %v\n%s", file, err, raw)
	}
	m.Raw = raw
	return m
}

// ReadAvroMeta runs `readers.py avro-meta` on file; it fails t if the file
// cannot be read.
func ReadAvroMeta(t testing.TB, file string) AvroMeta {
	t.Helper()
	raw := runReadersPy(t, "avro-meta", file)
	var m AvroMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("interoptest: avro-meta %s: %v\n%s", file, err, raw)
	}
	return m
}

func runReadersPy(t testing.TB, args ...string) []byte {
	t.Helper()
	py := Python(t)
	cmd := exec.Command(py, append([]string{filepath.Join(Root(), "interop", "readers.py")}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("interoptest: readers.py %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.Bytes()
}

// PuffinMeta is `readers.py puffin-meta`: a Puffin file as pyiceberg's
// reader sees it.
type PuffinMeta struct {
	Properties map[string]string `json:"properties"`
	Blobs      []struct {
		Type           string   `json:"type"`
		SnapshotID     int64    `json:"snapshot_id"`
		SequenceNumber int64    `json:"sequence_number"`
		Fields         []int    `json:"fields"`
		Offset         int64    `json:"offset"`
		Length         int64    `json:"length"`
		ParquetRows    int64    `json:"parquet_rows"`
		ParquetColumns []string `json:"parquet_columns"`
	} `json:"blobs"`
}

// ReadPuffinMeta runs `readers.py puffin-meta` on file; it fails t if
// pyiceberg cannot read the file.
func ReadPuffinMeta(t testing.TB, file string) PuffinMeta {
	t.Helper()
	raw := runReadersPy(t, "puffin-meta", file)
	var m PuffinMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("interoptest: puffin-meta %s: %v\n%s", file, err, raw)
	}
	return m
}

// DeletionVectors is `readers.py deletion-vectors`: the deletion vectors
// of a Puffin file as pyiceberg decodes them.
type DeletionVectors struct {
	Vectors []struct {
		ReferencedDataFile string            `json:"referenced_data_file"`
		Properties         map[string]string `json:"properties"`
		Positions          []int64           `json:"positions"`
	} `json:"vectors"`
}

// ReadDeletionVectors runs `readers.py deletion-vectors` on file; it fails
// t if pyiceberg cannot read them.
func ReadDeletionVectors(t testing.TB, file string) DeletionVectors {
	t.Helper()
	raw := runReadersPy(t, "deletion-vectors", file)
	var d DeletionVectors
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("interoptest: deletion-vectors %s: %v\n%s", file, err, raw)
	}
	return d
}
