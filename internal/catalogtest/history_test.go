package catalogtest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/table"
)

// TestHistoryBounded appends past timelake.history.max-snapshots through
// the catalog: each commit past the bound sends the snapshots it drops as
// remove-snapshots in the same request, the catalog keeps the bound, and
// every row stays (the dropped snapshots' files are still reachable from
// the current one, merged into its manifests).
func TestHistoryBounded(t *testing.T) {
	need(t)
	ctx := context.Background()
	var sl sleeps
	cat, tr := client(t, server, restcatalog.Config{Credential: testClient}, &sl)
	id := ident(t)
	sch := metrics(t)
	props := map[string]string{table.PropMaxSnapshots: "3", table.PropManifestMinMerge: "4"}
	tb, err := table.CreateInCatalog(ctx, cat, id, sl.env(), sch, props, "", storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	loc := tb.Metadata().Location
	before := metadataFiles(t, loc)
	tr.reset()
	for i := range 7 {
		if _, err := tb.Append(ctx, batch(t, sch, day.Add(time.Duration(i)*time.Hour), 10, 5, float64(i*100))); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	if got := tr.count("POST", "/tables/"+id.Name); got != 7 {
		t.Errorf("commit requests for 7 appends = %d, want 7", got)
	}
	re, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	info, err := re.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 70 || info.Snapshots != 3 {
		t.Errorf("after 7 appends: rows %d, snapshots %d; want 70, 3", info.Rows, info.Snapshots)
	}
	if s := re.Metadata().Snapshots; len(s) > 0 && !strings.Contains(s[0].ManifestList, "/metadata/") {
		t.Errorf("manifest list %s is not under metadata/", s[0].ManifestList)
	}
	// The catalog owns its metadata files: ours deleted none of them (it
	// writes one per commit).
	if after := metadataFiles(t, loc); after < before+7 {
		t.Errorf("metadata files: %d before, %d after 7 commits; the writer must delete none", before, after)
	}
}
