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

// FixturesOutEnv names a directory to copy the generated fixture tables
// into, as Spark left them (before any Timelake command), for other tests:
//
//	TIMELAKE_FIXTURES_OUT=/tmp/fx go test ./internal/cowrite -run TestFixtures
const FixturesOutEnv = "TIMELAKE_FIXTURES_OUT"

// fixture is a Timelake table that Spark then put in a state of the co-writing scenario:
// either one Timelake must handle (supported), or one it must refuse by
// name (UNSUPPORTED_TABLE) while its reading commands work where they can.
type fixture struct {
	name      string
	supported bool
	sql       []string // run by Spark on the table, %[1]s is its name
	pyAppend  bool     // then pyiceberg (pyarrow's Parquet writer) appends 3 rows
}

// insertSQL is a Spark INSERT of three rows with the value of _ingest_ts
// given (the table still requires it); extra is more columns and values.
func insertSQL(extraCols, extraVals string) string {
	var vals []string
	for _, r := range batch(20, []string{"s0", "s1", "s2"}, 3) {
		vals = append(vals, fmt.Sprintf("(%s, current_timestamp()%s)", sparkValues(r), extraVals))
	}
	return "INSERT INTO %[1]s (ts, host, cpu, mem, _ingest_ts" + extraCols + ") VALUES " + strings.Join(vals, ", ")
}

var fixtures = []fixture{
	{name: "format-v3", sql: []string{"ALTER TABLE %[1]s SET TBLPROPERTIES ('format-version'='3')", insertSQL("", "")}},
	{name: "v3-deletion-vectors", sql: []string{
		"ALTER TABLE %[1]s SET TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read')",
		"DELETE FROM %[1]s WHERE host = 'h1'"}},
	{name: "partition-bucket-host", sql: []string{"ALTER TABLE %[1]s ADD PARTITION FIELD bucket(4, host)", insertSQL("", "")}},
	{name: "partition-identity-host", sql: []string{"ALTER TABLE %[1]s ADD PARTITION FIELD host", insertSQL("", "")}},
	{name: "sort-order-cpu", sql: []string{"ALTER TABLE %[1]s WRITE ORDERED BY cpu DESC", insertSQL("", "")}},
	{name: "schema-add-column", sql: []string{"ALTER TABLE %[1]s ADD COLUMN note string", insertSQL(", note", ", 'spark'")}},
	{name: "position-deletes-v2", supported: true, sql: []string{
		"ALTER TABLE %[1]s SET TBLPROPERTIES ('write.delete.mode'='merge-on-read')",
		"DELETE FROM %[1]s WHERE host = 'h1'"}},
	{name: "codec-snappy", supported: true, sql: codecSQL("snappy")},
	{name: "codec-gzip", supported: true, sql: codecSQL("gzip")},
	{name: "codec-lz4_raw", supported: true, sql: codecSQL("lz4_raw")},
	{name: "codec-uncompressed", supported: true, sql: codecSQL("uncompressed")},
	{name: "codec-zstd", supported: true, sql: codecSQL("zstd")},
	// pyiceberg writes with the table's codec too, through pyarrow ("lz4"
	// is LZ4_RAW there).
	{name: "pyarrow-codec-snappy", supported: true, sql: pyCodecSQL("snappy"), pyAppend: true},
	{name: "pyarrow-codec-gzip", supported: true, sql: pyCodecSQL("gzip"), pyAppend: true},
	{name: "pyarrow-codec-lz4", supported: true, sql: pyCodecSQL("lz4"), pyAppend: true},
	{name: "pyarrow-codec-uncompressed", supported: true, sql: pyCodecSQL("uncompressed"), pyAppend: true},
}

func pyCodecSQL(codec string) []string {
	return []string{"ALTER TABLE %[1]s SET TBLPROPERTIES ('write.parquet.compression-codec'='" + codec + "')"}
}

