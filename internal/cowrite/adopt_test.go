package cowrite

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
)

// TestAdoptSparkTable: a table Spark created and wrote, of Spark's shape
// (its partition spec, no timelake.* properties, no _ingest_ts), is read by
// Timelake as stored, adopted, then written and maintained by Timelake and
// Spark in turn; after every step after the adoption every reader (DuckDB,
// pyiceberg, iceberg-go, Spark SQL, timelake info and latest) agrees with
// the model, as in TestScenario.
func TestAdoptSparkTable(t *testing.T) {
	spark, wh := sparkEngine(t)
	root := interoptest.Root()
	for _, c := range []struct{ name, partition string }{
		{"months", "PARTITIONED BY (months(ts))"},
		{"days_bucket", "PARTITIONED BY (days(ts), bucket(4, host))"},
		{"identity_host", "PARTITIONED BY (host)"},
		{"unpartitioned", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ns := "adopt_" + c.name
			s := &scenario{
				t: t, dir: filepath.Join(wh, ns, "t"), name: "cat." + ns + ".t", ident: ns + ".t", catalog: "cat", spark: spark,
				tl:      build(t, root, "./cmd/timelake", "timelake"),
				py:      interoptest.Python(t),
				readers: interoptest.Readers(t),
				want:    model{},
			}
			adoptScenario(t, s, c.partition)
		})
	}
}

