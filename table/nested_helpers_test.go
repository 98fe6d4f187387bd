package table_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/table"
)

// Helpers of the tests that write a nested column (a map, a variant) by
// each way in and read it back.

// nestedRows scans the table into "host ts value" lines of column col
// (value "-" for null).
func nestedRows(t *testing.T, ctx context.Context, tb *table.Table, col string) []string {
	t.Helper()
	var out []string
	if _, err := tb.Scan(ctx, table.ScanOptions{}, func(b *rows.Batch) error {
		vc, hc, ts := b.Schema.Index(col), b.Schema.Index("host"), b.Schema.Index("ts")
		for r := 0; r < b.Len; r++ {
			v := b.Cols[vc].Strs[r]
			if b.Cols[vc].IsNull(r) {
				v = "-"
			}
			out = append(out, fmt.Sprintf("%s %d %s", b.Cols[hc].Strs[r], b.Cols[ts].Ints[r], v))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// nestedLatest reads the last-value index into "host value" lines of column
// col (value "-" for null).
func nestedLatest(t *testing.T, ctx context.Context, tb *table.Table, col string) []string {
	t.Helper()
	idx, err := tb.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	vc, hc := idx.Schema.Index(col), idx.Schema.Index("host")
	var got []string
	for r := 0; r < idx.Len; r++ {
		v := idx.Cols[vc].Strs[r]
		if idx.Cols[vc].IsNull(r) {
			v = "-"
		}
		got = append(got, idx.Cols[hc].Strs[r]+" "+v)
	}
	return got
}

// appendEachWay appends goRows through the Go API (rows.FromMaps), then the
// rows of ndjson, then those of csv: three commits. It returns the batch
// of goRows.
func appendEachWay(t *testing.T, ctx context.Context, tb *table.Table, goRows []map[string]any, ndjson, csv string) *rows.Batch {
	t.Helper()
	b, err := rows.FromMaps(tb.Schema(), goRows, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, b); err != nil {
		t.Fatal(err)
	}
	nb, err := rows.NewNDJSONReader(strings.NewReader(ndjson), tb.Schema(), rows.Options{}).Next(100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, nb); err != nil {
		t.Fatal(err)
	}
	cb, err := rows.NewCSVReader(strings.NewReader(csv), tb.Schema(), rows.Options{}).Next(100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, cb); err != nil {
		t.Fatal(err)
	}
	return b
}

// badNestedInput checks that each NDJSON line bad[i][0] (read after a good
// line, a row of series "a" at okTS) is TYPE_MISMATCH naming row 2 and
// column col with a message containing bad[i][1], and that a CSV cell "not
// json" in col (a row at csvTS) is TYPE_MISMATCH naming row 1 and col.
func badNestedInput(t *testing.T, tb *table.Table, col, okTS, csvTS string, bad [][2]string) {
	t.Helper()
	for _, c := range bad {
		input, want := c[0], c[1]
		_, err := rows.NewNDJSONReader(strings.NewReader(`{"ts":"`+okTS+`","host":"a"}`+"\n"+input+"\n"), tb.Schema(), rows.Options{}).Next(100)
		var re *rows.Error
		if !errors.As(err, &re) || re.Code != rows.CodeTypeMismatch || re.Column != col || re.Row != 2 || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want TYPE_MISMATCH row 2 column %s: %s", input, err, col, want)
		}
	}
	_, err := rows.NewCSVReader(strings.NewReader("ts,host,"+col+"\n"+csvTS+",a,not json\n"), tb.Schema(), rows.Options{}).Next(100)
	if re := (*rows.Error)(nil); !errors.As(err, &re) || re.Code != rows.CodeTypeMismatch || re.Column != col || re.Row != 1 {
		t.Errorf("csv: %v, want TYPE_MISMATCH row 1 column %s", err, col)
	}
}
