package table_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// parquetHosts counts, over every Parquet file under dir/data (referenced
// or not), the rows of each host.
func parquetHosts(t *testing.T, dir string) map[string]int {
	t.Helper()
	out := map[string]int{}
	err := filepath.WalkDir(filepath.Join(dir, "data"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parquet") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parquet.Open(b)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for j, c := range f.Schema() {
			if c.Name != "host" {
				continue
			}
			for rg := range f.NumRowGroups() {
				col, err := f.ReadColumn(rg, j)
				if err != nil {
					return err
				}
				for _, h := range col.Strs {
					out[h]++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPurge: a delete with Purge leaves no Parquet file under the table —
// referenced or not, in the current snapshot or an older one the history
// kept, written by an append or by a compaction — that holds a deleted
// row: with Now at once, else after the orphan grace by maintenance. The
// snapshots that referenced them expire (named in a warning); every outside
// reader reads the rows left.
func TestPurge(t *testing.T) {
	ctx := context.Background()
	for _, now := range []bool{true, false} {
		t.Run(fmt.Sprintf("now=%v", now), func(t *testing.T) {
			dir := t.TempDir()
			st, err := dirstore.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			clock := testenv.Start
			env := testenv.New(1)
			env.Now = func() time.Time { clock = clock.Add(time.Millisecond); return clock }
			tb, err := table.Create(ctx, st, env, "file://"+dir, metricsSchema(t), map[string]string{
				maintenance.PropCompactMinFiles: "2", "history.expire.max-snapshot-age-ms": "864000000", "timelake.history.max-snapshots": "100"})
			if err != nil {
				t.Fatal(err)
			}
			for k := range 3 {
				if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(k)*5*time.Hour), 120, 4)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
				t.Fatal(err)
			}
			if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(20*time.Hour), 40, 4)); err != nil {
				t.Fatal(err)
			}
			if n := parquetHosts(t, dir)["h001"]; n == 0 {
				t.Fatal("no h001 row to purge")
			}
			snapsBefore := len(tb.Metadata().Snapshots)
			res, err := tb.Delete(ctx, table.DeleteOptions{Series: map[string][]any{"host": {"h001"}}, Purge: true, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			p := res.Purge
			if p == nil || len(p.SnapshotsExpired) == 0 || len(p.Warnings) == 0 || len(p.Files) == 0 {
				t.Fatalf("purge: %+v", p)
			}
			if got := len(tb.Metadata().Snapshots); got != snapsBefore+1-len(p.SnapshotsExpired) {
				t.Errorf("%d snapshots after the purge, want %d", got, snapsBefore+1-len(p.SnapshotsExpired))
			}
			if now {
				if p.FilesDeleted != len(p.Files) || p.FilesPending != 0 {
					t.Errorf("now: deleted %d of %d files, %d pending", p.FilesDeleted, len(p.Files), p.FilesPending)
				}
			} else {
				if p.FilesPending != len(p.Files) || p.PendingUntil == "" {
					t.Errorf("pending: %+v", p)
				}
				if n := parquetHosts(t, dir)["h001"]; n == 0 {
					t.Fatal("the files went before the grace")
				}
				// The files' modification times are the directory store's
				// (the machine's clock): the test's clock moves past them.
				clock = time.Now()
				for range 2 { // the first run marks them unreferenced, the one past the grace deletes them
					clock = clock.Add(25 * time.Hour)
					if _, err := tb.Maintain(ctx, table.MaintainOptions{Orphans: true}); err != nil {
						t.Fatal(err)
					}
				}
			}
			hosts := parquetHosts(t, dir)
			if hosts["h001"] != 0 || hosts["h000"] == 0 {
				t.Errorf("rows by host in every Parquet file: %v; want no h001", hosts)
			}
			meta := filepath.Join(dir, filepath.FromSlash(commit.MetadataKey(tb.Version())))
			q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu", "mem"}}
			var want *interoptest.Summary
			for _, r := range interoptest.Readers(t) {
				got := interoptest.Summarize(t, r, meta, q)
				got.PlannedFiles = -1
				if got.DistinctSeries != 3 {
					t.Errorf("%s: %d series, want 3", r, got.DistinctSeries)
				}
				if want == nil {
					want = &got
				} else {
					interoptest.ExpectSame(t, string(r), *want, got)
				}
			}
		})
	}
}
