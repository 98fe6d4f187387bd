package table_test

import (
	"context"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestCreateWithSpec: a table created partitioned by more than its time is
// written in that spec; a spec of a column outside the key, or a malformed
// one, is refused by name.
func TestCreateWithSpec(t *testing.T) {
	ctx := context.Background()
	sch := metricsSchema(t)
	for _, c := range []struct {
		text, fields, err string
	}{
		{"day", "", ""},
		{"day, bucket(16, host)", "ts_day, host_bucket", ""},
		{"hour,truncate(3,host)", "ts_hour, host_trunc", ""},
		{"host", "host", ""},
		{"none", "(unpartitioned)", ""},
		{"month, identity(host)", "ts_month, host", ""},
		{"bucket(16, region)", "", "not the time or a series column"},
		{"bucket(x, host)", "", "positive number"},
		{"day, nope", "", `no column "nope"`},
		{"zorder(host)", "", "zorder"},
	} {
		own, fields, err := table.ParseSpec(metricsSchema(t), c.text)
		if err == nil && fields != nil {
			tb, cerr := table.CreateWithSpec(ctx, memstore.New(), testenv.New(1), "s3://b/t", metricsSchema(t), nil, fields)
			if err = cerr; err == nil {
				if got := tb.PartitionFields(); got != c.fields {
					t.Errorf("%q: fields %q, want %q", c.text, got, c.fields)
				}
				if _, aerr := tb.Append(ctx, rowsOf(t, tb, "h", day1, 50, 5)); aerr != nil {
					t.Errorf("%q: append: %v", c.text, aerr)
				}
				if n, serr := scanAll(t, tb, table.ScanOptions{}); serr != nil || n != 50 {
					t.Errorf("%q: scan: %d, %v", c.text, n, serr)
				}
			}
		} else if err == nil && own != sch.Partition {
			t.Errorf("%q: own transform %v, want %v", c.text, own, sch.Partition)
		}
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.text, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %v, want an error containing %q", c.text, err, c.err)
		}
	}
}
