package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// TestPyicebergSchemaChange: pyiceberg changes a Timelake table's schema
// (update_schema: rename, widen int → long and float → double, make
// optional, drop, add) and appends under the new schema; Timelake follows:
// it appends with the new names, scans and answers latest over files of
// three schemas, and compacts them into one of the current schema. At each
// step DuckDB, pyiceberg and iceberg-go read the mixed table and agree with
// Timelake's scan (every row) and latest.
func TestPyicebergSchemaChange(t *testing.T) {
	if testing.Short() {
		t.Skip("pyiceberg: skipped with -short")
	}
	py := interoptest.Python(t)
	readers := interoptest.Readers(t)
	ctx := context.Background()
	env := testenv.New(61)
	dir, st, tb := dirTable(t, env, evolvingSchema(t), map[string]string{maintenance.PropCompactMinFiles: "2"})

	// Timelake, before the change: 3 hosts × minutes 0–19.
	var ms []map[string]any
	for h := range 3 {
		for m := range 20 {
			ms = append(ms, map[string]any{"ts": at(m), "host": fmt.Sprintf("host-%d", h), "region": "eu",
				"cpu": float64(h*20+m) / 4, "mem": int64(h*1000 + m), "note": "n"})
		}
	}
	if _, err := tb.Append(ctx, mapsBatch(t, tb.Schema(), ms)); err != nil {
		t.Fatal(err)
	}

	// pyiceberg: every kind of change, then host-0 and host-1 minutes 20–29.
	changes := `[["widen","cpu","double"],["rename","cpu","cpu_pct"],["widen","mem","long"],` +
		`["optional","region"],["drop","note"],["add","disk","double"]]`
	var pyRows []map[string]any
	for h := range 2 {
		for m := 20; m < 30; m++ {
			pyRows = append(pyRows, map[string]any{"ts": at(m).UnixMicro(), "host": fmt.Sprintf("host-%d", h), "region": nil,
				"cpu_pct": float64(m) + 0.5, "mem": int64(1)<<40 + int64(m), "disk": float64(h*100 + m)})
		}
	}
	pyiceberg(t, py, dir, st, changes, pyRows)

	// Timelake, after the change, with the new names: 3 hosts × minutes 30–34.
	tb, err := table.Open(ctx, st, env)
	if err != nil {
		t.Fatalf("open after pyiceberg's change: %v", err)
	}
	ms = nil
	for h := range 3 {
		for m := 30; m < 35; m++ {
			r := map[string]any{"ts": at(m), "host": fmt.Sprintf("host-%d", h), "region": "us",
				"cpu_pct": float64(m) / 8, "mem": int64(h*1000 + m), "disk": float64(m)}
			if m == 34 {
				r["disk"] = nil
			}
			ms = append(ms, r)
		}
	}
	if _, err := tb.Append(ctx, mapsBatch(t, tb.Schema(), ms)); err != nil {
		t.Fatalf("append with the new names: %v", err)
	}

	q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu_pct", "mem", "disk"}, Latest: true}
	check := func(what string, wantRows int64) {
		t.Helper()
		tb, err := table.Open(ctx, st, env)
		if err != nil {
			t.Fatal(err)
		}
		want := scanSummary(t, tb, q)
		if want.Rows != wantRows {
			t.Fatalf("%s: Timelake scans %d rows, want %d", what, want.Rows, wantRows)
		}
		latest, err := tb.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantLatest := latestRows(latest, q)
		path := filepath.Join(dir, commit.MetadataKey(tb.Version()))
		// DuckDB's rows (interop/scanref.py: the scan's answer, deduplicated
		// by the same rule), row by row.
		ref, err := exec.Command(py, filepath.Join(interoptest.Root(), "interop", "scanref.py"), path).Output()
		if err != nil {
			t.Fatalf("scanref.py: %v", err)
		}
		if got, want := strings.Split(strings.TrimSpace(string(ref)), "\n"), scanNDJSON(t, tb); !slices.Equal(got, want) {
			t.Errorf("%s: DuckDB's rows differ from Timelake's scan:\n got %q\nwant %q", what, got, want)
		}
		for _, r := range readers {
			got := interoptest.Summarize(t, r, path, q)
			interoptest.ExpectSame(t, fmt.Sprintf("%s, %s (v%d)", r, what, tb.Version()), want, got)
			if g := latestRowsOf(got.Latest, q); !slices.Equal(g, wantLatest) {
				t.Errorf("%s, %s: latest:\n got %q\nwant %q (Timelake's last-value index)", r, what, g, wantLatest)
			}
		}
	}
	check("old, pyiceberg's and new files", 60+20+15)

	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil || res.Merges != 1 || res.RowsAfter != 95 {
		t.Fatalf("compact: %+v, %v; want one merge of 95 rows", res, err)
	}
	files, err := tb.DataFiles(ctx)
	if err != nil || len(files) != 1 {
		t.Fatalf("data files after compaction: %d, %v", len(files), err)
	}
	checkDirFileSchema(t, dir, tb, files[0].Path)
	check("compacted", 95)
}

