package table_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"path/filepath"

	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// TestLargeValues: values that once made tables no reader would open.
// 9,000 values of 9 KB in one append (one page of 8,192 rows was 75 MB),
// twice, then compacted, read back exactly by scan, latest and after the
// compaction; a value past rows.MaxValueBytes is refused at append naming
// its row and column, and nothing is written.
func TestLargeValues(t *testing.T) {
	ctx := context.Background()
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "blob", Type: schema.String}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, st, testenv.New(1), "file://"+dir, sch, map[string]string{"timelake.compact-min-files": "2"})
	if err != nil {
		t.Fatal(err)
	}
	big := func(n, size int, at int64) *rows.Batch {
		b := &rows.Batch{Schema: tb.Schema(), Cols: make([]rows.Column, len(tb.Schema().Fields)), Len: n}
		for i := range n {
			b.Cols[0].Ints = append(b.Cols[0].Ints, day1.UnixMicro()+at+int64(i)*1e6)
			b.Cols[1].Strs = append(b.Cols[1].Strs, []string{"a", "b", "c"}[i%3])
			// distinct values: no dictionary to make the pages small
			b.Cols[2].Strs = append(b.Cols[2].Strs, fmt.Sprintf("%08d", i)+strings.Repeat(string(rune('a'+i%26)), size-8))
		}
		b.Cols[3].Ints = make([]int64, n)
		return b
	}
	for k := range 2 {
		if _, err := tb.Append(ctx, big(9000, 9<<10, int64(k)*1e10)); err != nil {
			t.Fatalf("append %d: %v", k, err)
		}
	}
	check := func(when string) {
		t.Helper()
		n := 0
		_, err := tb.Scan(ctx, table.ScanOptions{}, func(b *rows.Batch) error {
			for i := range b.Len {
				if len(b.Cols[2].Strs[i]) != 9<<10 {
					t.Fatalf("%s: row %d: a value of %d bytes", when, n+i, len(b.Cols[2].Strs[i]))
				}
			}
			n += b.Len
			return nil
		})
		if err != nil || n != 18000 {
			t.Fatalf("%s: scan: %d rows, %v; want 18000", when, n, err)
		}
		if l, err := tb.Latest(ctx); err != nil || l.Len != 3 {
			t.Fatalf("%s: latest: %v", when, err)
		}
	}
	check("after two appends")
	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil || res.Merges == 0 {
		t.Fatalf("compaction: %+v, %v", res, err)
	}
	check("after the compaction")
	// The outside readers read the compacted table of large values.
	meta := filepath.Join(dir, "metadata", fmt.Sprintf("v%d.metadata.json", tb.Version()))
	for _, r := range interoptest.Readers(t) {
		got, err := interoptest.Run(r, []string{meta}, interoptest.Query{Time: "ts", Series: []string{"host"}})
		if err != nil || got[0].Error != "" || got[0].Rows != 18000 {
			t.Errorf("%s: %+v, %v; want 18000 rows", r, got, err)
		}
	}

	count := func() int {
		objs, err := st.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return len(objs)
	}
	before := count()
	b := big(3, 9, 0)
	b.Cols[2].Strs[1] = strings.Repeat("x", rows.MaxValueBytes+1)
	_, err = tb.Append(ctx, b)
	var re *rows.Error
	if table.Code(err) != "VALUE_TOO_LARGE" || !errors.As(err, &re) || re.Row != 2 || re.Column != "blob" {
		t.Errorf("append of a value over the limit: %v (%s); want VALUE_TOO_LARGE naming row 2, column blob", err, table.Code(err))
	}
	if n := count(); n != before {
		t.Errorf("a refused append wrote %d objects", n-before)
	}
}
