package table

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/timelake/timelake/parquet"
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
	names := map[string]int{}
	for _, f := range sch.Fields {
		names[f.Name] = f.ID
	}
	return sch, names
}

// readForeign reads a data file the two ways a merge can: sorted in memory,
// and streamed in windows (with the page index or the page headers).
func readForeign(t testing.TB, data []byte, sch *schema.Table, names map[string]int) (sorted, streamed int, err error) {
	ctx := context.Background()
	st := memstore.New()
	if err := st.Put(ctx, "data/f.parquet", data); err != nil {
		t.Fatal(err)
	}
	var read int64
	open := func() (*rangeFile, error) {
		return openRangeFile(ctx, st, "data/f.parquet", int64(len(data)), sch, names, &read)
	}
	rf, err := open()
	if err != nil {
		return 0, 0, err
	}
	_, sorted, err = rf.readSorted(ctx, sch)
	if err != nil {
		return 0, 0, err
	}
	if rf, err = open(); err != nil {
		return 0, 0, err
	}
	var dec parquet.PageDecoder
	c := newWindowCursor(rf, sch, &dec, 1, 100, 1<<10)
	for {
		ok, err := c.next(ctx)
		if err != nil {
			return sorted, streamed, err
		}
		if !ok {
			return sorted, streamed, nil
		}
		streamed += c.n
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

// The committed foreign files all read both ways (the streamed read does
// not check order here: it is cut at the first key out of order).
func TestReadForeignDataFiles(t *testing.T) {
	sch, names := foreignSchema(t)
	paths, _ := filepath.Glob("../parquet/testdata/foreign/*.parquet")
	if len(paths) < 40 {
		t.Fatalf("%d files", len(paths))
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(p)
		if base == "brotli.parquet" || base[:5] == "times" || base == "int96.parquet" {
			continue // other columns, or refused
		}
		sorted, _, err := readForeign(t, b, sch, names)
		var u *errUnsorted
		if err != nil && !errors.As(err, &u) {
			t.Errorf("%s: %v", base, err)
			continue
		}
		if sorted == 0 {
			t.Errorf("%s: nothing read", base)
		}
	}
}
