package table

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
)

// foreignSchema is the table the files of parquet/testdata/foreign fit
// (matched by the name mapping: they have no field ids), with _ingest_ts
// optional since they lack it.
func foreignSchema(t testing.TB) (*schema.Table, map[string]int) {
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "note", Type: schema.String}, {Name: "i64", Type: schema.Long}, {Name: "i32", Type: schema.Long},
		{Name: "f64", Type: schema.Double}, {Name: "f32", Type: schema.Double}, {Name: "flag", Type: schema.Boolean},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	sch.Fields[sch.Ingest].Required = false
	sch.Fields[sch.Time].Required, sch.Fields[sch.Series[0]].Required = false, false // pyarrow's columns are optional
	// The key is time alone, which increases through the files: they are
	// streamed to the end, not cut at the first row out of order.
	sch.Series = nil
	names := map[string]int{}
	for _, f := range sch.Fields {
		names[f.Name] = f.ID
	}
	return sch, names
}

// readForeign reads a data file the two ways a merge can: sorted in memory,
// and streamed in windows (with the page index or the page headers).
func readForeign(t testing.TB, data []byte, sch *schema.Table, names map[string]int) (sorted, streamed int, err error) {
	_, _, sorted, streamed, err = readForeignCols(t, data, sch, names)
	return sorted, streamed, err
}

// readForeignCols is readForeign with the values read: by field, sorted in
// memory and streamed (printed row by row).
func readForeignCols(t testing.TB, data []byte, sch *schema.Table, names map[string]int) (mem, win []string, sorted, streamed int, err error) {
	ctx := context.Background()
	st := memstore.New()
	if err := st.Put(ctx, "data/f.parquet", data); err != nil {
		t.Fatal(err)
	}
	var read int64
	open := func() (*datafile.File, error) {
		return datafile.Open(ctx, st, "data/f.parquet", int64(len(data)), sch, names, &read)
	}
	line := func(cols []rows.Column, r int) string {
		var b strings.Builder
		for i, f := range sch.Fields {
			c := &cols[i]
			switch {
			case c.IsNull(r):
				b.WriteString("null")
			case f.Type.IsInteger():
				fmt.Fprint(&b, c.Ints[r])
			case f.Type.IsFloat():
				fmt.Fprint(&b, c.Floats[r])
			case f.Type == schema.Boolean:
				fmt.Fprint(&b, c.Bools[r])
			default:
				b.WriteString(c.Strs[r])
			}
			b.WriteByte('|')
		}
		return b.String()
	}
	rf, err := open()
	if err != nil {
		return nil, nil, 0, 0, err
	}
	cols, sorted, _, err := rf.ReadSorted(ctx, sch, nil)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	for r := range sorted {
		mem = append(mem, line(cols, r))
	}
	if rf, err = open(); err != nil {
		return mem, nil, sorted, 0, err
	}
	var dec parquet.PageDecoder
	c := datafile.NewCursor(rf, sch, &dec, 1, 100, 1<<10)
	for {
		ok, err := c.Next(ctx)
		if err != nil || !ok {
			return mem, win, sorted, streamed, err
		}
		for r := range c.N {
			win = append(win, line(c.Cols, r))
		}
		streamed += c.N
	}
}

// FuzzForeignDataFile: a data file of any bytes, read as compaction reads
// an input (footer, name mapping, pages found from the index or headers,
// sorted in memory or streamed): errors, never panics; what is read holds
// no more rows than the file says.
func FuzzForeignDataFile(f *testing.F) {
	sch, names := foreignSchema(f)
	paths, _ := filepath.Glob("../parquet/testdata/foreign/*.parquet")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sorted, streamed, err := readForeign(t, b, sch, names)
		if err != nil {
			return
		}
		m, perr := parquet.ParseFooter(b, int64(len(b)))
		if perr != nil {
			t.Fatalf("read a file whose footer does not parse: %v", perr)
		}
		if int64(sorted) > m.NumRows || int64(streamed) > m.NumRows {
			t.Fatalf("sorted %d, streamed %d rows of a file of %d", sorted, streamed, m.NumRows)
		}
	})
}

// The committed foreign files read the same both ways: sorted in memory
// (through parquet.File) and streamed (pages from the offset index or, in
// most of them, from their headers).
func TestReadForeignDataFiles(t *testing.T) {
	sch, names := foreignSchema(t)
	paths, _ := filepath.Glob("../parquet/testdata/foreign/*.parquet")
	if len(paths) < 40 {
		t.Fatalf("%d files", len(paths))
	}
	compared := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(p)
		if base == "brotli.parquet" || base[:5] == "times" || base == "int96.parquet" {
			continue // other columns, or refused
		}
		mem, win, sorted, streamed, err := readForeignCols(t, b, sch, names)
		if err != nil {
			t.Errorf("%s: %v", base, err)
			continue
		}
		m, _ := parquet.ParseFooter(b, int64(len(b)))
		if int64(sorted) != m.NumRows || int64(streamed) != m.NumRows || !slices.Equal(mem, win) {
			t.Errorf("%s: %d rows sorted in memory, %d streamed, of %d; the same values: %v", base, sorted, streamed, m.NumRows, slices.Equal(mem, win))
		}
		compared++
	}
	if compared < 35 {
		t.Errorf("compared %d files", compared)
	}
}
