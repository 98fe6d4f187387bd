package cowrite

import (
	"bufio"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
)

// srow is a row of the schema-change table: cpu (float, then double as
// cpu_pct), mem (int, then long), disk (added, double, optional).
type srow struct {
	TS   int64
	Host string
	CPU  float64
	Mem  int64
	Disk *float64
}

// TestSparkSchemaChange: Timelake creates and appends; Spark
// changes the schema (ALTER TABLE ADD COLUMN, RENAME COLUMN, ALTER COLUMN
// TYPE int → bigint and float → double) and inserts; Timelake follows:
// appends with the new names, scans, answers latest and compacts files of
// both schemas into one; then Timelake renames a column and Spark inserts
// by the new name. After each step DuckDB, pyiceberg, iceberg-go,
// Spark SQL and Timelake's scan and latest agree with the model.
func TestSparkSchemaChange(t *testing.T) {
	spark, wh := sparkEngine(t)
	root := interoptest.Root()
	tl := build(t, root, "./cmd/timelake", "timelake")
	readers := interoptest.Readers(t)
	dir, name := filepath.Join(wh, "evolve", "t"), "cat.evolve.t"
	want := map[string]srow{}
	rowsAt := func(k int, hosts []string, n int, disk bool) []srow {
		var out []srow
		for r := range n {
			ts := base + int64(k)*3_600_000_000 + int64(r)*60_000_000
			x := srow{TS: ts, Host: hosts[r%len(hosts)], CPU: float64(k*100+r) / 4, Mem: int64(k*1000 + r)}
			if disk && r%3 != 2 {
				d := float64(r) + 0.5
				x.Disk = &d
			}
			out = append(out, x)
		}
		return out
	}
	tlAppend := func(rs []srow, header string) error {
		var b strings.Builder
		b.WriteString(header + "\n")
		for _, r := range rs {
			fmt.Fprintf(&b, "%s,%s,%v,%d", tsString(r.TS), r.Host, r.CPU, r.Mem)
			if strings.Count(header, ",") == 4 {
				b.WriteString(",")
				if r.Disk != nil {
					fmt.Fprintf(&b, "%v", *r.Disk)
				}
			}
			b.WriteString("\n")
		}
		f := filepath.Join(t.TempDir(), "rows.csv")
		if err := writeFile(f, b.String()); err != nil {
			return err
		}
		if _, err := run(tl, "append", dir, f); err != nil {
			return err
		}
		for _, r := range rs {
			want[r.Host+"|"+strconv.FormatInt(r.TS, 10)] = r
		}
		return nil
	}

	check := func(step string, cpu string, disk bool) {
		t.Helper()
		sums := []string{cpu, "mem"}
		if disk {
			sums = append(sums, "disk")
		}
		q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: sums, Latest: true}
		ws, wl := srowSummary(want, cpu, disk), srowLatest(want, disk)
		meta, v, err := currentMetadata(dir)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		for _, r := range readers {
			got := interoptest.Summarize(t, r, meta, q)
			interoptest.ExpectSame(t, fmt.Sprintf("%s: %s (v%d)", step, r, v), ws, got)
			if g := latestOf(got.Latest, cpu, disk); !slices.Equal(g, wl) {
				t.Errorf("%s: %s latest:\n got %q\nwant %q", step, r, g, wl)
			}
		}
		if got, err := spark.Summary(name, q); err != nil {
			t.Errorf("%s: spark: %v", step, err)
		} else {
			interoptest.ExpectSame(t, step+": spark", ws, got)
		}
		if rs, err := spark.Latest(name, "ts", []string{"host"}, sums); err != nil {
			t.Errorf("%s: spark latest: %v", step, err)
		} else if g := latestOf(rs, cpu, disk); !slices.Equal(g, wl) {
			t.Errorf("%s: spark latest:\n got %q\nwant %q", step, g, wl)
		}
		// Timelake: scan (every column, by the current names) and latest.
		out, err := run(tl, "scan", dir, "--format", "ndjson")
		if err != nil {
			t.Fatalf("%s: timelake scan: %v", step, err)
		}
		var scanned []map[string]any
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var m map[string]any
			if err := decodeJSON(sc.Bytes(), &m); err != nil {
				t.Fatalf("%s: scan line %q: %v", step, sc.Text(), err)
			}
			scanned = append(scanned, m)
		}
		if g, w := scanRowsText(scanned, cpu, disk), srowsText(want, disk); !slices.Equal(g, w) {
			t.Errorf("%s: timelake scan:\n got %q\nwant %q", step, g, w)
		}
		out, err = run(tl, "latest", dir, "--json")
		if err != nil {
			t.Fatalf("%s: timelake latest: %v", step, err)
		}
		var lat []map[string]any
		if err := decodeJSON(out, &lat); err != nil {
			t.Fatalf("%s: latest %q: %v", step, out, err)
		}
		if g := latestOf(lat, cpu, disk); !slices.Equal(g, wl) {
			t.Errorf("%s: timelake latest:\n got %q\nwant %q", step, g, wl)
		}
	}

	if _, err := run(tl, "create", dir, "--time", "ts", "--series", "host", "--column", "cpu:float", "--column", "mem:int"); err != nil {
		t.Fatal(err)
	}
	if err := tlAppend(rowsAt(1, []string{"h0", "h1", "h2"}, 12, false), "ts,host,cpu,mem"); err != nil {
		t.Fatal(err)
	}
	check("timelake append", "cpu", false)

	for _, q := range []string{
		"ALTER TABLE %s ADD COLUMN disk double",
		"ALTER TABLE %s RENAME COLUMN cpu TO cpu_pct",
		"ALTER TABLE %s ALTER COLUMN cpu_pct TYPE double",
		"ALTER TABLE %s ALTER COLUMN mem TYPE bigint",
	} {
		if _, err := spark.SQL(fmt.Sprintf(q, name)); err != nil {
			t.Fatalf("spark %s: %v", q, err)
		}
	}
	// Spark 3.5 writes every column of the table: _ingest_ts is NULL.
	sparkRows := rowsAt(2, []string{"spark-1", "h0"}, 4, true)
	var vals []string
	for _, r := range sparkRows {
		d := "NULL"
		if r.Disk != nil {
			d = fmt.Sprintf("CAST(%v AS DOUBLE)", *r.Disk)
		}
		vals = append(vals, fmt.Sprintf("(%s, '%s', CAST(%v AS DOUBLE), CAST(%d AS BIGINT), NULL, %s)", sparkTS(r.TS), r.Host, r.CPU, r.Mem, d))
	}
	if _, err := spark.SQL(fmt.Sprintf("INSERT INTO %s VALUES %s", name, strings.Join(vals, ", "))); err != nil {
		t.Fatalf("spark insert: %v", err)
	}
	for _, r := range sparkRows {
		want[r.Host+"|"+strconv.FormatInt(r.TS, 10)] = r
	}
	check("spark ALTER TABLE (add, rename, widen) + INSERT", "cpu_pct", true)

	if err := tlAppend(rowsAt(3, []string{"h0", "h1", "h3"}, 9, true), "ts,host,cpu_pct,mem,disk"); err != nil {
		t.Fatalf("timelake append with the new names: %v", err)
	}
	check("timelake append with the new names", "cpu_pct", true)

	if out, err := run(tl, "maintain", dir, "--compact", "--json"); err != nil {
		t.Fatalf("timelake maintain: %v", err)
	} else {
		t.Logf("maintain: %s", firstLines(string(out), 20))
	}
	check("timelake compaction", "cpu_pct", true)

	// A Timelake schema change, then a Spark insert: Spark loads the schema
	// Timelake committed and writes under it (cpu_pct renamed back to cpu;
	// a rename, so the field id and the old files' values stay).
	if _, err := run(tl, "alter", dir, "--rename", "cpu_pct=cpu"); err != nil {
		t.Fatalf("timelake alter: %v", err)
	}
	check("timelake alter (rename)", "cpu", true)
	sparkRows = rowsAt(4, []string{"spark-2", "h1"}, 4, true)
	vals = vals[:0]
	for _, r := range sparkRows {
		d := "NULL"
		if r.Disk != nil {
			d = fmt.Sprintf("CAST(%v AS DOUBLE)", *r.Disk)
		}
		vals = append(vals, fmt.Sprintf("(%s, '%s', CAST(%v AS DOUBLE), CAST(%d AS BIGINT), NULL, %s)", sparkTS(r.TS), r.Host, r.CPU, r.Mem, d))
	}
	if _, err := spark.SQL(fmt.Sprintf("INSERT INTO %s (ts, host, cpu, mem, _ingest_ts, disk) VALUES %s", name, strings.Join(vals, ", "))); err != nil {
		t.Fatalf("spark insert after a timelake alter: %v", err)
	}
	for _, r := range sparkRows {
		want[r.Host+"|"+strconv.FormatInt(r.TS, 10)] = r
	}
	check("timelake alter + spark INSERT by the new name", "cpu", true)
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