func adoptScenario(t *testing.T, s *scenario, partition string) {
	spark := s.spark
	sparkRows := batch(2, []string{"spark-1", "h0"}, 6)
	steps := []struct {
		name    string
		who     string
		do      func() error
		adopted bool // the full check (timelake latest needs the key)
	}{
		{"spark CREATE TABLE … " + partition + " + INSERT", "spark", func() error {
			if _, err := spark.SQL(fmt.Sprintf("CREATE TABLE %s (ts timestamp, host string, cpu double, mem bigint) USING iceberg %s TBLPROPERTIES ('format-version'='2')", s.name, partition)); err != nil {
				return err
			}
			return s.sparkInsertUserColumns(sparkRows)
		}, false},
		{"timelake info and scan before adopting: rows as stored", "timelake", func() error {
			out, err := run(s.tl, "info", s.dir, "--json")
			if err != nil {
				return err
			}
			var info struct {
				Rows int64  `json:"rows"`
				Key  string `json:"key"`
			}
			if err := json.Unmarshal(out, &info); err != nil {
				return err
			}
			if info.Rows != int64(len(s.want)) || info.Key != "" {
				return fmt.Errorf("info: rows %d key %q; want %d rows and no key", info.Rows, info.Key, len(s.want))
			}
			out, err = run(s.tl, "scan", s.dir, "--format", "ndjson", "--series", "host=spark-1")
			if err != nil {
				return err
			}
			want := 0
			for _, r := range s.want.rows() {
				if r.Host == "spark-1" {
					want++
				}
			}
			if n := strings.Count(string(out), "\n"); n != want || want == 0 {
				return fmt.Errorf("scan --series host=spark-1: %d rows, want %d", n, want)
			}
			if _, err := run(s.tl, "latest", s.dir); err == nil || !strings.Contains(err.Error(), "NOT_ADOPTED") {
				return fmt.Errorf("latest before adopting: %v, want NOT_ADOPTED", err)
			}
			return nil
		}, false},
		{"timelake adopt --suggest, then adopt --time ts --series host", "timelake", func() error {
			out, err := run(s.tl, "adopt", s.dir, "--suggest", "--json")
			if err != nil {
				return err
			}
			var ks struct {
				Time string `json:"time"`
			}
			if err := json.Unmarshal(out, &ks); err != nil || ks.Time != "ts" {
				return fmt.Errorf("adopt --suggest: %s (%v), want time ts", out, err)
			}
			out, err = run(s.tl, "adopt", s.dir, "--time", "ts", "--series", "host", "--json")
			if err != nil {
				return err
			}
			var res struct {
				WriteRefusal string `json:"write-refusal"`
			}
			if err := json.Unmarshal(out, &res); err != nil || res.WriteRefusal != "" {
				return fmt.Errorf("adopt: %s (%v), want writable", out, err)
			}
			return nil
		}, true},
		{"timelake append", "timelake", func() error { return s.timelakeAppend(batch(3, []string{"h0", "h1", "h2"}, 12)) }, true},
		{"spark INSERT", "spark", func() error { return s.sparkInsertUserColumns(batch(4, []string{"spark-2", "h1"}, 6)) }, true},
		{"timelake maintain", "timelake", s.timelakeMaintain, true},
		{"timelake append after maintain", "timelake", func() error { return s.timelakeAppend(batch(5, []string{"h0", "h3"}, 8)) }, true},
		// Spark evolves the spec between Timelake's appends: added, then
		// replaced, then dropped fields; Timelake writes the current spec.
		{"spark ADD PARTITION FIELD bucket(8, host), timelake append", "spark", func() error {
			if _, err := spark.SQL(fmt.Sprintf("ALTER TABLE %s ADD PARTITION FIELD bucket(8, host) AS host_b8", s.name)); err != nil {
				return err
			}
			return s.timelakeAppend(batch(6, []string{"h1", "h4"}, 8))
		}, true},
		{"spark REPLACE PARTITION FIELD host_b8 WITH truncate(2, host), timelake append + maintain", "spark", func() error {
			if _, err := spark.SQL(fmt.Sprintf("ALTER TABLE %s REPLACE PARTITION FIELD host_b8 WITH truncate(2, host) AS host_t2", s.name)); err != nil {
				return err
			}
			if err := s.timelakeAppend(batch(7, []string{"h2", "h5"}, 8)); err != nil {
				return err
			}
			return s.timelakeMaintain()
		}, true},
		{"spark DROP PARTITION FIELD host_t2, spark INSERT, timelake append", "spark", func() error {
			if _, err := spark.SQL(fmt.Sprintf("ALTER TABLE %s DROP PARTITION FIELD host_t2", s.name)); err != nil {
				return err
			}
			if err := s.sparkInsertUserColumns(batch(8, []string{"spark-3"}, 4)); err != nil {
				return err
			}
			return s.timelakeAppend(batch(9, []string{"h6"}, 4))
		}, true},
	}
	for i, st := range steps {
		s.step = fmt.Sprintf("%02d %s", i+1, st.name)
		before := listFiles(s.dir)
		start := time.Now()
		if err := st.do(); err != nil {
			s.fail(st.who, "%v", err)
			if i == 0 {
				t.FailNow()
			}
		}
		t.Logf("step %s (%v)", s.step, time.Since(start).Round(time.Millisecond))
		if st.adopted {
			s.check(before)
		} else {
			s.checkReaders()
		}
	}
	if len(s.failures) > 0 {
		t.Logf("adopt scenario: %d failures (step, who, what):\n%s", len(s.failures), strings.Join(s.failures, "\n"))
	}
}

// checkReaders is check without Timelake's answers and Spark's latest: a
// table not adopted yet has no key for timelake latest.
func (s *scenario) checkReaders() {
	s.t.Helper()
	meta, _, err := currentMetadata(s.dir)
	if err != nil {
		s.fail("table", "no current version: %v", err)
		return
	}
	want := s.want.summary()
	for _, r := range s.readers {
		got, err := interoptest.Run(r, []string{meta}, query)
		switch {
		case err != nil:
			s.fail(string(r), "%v", err)
		case got[0].Error != "" && s.known != nil && s.known(string(r), got[0].Error):
			s.t.Logf("  %s: known limitation: %s", r, firstLines(got[0].Error, 1))
		case got[0].Error != "":
			s.fail(string(r), "read error: %s", got[0].Error)
		default:
			for _, d := range interoptest.Diff(want, got[0]) {
				s.fail(string(r), "%s", d)
			}
		}
	}
}
