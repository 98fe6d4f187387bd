package cowrite

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/rollupdiff"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// rollupAggs are the rollup's aggregates, as its definition stores them.
const rollupAggs = "cpu:count,sum,min,max,first,last;mem:count,sum,min,max,first,last"

// TestSparkRollup: a rollup of a table Spark co-writes is
// exact, and Spark and iceberg-go read the rollup table as a plain table.
// Timelake creates the table, appends and adds an hourly rollup; Spark
// INSERTs new rows, a late row for an hour already rolled up (without
// _ingest_ts, as a user who does not know it) and a duplicate key of a
// Timelake row (with _ingest_ts); Timelake appends again (a late row too);
// Spark renames the aggregated column and the series column and inserts
// by the new names.
// After each refresh the rollup (Timelake's scan of it) equals DuckDB's
// GROUP BY over the deduplicated raw table (internal/rollupdiff). Then the
// rollup table is compacted (one row per key) and Spark's SELECT and
// iceberg-go's scan of it give Timelake's rows.
func TestSparkRollup(t *testing.T) {
	spark, wh := sparkEngine(t)
	tl := build(t, interoptest.Root(), "./cmd/timelake", "timelake")
	ref := rollupdiff.StartRef(t)
	ctx := context.Background()
	dir, name := filepath.Join(wh, "rollup", "t"), "cat.rollup.t"
	rdir, rname := dir+"__rollup_h", "cat.rollup.t__rollup_h" // a sibling: the same namespace for Spark

	tlAppend := func(rs []row) {
		t.Helper()
		var b strings.Builder
		b.WriteString("ts,host,cpu,mem\n")
		for _, r := range rs {
			fmt.Fprintf(&b, "%s,%s,%v,%s\n", tsString(r.TS), r.Host, r.CPU, strings.ReplaceAll(fmtMem(r.Mem), "null", ""))
		}
		f := filepath.Join(t.TempDir(), "rows.csv")
		if err := writeFile(f, b.String()); err != nil {
			t.Fatal(err)
		}
		if _, err := run(tl, "append", dir, f); err != nil {
			t.Fatal(err)
		}
	}
	sparkInsert := func(rs []row, ingest string) {
		t.Helper()
		var vals []string
		for _, r := range rs {
			vals = append(vals, "("+sparkValues(r)+", "+ingest+")")
		}
		if _, err := spark.SQL(fmt.Sprintf("INSERT INTO %s (ts, host, cpu, mem, _ingest_ts) VALUES %s", name, strings.Join(vals, ", "))); err != nil {
			t.Fatalf("spark insert: %v", err)
		}
	}
	openRollup := func() *table.Table {
		t.Helper()
		st, err := dirstore.Open(rdir)
		if err != nil {
			t.Fatal(err)
		}
		ru, err := table.Open(ctx, st, testenv.New(71))
		if err != nil {
			t.Fatal(err)
		}
		return ru
	}
	// refresh runs `timelake rollup refresh` and checks the rollup against
	// DuckDB's GROUP BY over the raw table.
	// After a rename, DuckDB's answer is asked by the raw table's names
	// (aggs) and its columns renamed to the rollup's (as).
	refresh := func(step, aggs string, as map[string]string) []map[string]any {
		t.Helper()
		out, err := run(tl, "rollup", "refresh", dir, "--json")
		if err != nil {
			t.Fatalf("%s: rollup refresh: %v", step, err)
		}
		var res []table.RefreshResult
		if err := json.Unmarshal(out, &res); err != nil || len(res) != 1 || !res[0].Committed {
			t.Fatalf("%s: rollup refresh: %s, %v", step, out, err)
		}
		md, _, err := currentMetadata(dir)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ref.Ask(md, 3_600_000_000, aggs)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		for _, m := range want {
			for from, to := range as {
				m[to] = m[from]
				delete(m, from)
			}
		}
		ru := openRollup()
		got := rollupdiff.ScanRows(t, ru)
		if d := rollupdiff.Diff(got, rollupdiff.Typed(ru.Schema(), want)); d != "" {
			t.Fatalf("%s: the rollup differs from DuckDB's GROUP BY: %s", step, d)
		}
		t.Logf("%s: %s refresh, %d rows written; the rollup's %d rows equal DuckDB's", step, res[0].Mode, res[0].Rows, len(got))
		return got
	}

	if _, err := run(tl, "create", dir, "--time", "ts", "--series", "host", "--column", "cpu:double", "--column", "mem:long?"); err != nil {
		t.Fatal(err)
	}
	first := batch(1, []string{"h0", "h1", "h2"}, 30)
	tlAppend(first)
	if out, err := run(tl, "rollup", "add", dir, "h", "--every", "1h", "--agg", "cpu:count,sum,min,max,first,last", "--agg", "mem:count,sum,min,max,first,last"); err != nil {
		t.Fatalf("rollup add: %v", err)
	} else if !strings.Contains(string(out), rdir) {
		t.Fatalf("rollup add: %s, want the table at %s", out, rdir)
	}
	refresh("timelake append", rollupAggs, nil)

	// Spark: new rows and a late row (second 30 of a rolled-up hour, which
	// no other row has) without _ingest_ts; a duplicate key of a Timelake
	// row, new values, with it.
	late := row{TS: first[0].TS + 30_000_000, Host: first[0].Host, CPU: -7.25}
	sparkInsert(append(batch(2, []string{"h1", "spark-0"}, 8), late), "NULL")
	dup := first[4]
	dup.CPU, dup.Mem = 1234.5, nil
	sparkInsert([]row{dup}, "current_timestamp()")
	got := refresh("spark INSERT: new, late and duplicate rows", rollupAggs, nil)
	if !slices.ContainsFunc(got, func(m map[string]any) bool { return m["cpu_min"] == -7.25 }) {
		t.Fatal("the late row Spark inserted is not in the rollup")
	}
	// The duplicate replaced its row: the bucket still has 10 rows.
	if !slices.ContainsFunc(got, func(m map[string]any) bool {
		return m["host"] == dup.Host && m["cpu_max"] == dup.CPU && m["row_count"] == int64(10) && m["mem_count"] == int64(7)
	}) {
		t.Fatalf("the duplicate Spark inserted did not replace its row in the rollup: %v", got)
	}

	// Timelake again, with a late row of its own.
	more := batch(3, []string{"h0", "h2"}, 10)
	more = append(more, row{TS: first[1].TS + 15_000_000, Host: first[1].Host, CPU: 99.75})
	tlAppend(more)
	refresh("timelake append after Spark's", rollupAggs, nil)

	// Spark renames the aggregated column cpu and the series column host
	// (ALTER TABLE RENAME COLUMN) and inserts a late row by the new names:
	// the rollup follows by field id, its columns keep their names.
	for _, q := range []string{"ALTER TABLE %s RENAME COLUMN cpu TO cpu_pct", "ALTER TABLE %s RENAME COLUMN host TO hostname"} {
		if _, err := spark.SQL(fmt.Sprintf(q, name)); err != nil {
			t.Fatalf("spark %s: %v", q, err)
		}
	}
	if _, err := spark.SQL(fmt.Sprintf("INSERT INTO %s (ts, hostname, cpu_pct, mem, _ingest_ts) VALUES (%s, NULL)", name,
		sparkValues(row{TS: first[2].TS + 45_000_000, Host: first[2].Host, CPU: -99.5})),
	); err != nil {
		t.Fatalf("spark insert by the new names: %v", err)
	}
	renamed := map[string]string{"hostname": "host"}
	for _, f := range []string{"count", "sum", "min", "max", "first", "last"} {
		renamed["cpu_pct_"+f] = "cpu_" + f
	}
	want := refresh("spark RENAME COLUMN cpu, host + INSERT", strings.ReplaceAll(rollupAggs, "cpu:", "cpu_pct:"), renamed)
	if !slices.ContainsFunc(want, func(m map[string]any) bool { return m["cpu_min"] == -99.5 }) {
		t.Fatal("the row Spark inserted after its rename is not in the rollup")
	}

	// One row per key in the rollup table (a compaction drops the rows
	// superseded by later refreshes), then the plain readers.
	ru := openRollup()
	if err := ru.SetProperties(ctx, map[string]string{"timelake.compact-min-files": "2"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ru.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
		t.Fatal(err)
	}
	if got := rollupdiff.ScanRows(t, ru); rollupdiff.Diff(got, want) != "" {
		t.Fatalf("the rollup's compaction changed its rows: %s", rollupdiff.Diff(got, want))
	}
	plain := func(reader string, rs []map[string]any) {
		t.Helper()
		got := sortRollupRows(rollupdiff.Typed(ru.Schema(), rs))
		if len(got) > 0 && len(got[0]) != len(ru.Schema().Fields) {
			t.Errorf("%s reads columns %v, want the rollup's %d", reader, slices.Sorted(maps.Keys(got[0])), len(ru.Schema().Fields))
		}
		if d := rollupdiff.Diff(got, want); d != "" {
			t.Errorf("%s reads the rollup table differently from Timelake's scan: %s", reader, d)
		} else {
			t.Logf("%s reads the rollup table's %d rows as Timelake's scan does", reader, len(got))
		}
	}
	rs, err := spark.SQL("SELECT * FROM " + rname)
	if err != nil {
		t.Fatalf("spark: %v", err)
	}
	plain("spark", rs)
	rs, err = icebergGoRows(ru, rdir)
	if err != nil {
		t.Fatalf("iceberg-go: %v", err)
	}
	plain("iceberg-go", rs)
}

// icebergGoRows reads every row of a rollup table (one row per key: after
// a compaction) with iceberg-go: its per-series latest rows, the series
// being the rollup's series columns and bucket, are then every row; the
// summary's row count says none was left out.
func icebergGoRows(ru *table.Table, dir string) ([]map[string]any, error) {
	sch := ru.Schema()
	q := interoptest.Query{Time: sch.TimeField().Name, Latest: true}
	for _, s := range sch.Series {
		q.Series = append(q.Series, sch.Fields[s].Name)
	}
	q.Series = append(q.Series, sch.TimeField().Name)
	for i, f := range sch.Fields {
		if i != sch.Time && !slices.Contains(sch.Series, i) {
			q.Sums = append(q.Sums, f.Name)
		}
	}
	md := filepath.Join(dir, "metadata", fmt.Sprintf("v%d.metadata.json", ru.Version()))
	out, err := interoptest.Run(interoptest.IcebergGo, []string{md}, q)
	if err != nil {
		return nil, err
	}
	s := out[0]
	if s.Error != "" {
		return nil, fmt.Errorf("%s", s.Error)
	}
	if int64(len(s.Latest)) != s.Rows {
		return nil, fmt.Errorf("%d rows, %d keys: not one row per key", s.Rows, len(s.Latest))
	}
	for _, m := range s.Latest {
		m[sch.TimeField().Name] = m["time_us"].(json.Number)
		delete(m, "time_us")
	}
	return s.Latest, nil
}

// sortRollupRows sorts rows of the test's rollup by (host, bucket), the
// order of Timelake's scan and DuckDB's answer.
func sortRollupRows(rs []map[string]any) []map[string]any {
	slices.SortFunc(rs, func(a, b map[string]any) int {
		if c := strings.Compare(fmt.Sprint(a["host"]), fmt.Sprint(b["host"])); c != 0 {
			return c
		}
		x, _ := a["bucket"].(int64)
		y, _ := b["bucket"].(int64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return rs
}
