package table_test

import (
	"context"
	"strings"
	"testing"
	"time"

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

// TestRetentionWithoutTimeSpec: in a table partitioned by the series alone
// (no time field), retention drops the files wholly before the cut-off one
// by one and keeps the rest, whole.
func TestRetentionWithoutTimeSpec(t *testing.T) {
	for _, spec := range []string{"host", "day, bucket(4, host)", "none"} {
		t.Run(spec, func(t *testing.T) { retentionOfSpec(t, spec) })
	}
}

// retentionOfSpec: 20 rows 29 days old and 10 an hour old, retention 7d:
// the old rows go, whole partitions (a spec with time) or whole files.
func retentionOfSpec(t *testing.T, spec string) {
	ctx := context.Background()
	sch := metricsSchema(t)
	_, fields, err := table.ParseSpec(sch, spec)
	if err != nil {
		t.Fatal(err)
	}
	env := testenv.New(1)
	now := day1.Add(30 * 24 * time.Hour)
	env.Now = func() time.Time { return now }
	tb, err := table.CreateWithSpec(ctx, memstore.New(), env, "s3://b/t", sch, map[string]string{"timelake.retention": "7d"}, fields)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, rowsOf(t, tb, "h", day1, 20, 2)); err != nil { // 29 days old: h-0, h-1
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, rowsOf(t, tb, "h", now.Add(-time.Hour), 10, 2)); err != nil { // an hour old
		t.Fatal(err)
	}
	res, err := tb.Maintain(ctx, table.MaintainOptions{Retention: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.FilesDropped == 0 || res.RowsDropped != 20 {
		t.Errorf("retention dropped %d files, %d rows; want the old files, 20 rows (plan %q)", res.FilesDropped, res.RowsDropped, res.Plan)
	}
	if n, err := scanAll(t, tb, table.ScanOptions{}); err != nil || n != 10 {
		t.Errorf("scan after retention: %d, %v; want the 10 recent rows", n, err)
	}
}
