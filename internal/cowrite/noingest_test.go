package cowrite

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
)

// sparkInsertUserColumns is the plain INSERT a Spark user writes: a column
// list of only the user's columns (it works on a table created with
// --no-ingest-column, which has no _ingest_ts for Spark to ask for).
func (s *scenario) sparkInsertUserColumns(rs []row) error {
	var vals []string
	for _, r := range rs {
		vals = append(vals, "("+sparkValues(r)+")")
	}
	if _, err := s.spark.SQL(fmt.Sprintf("INSERT INTO %s (ts, host, cpu, mem) VALUES %s", s.name, strings.Join(vals, ", "))); err != nil {
		return err
	}
	s.want.add(rs)
	return nil
}

// TestNoIngestScenario: a table created with --no-ingest-column, written by
// Spark with only the user's columns (INSERT with a column list, INSERT BY
// NAME, a DataFrame append, MERGE … UPDATE SET) and by Timelake, with
// duplicate keys across commits (the later commit wins once Timelake
// compacts); after every step every reader agrees with the model (as
// TestScenario checks).
func TestNoIngestScenario(t *testing.T) {
	spark, wh := sparkEngine(t)
	root := interoptest.Root()
	s := &scenario{
		t: t, dir: filepath.Join(wh, "noingest", "t"), name: "cat.noingest.t", ident: "noingest.t", catalog: "cat", spark: spark,
		tl:      build(t, root, "./cmd/timelake", "timelake"),
		py:      interoptest.Python(t),
		readers: interoptest.Readers(t),
		want:    model{},
	}
	tlHosts := []string{"h0", "h1", "h2", "h3"}
	// dup is a later row for each key of rs: another cpu and mem.
	dup := func(rs []row, k int) []row {
		out := make([]row, len(rs))
		for i, r := range rs {
			m := int64(1)<<52 + int64(k)*1000 + int64(i)
			out[i] = row{TS: r.TS, Host: r.Host, CPU: float64(k*100+i) / 4, Mem: &m}
		}
		return out
	}
	first := batch(1, tlHosts, 12)
	sparkRows := batch(2, []string{"spark-1", "h0"}, 6)
	steps := []struct {
		name string
		who  string
		do   func() error
	}{
		{"timelake create --no-ingest-column + append", "timelake", func() error {
			if _, err := run(s.tl, "create", s.dir, "--time", "ts", "--series", "host", "--column", "cpu:double", "--column", "mem:long?", "--no-ingest-column"); err != nil {
				return err
			}
			if has, _ := s.hasIngestTS(); has {
				return fmt.Errorf("the table has _ingest_ts")
			}
			return s.timelakeAppend(first)
		}},
		{"spark INSERT INTO t (ts, host, cpu, mem)", "spark", func() error { return s.sparkInsertUserColumns(sparkRows) }},
		{"spark INSERT INTO t BY NAME", "spark", func() error {
			rs := batch(12, []string{"spark-3"}, 3)
			var sel []string
			for _, r := range rs {
				sel = append(sel, fmt.Sprintf("SELECT CAST(%s AS BIGINT) AS mem, CAST(%v AS DOUBLE) AS cpu, '%s' AS host, %s AS ts", strings.ToUpper(fmtMem(r.Mem)), r.CPU, r.Host, sparkTS(r.TS)))
			}
			if _, err := spark.SQL(fmt.Sprintf("INSERT INTO %s BY NAME %s", s.name, strings.Join(sel, " UNION ALL "))); err != nil {
				return err
			}
			s.want.add(rs)
			return nil
		}},
		{"spark DataFrame append (writeTo.append), user's columns only", "spark", func() error {
			rs := batch(11, []string{"spark-2", "h3"}, 4)
			var vals []string
			for _, r := range rs {
				vals = append(vals, "("+sparkValues(r)+")")
			}
			if _, err := spark.Call(map[string]any{"op": "df_append", "table": s.name,
				"sql": "SELECT * FROM VALUES " + strings.Join(vals, ", ") + " AS v(ts, host, cpu, mem)"}); err != nil {
				return err
			}
			s.want.add(rs)
			return nil
		}},
		{"spark MERGE … UPDATE SET", "spark", func() error {
			var src []string
			var upd []row
			for _, r := range s.want.rows() {
				if r.Host == "h2" && len(upd) < 2 {
					upd = append(upd, r)
				}
			}
			for _, r := range upd {
				src = append(src, fmt.Sprintf("SELECT 'h2' AS host, %s AS ts, CAST(%v AS DOUBLE) AS cpu", sparkTS(r.TS), r.CPU+1000.25))
			}
			q := fmt.Sprintf("MERGE INTO %s t USING (%s) s ON t.host = s.host AND t.ts = s.ts WHEN MATCHED THEN UPDATE SET t.cpu = s.cpu", s.name, strings.Join(src, " UNION ALL "))
			if _, err := spark.SQL(q); err != nil {
				return err
			}
			for _, r := range upd {
				r.CPU += 1000.25
				s.want[r.key()] = r
			}
			return nil
		}},
		{"timelake append", "timelake", func() error { return s.timelakeAppend(batch(3, tlHosts, 12)) }},
		{"timelake maintain", "timelake", s.timelakeMaintain},
		// Duplicates across commits: outside readers see both rows until a
		// compaction, so each such step ends with Timelake's maintain.
		{"spark INSERT of Timelake's keys, then timelake maintain: Spark's rows win", "spark", func() error {
			if err := s.sparkInsertUserColumns(dup(first[:4], 20)); err != nil {
				return err
			}
			return s.timelakeMaintain()
		}},
		{"timelake append of Spark's keys, then timelake maintain: Timelake's rows win", "timelake", func() error {
			if err := s.timelakeAppend(dup(sparkRows[:3], 21)); err != nil {
				return err
			}
			return s.timelakeMaintain()
		}},
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
		s.check(before)
	}
	if len(s.failures) > 0 {
		t.Logf("no-ingest scenario: %d failures (step, who, what):\n%s", len(s.failures), strings.Join(s.failures, "\n"))
	}
}
