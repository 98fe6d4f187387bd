package table_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// scanned is a table's content as a Timelake scan sees it: one row per key
// (series…, time), the greatest _ingest_ts winning.
type scanned struct {
	rows   map[string]string // key → the other columns, printed
	ingest map[string]int64
	stored int64 // rows in the files, duplicates included
	files  int
}

// scan reads every live data file whole (with the ordinary reader, not the
// compaction's range reader) and deduplicates.
func scan(t testing.TB, st store.Store, tb *table.Table) scanned {
	t.Helper()
	ctx := context.Background()
	files, err := tb.DataFiles(ctx)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	sch := tb.Schema()
	s := scanned{rows: map[string]string{}, ingest: map[string]int64{}, files: len(files)}
	for _, df := range files {
		key := strings.TrimPrefix(df.Path, tb.Metadata().Location+"/")
		data, err := st.Get(ctx, key)
		if err != nil {
			t.Fatalf("scan: %s: %v", key, err)
		}
		f, err := parquet.Open(data)
		if err != nil {
			t.Fatalf("scan: %s: %v", key, err)
		}
		if f.NumRows() != df.RecordCount {
			t.Errorf("scan: %s holds %d rows, its manifest entry says %d", key, f.NumRows(), df.RecordCount)
		}
		for rg := range f.NumRowGroups() {
			cols := make([]rows.Column, len(sch.Fields))
			for c := range cols {
				if cols[c], err = f.ReadColumn(rg, c); err != nil {
					t.Fatalf("scan: %s: %v", key, err)
				}
			}
			n := len(cols[sch.Time].Ints)
			s.stored += int64(n)
			for r := range n {
				var k, v strings.Builder
				for _, c := range sch.Series {
					fmt.Fprintf(&k, "%v/", value(sch, cols, c, r))
				}
				fmt.Fprintf(&k, "%d", cols[sch.Time].Ints[r])
				for c := range sch.Fields {
					if c != sch.Ingest {
						fmt.Fprintf(&v, "%v|", value(sch, cols, c, r))
					}
				}
				ing := cols[sch.Ingest].Ints[r]
				if old, ok := s.ingest[k.String()]; !ok || ing > old {
					s.rows[k.String()], s.ingest[k.String()] = v.String(), ing
				}
			}
		}
	}
	return s
}

func value(sch *schema.Table, cols []rows.Column, c, r int) any {
	col := &cols[c]
	if col.IsNull(r) {
		return "null"
	}
	switch t := sch.Fields[c].Type; {
	case t.IsInteger():
		return col.Ints[r]
	case t.IsFloat():
		return col.Floats[r]
	case t == schema.Boolean:
		return col.Bools[r]
	}
	return col.Strs[r]
}

func sameRows(t *testing.T, what string, want, got scanned) {
	t.Helper()
	if len(got.rows) != len(want.rows) {
		t.Errorf("%s: %d distinct rows, want %d", what, len(got.rows), len(want.rows))
	}
	bad := 0
	for k, v := range want.rows {
		if got.rows[k] != v && bad < 5 {
			t.Errorf("%s: row %s = %q, want %q", what, k, got.rows[k], v)
			bad++
		}
	}
}

// overlapping appends n batches of rows of one day, each over the same
// hosts and minutes shifted by k, with a cpu that tells the batches apart:
// the later batch must win every duplicate.
func overlapping(t testing.TB, tb *table.Table, day time.Time, n, rowsEach int) {
	t.Helper()
	ctx := context.Background()
	for k := range n {
		ms := make([]map[string]any, rowsEach)
		for i := range ms {
			ms[i] = map[string]any{
				"ts": day.Add(time.Duration(i+k*rowsEach/2) * time.Second), "host": fmt.Sprintf("h%03d", i%7),
				"region": "eu", "cpu": float64(k*1000 + i), "mem": int64(i),
			}
			if i%5 == 0 {
				delete(ms[i], "cpu")
			}
		}
		b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCompactionMergesAndDeduplicates(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	st := faultstore.New(mem)
	tb := create(t, st, 1)
	overlapping(t, tb, day1, 9, 1000) // 9 files of one (cold) day, half of each overlapping the next
	before := scan(t, st, tb)
	if before.files != 9 || before.stored != 9000 {
		t.Fatalf("before: %d files, %d rows; want 9 and 9000", before.files, before.stored)
	}
	idxBefore := tb.Metadata().CurrentSnapshot().Summary[lastvalue.SummaryKey]
	latestBefore, err := tb.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	getsBefore := map[string]int{}
	for _, k := range keysOf(t, mem, "data/") {
		getsBefore[k] = st.KeyRequests(faultstore.OpGet, k)
	}
	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	// Data files are read by range, never whole.
	for _, k := range keysOf(t, mem, "data/") {
		if n := st.KeyRequests(faultstore.OpGet, k) - getsBefore[k]; n > 0 {
			t.Errorf("compaction read %s whole (%d gets)", k, n)
		}
	}
	after := scan(t, st, tb)
	sameRows(t, "after compaction", before, after)
	if after.files != 1 || after.stored != int64(len(before.rows)) {
		t.Errorf("after: %d files, %d rows stored; want 1 file of %d rows (no duplicates)", after.files, after.stored, len(before.rows))
	}
	if res.Merges != 1 || res.FilesRead != 9 || res.FilesWritten != 1 || res.RowsBefore != 9000 || res.RowsAfter != int64(len(before.rows)) || res.Commits != 1 {
		t.Errorf("result = %+v, want 1 merge of 9 files into 1, 9000 rows before, %d after, 1 commit", res, len(before.rows))
	}
	s := tb.Metadata().CurrentSnapshot()
	if s.Summary["operation"] != "replace" || s.Summary["total-records"] != fmt.Sprint(len(before.rows)) || s.Summary["total-data-files"] != "1" {
		t.Errorf("summary = %v, want a replace with the new totals", s.Summary)
	}
	if got := s.Summary[lastvalue.SummaryKey]; got != idxBefore {
		t.Errorf("last-value index = %s, want the same file %s", got, idxBefore)
	}
	latestAfter, err := tb.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if latestAfter.Len != latestBefore.Len {
		t.Errorf("latest: %d series, want %d", latestAfter.Len, latestBefore.Len)
	}
	// A second run finds nothing to do.
	res, err = tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil || res.Merges != 0 || res.Commits != 0 {
		t.Errorf("second run = %+v, %v; want nothing done", res, err)
	}
}

func keysOf(t testing.TB, st store.Store, prefix string) []string {
	t.Helper()
	objs, err := st.List(context.Background(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range objs {
		out = append(out, o.Key)
	}
	sort.Strings(out)
	return out
}

var _ = errors.Is