func codecSQL(codec string) []string {
	return []string{"ALTER TABLE %[1]s SET TBLPROPERTIES ('write.parquet.compression-codec'='" + codec + "')", insertSQL("", "")}
}

// makeFixture creates the Timelake table warehouse/fx/<name> with 12 rows
// and has Spark run the fixture's SQL on it; it returns the table dir.
func makeFixture(t *testing.T, spark *interoptest.Spark, wh, tl string, f fixture) (string, error) {
	t.Helper()
	dir := filepath.Join(wh, "fx", strings.ReplaceAll(f.name, "-", "_"))
	if _, err := run(tl, "create", dir, "--time", "ts", "--series", "host", "--column", "cpu:double", "--column", "mem:long?"); err != nil {
		return dir, err
	}
	var b strings.Builder
	b.WriteString("ts,host,cpu,mem\n")
	for _, r := range batch(10, []string{"h0", "h1", "h2", "h3"}, 12) {
		fmt.Fprintf(&b, "%s,%s,%v,%s\n", tsString(r.TS), r.Host, r.CPU, strings.ReplaceAll(fmtMem(r.Mem), "null", ""))
	}
	in := filepath.Join(t.TempDir(), "rows.csv")
	os.WriteFile(in, []byte(b.String()), 0o644)
	if _, err := run(tl, "append", dir, in); err != nil {
		return dir, err
	}
	name := "cat.fx." + filepath.Base(dir)
	for _, q := range f.sql {
		if _, err := spark.SQL(fmt.Sprintf(q, name)); err != nil {
			return dir, fmt.Errorf("%s: %w", fmt.Sprintf(q, name), err)
		}
	}
	if f.pyAppend {
		rows := filepath.Join(t.TempDir(), "rows.json")
		os.WriteFile(rows, jsonRows(batch(21, []string{"p0", "p1"}, 3), true), 0o644)
		out, err := run(interoptest.Python(t), filepath.Join(interoptest.Root(), "interop", "pywriter.py"), "append", dir, rows)
		if _, jerr := lastJSON(out); jerr != nil || err != nil {
			return dir, fmt.Errorf("pyiceberg append: %v %v", jerr, err)
		}
	}
	return dir, nil
}

// TestFixtures makes each fixture and runs the Timelake commands on it.
// A supported state must work: info's rows and latest agree with Spark's.
// An unsupported one may only fail with [UNSUPPORTED_TABLE], and whatever
// Timelake does answer must be right; the outcome of every command is
// logged as a table, for the core engineers.
func TestFixtures(t *testing.T) {
	spark, wh := sparkEngine(t)
	tl := build(t, interoptest.Root(), "./cmd/timelake", "timelake")
	out := os.Getenv(FixturesOutEnv)
	var report []string
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			dir, err := makeFixture(t, spark, wh, tl, f)
			if err != nil {
				t.Fatalf("making the fixture: %v", err)
			}
			if out != "" {
				if err := os.CopyFS(filepath.Join(out, filepath.Base(dir)), os.DirFS(dir)); err != nil {
					t.Errorf("copying to %s: %v", out, err)
				}
			}
			name := "cat.fx." + filepath.Base(dir)
			meta, _, _ := currentMetadata(dir)
			t.Logf("%s: %s", f.name, snapshotNote(meta))
			if strings.Contains(f.name, "codec") {
				t.Logf("%s: codecs of the files Spark or pyarrow wrote: %v", f.name, codecs(t, dir))
			}
			for _, cmd := range []string{"info", "latest", "append", "maintain"} {
				res := fixtureCommand(t, spark, tl, dir, name, cmd)
				report = append(report, fmt.Sprintf("%-24s %-9s %s", f.name, cmd, firstLines(res, 2)))
				switch {
				case res == "ok":
				case f.supported:
					t.Errorf("%s: %s: %s", f.name, cmd, res)
				case !strings.Contains(res, "[UNSUPPORTED_TABLE]"):
					t.Errorf("%s: %s: want success or [UNSUPPORTED_TABLE], got: %s", f.name, cmd, res)
				}
			}
		})
	}
	t.Logf("fixtures: outcome of each Timelake command:\n%s", strings.Join(report, "\n"))
}

