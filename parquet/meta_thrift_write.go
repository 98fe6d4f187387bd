package parquet

import (
	"github.com/timelake/timelake/parquet/internal/thrift"
)

// Thrift encoding of the metadata structures in format.go (meta_thrift.go
// decodes them). Field ids follow parquet.thrift; persisted: must not change.

func writeStatistics(w *thrift.Writer, id int16, s *Statistics, exactMin, exactMax bool) {
	w.StructBegin(id)
	if s.HasNullCount {
		w.I64(3, s.NullCount)
	}
	if s.HasMax {
		w.Bytes(5, s.Max)
	}
	if s.HasMin {
		w.Bytes(6, s.Min)
	}
	if s.HasMax {
		w.BoolField(7, exactMax)
	}
	if s.HasMin {
		w.BoolField(8, exactMin)
	}
	w.StructEnd()
}

func writeSchemaElement(w *thrift.Writer, e *schemaElement) {
	w.ElemBegin()
	if e.HasType {
		w.I32(1, int32(e.Type))
	}
	if e.HasRepetition {
		w.I32(3, e.Repetition)
	}
	w.String(4, e.Name)
	if e.NumChildren > 0 {
		w.I32(5, e.NumChildren)
	}
	if e.HasConverted {
		w.I32(6, e.Converted)
	}
	if e.HasFieldID {
		w.I32(9, e.FieldID)
	}
	if e.Logical.Kind != logicalNone {
		w.StructBegin(10)
		w.StructBegin(int16(e.Logical.Kind))
		switch e.Logical.Kind {
		case logicalTimestamp, logicalTime:
			w.BoolField(1, e.Logical.UTC)
			w.StructBegin(2)
			w.StructBegin(int16(e.Logical.Unit))
			w.StructEnd()
			w.StructEnd()
		case logicalVariant:
			w.ByteField(1, e.Logical.VariantVersion)
		}
		w.StructEnd()
		w.StructEnd()
	}
	w.StructEnd()
}

// fileMetaOut is what the writer puts in the footer.
type fileMetaOut struct {
	version   int32 // 2; 1 in compatibility mode, for older readers
	schema    []schemaElement
	numRows   int64
	rowGroups []RowGroup
	kv        []KeyValue
	createdBy string
	// per chunk: whether its min/max statistics are exact (not truncated)
	exact [][]exactness
}

type exactness struct{ min, max bool }

func writeFileMeta(w *thrift.Writer, m *fileMetaOut) {
	w.I32(1, m.version)
	w.ListBegin(2, thrift.Struct, len(m.schema))
	for i := range m.schema {
		writeSchemaElement(w, &m.schema[i])
	}
	w.I64(3, m.numRows)
	w.ListBegin(4, thrift.Struct, len(m.rowGroups))
	for i := range m.rowGroups {
		writeRowGroup(w, &m.rowGroups[i], m.exact[i])
	}
	if len(m.kv) > 0 {
		w.ListBegin(5, thrift.Struct, len(m.kv))
		for _, kv := range m.kv {
			w.ElemBegin()
			w.String(1, kv.Key)
			w.String(2, kv.Value)
			w.StructEnd()
		}
	}
	if m.createdBy != "" {
		w.String(6, m.createdBy)
	}
	// column_orders: TYPE_DEFINED_ORDER for every leaf, so readers trust
	// min_value/max_value (fields 5/6) of strings too. One per leaf, not
	// per element: a map's groups have none.
	leaves := 0
	for _, e := range m.schema[1:] {
		if e.NumChildren == 0 {
			leaves++
		}
	}
	w.ListBegin(7, thrift.Struct, leaves)
	for range leaves {
		w.ElemBegin()
		w.StructBegin(1)
		w.StructEnd()
		w.StructEnd()
	}
	w.Buf = append(w.Buf, 0) // stop of FileMetaData
}

func writeRowGroup(w *thrift.Writer, rg *RowGroup, exact []exactness) {
	w.ElemBegin()
	w.ListBegin(1, thrift.Struct, len(rg.Columns))
	for i := range rg.Columns {
		writeColumnChunk(w, &rg.Columns[i], exact[i])
	}
	w.I64(2, rg.TotalByteSize)
	w.I64(3, rg.NumRows)
	if len(rg.Sorting) > 0 {
		w.ListBegin(4, thrift.Struct, len(rg.Sorting))
		for _, s := range rg.Sorting {
			w.ElemBegin()
			w.I32(1, int32(s.Column))
			w.BoolField(2, s.Descending)
			w.BoolField(3, s.NullsFirst)
			w.StructEnd()
		}
	}
	w.I64(5, rg.FileOffset)
	w.I64(6, rg.TotalCompressedSize)
	w.I16(7, rg.Ordinal)
	w.StructEnd()
}

