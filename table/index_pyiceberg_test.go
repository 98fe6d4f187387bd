package table_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// TestCatchUpAfterPyicebergAppend: a real foreign snapshot — pyiceberg's
// append (its manifests, pyarrow's Parquet without a page index, no
// timelake.* summary keys, no index) — is caught up by Latest and stored by
// the next Timelake append; pyiceberg keeps our statistics entries.
func TestCatchUpAfterPyicebergAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("outside engines: skipped with -short")
	}
	py := interoptest.Python(t)
	ctx := context.Background()
	dir := t.TempDir()
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := testenv.New(1)
	tb, err := table.Create(ctx, st, env, "file://"+dir, metricsSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 6, 3)); err != nil {
		t.Fatal(err)
	}
	first := *tb.Metadata().CurrentSnapshotID
	rows := `[{"ts":"2026-11-28T00:10:00Z","host":"h001","region":"eu","cpu":100,"mem":1,"_ingest_ts":"2026-11-29T00:00:00Z"},` +
		`{"ts":"2026-11-28T00:01:00Z","host":"h009","region":"eu","cpu":200,"mem":1,"_ingest_ts":"2026-11-29T00:00:00Z"},` +
		`{"ts":"2026-11-28T00:01:00Z","host":"h000","region":"eu","cpu":300,"mem":1,"_ingest_ts":"2026-11-29T00:00:00Z"}]`
	cmd := exec.Command(py, filepath.Join(interoptest.Root(), "interop", "pyappend.py"), dir, t.TempDir(), rows)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pyiceberg append: %v\n%s", err, out)
	}
	if tb, err = table.Open(ctx, st, env); err != nil {
		t.Fatal(err)
	}
	want := "h000@3=3 h001@10=100 h002@5=5 h009@1=200"
	if got := latest(t, tb); got != want {
		t.Fatalf("Latest after pyiceberg's append = %q, want %q", got, want)
	}
	if tb.Metadata().StatisticsFor(first) == nil {
		t.Fatalf("pyiceberg dropped our statistics entry of snapshot %d", first)
	}
	res, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(2*time.Minute), 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	if tb.Metadata().StatisticsFor(res.SnapshotID) == nil {
		t.Fatal("the next append stored no index")
	}
	re, err := table.Open(ctx, st, env)
	if err != nil {
		t.Fatal(err)
	}
	if got := latest(t, re); got != want {
		t.Fatalf("Latest after the next append = %q, want %q", got, want)
	}
}
