package catalogtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/table"
)

// TestDeleteAndPurge: a delete through the catalog commits an overwrite
// snapshot without the series' rows, and a purge then removes the
// snapshots that held them (remove-snapshots) and deletes their files.
func TestDeleteAndPurge(t *testing.T) {
	need(t)
	ctx := context.Background()
	var sl sleeps
	cat, _ := client(t, server, restcatalog.Config{}, &sl)
	id := ident(t)
	sch := metrics(t)
	tb, err := table.CreateInCatalog(ctx, cat, id, sl.env(), sch, map[string]string{"format-version": "3"}, "", storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Hour)
	for k := range 2 {
		if _, err := tb.Append(ctx, batch(t, sch, now.Add(time.Duration(k-5)*time.Hour), 30, 3, float64(100*k))); err != nil {
			t.Fatal(err)
		}
	}
	if v := tb.Metadata().FormatVersion; v != 3 {
		t.Errorf("the catalog created format %d, want 3", v)
	}
	before, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	series := sch.Fields[sch.Series[0]].Name
	res, err := tb.Delete(ctx, table.DeleteOptions{Series: map[string][]any{series: {"h01"}}, Purge: true, Now: true})
	if err != nil {
		t.Fatal(err)
	}
	re, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatal(err)
	}
	after, err := re.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Rows != before.Rows-res.RowsDeleted || res.RowsDeleted != 20 {
		t.Errorf("rows %d → %d, %d deleted; want 20 of host h1 gone", before.Rows, after.Rows, res.RowsDeleted)
	}
	if res.Purge == nil || len(res.Purge.SnapshotsExpired) != 2 || res.Purge.FilesDeleted == 0 || len(re.Metadata().Snapshots) != 1 {
		t.Errorf("purge: %+v; %d snapshots left, want the delete's alone", res.Purge, len(re.Metadata().Snapshots))
	}
}