// srowSummary is the summary the readers must give of the model.
func srowSummary(m map[string]srow, cpu string, disk bool) interoptest.Summary {
	s := interoptest.Summary{Sums: map[string]interoptest.Sum{}, NonNull: map[string]int64{}, PlannedFiles: -1}
	var cpuSum, diskSum float64
	mem := new(big.Int)
	hosts := map[string]bool{}
	for _, r := range m {
		s.Rows++
		hosts[r.Host] = true
		cpuSum += r.CPU
		mem.Add(mem, big.NewInt(r.Mem))
		if r.Disk != nil {
			diskSum += *r.Disk
			s.NonNull["disk"]++
		}
		if s.MinTimeUS == nil || r.TS < *s.MinTimeUS {
			v := r.TS
			s.MinTimeUS = &v
		}
		if s.MaxTimeUS == nil || r.TS > *s.MaxTimeUS {
			v := r.TS
			s.MaxTimeUS = &v
		}
	}
	s.DistinctSeries = int64(len(hosts))
	s.Sums[cpu] = interoptest.Sum(strconv.FormatFloat(cpuSum, 'e', -1, 64))
	s.NonNull[cpu] = s.Rows
	s.Sums["mem"] = interoptest.Sum(mem.String())
	s.NonNull["mem"] = s.Rows
	if disk {
		s.Sums["disk"] = interoptest.Sum(strconv.FormatFloat(diskSum, 'e', -1, 64))
	} else {
		delete(s.NonNull, "disk")
	}
	return s
}

