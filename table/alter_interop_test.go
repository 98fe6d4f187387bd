package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// alterRow is one row of the alter interop table, by its first schema's names.
type alterRow struct {
	ts    int64
	host  string
	cpu   *float64
	errs  int64
	ratio *float64
	extra *int64 // the column the first alter adds
}

// expectAlter is the summary of rows under the query's names: time, series
// and each summed column named as the schema of that version names it
// (sums maps the query's name to the row's field).
func expectAlter(rs []alterRow, sums map[string]string) interoptest.Summary {
	s := interoptest.Summary{Rows: int64(len(rs)), Sums: map[string]interoptest.Sum{}, NonNull: map[string]int64{}, PlannedFiles: -1}
	series := map[string]bool{}
	for name, field := range sums {
		var f float64
		n := new(big.Int)
		isInt := field == "errs" || field == "extra"
		s.NonNull[name] = 0
		for _, r := range rs {
			var v *float64
			switch field {
			case "cpu":
				v = r.cpu
			case "ratio":
				v = r.ratio
			case "errs":
				n.Add(n, big.NewInt(r.errs))
				s.NonNull[name]++
			case "extra":
				if r.extra != nil {
					n.Add(n, big.NewInt(*r.extra))
					s.NonNull[name]++
				}
			}
			if v != nil {
				f += *v
				s.NonNull[name]++
			}
		}
		if isInt {
			s.Sums[name] = interoptest.Sum(n.String())
		} else {
			s.Sums[name] = interoptest.Sum(strconv.FormatFloat(f, 'e', -1, 64))
		}
	}
	for _, r := range rs {
		series[r.host] = true
		if s.MinTimeUS == nil || r.ts < *s.MinTimeUS {
			v := r.ts
			s.MinTimeUS = &v
		}
		if s.MaxTimeUS == nil || r.ts > *s.MaxTimeUS {
			v := r.ts
			s.MaxTimeUS = &v
		}
	}
	s.DistinctSeries = int64(len(series))
	return s
}

