package parquet

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"testing"
)

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r *bytes.Reader
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.n.Add(int64(len(p)))
	return c.r.ReadAt(p, off)
}

// TestOpenReaderAt: a file opened by range decodes every column as the
// whole file does, reading its footer and then only the chunks asked for.
func TestOpenReaderAt(t *testing.T) {
	const n = 4000
	data, _ := writeFile(t, allTypes, Options{RowGroupRows: 1000, PageRowLimit: 250}, makeRows(n, 1), n)
	whole, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	ra := &countingReaderAt{r: bytes.NewReader(data)}
	f, err := OpenReaderAt(ra, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRowGroups() != 4 {
		t.Fatalf("%d row groups, want 4", f.NumRowGroups())
	}
	footer := ra.n.Load()
	if footer >= int64(len(data))/2 {
		t.Fatalf("open read %d of %d bytes", footer, len(data))
	}
	for j := range f.Schema() {
		got, err := f.ReadColumn(0, j)
		if err != nil {
			t.Fatal(err)
		}
		want, err := whole.ReadColumn(0, j)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) { // (NaN is not DeepEqual to itself)
			t.Errorf("column %d of row group 0 differs read by range", j)
		}
	}
	if read := ra.n.Load(); read > footer+int64(len(data))/3 {
		t.Errorf("one row group of four read %d of %d bytes (footer %d)", read, len(data), footer)
	}
	// A file cut short is refused at open.
	if _, err := OpenReaderAt(bytes.NewReader(data[:len(data)-3]), int64(len(data)-3)); err == nil {
		t.Error("OpenReaderAt of a truncated file: no error")
	}
}
