package cowrite

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
)

// TestOddNamesSpark: tables in directories named with a space, non-ASCII,
// "%" and "#", created and appended to by Timelake (locations written as
// they are): Spark reads them, appends its own files (which it names its
// way), and Timelake reads, compacts and cleans up the mixed table; Spark
// sees every row after. In the package's one Spark session.
func TestOddNamesSpark(t *testing.T) {
	spark, wh := sparkEngine(t)
	tl := build(t, interoptest.Root(), "./cmd/timelake", "timelake")
	t.Setenv("TIMELAKE_GRACE_FLOOR", "0") // maintain deletes what it finds unreferenced at once: one writer at a time
	for _, name := range []string{"my tablé", "100% cpu", "a#b"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(wh, "odd", name)
			ident := "cat.odd.`" + name + "`"
			if _, err := run(tl, "create", dir, "--time", "ts", "--series", "host", "--column", "cpu:double?", "--column", "mem:long?",
				"--prop", "timelake.orphan-grace=0", "--prop", "timelake.metadata-grace=0"); err != nil {
				t.Fatal(err)
			}
			var csv strings.Builder
			csv.WriteString("ts,host,cpu,mem\n")
			rs := batch(1, []string{"h0", "h1"}, 6)
			for _, r := range rs {
				fmt.Fprintf(&csv, "%s,%s,%v,%s\n", tsString(r.TS), r.Host, r.CPU, strings.ReplaceAll(fmtMem(r.Mem), "null", ""))
			}
			in := filepath.Join(t.TempDir(), "rows.csv")
			if err := os.WriteFile(in, []byte(csv.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := run(tl, "append", dir, in); err != nil {
				t.Fatal(err)
			}
			if sum, err := spark.Summary(ident, query); err != nil || sum.Rows != 6 {
				t.Fatalf("spark reads %d rows (%v), want 6", sum.Rows, err)
			}
			var vals []string
			for _, r := range batch(2, []string{"spark-1", "h0"}, 4) {
				vals = append(vals, "("+sparkValues(r)+", "+sparkTS(r.TS)+")")
			}
			if _, err := spark.SQL(fmt.Sprintf("INSERT INTO %s (ts, host, cpu, mem, _ingest_ts) VALUES %s", ident, strings.Join(vals, ", "))); err != nil {
				t.Fatalf("spark insert: %v", err)
			}
			meta, _, err := currentMetadata(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: after Spark's insert: %s", name, manifestListOf(t, meta))
			for _, cmd := range [][]string{{"info", dir, "--json"}, {"maintain", dir, "--json"}, {"maintain", dir, "--json"}} {
				if _, err := run(tl, cmd...); err != nil {
					t.Fatalf("timelake %s: %v", cmd[0], err)
				}
			}
			b, err := run(tl, "info", dir, "--json")
			if err != nil {
				t.Fatal(err)
			}
			var info struct{ Rows int64 }
			if err := json.Unmarshal(b, &info); err != nil || info.Rows != 10 {
				t.Errorf("timelake info after Spark's insert and maintenance: %d rows (%v), want 10", info.Rows, err)
			}
			if sum, err := spark.Summary(ident, query); err != nil || sum.Rows != 10 {
				t.Errorf("spark reads %d rows after Timelake's maintenance (%v), want 10", sum.Rows, err)
			}
		})
	}
}

// manifestListOf is the current snapshot's manifest list in the metadata file.
func manifestListOf(t *testing.T, metaPath string) string {
	b, err := os.ReadFile(metaPath)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Location  string `json:"location"`
		Current   int64  `json:"current-snapshot-id"`
		Snapshots []struct {
			ID   int64  `json:"snapshot-id"`
			List string `json:"manifest-list"`
		} `json:"snapshots"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Snapshots {
		if s.ID == m.Current {
			return fmt.Sprintf("location %s, manifest list %s", m.Location, s.List)
		}
	}
	return "location " + m.Location
}
