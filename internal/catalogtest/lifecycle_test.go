package catalogtest

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/table"
)

// TestLifecycle creates, appends, reopens and maintains a table through the
// catalog, counting the requests: an append without conflict is one commit
// request and no load.
func TestLifecycle(t *testing.T) {
	need(t)
	ctx := context.Background()
	var sl sleeps
	cat, tr := client(t, server, restcatalog.Config{Credential: testClient}, &sl)
	id := ident(t)
	var puts atomic.Int64
	sch := metrics(t)
	props := map[string]string{"timelake.compact-min-files": "2", "timelake.compact-cold-after": "0s", "history.expire.max-snapshot-age-ms": "1"}
	tb, err := table.CreateInCatalog(ctx, cat, id, sl.env(), sch, props, "", storeFor(&puts, os.Getenv))
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if got := tb.Metadata().Properties[table.PropCatalogTable]; got != id.String() {
		t.Errorf("%s = %q", table.PropCatalogTable, got)
	}
	loc := tb.Metadata().Location
	tr.reset()
	for i := range 4 {
		res, err := tb.Append(ctx, batch(t, sch, day.Add(time.Duration(i)*time.Hour), 60, 5, float64(i*100)))
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		if res.Conflicts != 0 || res.Attempts != 1 {
			t.Errorf("append %d: %d conflicts, %d attempts", i, res.Conflicts, res.Attempts)
		}
	}
	if got := tr.count("POST", "/tables/"+id.Name); got != 4 {
		t.Errorf("commit requests for 4 appends = %d, want 4", got)
	}
	if got := tr.count("GET", "/tables/"+id.Name); got != 0 {
		t.Errorf("loads during 4 appends = %d, want 0 (the table is loaded at open and after a conflict only)", got)
	}
	if got := len(tr.sent); got != 4 {
		t.Errorf("catalog requests for 4 appends = %d (%v), want 4", got, tr.sent)
	}

	re, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	info, err := re.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 240 || info.Snapshots != 4 || info.Files != 4 {
		t.Errorf("info after 4 appends: rows %d snapshots %d files %d, want 240, 4, 4", info.Rows, info.Snapshots, info.Files)
	}
	latest, err := re.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if latest.Len != 5 {
		t.Errorf("latest has %d series, want 5", latest.Len)
	}
	before := metadataFiles(t, loc)

	time.Sleep(5 * time.Millisecond) // the snapshots are older than max-snapshot-age-ms
	mres, err := re.Maintain(ctx, table.MaintainOptions{})
	if err != nil {
		t.Fatalf("maintain: %v", err)
	}
	if mres.Merges == 0 || mres.SnapshotsExpired == 0 {
		t.Errorf("maintain: %d merges, %d snapshots expired; want both (plan %v)", mres.Merges, mres.SnapshotsExpired, mres.Plan)
	}
	info, err = re.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 240 || info.Files != 1 {
		t.Errorf("info after maintain: rows %d files %d, want 240 in 1 file", info.Rows, info.Files)
	}
	// The catalog's metadata files are never cleaned up: one more per commit.
	if after := metadataFiles(t, loc); after < before+mres.Commits {
		t.Errorf("metadata files: %d before maintain, %d after %d commits; none may be deleted", before, after, mres.Commits)
	}
	// The first writer catches up on its next append (a conflict, rebased).
	res, err := tb.Append(ctx, batch(t, sch, day.Add(10*time.Hour), 10, 5, 1000))
	if err != nil {
		t.Fatalf("append after maintain: %v", err)
	}
	if res.Conflicts != 1 {
		t.Errorf("append on a stale base: %d conflicts, want 1", res.Conflicts)
	}
	if n := puts.Load(); n != 5 {
		t.Errorf("data files uploaded by the first writer = %d, want 5 (none twice)", n)
	}
	info, err = tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 250 {
		t.Errorf("rows = %d, want 250", info.Rows)
	}
}