func fmtDisk(d *float64) string {
	if d == nil {
		return "null"
	}
	return strconv.FormatFloat(*d, 'g', -1, 64)
}

// srowLatest is host ts cpu mem [disk] of each series' latest row.
func srowLatest(m map[string]srow, disk bool) []string {
	best := map[string]srow{}
	for _, r := range m {
		if b, ok := best[r.Host]; !ok || r.TS > b.TS {
			best[r.Host] = r
		}
	}
	var out []string
	for _, r := range best {
		out = append(out, srowText(r, disk))
	}
	slices.Sort(out)
	return out
}

func srowText(r srow, disk bool) string {
	s := fmt.Sprintf("%s %d %s %d", r.Host, r.TS, strconv.FormatFloat(r.CPU, 'g', -1, 64), r.Mem)
	if disk {
		s += " " + fmtDisk(r.Disk)
	}
	return s
}

func srowsText(m map[string]srow, disk bool) []string {
	var out []string
	for _, r := range m {
		out = append(out, srowText(r, disk))
	}
	slices.Sort(out)
	return out
}

// rowText renders a reader's row (latest or scanned: time as time_us or ts
// in RFC 3339) as srowText does.
func rowText(m map[string]any, cpu string, disk bool) string {
	var ts int64
	if m["time_us"] != nil {
		ts, _ = strconv.ParseInt(fmt.Sprint(m["time_us"]), 10, 64)
	} else if tm, err := time.Parse(time.RFC3339Nano, fmt.Sprint(m["ts"])); err == nil {
		ts = tm.UnixMicro()
	}
	num := func(v any) string {
		if v == nil {
			return "null"
		}
		f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
		if err != nil {
			return fmt.Sprint(v)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	s := fmt.Sprintf("%v %d %s %s", m["host"], ts, num(m[cpu]), num(m["mem"]))
	if disk {
		s += " " + num(m["disk"])
	}
	return s
}

func latestOf(rs []map[string]any, cpu string, disk bool) []string {
	var out []string
	for _, m := range rs {
		out = append(out, rowText(m, cpu, disk))
	}
	slices.Sort(out)
	return out
}

func scanRowsText(rs []map[string]any, cpu string, disk bool) []string {
	return latestOf(rs, cpu, disk)
}