// TestAlterOutsideReaders: after each kind of schema change, iceberg-go,
// DuckDB and pyiceberg read the table's old files under the new schema (a
// renamed column by its new name, an added one as nulls, widened types);
// then pyiceberg inserts rows under the altered schema (it accepts our
// schema change) and every reader reads old and new files together.
func TestAlterOutsideReaders(t *testing.T) {
	if testing.Short() {
		t.Skip("outside readers: skipped with -short")
	}
	readers := interoptest.Readers(t)
	ctx := context.Background()
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "cpu", Type: schema.Double},
		{Name: "errs", Type: schema.Int, Required: true},
		{Name: "ratio", Type: schema.Float},
		{Name: "note", Type: schema.String},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, st, testenv.New(61), "file://"+dir, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	var all []alterRow
	for part := range 2 { // two appends: several old files over three days
		var ms []map[string]any
		for i := part * 30; i < part*30+30; i++ {
			r := alterRow{ts: day.Add(time.Duration(i) * time.Hour).UnixMicro(), host: fmt.Sprintf("h%d", i%3), errs: int64(i)}
			m := map[string]any{"ts": time.UnixMicro(r.ts), "host": r.host, "errs": int64(i), "note": "n"}
			if i%7 != 0 {
				v := float64(i) + 0.5
				r.cpu, m["cpu"] = &v, v
			}
			if i%5 != 0 {
				v := float64(i) / 4
				r.ratio, m["ratio"] = &v, v
			}
			all = append(all, r)
			ms = append(ms, m)
		}
		b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, q interoptest.Query, sums map[string]string, want []alterRow) {
		t.Helper()
		path := filepath.Join(dir, commit.MetadataKey(tb.Version()))
		for _, r := range readers {
			interoptest.ExpectSame(t, fmt.Sprintf("%s, %s (v%d)", r, what, tb.Version()), expectAlter(want, sums), interoptest.Summarize(t, r, path, q))
		}
	}
	alter := func(specs ...string) {
		t.Helper()
		if _, err := tb.Alter(ctx, mustChanges(t, specs...)); err != nil {
			t.Fatal(err)
		}
	}
	q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu", "errs", "ratio"}}
	check("before any change", q, map[string]string{"cpu": "cpu", "errs": "errs", "ratio": "ratio"}, all)

	alter("add extra:long")
	q.Sums = []string{"cpu", "errs", "ratio", "extra"}
	check("a column added", q, map[string]string{"cpu": "cpu", "errs": "errs", "ratio": "ratio", "extra": "extra"}, all)

	alter("rename cpu=load")
	q.Sums = []string{"load", "errs", "ratio", "extra"}
	names := map[string]string{"load": "cpu", "errs": "errs", "ratio": "ratio", "extra": "extra"}
	check("a column renamed", q, names, all)

	alter("widen errs:long", "widen ratio:double")
	check("int and float widened", q, names, all)

	alter("optional errs", "drop note")
	check("a column made optional, one dropped", q, names, all)

	alter("rename ts=time", "rename host=node")
	q.Time, q.Series = "time", []string{"node"}
	check("the time and series columns renamed", q, names, all)

	// Timelake appends under the altered schema: every column by its new name.
	var ms []map[string]any
	for i := 70; i < 80; i++ {
		r := alterRow{ts: day.Add(time.Duration(i) * time.Hour).UnixMicro(), host: fmt.Sprintf("h%d", i%5), errs: int64(i) << 34}
		cpu, ratio, extra := float64(i)*3, float64(i)/16, int64(i)*7
		r.cpu, r.ratio, r.extra = &cpu, &ratio, &extra
		all = append(all, r)
		ms = append(ms, map[string]any{"time": time.UnixMicro(r.ts), "node": r.host, "load": cpu, "errs": r.errs, "ratio": ratio, "extra": extra})
	}
	ab, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, ab); err != nil {
		t.Fatal(err)
	}
	check("a Timelake append under the altered schema", q, names, all)

	// pyiceberg inserts under the altered schema: every column by its new name.
	py := interoptest.Python(t)
	var pyRows []map[string]any
	for i := 60; i < 70; i++ {
		r := alterRow{ts: day.Add(time.Duration(i) * time.Hour).UnixMicro(), host: fmt.Sprintf("h%d", i%4), errs: int64(i) << 33}
		cpu, ratio, extra := float64(i)*2, float64(i)/8, int64(i)*1000
		r.cpu, r.ratio, r.extra = &cpu, &ratio, &extra
		all = append(all, r)
		pyRows = append(pyRows, map[string]any{"time": r.ts, "node": r.host, "load": cpu, "errs": r.errs, "ratio": ratio, "extra": extra})
	}
	raw, _ := json.Marshal(pyRows)
	work := t.TempDir()
	rowsPath := filepath.Join(work, "rows.json")
	if err := os.WriteFile(rowsPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(interoptest.Root(), "table", "testdata", "pyiceberg_insert.py")
	out, err := exec.Command(py, script, filepath.Join(dir, commit.MetadataKey(tb.Version())), rowsPath, work).CombinedOutput()
	if err != nil {
		t.Fatalf("pyiceberg insert: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	written, err := os.ReadFile(strings.TrimPrefix(lines[len(lines)-1], "file://"))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(tb.Version()+1), written); err != nil || !ok {
		t.Fatalf("copy pyiceberg's metadata to v%d: %v %v", tb.Version()+1, ok, err)
	}
	if tb, err = table.Open(ctx, st, testenv.New(62)); err != nil {
		t.Fatal(err)
	}
	check("pyiceberg's insert after Timelake's alters", q, names, all)
	// Compaction merges files of every schema into the current one.
	if res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil || res.Merges == 0 {
		t.Fatalf("compact: %+v, %v", res, err)
	}
	check("compacted", q, names, all)
	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != int64(len(all)) || len(info.Schemas) != 6 {
		t.Errorf("info: %d rows, %d schemas; want %d and 6", info.Rows, len(info.Schemas), len(all))
	}
}
