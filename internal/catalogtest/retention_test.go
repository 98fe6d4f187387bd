package catalogtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/table"
)

// TestRetention: retention through the catalog commits a delete snapshot
// that drops the old partitions, and expiry then removes the snapshots
// (remove-snapshots) and their files, never a metadata file.
func TestRetention(t *testing.T) {
	need(t)
	ctx := context.Background()
	var sl sleeps
	cat, _ := client(t, server, restcatalog.Config{}, &sl)
	id := ident(t)
	sch := metrics(t)
	props := map[string]string{"timelake.retention": "48h", "history.expire.max-snapshot-age-ms": "1"}
	tb, err := table.CreateInCatalog(ctx, cat, id, sl.env(), sch, props, "", storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Hour)
	if _, err := tb.Append(ctx, batch(t, sch, now.Add(-10*24*time.Hour), 30, 3, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, batch(t, sch, now.Add(-2*time.Hour), 20, 3, 100)); err != nil {
		t.Fatal(err)
	}
	loc := tb.Metadata().Location
	before := metadataFiles(t, loc)
	time.Sleep(5 * time.Millisecond)
	res, err := tb.Maintain(ctx, table.MaintainOptions{Retention: true, Expire: true})
	if err != nil {
		t.Fatalf("maintain: %v", err)
	}
	re, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatal(err)
	}
	info, err := re.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 20 {
		t.Errorf("rows after retention = %d, want 20 (plan %v)", info.Rows, res.Plan)
	}
	ops := map[string]int{}
	for _, s := range re.Metadata().Snapshots {
		ops[s.Summary["operation"]]++
	}
	if ops["delete"] != 1 || res.SnapshotsExpired == 0 {
		t.Errorf("snapshots by operation %v, %d expired; want the retention's delete kept and older ones expired", ops, res.SnapshotsExpired)
	}
	if after := metadataFiles(t, loc); after < before+res.Commits {
		t.Errorf("metadata files %d → %d after %d commits: none may be deleted", before, after, res.Commits)
	}
}
