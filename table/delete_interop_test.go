package table_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// TestDeleteOutsideReaders: after a delete by series, one by time range
// and a compaction, iceberg-go, DuckDB and pyiceberg read exactly the rows
// left (rows, sums, series, time range), in format 2 tables (the files
// rewritten) and format 3 tables (deletion vectors; DuckDB 1.5 too).
func TestDeleteOutsideReaders(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{"2", "3"} {
		t.Run("format "+version, func(t *testing.T) {
			dir := t.TempDir()
			st, err := dirstore.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := table.Create(ctx, st, testenv.New(1), "file://"+dir, metricsSchema(t),
				map[string]string{table.PropFormatVersion: version, maintenance.PropCompactMinFiles: "2"})
			if err != nil {
				t.Fatal(err)
			}
			var all []interoptest.Row
			for k := range 3 {
				start := day1.Add(time.Duration(k) * 10 * time.Hour)
				if _, err := tb.Append(ctx, batch(t, tb.Schema(), start, 300, 5)); err != nil {
					t.Fatal(err)
				}
				for i := range 300 {
					cpu, mem := float64(i), int64(i)*1000
					all = append(all, interoptest.Row{TimeUS: start.Add(time.Duration(i) * time.Minute).UnixMicro(), Series: fmt.Sprintf("h%03d", i%5), CPU: &cpu, Mem: &mem})
				}
			}
			readers := interoptest.Readers(t)
			if version == "3" {
				readers = append(readers, interoptest.DuckDBV3)
			}
			q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu", "mem"}}
			check := func(step string, keep func(r interoptest.Row) bool) {
				t.Helper()
				var left []interoptest.Row
				for _, r := range all {
					if keep(r) {
						left = append(left, r)
					}
				}
				all = left
				want := interoptest.Expect(all, nil)
				meta := filepath.Join(dir, filepath.FromSlash(commit.MetadataKey(tb.Version())))
				for _, r := range readers {
					got := interoptest.Summarize(t, r, meta, q)
					got.PlannedFiles = -1
					interoptest.ExpectSame(t, step+": "+string(r), want, got)
				}
			}
			res, err := tb.Delete(ctx, table.DeleteOptions{Series: map[string][]any{"host": {"h003"}}})
			if err != nil {
				t.Fatal(err)
			}
			// A fifth of each file: format 3 writes deletion vectors, format 2 rewrites.
			if (res.DeletionVectors > 0) != (version == "3") || (res.FilesRewritten > 0) != (version == "2") {
				t.Errorf("format %s: %d deletion vectors, %d files rewritten", version, res.DeletionVectors, res.FilesRewritten)
			}
			check("delete host h003", func(r interoptest.Row) bool { return r.Series != "h003" })
			from, to := day1.Add(12*time.Hour).UnixMicro(), day1.Add(30*time.Hour).UnixMicro()
			if _, err := tb.Delete(ctx, table.DeleteOptions{FromUS: &from, ToUS: &to}); err != nil {
				t.Fatal(err)
			}
			check("delete a range", func(r interoptest.Row) bool { return r.TimeUS < from || r.TimeUS >= to })
			if _, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
				t.Fatal(err)
			}
			check("compaction", func(interoptest.Row) bool { return true })
		})
	}
}
