package cowrite

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
)

// scenario is the state of TestScenario: the table, the tools, the model of
// what the table must hold, and the failures so far.
type scenario struct {
	t        *testing.T
	dir      string // the table directory, warehouse/ns/t
	name     string // its Spark name, catalog.ns.t
	ident    string // its name in the catalog, ns.t (for procedures)
	catalog  string
	tl       string // the timelake CLI
	goAppend string // interop/cmd/icebergappend
	py       string // the readers' venv python (pyiceberg)
	spark    *interoptest.Spark
	readers  []interoptest.Reader
	want     model
	step     string
	failures []string
	tmp      int
	// known, when set, says a reader's read error is a known limitation
	// of that reader for this table (logged, not failed).
	known func(reader, err string) bool
}

var query = interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu", "mem"}}

// fail records a failure of the current step: who (a writer or a reader)
// and what.
func (s *scenario) fail(who, format string, a ...any) {
	s.t.Helper()
	msg := fmt.Sprintf(format, a...)
	s.failures = append(s.failures, fmt.Sprintf("%-44s %-11s %s", s.step, who, firstLines(msg, 4)))
	s.t.Errorf("step %q: %s: %s", s.step, who, msg)
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, " ⏎ ")
}

func (s *scenario) tempFile(ext string, b []byte) string {
	s.tmp++
	p := filepath.Join(s.t.TempDir(), fmt.Sprintf("in-%d%s", s.tmp, ext))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

func tsString(us int64) string { return time.UnixMicro(us).UTC().Format(time.RFC3339Nano) }

func sparkTS(us int64) string {
	return "TIMESTAMP '" + time.UnixMicro(us).UTC().Format("2006-01-02 15:04:05.000000") + "'"
}

// ---------------------------------------------------------------- writers

func (s *scenario) timelakeAppend(rs []row) error {
	var b strings.Builder
	b.WriteString("ts,host,cpu,mem\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "%s,%s,%v,%s\n", tsString(r.TS), r.Host, r.CPU, strings.ReplaceAll(fmtMem(r.Mem), "null", ""))
	}
	if _, err := run(s.tl, "append", s.dir, s.tempFile(".csv", []byte(b.String()))); err != nil {
		return err
	}
	s.want.add(rs)
	return nil
}

func (s *scenario) timelakeMaintain() error {
	out, err := run(s.tl, "maintain", s.dir, "--json")
	s.t.Logf("  timelake maintain: %s", firstLines(string(out), 30))
	return err
}

// hasIngestTS reports whether the current schema has _ingest_ts, and
// whether it is required: a writer that does not know it can write only
// when it is optional or absent.
func (s *scenario) hasIngestTS() (has, required bool) {
	path, _, err := currentMetadata(s.dir)
	if err != nil {
		return false, false
	}
	b, _ := os.ReadFile(path)
	var md struct {
		Current int `json:"current-schema-id"`
		Schemas []struct {
			ID     int `json:"schema-id"`
			Fields []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"fields"`
		} `json:"schemas"`
	}
	json.Unmarshal(b, &md)
	for _, sc := range md.Schemas {
		if sc.ID == md.Current {
			for _, f := range sc.Fields {
				if f.Name == "_ingest_ts" {
					return true, f.Required
				}
			}
		}
	}
	return false, false
}

// foreignWrite runs an outside writer with only the user's columns, as a
// user who does not know Timelake's conventions would. If that fails it is
// a failure of the step; when the table requires _ingest_ts, the write is
// retried with it (as the writer's wall clock) so the later steps still
// run, and the log says so.
func (s *scenario) foreignWrite(who string, rs []row, write func(rs []row, ingest bool) error) error {
	err := write(rs, false)
	if err == nil {
		s.want.add(rs)
		return nil
	}
	has, req := s.hasIngestTS()
	hint := ""
	if who == "spark" && has && !req && strings.Contains(err.Error(), "CANNOT_FIND_DATA") {
		hint = " (Spark 3.5 leaves out an optional column only on a table with write.spark.accept-any-schema=true)"
	}
	s.fail(who, "writing only the user's columns: %v%s", err, hint)
	if !has || !req {
		return nil // already reported; nothing to fall back to
	}
	if err := write(rs, true); err != nil {
		return fmt.Errorf("even with _ingest_ts set: %w", err)
	}
	s.t.Logf("  %s: fell back to writing _ingest_ts too, so the scenario goes on", who)
	s.want.add(rs)
	return nil
}

func (s *scenario) sparkInsert(rs []row, ingest bool) error {
	var vals []string
	for _, r := range rs {
		// Spark 3.5 writes every column of an Iceberg v2 table: a user who
		// does not know _ingest_ts gives NULL for it, as for any optional
		// column (README, "Other engines writing").
		v := "(" + sparkValues(r) + ", NULL"
		if ingest {
			v = "(" + sparkValues(r) + ", current_timestamp()"
		}
		vals = append(vals, v+")")
	}
	cols := "ts, host, cpu, mem, _ingest_ts"
	_, err := s.spark.SQL(fmt.Sprintf("INSERT INTO %s (%s) VALUES %s", s.name, cols, strings.Join(vals, ", ")))
	return err
}

// sparkDataFrameAppend appends rows with the DataFrame API
// (df.writeTo(t).append()), which matches columns by name: how a Spark job
// that knows only its own columns backfills.
func (s *scenario) sparkDataFrameAppend(rs []row, ingest bool) error {
	var vals []string
	for _, r := range rs {
		vals = append(vals, fmt.Sprintf("(%s, '%s', CAST(%v AS DOUBLE), CAST(%s AS BIGINT))", sparkTS(r.TS), r.Host, r.CPU, strings.ToUpper(fmtMem(r.Mem))))
	}
	sel := "SELECT *, CAST(NULL AS TIMESTAMP) AS _ingest_ts" // as in sparkInsert
	if ingest {
		sel = "SELECT *, current_timestamp() AS _ingest_ts"
	}
	_, err := s.spark.Call(map[string]any{"op": "df_append", "table": s.name,
		"sql": sel + " FROM VALUES " + strings.Join(vals, ", ") + " AS v(ts, host, cpu, mem)"})
	return err
}

func jsonRows(rs []row, ingest bool) []byte {
	var out []map[string]any
	now := tsString(time.Now().UnixMicro())
	for _, r := range rs {
		m := map[string]any{"ts": tsString(r.TS), "host": r.Host, "cpu": r.CPU, "mem": nil}
		if r.Mem != nil {
			m["mem"] = *r.Mem
		}
		if ingest {
			m["_ingest_ts"] = now
		}
		out = append(out, m)
	}
	b, _ := json.Marshal(out)
	return b
}

func (s *scenario) pyiceberg(args ...string) error {
	out, err := run(s.py, append([]string{filepath.Join(interoptest.Root(), "interop", "pywriter.py")}, args...)...)
	m, jerr := lastJSON(out)
	if jerr != nil {
		return fmt.Errorf("pywriter %s: %v", args[0], jerr)
	}
	if err != nil {
		return err
	}
	s.t.Logf("  pyiceberg %s: version %v, its own metadata file %v, published as %v", args[0], m["version"], m["pyiceberg_metadata"], m["metadata"])
	return nil
}

func (s *scenario) icebergGoAppend(rs []row, ingest bool) error {
	out, err := run(s.goAppend, "-table", s.dir, s.tempFile(".json", jsonRows(rs, ingest)))
	if _, jerr := lastJSON(out); jerr != nil {
		return fmt.Errorf("icebergappend: %v", jerr)
	}
	return err
}

// ---------------------------------------------------------------- checks

// check has every reader read the current version and compares it with
// the model: the readers' figures, Spark's, and Timelake's info and latest.
func (s *scenario) check(before map[string]bool) {
	s.t.Helper()
	meta, v, err := currentMetadata(s.dir)
	if err != nil {
		s.fail("table", "no current version: %v", err)
		return
	}
	s.t.Logf("  v%d: %s", v, snapshotNote(meta))
	s.t.Logf("  files %s", fileChanges(before, listFiles(s.dir)))
	want := s.want.summary()
	wantLatest := s.want.latest()
	q := query
	q.Latest = true
	for _, r := range s.readers {
		got, err := interoptest.Run(r, []string{meta}, q)
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
			if lat, err := latestFromRows(got[0].Latest); err != nil {
				s.fail(string(r), "latest: %v", err)
			} else {
				for _, d := range diffLatest(wantLatest, lat) {
					s.fail(string(r), "%s", d)
				}
			}
		}
	}
	agreeSparkAndTimelake(s.fail, s.spark, s.name, want, wantLatest, func(cmd string) ([]byte, error) {
		return run(s.tl, cmd, s.dir, "--json")
	})
}

// TestScenario is the co-writing scenario: Timelake, Spark, pyiceberg and
// iceberg-go write and maintain one table in turn, and after every step
// every reader (DuckDB, pyiceberg, iceberg-go, Spark SQL, `timelake info`
// and `timelake latest`) must agree with the model on rows, exact sums,
// distinct series, time range and the latest row per series. A step that
// fails is reported (step, who, got vs want) and the scenario goes on, so
// one run shows everything that breaks; the list is logged at the end.
//
// It runs once per form of the Spark catalog's warehouse (see
// interoptest.Spark): the locations Spark writes differ.
func TestScenario(t *testing.T) {
	spark, wh := sparkEngine(t)
	for _, c := range []struct{ name, catalog, ns string }{
		{"warehouse-file-uri", "cat", "uri"},
		{"warehouse-plain-path", "catp", "path"},
	} {
		t.Run(c.name, func(t *testing.T) {
			scenarioRun(t, spark, filepath.Join(wh, c.ns, "t"), c.catalog, c.ns+".t")
		})
	}
}

func scenarioRun(t *testing.T, spark *interoptest.Spark, dir, catalog, ident string) {
	root := interoptest.Root()
	s := &scenario{
		t: t, dir: dir, name: catalog + "." + ident, ident: ident, catalog: catalog, spark: spark,
		tl:       build(t, root, "./cmd/timelake", "timelake"),
		goAppend: build(t, filepath.Join(root, "interop"), "./cmd/icebergappend", "icebergappend"),
		py:       interoptest.Python(t),
		readers:  interoptest.Readers(t),
		want:     model{},
	}
	now := func() time.Time { return time.Now().UTC() }
	tlHosts := []string{"h0", "h1", "h2", "h3"}
	steps := []struct {
		name string
		who  string
		do   func() error
	}{
		{"timelake create + append", "timelake", func() error {
			if _, err := run(s.tl, "create", s.dir, "--time", "ts", "--series", "host", "--column", "cpu:double", "--column", "mem:long?"); err != nil {
				return err
			}
			return s.timelakeAppend(batch(1, tlHosts, 12))
		}},
		{"spark INSERT", "spark", func() error {
			return s.foreignWrite("spark", batch(2, []string{"spark-1", "h0"}, 6), s.sparkInsert)
		}},
		{"spark DataFrame append (writeTo.append)", "spark", func() error {
			return s.foreignWrite("spark", batch(11, []string{"spark-2", "h3"}, 4), s.sparkDataFrameAppend)
		}},
		{"timelake append", "timelake", func() error { return s.timelakeAppend(batch(3, tlHosts, 12)) }},
		{"spark rewrite_data_files", "spark", func() error {
			rs, err := spark.SQL(fmt.Sprintf("CALL %s.system.rewrite_data_files(table => '%s', options => map('rewrite-all', 'true'))", catalog, ident))
			t.Logf("  rewrite_data_files: %v", rs)
			return err
		}},
		{"spark expire_snapshots", "spark", func() error {
			rs, err := spark.SQL(fmt.Sprintf("CALL %s.system.expire_snapshots(table => '%s', older_than => %s, retain_last => 1)", catalog, ident, sparkTS(now().UnixMicro())))
			t.Logf("  expire_snapshots: %v", rs)
			return err
		}},
		{"spark remove_orphan_files (Java API, cut-off now)", "spark", func() error {
			deleted, err := spark.RemoveOrphans(s.name, now().Add(time.Second).UnixMilli())
			t.Logf("  deleteOrphanFiles deleted %d: %v", len(deleted), deleted)
			return err
		}},
		{"timelake append (after Spark maintenance)", "timelake", func() error { return s.timelakeAppend(batch(4, tlHosts, 12)) }},
		{"timelake maintain", "timelake", s.timelakeMaintain},
		{"spark DELETE (merge-on-read)", "spark", func() error {
			if err := sparkDeleteHost(spark, s.name, "h1"); err != nil {
				return err
			}
			s.want.deleteHost("h1")
			return nil
		}},
		{"spark MERGE (merge-on-read: update + delete)", "spark", func() error {
			// h3 loses its latest row (its latest moves back); two h2 rows
			// get a new cpu.
			lat := s.want.latest()
			var src []string
			var h2 []row
			for _, r := range s.want.rows() {
				if r.Host == "h2" && len(h2) < 2 {
					h2 = append(h2, r)
				}
			}
			src = append(src, fmt.Sprintf("SELECT 'h3' AS host, %s AS ts, CAST(NULL AS DOUBLE) AS cpu", sparkTS(lat["h3"].TS)))
			for _, r := range h2 {
				src = append(src, fmt.Sprintf("SELECT 'h2', %s, CAST(%v AS DOUBLE)", sparkTS(r.TS), r.CPU+1000.25))
			}
			q := fmt.Sprintf("MERGE INTO %s t USING (%s) s ON t.host = s.host AND t.ts = s.ts "+
				"WHEN MATCHED AND s.cpu IS NULL THEN DELETE WHEN MATCHED THEN UPDATE SET t.cpu = s.cpu", s.name, strings.Join(src, " UNION ALL "))
			if _, err := spark.SQL(q); err != nil {
				return err
			}
			delete(s.want, lat["h3"].key())
			for _, r := range h2 {
				r.CPU += 1000.25
				s.want[r.key()] = r
			}
			return nil
		}},
		{"timelake append (after position deletes)", "timelake", func() error { return s.timelakeAppend(batch(5, tlHosts, 12)) }},
		{"timelake maintain (after position deletes)", "timelake", s.timelakeMaintain},
		{"pyiceberg append", "pyiceberg", func() error {
			return s.foreignWrite("pyiceberg", batch(6, []string{"py-1", "h0"}, 6), func(rs []row, ingest bool) error {
				return s.pyiceberg("append", s.dir, s.tempFile(".json", jsonRows(rs, ingest)))
			})
		}},
		{"pyiceberg overwrite (host = 'py-1')", "pyiceberg", func() error {
			rs := batch(7, []string{"py-1"}, 3)
			_, req := s.hasIngestTS()
			if err := s.pyiceberg("overwrite", s.dir, s.tempFile(".json", jsonRows(rs, req)), "--filter", "host = 'py-1'"); err != nil {
				return err
			}
			for k, r := range s.want {
				if r.Host == "py-1" {
					delete(s.want, k)
				}
			}
			s.want.add(rs)
			return nil
		}},
		{"pyiceberg delete (host = 'h2')", "pyiceberg", func() error {
			if err := s.pyiceberg("delete", s.dir, "--filter", "host = 'h2'"); err != nil {
				return err
			}
			for k, r := range s.want {
				if r.Host == "h2" {
					delete(s.want, k)
				}
			}
			return nil
		}},
		{"pyiceberg expire_snapshots", "pyiceberg", func() error { return s.pyiceberg("expire", s.dir) }},
		{"iceberg-go append", "iceberg-go", func() error {
			return s.foreignWrite("iceberg-go", batch(8, []string{"go-1", "h0"}, 6), s.icebergGoAppend)
		}},
		{"timelake append (after pyiceberg, iceberg-go)", "timelake", func() error { return s.timelakeAppend(batch(9, tlHosts, 12)) }},
		{"timelake maintain (end)", "timelake", s.timelakeMaintain},
	}
	for i, st := range steps {
		s.step = fmt.Sprintf("%02d %s", i+1, st.name)
		before := listFiles(s.dir)
		start := time.Now()
		if err := st.do(); err != nil {
			s.fail(st.who, "%v", err)
			if i == 0 {
				t.FailNow() // no table: nothing after it means anything
			}
		}
		t.Logf("step %s (%v)", s.step, time.Since(start).Round(time.Millisecond))
		s.check(before)
	}
	if len(s.failures) > 0 {
		t.Logf("scenario: %d failures (step, who, what):\n%s", len(s.failures), strings.Join(s.failures, "\n"))
	}
}
