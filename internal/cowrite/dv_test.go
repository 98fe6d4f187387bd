package cowrite

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
)

// TestSparkDeletionVectors: a format 3 table Spark (Iceberg 1.10) writes
// with merge-on-read DELETEs, which write deletion vectors (Puffin files),
// a second DELETE replacing a file's vector with a larger one. Timelake's
// info, scan (before adopting: the stored scan), latest (after adopting)
// and maintain (compaction applies the vectors and drops them) give the
// rows Spark gives, and Spark reads the table Timelake compacted.
func TestSparkDeletionVectors(t *testing.T) {
	spark, wh := sparkEngine(t)
	root := interoptest.Root()
	s := &scenario{
		t: t, dir: filepath.Join(wh, "dv", "t"), name: "cat.dv.t", ident: "dv.t", catalog: "cat", spark: spark,
		tl: build(t, root, "./cmd/timelake", "timelake"), want: model{},
	}
	tl := func(cmd string) ([]byte, error) { return run(s.tl, cmd, s.dir, "--json") }
	agree := func() { agreeSparkAndTimelake(s.fail, spark, s.name, s.want.summary(), s.want.latest(), tl) }
	steps := []struct {
		name    string
		do      func() error
		adopted bool
	}{
		{"spark CREATE TABLE (format 3, merge-on-read) + INSERT", func() error {
			if _, err := spark.SQL(fmt.Sprintf("CREATE TABLE %s (ts timestamp, host string, cpu double, mem bigint) USING iceberg PARTITIONED BY (days(ts)) "+
				"TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read')", s.name)); err != nil {
				return err
			}
			// four hosts over three days: every data file holds rows of several
			if err := s.sparkInsertUserColumns(batch(2, []string{"h0", "h1", "h2", "h3"}, 24)); err != nil {
				return err
			}
			return s.sparkInsertUserColumns(batch(3, []string{"h0", "h1"}, 12))
		}, false},
		{"spark DELETE host h1 (deletion vectors)", func() error {
			if _, err := spark.SQL("DELETE FROM " + s.name + " WHERE host = 'h1'"); err != nil {
				return err
			}
			s.want.deleteHost("h1")
			return s.puffinFiles(1)
		}, false},
		{"spark DELETE cpu < 52 (the first file's vectors replaced)", func() error {
			if _, err := spark.SQL("DELETE FROM " + s.name + " WHERE cpu < 52"); err != nil {
				return err
			}
			s.want.deleteWhere(func(r row) bool { return r.CPU < 52 })
			return s.puffinFiles(2)
		}, false},
		{"timelake adopt --time ts --series host", func() error {
			_, err := run(s.tl, "adopt", s.dir, "--time", "ts", "--series", "host", "--json")
			return err
		}, true},
		{"timelake maintain (compaction applies the vectors)", func() error {
			if err := s.timelakeMaintain(); err != nil {
				return err
			}
			out, err := tl("info")
			if err != nil {
				return err
			}
			var info struct {
				DeleteFiles int64 `json:"delete-files"`
			}
			if err := json.Unmarshal(out, &info); err != nil || info.DeleteFiles != 0 {
				return fmt.Errorf("info after maintain: %d delete files (%v), want none", info.DeleteFiles, err)
			}
			return nil
		}, true},
		{"spark DELETE host h3 (vectors over the files Timelake wrote)", func() error {
			if _, err := spark.SQL("DELETE FROM " + s.name + " WHERE host = 'h3'"); err != nil {
				return err
			}
			s.want.deleteHost("h3")
			return s.puffinFiles(3)
		}, true},
		{"timelake maintain again", s.timelakeMaintain, true},
	}
	for i, st := range steps {
		s.step = fmt.Sprintf("%02d %s", i+1, st.name)
		before := listFiles(s.dir)
		start := time.Now()
		if err := st.do(); err != nil {
			s.fail("step", "%v", err)
			if i == 0 {
				t.FailNow()
			}
		}
		t.Logf("step %s (%v); files %s", s.step, time.Since(start).Round(time.Millisecond), fileChanges(before, listFiles(s.dir)))
		s.scanAgrees()
		if st.adopted {
			agree()
		} else {
			s.infoAgrees()
		}
	}
	if len(s.failures) > 0 {
		t.Errorf("deletion vectors: %d failures (step, who, what):\n%s", len(s.failures), strings.Join(s.failures, "\n"))
	}
}

// puffinFiles checks that the table holds at least n Puffin files of
// deletion vectors (Spark wrote vectors, not position delete files).
func (s *scenario) puffinFiles(n int) error {
	got := 0
	for f := range listFiles(s.dir) {
		if strings.HasPrefix(f, "data/") && strings.HasSuffix(f, ".puffin") {
			got++
		}
	}
	if got < n {
		return fmt.Errorf("%d Puffin files under data/, want at least %d (deletion vectors)", got, n)
	}
	return nil
}

// scanAgrees compares the (host, ts) of timelake scan's rows with the
// model's.
func (s *scenario) scanAgrees() {
	out, err := run(s.tl, "scan", s.dir, "--format", "ndjson")
	if err != nil {
		s.fail("tl scan", "%v", err)
		return
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		var r struct {
			TS   string `json:"ts"`
			Host string `json:"host"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			s.fail("tl scan", "line %q: %v", line, err)
			return
		}
		ts, err := time.Parse(time.RFC3339Nano, r.TS)
		if err != nil {
			s.fail("tl scan", "ts %q: %v", r.TS, err)
			return
		}
		got = append(got, row{Host: r.Host, TS: ts.UnixMicro()}.key())
	}
	var want []string
	for _, r := range s.want.rows() {
		want = append(want, r.key())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		s.fail("tl scan", "%d rows, want %d (first got %v, want %v)", len(got), len(want), got[:min(3, len(got))], want[:min(3, len(want))])
	}
}

// infoAgrees compares timelake info's row count with the model's and
// Spark's (a table not adopted has no latest).
func (s *scenario) infoAgrees() {
	out, err := run(s.tl, "info", s.dir, "--json")
	if err != nil {
		s.fail("tl info", "%v", err)
		return
	}
	var info struct {
		Rows int64 `json:"rows"`
	}
	if err := json.Unmarshal(out, &info); err != nil || info.Rows != int64(len(s.want)) {
		s.fail("tl info", "rows %d (%v), want %d", info.Rows, err, len(s.want))
	}
	if got, err := s.spark.Summary(s.name, query); err != nil {
		s.fail("spark", "%v", err)
	} else {
		for _, d := range interoptest.Diff(s.want.summary(), got) {
			s.fail("spark", "%s", d)
		}
	}
}
