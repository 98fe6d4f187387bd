package parquet

import (
	"fmt"

	"github.com/timelake/timelake/parquet/internal/thrift"
)

// Thrift decoding of what is read page by page rather than with the
// footer: page headers, column indexes and offset indexes (field ids of
// parquet.thrift; persisted: must not change).

// readPageHeader parses a page header at the start of b and returns it with
// its length in bytes.
func readPageHeader(b []byte) (pageHeader, int, error) {
	r := thrift.NewReader(b)
	h := pageHeader{Compressed: true}
	var seen uint32
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		switch {
		case id == 1 && t == thrift.I32:
			h.Type = pageType(r.I32())
		case id == 2 && t == thrift.I32:
			h.UncompressedSize = r.I32()
		case id == 3 && t == thrift.I32:
			h.CompressedSize = r.I32()
		case (id == 5 || id == 7 || id == 8) && t == thrift.Struct:
			h.HasData = true
			r.StructBegin()
			for {
				fid, ft := r.FieldHeader()
				if ft == thrift.Stop {
					break
				}
				switch {
				case id == 5 && fid == 1 && ft == thrift.I32, id == 7 && fid == 1 && ft == thrift.I32, id == 8 && fid == 1 && ft == thrift.I32:
					h.NumValues = r.I32()
				case id == 5 && fid == 2 && ft == thrift.I32, id == 7 && fid == 2 && ft == thrift.I32, id == 8 && fid == 4 && ft == thrift.I32:
					h.Encoding = Encoding(r.I32())
				case id == 5 && fid == 3 && ft == thrift.I32:
					h.DefEncoding = Encoding(r.I32())
				case id == 5 && fid == 4 && ft == thrift.I32:
					h.RepEncoding = Encoding(r.I32())
				case id == 8 && fid == 2 && ft == thrift.I32:
					h.NumNulls = r.I32()
				case id == 8 && fid == 3 && ft == thrift.I32:
					h.NumRows = r.I32()
				case id == 8 && fid == 5 && ft == thrift.I32:
					h.DefLen = r.I32()
				case id == 8 && fid == 6 && ft == thrift.I32:
					h.RepLen = r.I32()
				case id == 8 && fid == 7 && (ft == thrift.True || ft == thrift.False):
					h.Compressed = r.BoolValue()
				default:
					r.Skip(ft)
				}
			}
			r.StructEnd()
		default:
			r.Skip(t)
			continue
		}
		if id < 32 {
			seen |= 1 << id
		}
	}
	if err := r.Err(); err != nil {
		return h, 0, fmt.Errorf("page header: %w", err)
	}
	if seen&(1<<1|1<<2|1<<3) != 1<<1|1<<2|1<<3 {
		return h, 0, fmt.Errorf("page header misses type or sizes")
	}
	if h.UncompressedSize < 0 || h.CompressedSize < 0 || h.NumValues < 0 || h.NumNulls < 0 || h.NumRows < 0 || h.DefLen < 0 || h.RepLen < 0 {
		return h, 0, fmt.Errorf("page header has a negative size or count")
	}
	return h, r.Pos(), nil
}

// ParseColumnIndex parses a serialized ColumnIndex.
func ParseColumnIndex(b []byte) (*ColumnIndex, error) {
	r := thrift.NewReader(b)
	ci := &ColumnIndex{}
	readBinList := func() [][]byte {
		et, n := r.ListHeader()
		if n > 0 && et != thrift.Binary {
			r.Fail("column index list of type %d", et)
			return nil
		}
		out := make([][]byte, 0, n)
		for i := 0; i < n && r.Err() == nil; i++ {
			out = append(out, r.Bytes())
		}
		return out
	}
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		switch {
		case id == 1 && t == thrift.List:
			et, n := r.ListHeader()
			if n > 0 && et != thrift.True && et != thrift.False {
				r.Fail("null_pages list of type %d", et)
			}
			ci.NullPages = make([]bool, 0, n)
			for i := 0; i < n && r.Err() == nil; i++ {
				ci.NullPages = append(ci.NullPages, r.ElemBool())
			}
		case id == 2 && t == thrift.List:
			ci.MinValues = readBinList()
		case id == 3 && t == thrift.List:
			ci.MaxValues = readBinList()
		case id == 4 && t == thrift.I32:
			ci.BoundaryOrder = BoundaryOrder(r.I32())
		case id == 5 && t == thrift.List:
			et, n := r.ListHeader()
			if n > 0 && et != thrift.I64 {
				r.Fail("null_counts list of type %d", et)
			}
			ci.NullCounts = make([]int64, 0, n)
			for i := 0; i < n && r.Err() == nil; i++ {
				ci.NullCounts = append(ci.NullCounts, r.I64())
			}
		default:
			r.Skip(t)
		}
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("parquet: column index: %w", err)
	}
	n := len(ci.NullPages)
	if len(ci.MinValues) != n || len(ci.MaxValues) != n || (ci.NullCounts != nil && len(ci.NullCounts) != n) {
		return nil, fmt.Errorf("parquet: column index lists differ in length")
	}
	return ci, nil
}

// ParseOffsetIndex parses a serialized OffsetIndex.
func ParseOffsetIndex(b []byte) (*OffsetIndex, error) {
	r := thrift.NewReader(b)
	oi := &OffsetIndex{}
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		if id != 1 || t != thrift.List {
			r.Skip(t)
			continue
		}
		oi.Pages = appendStructs(nil, r, "page_locations", 1<<16, readPageLocation)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("parquet: offset index: %w", err)
	}
	return oi, nil
}

func readPageLocation(r *thrift.Reader, p *PageLocation) {
	var seen int
	r.StructBegin()
	for {
		id, t := r.FieldHeader()
		if t == thrift.Stop {
			break
		}
		switch {
		case id == 1 && t == thrift.I64:
			p.Offset = r.I64()
			seen |= 1
		case id == 2 && t == thrift.I32:
			p.CompressedPageSize = r.I32()
			seen |= 2
		case id == 3 && t == thrift.I64:
			p.FirstRowIndex = r.I64()
			seen |= 4
		default:
			r.Skip(t)
		}
	}
	r.StructEnd()
	if seen != 7 {
		r.Fail("page location misses a field")
	}
}
