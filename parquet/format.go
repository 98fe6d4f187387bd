package parquet

import "strconv"

// Parquet's metadata structures (parquet.thrift), reduced to the fields this
// package writes or reads, with their Thrift field ids and enum values.
// Every number here is persisted: must not change.

// PhysicalType is a Parquet physical type.
type PhysicalType int32

// Physical types (parquet.thrift Type).
const (
	TypeBoolean           PhysicalType = 0
	TypeInt32             PhysicalType = 1
	TypeInt64             PhysicalType = 2
	TypeInt96             PhysicalType = 3
	TypeFloat             PhysicalType = 4
	TypeDouble            PhysicalType = 5
	TypeByteArray         PhysicalType = 6
	TypeFixedLenByteArray PhysicalType = 7
)

var physicalNames = [...]string{"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"}

func (t PhysicalType) String() string {
	if t >= 0 && int(t) < len(physicalNames) {
		return physicalNames[t]
	}
	return "PhysicalType(" + strconv.Itoa(int(t)) + ")"
}

// Encoding is a Parquet value or level encoding.
type Encoding int32

// Encodings (parquet.thrift Encoding).
const (
	EncPlain                Encoding = 0
	EncPlainDictionary      Encoding = 2
	EncRLE                  Encoding = 3
	EncBitPacked            Encoding = 4
	EncDeltaBinaryPacked    Encoding = 5
	EncDeltaLengthByteArray Encoding = 6
	EncDeltaByteArray       Encoding = 7
	EncRLEDictionary        Encoding = 8
	EncByteStreamSplit      Encoding = 9
)

var encodingNames = map[Encoding]string{
	EncPlain: "PLAIN", EncPlainDictionary: "PLAIN_DICTIONARY", EncRLE: "RLE", EncBitPacked: "BIT_PACKED",
	EncDeltaBinaryPacked: "DELTA_BINARY_PACKED", EncDeltaLengthByteArray: "DELTA_LENGTH_BYTE_ARRAY",
	EncDeltaByteArray: "DELTA_BYTE_ARRAY", EncRLEDictionary: "RLE_DICTIONARY", EncByteStreamSplit: "BYTE_STREAM_SPLIT",
}

func (e Encoding) String() string {
	if n, ok := encodingNames[e]; ok {
		return n
	}
	return "Encoding(" + strconv.Itoa(int(e)) + ")"
}

// Codec is a page compression codec. Its zero value is Zstd, the default;
// the Thrift numbers differ and are mapped by codecToThrift/codecFromThrift.
type Codec uint8

// Codecs. The writer supports Zstd, Uncompressed and Snappy; the reader also
// Gzip, LZ4Raw and LZ4 (Hadoop's framing, or a bare block).
const (
	Zstd Codec = iota
	Uncompressed
	Snappy
	Gzip
	Brotli
	LZO
	LZ4
	LZ4Raw
	codecUnknown
)

var codecNames = [...]string{"ZSTD", "UNCOMPRESSED", "SNAPPY", "GZIP", "BROTLI", "LZO", "LZ4", "LZ4_RAW", "UNKNOWN"}

func (c Codec) String() string {
	if int(c) < len(codecNames) {
		return codecNames[c]
	}
	return "Codec(" + strconv.Itoa(int(c)) + ")"
}

// thrift CompressionCodec values, indexed by Codec.
var codecThrift = [...]int32{Zstd: 6, Uncompressed: 0, Snappy: 1, Gzip: 2, Brotli: 4, LZO: 3, LZ4: 5, LZ4Raw: 7, codecUnknown: -1}

func codecFromThrift(v int32) Codec {
	for c, t := range codecThrift {
		if t == v {
			return Codec(c)
		}
	}
	return codecUnknown
}

// pageType is parquet.thrift PageType.
type pageType int32

const (
	pageData       pageType = 0
	pageIndex      pageType = 1
	pageDictionary pageType = 2
	pageDataV2     pageType = 3
)

// BoundaryOrder is the order of a column index's page bounds.
type BoundaryOrder int32

// Boundary orders (parquet.thrift BoundaryOrder).
const (
	Unordered  BoundaryOrder = 0
	Ascending  BoundaryOrder = 1
	Descending BoundaryOrder = 2
)

// Repetition types (parquet.thrift FieldRepetitionType).
const (
	repRequired int32 = 0
	repOptional int32 = 1
	repRepeated int32 = 2
)

// Converted types (parquet.thrift ConvertedType) this package writes or reads.
const (
	convUTF8            int32 = 0
	convEnum            int32 = 4
	convDecimal         int32 = 5
	convDate            int32 = 6
	convTimeMillis      int32 = 7
	convTimeMicros      int32 = 8
	convTimestampMillis int32 = 9
	convTimestampMicros int32 = 10
	convUint8           int32 = 11
	convUint16          int32 = 12
	convUint32          int32 = 13
	convUint64          int32 = 14
	convInt8            int32 = 15
	convInt16           int32 = 16
	convInt32           int32 = 17
	convInt64           int32 = 18
	convJSON            int32 = 19
	convBSON            int32 = 20
	convInterval        int32 = 21
)

// logicalKind is the LogicalType union member (its Thrift field id).
type logicalKind int16

