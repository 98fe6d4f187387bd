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

// TestS3VendedCredentials: a catalog over an S3 warehouse that vends
// credentials (as R2 Data Catalog and Polaris do); the writer has no AWS
// settings of its own and uses the vended ones for its data files.
func TestS3VendedCredentials(t *testing.T) {
	need(t)
	if s3server == nil {
		if os.Getenv("TIMELAKE_REQUIRE_CATALOG") != "" {
			t.Fatal("no S3 server: eval \"$(bash scripts/s3server.sh start)\" before the test")
		}
		t.Skip("no S3 server in the environment (eval \"$(bash scripts/s3server.sh start)\")")
	}
	ctx := context.Background()
	var sl sleeps
	cat, _ := client(t, s3server, restcatalog.Config{}, &sl)
	id := ident(t)
	noEnv := func(string) string { return "" }
	sch := metrics(t)
	props := map[string]string{"timelake.compact-min-files": "2", "timelake.compact-cold-after": "0s"}
	tb, err := table.CreateInCatalog(ctx, cat, id, sl.env(), sch, props, "", storeFor(nil, noEnv))
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if loc := tb.Metadata().Location; !strings.HasPrefix(loc, "s3://"+os.Getenv("TIMELAKE_S3_BUCKET")+"/") {
		t.Fatalf("location %q is not in the S3 warehouse", loc)
	}
	for i := range 3 {
		if _, err := tb.Append(ctx, batch(t, sch, day.Add(time.Duration(i)*time.Hour), 30, 3, float64(i))); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	re, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(nil, noEnv))
	if err != nil {
		t.Fatal(err)
	}
	info, err := re.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 90 || info.Snapshots != 3 || info.Files != 3 {
		t.Errorf("rows %d snapshots %d files %d, want 90, 3, 3", info.Rows, info.Snapshots, info.Files)
	}
	if _, err := re.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
		t.Fatalf("maintain: %v", err)
	}
	if info, err = re.Info(ctx); err != nil || info.Rows != 90 || info.Files != 1 {
		t.Errorf("after compaction: %+v, %v; want 90 rows in 1 file", info, err)
	}
}
