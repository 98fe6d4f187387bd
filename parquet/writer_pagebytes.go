package parquet

import "github.com/timelake/timelake/rows"

// Pages cut by bytes as well as rows (Options.PageBytes).

// fitPage is how many of the seg rows from off fit in the current page
// under PageBytes, and their string bytes: at least one when the page is
// empty (a value past PageBytes is a page of its own), 0 when the page must
// close first.
func (w *Writer) fitPage(cols []rows.Column, off, seg int) (int, int64) {
	if len(w.strCols) == 0 {
		return seg, 0
	}
	var sum int64
	for r := off; r < off+seg; r++ {
		var row int64
		for _, c := range w.strCols {
			if col := &cols[c]; !col.IsNull(r) {
				row += 4 + int64(len(col.Strs[r]))
			}
		}
		if w.pageBytes+sum+row > w.opt.PageBytes && (r > off || w.pageRows > 0) {
			return r - off, sum
		}
		sum += row
	}
	return seg, sum
}

// closePage flushes the current page of every column, and the row group
// when it is full.
func (w *Writer) closePage() error {
	if err := w.flushPages(); err != nil {
		return err
	}
	var size int64
	for _, cw := range w.cols {
		size += cw.chunkUncompressed + int64(len(cw.dictBuf))
	}
	if size >= w.opt.RowGroupBytes || (w.opt.RowGroupRows > 0 && w.rgRows >= w.opt.RowGroupRows) {
		w.flushRowGroup()
	}
	return nil
}
