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

// TestFormatV3WithSpark: a format 3 table written by Spark (Iceberg 1.10)
// and Timelake in turn — one Spark created and Timelake adopted, one
// Timelake created (--format-version 3) — read alike by every reader
// after every step (DuckDB 1.4 and 1.5, pyiceberg, iceberg-go, Spark,
// timelake), with Spark's _row_id distinct over all rows and each row's
// id unchanged by Timelake's appends and compaction.
func TestFormatV3WithSpark(t *testing.T) {
	spark, wh := sparkEngine(t)
	root := interoptest.Root()
	for _, created := range []string{"spark", "timelake"} {
		t.Run("created by "+created, func(t *testing.T) {
			ns := "v3_" + created
			s := &scenario{
				t: t, dir: filepath.Join(wh, ns, "t"), name: "cat." + ns + ".t", ident: ns + ".t", catalog: "cat", spark: spark,
				tl:      build(t, root, "./cmd/timelake", "timelake"),
				py:      interoptest.Python(t),
				readers: append(interoptest.Readers(t), interoptest.DuckDBV3),
				want:    model{},
			}
			ids := map[string]int64{} // row key → Spark's _row_id, once seen
			checkIDs := func() error {
				rs, err := spark.SQL(fmt.Sprintf("SELECT host, CAST(unix_micros(ts) AS BIGINT) AS us, _row_id AS id FROM %s", s.name))
				if err != nil {
					return err
				}
				seen := map[int64]string{}
				for _, r := range rs {
					k := fmt.Sprintf("%v|%v", r["host"], r["us"])
					id, ok := asInt64(r["id"])
					if !ok {
						return fmt.Errorf("row %s: _row_id %v", k, r["id"])
					}
					if other, dup := seen[id]; dup {
						return fmt.Errorf("_row_id %d is %s and %s", id, k, other)
					}
					seen[id] = k
					if was, ok := ids[k]; ok && was != id {
						return fmt.Errorf("row %s: _row_id %d, was %d", k, id, was)
					}
					ids[k] = id
				}
				if len(rs) != len(s.want) {
					return fmt.Errorf("spark read %d rows with _row_id, want %d", len(rs), len(s.want))
				}
				return nil
			}
			var steps []struct {
				name string
				do   func() error
			}
			add := func(name string, do func() error) {
				steps = append(steps, struct {
					name string
					do   func() error
				}{name, do})
			}
			if created == "spark" {
				add("spark CREATE TABLE … format-version 3 + INSERT", func() error {
					if _, err := spark.SQL(fmt.Sprintf("CREATE TABLE %s (ts timestamp, host string, cpu double, mem bigint) USING iceberg PARTITIONED BY (days(ts)) TBLPROPERTIES ('format-version'='3')", s.name)); err != nil {
						return err
					}
					return s.sparkInsertUserColumns(batch(2, []string{"spark-1", "h0"}, 6))
				})
				add("timelake adopt", func() error {
					_, err := run(s.tl, "adopt", s.dir, "--time", "ts", "--series", "host")
					return err
				})
			} else {
				add("timelake create --format-version 3, append", func() error {
					if _, err := run(s.tl, "create", s.dir, "--time", "ts", "--series", "host", "--column", "cpu:double", "--column", "mem:long?", "--format-version", "3", "--no-ingest-column"); err != nil {
						return err
					}
					return s.timelakeAppend(batch(2, []string{"h0", "h1"}, 6))
				})
			}
			add("timelake append, spark _row_id", func() error {
				if err := s.timelakeAppend(batch(3, []string{"h0", "h1", "h2"}, 12)); err != nil {
					return err
				}
				return checkIDs()
			})
			add("spark INSERT, spark _row_id", func() error {
				if err := s.sparkInsertUserColumns(batch(4, []string{"spark-2", "h1"}, 6)); err != nil {
					return err
				}
				return checkIDs()
			})
			add("timelake maintain (compaction), spark _row_id unchanged", func() error {
				if err := s.timelakeMaintain(); err != nil {
					return err
				}
				return checkIDs()
			})
			add("timelake delete --series host=h1, spark _row_id of the rows left", func() error {
				if _, err := run(s.tl, "delete", s.dir, "--series", "host=h1"); err != nil {
					return err
				}
				s.want.deleteHost("h1")
				return checkIDs()
			})
			add("spark DELETE (merge-on-read where Spark chooses it) of host h0, timelake append", func() error {
				if _, err := spark.SQL(fmt.Sprintf("DELETE FROM %s WHERE host = 'h0'", s.name)); err != nil {
					return err
				}
				s.want.deleteHost("h0")
				return s.timelakeAppend(batch(6, []string{"h2", "h4"}, 6))
			})
			add("timelake append after maintain, spark _row_id", func() error {
				if err := s.timelakeAppend(batch(5, []string{"h0", "h3"}, 8)); err != nil {
					return err
				}
				return checkIDs()
			})
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
				t.Logf("step %s (%v)", s.step, time.Since(start).Round(time.Millisecond))
				if created == "spark" && i == 0 {
					s.checkReaders() // not adopted yet: no timelake latest
					continue
				}
				s.check(before)
			}
			if len(s.failures) > 0 {
				t.Logf("format 3 scenario: %d failures:\n%s", len(s.failures), strings.Join(s.failures, "\n"))
			}
		})
	}
}

// asInt64 reads a JSON number Spark returned.
func asInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case float64:
		return int64(n), true
	case int64:
		return n, true
	case int:
		return int64(n), true
	}
	return 0, false
}