// fixtureCommand runs one Timelake command on a fixture and returns "ok"
// or what went wrong: its error, or how its answer differs from Spark's.
func fixtureCommand(t *testing.T, spark *interoptest.Spark, tl, dir, name, cmd string) string {
	sum, err := spark.Summary(name, query)
	if err != nil {
		return "spark: " + err.Error()
	}
	switch cmd {
	case "info":
		b, err := run(tl, "info", dir, "--json")
		if err != nil {
			return err.Error()
		}
		var info tlInfo
		json.Unmarshal(b, &info)
		if d := diffInfo(sum, info); len(d) > 0 {
			return "wrong answer: " + strings.Join(d, "; ")
		}
	case "latest":
		b, err := run(tl, "latest", dir, "--json")
		if err != nil {
			return err.Error()
		}
		var rs []map[string]any
		if err := decodeJSON(b, &rs); err != nil {
			return fmt.Sprintf("output %q: %v", b, err)
		}
		got, err := latestFromRows(rs)
		if err != nil {
			return err.Error()
		}
		srs, err := spark.Latest(name, "ts", []string{"host"}, []string{"cpu", "mem"})
		if err != nil {
			return "spark: " + err.Error()
		}
		want, _ := latestFromRows(srs)
		if d := diffLatest(want, got); len(d) > 0 {
			return "wrong answer: " + strings.Join(d, "; ")
		}
	case "append":
		var b strings.Builder
		b.WriteString("ts,host,cpu,mem\n")
		rs := batch(30, []string{"h0", "n1"}, 4)
		for _, r := range rs {
			fmt.Fprintf(&b, "%s,%s,%v,%s\n", tsString(r.TS), r.Host, r.CPU, strings.ReplaceAll(fmtMem(r.Mem), "null", ""))
		}
		in := filepath.Join(t.TempDir(), "more.csv")
		os.WriteFile(in, []byte(b.String()), 0o644)
		if _, err := run(tl, "append", dir, in); err != nil {
			return err.Error()
		}
		after, err := spark.Summary(name, query)
		if err != nil {
			return "spark after the append: " + err.Error()
		}
		if after.Rows != sum.Rows+int64(len(rs)) {
			return fmt.Sprintf("wrong answer: Spark sees %d rows after appending %d to %d", after.Rows, len(rs), sum.Rows)
		}
	case "maintain":
		// Failed or not, maintenance must leave the rows as they were (it
		// may have committed some steps before an error).
		_, merr := run(tl, "maintain", dir, "--json")
		res := "ok"
		if merr != nil {
			res = merr.Error()
		}
		after, err := spark.Summary(name, query)
		if err != nil {
			return res + "; spark after maintain: " + err.Error()
		}
		if d := interoptest.Diff(sum, after); len(d) > 0 {
			return "maintain changed the data: " + strings.Join(d, "; ") + "; maintain said: " + res
		}
		return res
	}
	return "ok"
}

// codecs maps each Parquet data file that Spark or pyarrow wrote (named
// 00000-…; Timelake's are a bare UUID) to its column chunks' compression,
// as DuckDB reads the footer: this shows the fixture has what its name
// says. One reader process per file, so only the codec fixtures ask.
func codecs(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	for f := range listFiles(dir) {
		if !strings.HasPrefix(f, "data/") || !strings.HasSuffix(f, ".parquet") || !strings.HasPrefix(filepath.Base(f), "0000") {
			continue
		}
		seen := map[string]bool{}
		var cs []string
		for _, c := range interoptest.ReadParquetMeta(t, filepath.Join(dir, f)).Columns {
			if !seen[c.Compression] {
				seen[c.Compression] = true
				cs = append(cs, c.Compression)
			}
		}
		out[filepath.Base(f)] = strings.Join(cs, ",")
	}
	return out
}
