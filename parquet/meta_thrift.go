package parquet

import (
	"fmt"

	"github.com/timelake/timelake/parquet/internal/thrift"
)

// Thrift encoding and decoding of the metadata structures in format.go.
// Field ids follow parquet.thrift; persisted: must not change.

// ---- reading ----
//
// Readers check required fields as they go, so a parsed element always
// stands for some real bytes of input (this bounds how much memory a small
// hostile footer can make us allocate).

// appendStructs appends to dst the elements of a list of structs, the
// value of the field at r, each read by read (what names the field in an
// error); it stops at the first error. A nil dst is given room for up to
// prealloc elements up front (never more: the list's count is the input's
// word); with prealloc 0 it stays nil until an element comes.
func appendStructs[T any](dst []T, r *thrift.Reader, what string, prealloc int, read func(*thrift.Reader, *T)) []T {
	et, n := r.ListHeader()
	if n > 0 && et != thrift.Struct {
		r.Fail("%s list of type %d", what, et)
	}
	if dst == nil && prealloc > 0 {
		dst = make([]T, 0, min(n, prealloc))
	}
	for i := 0; i < n && r.Err() == nil; i++ {
		dst = append(dst, *new(T))
		read(r, &dst[len(dst)-1])
	}
	return dst
}

func readStatistics(r *thrift.Reader, s *Statistics) {
	r.StructBegin()
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		switch {
		// fields 1/2 (deprecated min/max) are ignored: old writers ordered
		// strings as signed bytes.
		case id == 3 && t == thrift.I64:
			s.NullCount, s.HasNullCount = r.I64(), true
		case id == 5 && t == thrift.Binary:
			s.Max, s.HasMax = r.Bytes(), true
		case id == 6 && t == thrift.Binary:
			s.Min, s.HasMin = r.Bytes(), true
		default:
			r.Skip(t)
		}
	}
	r.StructEnd()
}

func readLogicalType(r *thrift.Reader, lt *logicalType) {
	r.StructBegin()
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		if t != thrift.Struct {
			r.Skip(t)
			continue
		}
		lt.Kind = logicalKind(id)
		switch logicalKind(id) {
		case logicalTimestamp, logicalTime:
			r.StructBegin()
			for {
				fid, ft := r.FieldHeader()
				if ft == thrift.Stop {
					break
				}
				switch {
				case fid == 1 && (ft == thrift.True || ft == thrift.False):
					lt.UTC = r.BoolValue()
				case fid == 2 && ft == thrift.Struct:
					r.StructBegin()
					for {
						uid, ut := r.FieldHeader()
						if ut == thrift.Stop {
							break
						}
						lt.Unit = timeUnit(uid)
						r.Skip(ut)
					}
					r.StructEnd()
				default:
					r.Skip(ft)
				}
			}
			r.StructEnd()
		case logicalDecimal:
			r.StructBegin()
			for {
				fid, ft := r.FieldHeader()
				if ft == thrift.Stop {
					break
				}
				if fid == 1 && ft == thrift.I32 {
					lt.DecimalScale = r.I32()
				} else {
					r.Skip(ft)
				}
			}
			r.StructEnd()
		case logicalVariant:
			r.StructBegin()
			for {
				fid, ft := r.FieldHeader()
				if ft == thrift.Stop {
					break
				}
				if fid == 1 && ft == thrift.Byte {
					lt.VariantVersion = int8(r.ByteValue())
				} else {
					r.Skip(ft)
				}
			}
			r.StructEnd()
		case logicalInteger:
			r.StructBegin()
			for {
				fid, ft := r.FieldHeader()
				if ft == thrift.Stop {
					break
				}
				switch {
				case fid == 1 && ft == thrift.Byte:
					lt.BitWidth = int8(r.ByteValue())
				case fid == 1 && (ft == thrift.I16 || ft == thrift.I32):
					lt.BitWidth = int8(r.I32())
				case fid == 2 && (ft == thrift.True || ft == thrift.False):
					lt.Signed = r.BoolValue()
				default:
					r.Skip(ft)
				}
			}
			r.StructEnd()
		default:
			lt.OtherField = id
			r.Skip(t)
		}
	}
	r.StructEnd()
}