// pyiceberg runs pyiceberg_evolve.py over the table's newest version and
// commits what it wrote as the next version.
func pyiceberg(t *testing.T, py, dir string, st *dirstore.Store, changes string, rowsOut []map[string]any) {
	t.Helper()
	ctx := context.Background()
	work := t.TempDir()
	changesPath := filepath.Join(work, "changes.json")
	rowsPath := filepath.Join(work, "rows.json")
	rowsJSON, _ := json.Marshal(rowsOut)
	if err := os.WriteFile(changesPath, []byte(changes), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rowsPath, rowsJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := commit.Latest(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(interoptest.Root(), "table", "testdata", "pyiceberg_evolve.py")
	args := []string{script, filepath.Join(dir, commit.MetadataKey(v.N)), work, changesPath}
	if rowsOut != nil {
		args = append(args, rowsPath)
	}
	out, err := exec.Command(py, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("pyiceberg: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	raw, err := os.ReadFile(strings.TrimPrefix(lines[len(lines)-1], "file://"))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(v.N+1), raw); err != nil || !ok {
		t.Fatalf("copy pyiceberg's metadata to v%d: %v %v", v.N+1, ok, err)
	}
	_ = st.Put(ctx, commit.VersionHintKey, []byte(strconv.Itoa(v.N+1)))
}

// scanSummary is the summary of Timelake's scan of every stored row (raw),
// as the outside readers compute it.
func scanSummary(t *testing.T, tb *table.Table, q interoptest.Query) interoptest.Summary {
	t.Helper()
	s := interoptest.Summary{Sums: map[string]interoptest.Sum{}, NonNull: map[string]int64{}, PlannedFiles: -1}
	fsum := map[string]float64{}
	isum := map[string]*big.Int{}
	series := map[string]bool{}
	_, err := tb.Scan(context.Background(), table.ScanOptions{Raw: true}, func(b *rows.Batch) error {
		sch := b.Schema
		for i := 0; i < b.Len; i++ {
			s.Rows++
			ts := b.Cols[sch.Index(q.Time)].Ints[i]
			if s.MinTimeUS == nil || ts < *s.MinTimeUS {
				s.MinTimeUS = &ts
			}
			if s.MaxTimeUS == nil || ts > *s.MaxTimeUS {
				v := ts
				s.MaxTimeUS = &v
			}
			var key []string
			for _, c := range q.Series {
				key = append(key, b.Cols[sch.Index(c)].Strs[i])
			}
			series[strings.Join(key, "\x00")] = true
			for _, c := range q.Sums {
				k := sch.Index(c)
				col := &b.Cols[k]
				if col.IsNull(i) {
					continue
				}
				s.NonNull[c]++
				if sch.Fields[k].Type.IsInteger() {
					if isum[c] == nil {
						isum[c] = new(big.Int)
					}
					isum[c].Add(isum[c], big.NewInt(col.Ints[i]))
				} else {
					fsum[c] += col.Floats[i]
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	s.DistinctSeries = int64(len(series))
	for _, c := range q.Sums {
		if f := tb.Schema().Fields[tb.Schema().Index(c)]; f.Type.IsInteger() {
			if isum[c] == nil {
				isum[c] = new(big.Int)
			}
			s.Sums[c] = interoptest.Sum(isum[c].String())
		} else {
			s.Sums[c] = interoptest.Sum(strconv.FormatFloat(fsum[c], 'e', -1, 64))
		}
	}
	return s
}

// latestRows renders Timelake's last-value index as latestRowsOf renders
// a reader's Latest.
func latestRows(b *rows.Batch, q interoptest.Query) []string {
	sch := b.Schema
	var out []string
	for i := 0; i < b.Len; i++ {
		parts := []string{}
		for _, c := range q.Series {
			parts = append(parts, c+"="+b.Cols[sch.Index(c)].Strs[i])
		}
		parts = append(parts, "time_us="+strconv.FormatInt(b.Cols[sch.Time].Ints[i], 10))
		for _, c := range q.Sums {
			k := sch.Index(c)
			v := "null"
			switch col := &b.Cols[k]; {
			case col.IsNull(i):
			case sch.Fields[k].Type.IsInteger():
				v = strconv.FormatInt(col.Ints[i], 10)
			default:
				v = strconv.FormatFloat(col.Floats[i], 'g', -1, 64)
			}
			parts = append(parts, c+"="+v)
		}
		out = append(out, strings.Join(parts, " "))
	}
	slices.Sort(out)
	return out
}

// latestRowsOf renders a reader's Latest rows, numbers by value.
func latestRowsOf(rs []map[string]any, q interoptest.Query) []string {
	var out []string
	for _, r := range rs {
		parts := []string{}
		for _, c := range q.Series {
			parts = append(parts, fmt.Sprintf("%s=%v", c, r[c]))
		}
		for _, c := range append([]string{"time_us"}, q.Sums...) {
			v := "null"
			if n, ok := r[c].(json.Number); ok {
				if i, err := n.Int64(); err == nil && !strings.ContainsAny(n.String(), ".eE") {
					v = strconv.FormatInt(i, 10)
				} else if f, err := n.Float64(); err == nil {
					v = strconv.FormatFloat(f, 'g', -1, 64)
				}
			} else if r[c] != nil {
				v = fmt.Sprint(r[c])
			}
			parts = append(parts, c+"="+v)
		}
		out = append(out, strings.Join(parts, " "))
	}
	slices.Sort(out)
	return out
}

// checkDirFileSchema is checkFileSchema for a table in a directory.
func checkDirFileSchema(t *testing.T, dir string, tb *table.Table, path string) {
	t.Helper()
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimPrefix(path, "file://"+dir+"/")
	raw, err := st.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	got := parquetColumns(t, raw)
	var want []string
	for _, f := range tb.Schema().Fields {
		want = append(want, columnText(f))
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s columns:\n got %v\nwant %v", key, got, want)
	}
}

func columnText(f schema.Field) string {
	return f.Name + "#" + strconv.Itoa(f.ID) + ":" + f.Type.String()
}

// scanNDJSON renders Timelake's scan as timelake scan --format ndjson does
// for these types (strings, longs, finite doubles, times).
func scanNDJSON(t *testing.T, tb *table.Table) []string {
	t.Helper()
	var out []string
	_, err := tb.Scan(context.Background(), table.ScanOptions{}, func(b *rows.Batch) error {
		for i := 0; i < b.Len; i++ {
			var parts []string
			for k, f := range b.Schema.Fields {
				v, col := "null", &b.Cols[k]
				switch {
				case col.IsNull(i):
				case f.Type == schema.Timestamptz:
					v = `"` + time.UnixMicro(col.Ints[i]).UTC().Format("2006-01-02T15:04:05.000000Z") + `"`
				case f.Type.IsInteger():
					v = strconv.FormatInt(col.Ints[i], 10)
				case f.Type.IsFloat():
					v = strconv.FormatFloat(col.Floats[i], 'g', -1, 64)
				default:
					q, _ := json.Marshal(col.Strs[i])
					v = string(q)
				}
				q, _ := json.Marshal(f.Name)
				parts = append(parts, string(q)+":"+v)
			}
			out = append(out, "{"+strings.Join(parts, ",")+"}")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	return out
}
