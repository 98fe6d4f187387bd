package table_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/table"
)

// scanned is Table.Scan's answer in the form of scan (maintain_test.go).
func scanScanned(t *testing.T, tb *table.Table, opt table.ScanOptions) (scanned, error) {
	t.Helper()
	sch := tb.Schema()
	s := scanned{rows: map[string]string{}, ingest: map[string]int64{}}
	_, err := tb.Scan(context.Background(), opt, func(b *rows.Batch) error {
		for r := 0; r < b.Len; r++ {
			var k, v strings.Builder
			for _, c := range sch.Series {
				fmt.Fprintf(&k, "%v/", value(sch, b.Cols, c, r))
			}
			fmt.Fprintf(&k, "%d", b.Cols[sch.Time].Ints[r])
			for c := range sch.Fields {
				if c != sch.Ingest { // the last field: b's fields are the table's up to it
					fmt.Fprintf(&v, "%v|", value(sch, b.Cols, c, r))
				}
			}
			if _, dup := s.rows[k.String()]; dup {
				t.Errorf("key %s twice", k.String())
			}
			s.rows[k.String()] = v.String()
			s.stored++
		}
		return nil
	})
	return s, err
}

// TestScanForeignFiles: files pyarrow wrote (unsorted with duplicates,
// without page index or sorting_columns, v1 and v2 pages, every codec, a
// missing optional column) scan to the deduplicated rows, before and after
// a compaction; a file that declares sorting_columns and is not sorted is
// refused by name.
func TestScanForeignFiles(t *testing.T) {
	dir, st, tb := foreignTable(t, nil)
	before := scan(t, st, tb)
	var base int64
	for _, v := range before.ingest {
		base = v
	}
	part := tb.Schema().PartitionName() + "=" + day1.Format("2006-01-02")
	p := int32(day1.Unix() / 86400)
	var files []foreignFile
	var liar foreignFile
	for _, f := range foreignVariants(base) {
		if f.name == "snappy-claims-sorted.parquet" {
			liar = f
			continue
		}
		files = append(files, f)
	}
	commitForeign(t, st, tb, p, writeForeign(t, dir, part, files))
	want := withForeign(before, files)
	tb = reopen(t, st)
	got, err := scanScanned(t, tb, table.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "scan of the foreign files", want, got)
	// a filtered scan agrees with the filter applied to the full one
	one, err := scanScanned(t, tb, table.ScanOptions{Series: map[string][]any{"host": {"h-2"}}, FromUS: us(day1.Add(100 * 1e9)), ToUS: us(day1.Add(300 * 1e9))})
	if err != nil {
		t.Fatal(err)
	}
	sub := scanned{rows: map[string]string{}}
	for k, v := range want.rows {
		var ts int64
		fmt.Sscanf(k[strings.LastIndex(k, "/")+1:], "%d", &ts)
		if strings.HasPrefix(k, "h-2/") && ts >= day1.Add(100*1e9).UnixMicro() && ts < day1.Add(300*1e9).UnixMicro() {
			sub.rows[k] = v
		}
	}
	sameRows(t, "one series, 200 s", sub, one)
	if len(sub.rows) == 0 {
		t.Fatal("the filtered case selects nothing")
	}
	if _, err := tb.Maintain(context.Background(), table.MaintainOptions{Compact: true}); err != nil {
		t.Fatal(err)
	}
	tb = reopen(t, st)
	after, err := scanScanned(t, tb, table.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "scan after the compaction", want, after)

	commitForeign(t, st, tb, p, writeForeign(t, dir, part, []foreignFile{liar}))
	tb = reopen(t, st)
	if _, err := scanScanned(t, tb, table.ScanOptions{}); table.Code(err) != "CORRUPT_TABLE" || !strings.Contains(err.Error(), liar.name) {
		t.Fatalf("a file claiming a sort order it lacks: %v, want CORRUPT_TABLE naming it", err)
	}
}