func readSchemaElement(r *thrift.Reader, e *schemaElement) {
	hasName := false
	r.StructBegin()
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		switch {
		case id == 1 && t == thrift.I32:
			e.Type, e.HasType = PhysicalType(r.I32()), true
		case id == 2 && t == thrift.I32:
			e.TypeLength = r.I32()
		case id == 3 && t == thrift.I32:
			e.Repetition, e.HasRepetition = r.I32(), true
		case id == 4 && t == thrift.Binary:
			e.Name, hasName = r.String(), true
		case id == 5 && t == thrift.I32:
			e.NumChildren = r.I32()
		case id == 6 && t == thrift.I32:
			e.Converted, e.HasConverted = r.I32(), true
		case id == 7 && t == thrift.I32:
			e.Scale = r.I32()
		case id == 9 && t == thrift.I32:
			e.FieldID, e.HasFieldID = r.I32(), true
		case id == 10 && t == thrift.Struct:
			readLogicalType(r, &e.Logical)
		default:
			r.Skip(t)
		}
	}
	r.StructEnd()
	if !hasName && r.Err() == nil {
		r.Fail("schema element without a name")
	}
}

func readColumnMeta(r *thrift.Reader, m *ColumnMeta) {
	var seen uint32
	r.StructBegin()
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		switch {
		case id == 1 && t == thrift.I32:
			m.Type = PhysicalType(r.I32())
		case id == 2 && t == thrift.List:
			et, n := r.ListHeader()
			if n > 0 && et != thrift.I32 {
				r.Fail("encodings list of type %d", et)
			}
			m.Encodings = make([]Encoding, 0, n)
			for i := 0; i < n && r.Err() == nil; i++ {
				m.Encodings = append(m.Encodings, Encoding(r.I32()))
			}
		case id == 3 && t == thrift.List:
			et, n := r.ListHeader()
			if n > 0 && et != thrift.Binary {
				r.Fail("path_in_schema list of type %d", et)
			}
			m.Path = make([]string, 0, n)
			for i := 0; i < n && r.Err() == nil; i++ {
				m.Path = append(m.Path, r.String())
			}
		case id == 4 && t == thrift.I32:
			m.Codec = codecFromThrift(r.I32())
		case id == 5 && t == thrift.I64:
			m.NumValues = r.I64()
		case id == 6 && t == thrift.I64:
			m.TotalUncompressedSize = r.I64()
		case id == 7 && t == thrift.I64:
			m.TotalCompressedSize = r.I64()
		case id == 9 && t == thrift.I64:
			m.DataPageOffset = r.I64()
		case id == 11 && t == thrift.I64:
			m.DictionaryPageOffset, m.HasDictionaryPage = r.I64(), true
		case id == 12 && t == thrift.Struct:
			readStatistics(r, &m.Stats)
			m.HasStats = true
		case id == 13 && t == thrift.List:
			m.EncodingStats = appendStructs(m.EncodingStats, r, "encoding_stats", 0, readEncodingStats)
		default:
			r.Skip(t)
			continue
		}
		if id < 32 {
			seen |= 1 << id
		}
	}
	r.StructEnd()
	const required = 1<<1 | 1<<2 | 1<<3 | 1<<4 | 1<<5 | 1<<6 | 1<<7 | 1<<9
	if seen&required != required && r.Err() == nil {
		r.Fail("column metadata misses required fields")
	}
}

func readEncodingStats(r *thrift.Reader, s *PageEncodingStats) {
	r.StructBegin()
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		switch {
		case id == 1 && t == thrift.I32:
			s.PageType = r.I32()
		case id == 2 && t == thrift.I32:
			s.Encoding = Encoding(r.I32())
		case id == 3 && t == thrift.I32:
			s.Count = r.I32()
		default:
			r.Skip(t)
		}
	}
	r.StructEnd()
}

