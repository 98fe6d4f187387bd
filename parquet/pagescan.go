package parquet

import "fmt"

// ScanPages builds the offset index of a column chunk that has none (files
// written without a page index: most of pyarrow's, parquet-mr's, DuckDB's)
// from its page headers. chunk holds the chunk's bytes from its start (the
// dictionary page, if any) and starts at file offset off. Dictionary and
// index pages are skipped; every data page's rows come from its header (a
// v1 page of a flat column holds one value per row). The pages must hold
// exactly c.NumRows rows.
func ScanPages(c *Chunk, chunk []byte, off int64) (*OffsetIndex, error) {
	oi := &OffsetIndex{}
	var row int64
	for pos := 0; pos < len(chunk) && row < c.NumRows; {
		h, hlen, err := readPageHeader(chunk[pos:])
		if err != nil {
			return nil, fmt.Errorf("%w: column %q: page header at %d: %w", ErrCorrupt, c.Column.Name, off+int64(pos), err)
		}
		size := int64(hlen) + int64(h.CompressedSize)
		if h.CompressedSize < 0 || size > int64(len(chunk)-pos) {
			return nil, fmt.Errorf("%w: column %q: page at %d of %d bytes with %d left in the chunk", ErrCorrupt, c.Column.Name, off+int64(pos), size, len(chunk)-pos)
		}
		if h.Type == pageData || h.Type == pageDataV2 {
			n := int64(h.NumValues)
			if h.Type == pageDataV2 {
				n = int64(h.NumRows)
			}
			if n <= 0 || n > maxPageValues || n > c.NumRows-row {
				return nil, fmt.Errorf("%w: column %q: page at %d holds %d rows with %d left in the row group", ErrCorrupt, c.Column.Name, off+int64(pos), n, c.NumRows-row)
			}
			oi.Pages = append(oi.Pages, PageLocation{Offset: off + int64(pos), CompressedPageSize: int32(size), FirstRowIndex: row})
			row += n
		}
		pos += int(size)
	}
	if row != c.NumRows {
		return nil, fmt.Errorf("%w: column %q: pages hold %d rows, the row group %d", ErrCorrupt, c.Column.Name, row, c.NumRows)
	}
	return oi, nil
}
