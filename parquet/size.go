package parquet

// Size is the file's size so far, roughly: the bytes of finished row groups
// plus the compressed chunks of the current one (the page being filled is
// not counted). A caller uses it to close a file near a target size.
func (w *Writer) Size() int64 {
	n := int64(len(w.out))
	for _, c := range w.cols {
		n += int64(len(c.chunk)) + int64(len(c.dictBuf))
	}
	return n
}