func readColumnChunk(r *thrift.Reader, c *ColumnChunk) {
	hasMeta := false
	r.StructBegin()
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		switch {
		case id == 1 && t == thrift.Binary:
			if p := r.Bytes(); len(p) > 0 {
				r.Fail("column chunk in another file (%q) is not supported", p)
			}
		case id == 2 && t == thrift.I64:
			c.FileOffset = r.I64()
		case id == 3 && t == thrift.Struct:
			readColumnMeta(r, &c.Meta)
			hasMeta = true
		case id == 4 && t == thrift.I64:
			c.OffsetIndexOffset = r.I64()
			c.HasOffsetIndex = true
		case id == 5 && t == thrift.I32:
			c.OffsetIndexLength = r.I32()
		case id == 6 && t == thrift.I64:
			c.ColumnIndexOffset = r.I64()
			c.HasColumnIndex = true
		case id == 7 && t == thrift.I32:
			c.ColumnIndexLength = r.I32()
		case id == 8 || id == 9:
			r.Fail("encrypted column chunks are not supported")
			r.Skip(t)
		default:
			r.Skip(t)
		}
	}
	r.StructEnd()
	if !hasMeta && r.Err() == nil {
		r.Fail("column chunk without metadata")
	}
}

func readRowGroup(r *thrift.Reader, rg *RowGroup) {
	var seen uint32
	r.StructBegin()
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		switch {
		case id == 1 && t == thrift.List:
			rg.Columns = appendStructs(nil, r, "columns", 1024, readColumnChunk)
		case id == 2 && t == thrift.I64:
			rg.TotalByteSize = r.I64()
		case id == 3 && t == thrift.I64:
			rg.NumRows = r.I64()
		case id == 4 && t == thrift.List:
			rg.Sorting = appendStructs(rg.Sorting, r, "sorting_columns", 0, readSortingColumn)
		case id == 5 && t == thrift.I64:
			rg.FileOffset = r.I64()
		case id == 6 && t == thrift.I64:
			rg.TotalCompressedSize = r.I64()
		case id == 7 && t == thrift.I16:
			rg.Ordinal = int16(r.I32())
		default:
			r.Skip(t)
			continue
		}
		if id < 32 {
			seen |= 1 << id
		}
	}
	r.StructEnd()
	if seen&(1<<1|1<<3) != 1<<1|1<<3 && r.Err() == nil {
		r.Fail("row group misses columns or num_rows")
	}
}

func readSortingColumn(r *thrift.Reader, s *SortingColumn) {
	r.StructBegin()
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		switch {
		case id == 1 && t == thrift.I32:
			s.Column = int(r.I32())
		case id == 2 && (t == thrift.True || t == thrift.False):
			s.Descending = r.BoolValue()
		case id == 3 && (t == thrift.True || t == thrift.False):
			s.NullsFirst = r.BoolValue()
		default:
			r.Skip(t)
		}
	}
	r.StructEnd()
}

// maxFooterBytes bounds the footer we agree to parse.
const maxFooterBytes = 64 << 20

func readFileMeta(b []byte) (*FileMeta, error) {
	if len(b) > maxFooterBytes {
		return nil, fmt.Errorf("parquet: footer of %d bytes is larger than the %d-byte limit", len(b), maxFooterBytes)
	}
	r := thrift.NewReader(b)
	m := &FileMeta{}
	var seen uint32
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		switch {
		case id == 1 && t == thrift.I32:
			m.Version = r.I32()
		case id == 2 && t == thrift.List:
			m.schema = appendStructs(nil, r, "schema", 1024, readSchemaElement)
		case id == 3 && t == thrift.I64:
			m.NumRows = r.I64()
		case id == 4 && t == thrift.List:
			m.RowGroups = appendStructs(nil, r, "row_groups", 1024, readRowGroup)
		case id == 5 && t == thrift.List:
			m.KeyValue = appendStructs(m.KeyValue, r, "key_value_metadata", 0, readKeyValue)
		case id == 6 && t == thrift.Binary:
			m.CreatedBy = r.String()
		case id == 8:
			r.Fail("encrypted files are not supported")
		default:
			r.Skip(t)
			continue
		}
		if id < 32 {
			seen |= 1 << id
		}
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("parquet: footer: %w", err)
	}
	if seen&(1<<2|1<<3|1<<4) != 1<<2|1<<3|1<<4 {
		return nil, fmt.Errorf("parquet: footer misses schema, num_rows or row_groups")
	}
	return m, nil
}

func readKeyValue(r *thrift.Reader, kv *KeyValue) {
	r.StructBegin()
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		switch {
		case id == 1 && t == thrift.Binary:
			kv.Key = r.String()
		case id == 2 && t == thrift.Binary:
			kv.Value = r.String()
		default:
			r.Skip(t)
		}
	}
	r.StructEnd()
}