func writeColumnChunk(w *thrift.Writer, c *ColumnChunk, ex exactness) {
	w.ElemBegin()
	w.I64(2, c.FileOffset)
	m := &c.Meta
	w.StructBegin(3)
	w.I32(1, int32(m.Type))
	w.ListBegin(2, thrift.I32, len(m.Encodings))
	for _, e := range m.Encodings {
		w.ElemI32(int32(e))
	}
	w.ListBegin(3, thrift.Binary, len(m.Path))
	for _, p := range m.Path {
		w.ElemString(p)
	}
	w.I32(4, codecThrift[m.Codec])
	w.I64(5, m.NumValues)
	w.I64(6, m.TotalUncompressedSize)
	w.I64(7, m.TotalCompressedSize)
	w.I64(9, m.DataPageOffset)
	if m.HasDictionaryPage {
		w.I64(11, m.DictionaryPageOffset)
	}
	if m.HasStats {
		writeStatistics(w, 12, &m.Stats, ex.min, ex.max)
	}
	if len(m.EncodingStats) > 0 {
		w.ListBegin(13, thrift.Struct, len(m.EncodingStats))
		for _, s := range m.EncodingStats {
			w.ElemBegin()
			w.I32(1, s.PageType)
			w.I32(2, int32(s.Encoding))
			w.I32(3, s.Count)
			w.StructEnd()
		}
	}
	w.StructEnd()
	if c.HasOffsetIndex {
		w.I64(4, c.OffsetIndexOffset)
		w.I32(5, c.OffsetIndexLength)
	}
	if c.HasColumnIndex {
		w.I64(6, c.ColumnIndexOffset)
		w.I32(7, c.ColumnIndexLength)
	}
	w.StructEnd()
}

func writePageHeader(w *thrift.Writer, h *pageHeader) {
	w.I32(1, int32(h.Type))
	w.I32(2, h.UncompressedSize)
	w.I32(3, h.CompressedSize)
	switch h.Type {
	case pageData:
		w.StructBegin(5)
		w.I32(1, h.NumValues)
		w.I32(2, int32(h.Encoding))
		w.I32(3, int32(h.DefEncoding))
		w.I32(4, int32(h.RepEncoding))
		w.StructEnd()
	case pageDictionary:
		w.StructBegin(7)
		w.I32(1, h.NumValues)
		w.I32(2, int32(h.Encoding))
		w.StructEnd()
	case pageDataV2:
		w.StructBegin(8)
		w.I32(1, h.NumValues)
		w.I32(2, h.NumNulls)
		w.I32(3, h.NumRows)
		w.I32(4, int32(h.Encoding))
		w.I32(5, h.DefLen)
		w.I32(6, h.RepLen)
		w.BoolField(7, h.Compressed)
		w.StructEnd()
	}
	w.Buf = append(w.Buf, 0)
}

func writeColumnIndex(w *thrift.Writer, ci *ColumnIndex) {
	w.ListBegin(1, thrift.Bool, len(ci.NullPages))
	for _, b := range ci.NullPages {
		w.ElemBool(b)
	}
	w.ListBegin(2, thrift.Binary, len(ci.MinValues))
	for _, v := range ci.MinValues {
		w.ElemBytes(v)
	}
	w.ListBegin(3, thrift.Binary, len(ci.MaxValues))
	for _, v := range ci.MaxValues {
		w.ElemBytes(v)
	}
	w.I32(4, int32(ci.BoundaryOrder))
	if ci.NullCounts != nil {
		w.ListBegin(5, thrift.I64, len(ci.NullCounts))
		for _, n := range ci.NullCounts {
			w.ElemI64(n)
		}
	}
	w.Buf = append(w.Buf, 0)
}

func writeOffsetIndex(w *thrift.Writer, oi *OffsetIndex) {
	w.ListBegin(1, thrift.Struct, len(oi.Pages))
	for _, p := range oi.Pages {
		w.ElemBegin()
		w.I64(1, p.Offset)
		w.I32(2, p.CompressedPageSize)
		w.I64(3, p.FirstRowIndex)
		w.StructEnd()
	}
	w.Buf = append(w.Buf, 0)
}