const (
	logicalNone      logicalKind = 0
	logicalString    logicalKind = 1
	logicalMap       logicalKind = 2
	logicalList      logicalKind = 3
	logicalEnum      logicalKind = 4
	logicalDecimal   logicalKind = 5
	logicalDate      logicalKind = 6
	logicalTime      logicalKind = 7
	logicalTimestamp logicalKind = 8
	logicalInteger   logicalKind = 10
	logicalUnknown   logicalKind = 11
	logicalJSON      logicalKind = 12
	logicalBSON      logicalKind = 13
	logicalUUID      logicalKind = 14
	logicalFloat16   logicalKind = 15
	logicalVariant   logicalKind = 16 // a group: metadata, value (and typed_value when shredded)
)

// timeUnit is the TimeUnit union member (its Thrift field id).
type timeUnit int16

const (
	unitMillis timeUnit = 1
	unitMicros timeUnit = 2
	unitNanos  timeUnit = 3
)

// logicalType is the part of LogicalType this package understands.
type logicalType struct {
	Kind       logicalKind
	UTC        bool     // TIMESTAMP/TIME isAdjustedToUTC
	Unit       timeUnit // TIMESTAMP/TIME unit
	BitWidth   int8     // INTEGER
	Signed     bool     // INTEGER
	OtherField int16    // an unknown union member's field id
	// VariantVersion is VARIANT's specification_version (1 when written)
	VariantVersion int8
	// DecimalScale is DECIMAL's scale (read for a shredded variant's fields)
	DecimalScale int32
}

// schemaElement is parquet.thrift SchemaElement.
type schemaElement struct {
	Type          PhysicalType
	HasType       bool
	TypeLength    int32
	Repetition    int32
	HasRepetition bool
	Name          string
	NumChildren   int32
	Converted     int32
	HasConverted  bool
	FieldID       int32
	HasFieldID    bool
	Logical       logicalType
	Scale         int32 // DECIMAL's scale in the converted-type form
}

// KeyValue is a file key/value metadata entry.
type KeyValue struct {
	Key   string
	Value string
}

// SortingColumn says the rows of a row group are sorted by a column; the
// list in Options.Sorting is in key order.
type SortingColumn struct {
	Column     int // index into the writer's columns
	Descending bool
	NullsFirst bool
}

// Statistics are a column chunk's statistics. Min and Max are PLAIN-encoded
// values (for strings, the bytes without a length), possibly truncated.
type Statistics struct {
	Min, Max       []byte
	HasMin, HasMax bool
	NullCount      int64
	HasNullCount   bool
}

// PageEncodingStats counts the pages of a chunk by type and encoding.
type PageEncodingStats struct {
	PageType int32 // 0 data v1, 2 dictionary, 3 data v2
	Encoding Encoding
	Count    int32
}

// ColumnMeta is parquet.thrift ColumnMetaData.
type ColumnMeta struct {
	Type                  PhysicalType
	Encodings             []Encoding
	Path                  []string
	Codec                 Codec
	NumValues             int64
	TotalUncompressedSize int64
	TotalCompressedSize   int64
	DataPageOffset        int64
	DictionaryPageOffset  int64 // 0 when absent
	HasDictionaryPage     bool
	Stats                 Statistics
	HasStats              bool
	EncodingStats         []PageEncodingStats
}

// ColumnChunk is parquet.thrift ColumnChunk.
type ColumnChunk struct {
	FileOffset        int64
	Meta              ColumnMeta
	OffsetIndexOffset int64
	OffsetIndexLength int32
	ColumnIndexOffset int64
	ColumnIndexLength int32
	HasOffsetIndex    bool
	HasColumnIndex    bool
}

// Start is the offset of the chunk's first page (its dictionary page if any).
func (c *ColumnChunk) Start() int64 {
	if c.Meta.HasDictionaryPage && c.Meta.DictionaryPageOffset > 0 && c.Meta.DictionaryPageOffset < c.Meta.DataPageOffset {
		return c.Meta.DictionaryPageOffset
	}
	return c.Meta.DataPageOffset
}

// RowGroup is parquet.thrift RowGroup.
type RowGroup struct {
	Columns             []ColumnChunk
	TotalByteSize       int64
	NumRows             int64
	Sorting             []SortingColumn
	FileOffset          int64
	TotalCompressedSize int64
	Ordinal             int16
}

// PageLocation is one entry of an offset index.
type PageLocation struct {
	Offset             int64
	CompressedPageSize int32
	FirstRowIndex      int64
}

// OffsetIndex locates the data pages of a column chunk.
type OffsetIndex struct {
	Pages []PageLocation
}

// ColumnIndex holds per-page bounds of a column chunk (PLAIN-encoded, like
// Statistics).
type ColumnIndex struct {
	NullPages     []bool
	MinValues     [][]byte
	MaxValues     [][]byte
	BoundaryOrder BoundaryOrder
	NullCounts    []int64 // nil when absent
}

// pageHeader is parquet.thrift PageHeader with the page kinds we use.
type pageHeader struct {
	Type             pageType
	UncompressedSize int32
	CompressedSize   int32
	// DataPageHeader (v1) and DataPageHeaderV2
	NumValues   int32
	NumNulls    int32 // v2
	NumRows     int32 // v2
	Encoding    Encoding
	DefEncoding Encoding // v1
	RepEncoding Encoding // v1
	DefLen      int32    // v2
	RepLen      int32    // v2
	Compressed  bool     // v2 is_compressed (default true)
	HasData     bool     // the data/dictionary sub-header was present
}
