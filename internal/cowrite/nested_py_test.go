package cowrite

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
)

// TestNestedTagsPyiceberg: pyiceberg creates a table with a column tags
// map<string, string> (labels, as Prometheus and OpenTelemetry keep them)
// and appends rows; Timelake's info lists the column with its type, scan
// prints every row's tags exactly (NDJSON as JSON values, CSV as JSON
// text), before and after adopting the table, with a second pyiceberg
// append merged in; latest gives each series' tags; Timelake's own appends
// (NDJSON objects, a CSV JSON cell) and a compaction are scanned back
// exactly, and read exactly by pyiceberg.
func TestNestedTagsPyiceberg(t *testing.T) {
	root := interoptest.Root()
	tl := build(t, root, "./cmd/timelake", "timelake")
	py := interoptest.Python(t)
	dir := filepath.Join(t.TempDir(), "t")
	// tags as written (JSON object text, in the order pyiceberg stores the
	// entries), or "null"
	type tagRow struct {
		ts, host string
		cpu      float64
		tags     string
	}
	first := []tagRow{
		{"2026-11-27T00:00:00Z", "a", 1.5, `{"job":"api","instance":"10.0.0.1:9090"}`},
		{"2026-11-27T00:00:01Z", "a", 2, `{}`},
		{"2026-11-27T00:00:02Z", "b", 3, `null`},
		{"2026-11-27T00:00:03Z", "b", 4, `{"k":null,"é\"\n":"v\t","service.name":"checkout"}`},
	}
	second := []tagRow{
		{"2026-11-27T00:00:00.5Z", "a", 5, `{"job":"db"}`},
		{"2026-11-27T00:00:04Z", "b", 6, `{"zone":"eu-1","job":"api"}`},
	}
	rowsFile := func(name string, rs []tagRow) string {
		var b bytes.Buffer
		b.WriteString("[")
		for i, r := range rs {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"ts":%q,"host":%q,"cpu":%v,"tags":%s}`, r.ts, r.host, r.cpu, r.tags)
		}
		b.WriteString("]")
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pywriter := filepath.Join(root, "interop", "pywriter.py")
	if out, err := run(py, pywriter, "create", dir, rowsFile("first.json", first), "--spec", "day(ts)", "--tags"); err != nil {
		t.Fatalf("pyiceberg create: %v\n%s", err, out)
	}

	// scanNDJSON is each row's tags as scan prints them, by "host ts"
	scanNDJSON := func() map[string]string {
		t.Helper()
		out, err := run(tl, "scan", dir, "--format", "ndjson")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var r struct {
				TS   string          `json:"ts"`
				Host string          `json:"host"`
				Tags json.RawMessage `json:"tags"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("scan line %q: %v", line, err)
			}
			got[r.Host+" "+r.TS] = string(r.Tags)
		}
		return got
	}
	key := func(r tagRow) string {
		ts := strings.TrimSuffix(r.ts, "Z")
		if !strings.Contains(ts, ".") {
			ts += ".0"
		}
		frac := ts[strings.Index(ts, ".")+1:]
		return r.host + " " + ts[:strings.Index(ts, ".")] + "." + frac + strings.Repeat("0", 6-len(frac)) + "Z"
	}
	check := func(step string, want []tagRow) {
		t.Helper()
		got := scanNDJSON()
		if len(got) != len(want) {
			t.Fatalf("%s: scan gave %d rows (%v), want %d", step, len(got), got, len(want))
		}
		for _, r := range want {
			if g, ok := got[key(r)]; !ok || g != r.tags {
				t.Errorf("%s: row %s: tags %s, want %s", step, key(r), g, r.tags)
			}
		}
	}
	check("as stored", first)

	// CSV: the tags as a JSON text cell, empty for null
	out, err := run(tl, "scan", dir)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil || len(recs) != len(first)+1 || recs[0][4] != "tags" {
		t.Fatalf("csv: %v %q", err, out)
	}
	for i, r := range first {
		want := r.tags
		if want == "null" {
			want = ""
		}
		if recs[i+1][4] != want {
			t.Errorf("csv row %d: tags cell %q, want %q", i+1, recs[i+1][4], want)
		}
	}

	// info: the column, its type
	out, err = run(tl, "info", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		Columns []struct{ Name, Type string } `json:"columns"`
		Unread  []string                      `json:"unread-columns"`
	}
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatal(err)
	}
	if n := len(info.Columns); n != 5 || info.Columns[4].Name != "tags" || info.Columns[4].Type != "map<string, string>" || len(info.Unread) != 0 {
		t.Errorf("info columns %+v, unread %v: want tags map<string, string> read", info.Columns, info.Unread)
	}

	// adopted, with a second pyiceberg append: the keyed scan merges both
	if out, err := run(tl, "adopt", dir, "--time", "ts", "--series", "host"); err != nil {
		t.Fatalf("adopt: %v\n%s", err, out)
	}
	if out, err := run(py, pywriter, "append", dir, rowsFile("second.json", second)); err != nil {
		t.Fatalf("pyiceberg append: %v\n%s", err, out)
	}
	check("adopted, two appends", append(append([]tagRow{}, first...), second...))

	// latest: each series' last row, its tags a JSON value
	out, err = run(tl, "latest", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var latest []struct {
		Host string          `json:"host"`
		Tags json.RawMessage `json:"tags"`
	}
	if err := json.Unmarshal(out, &latest); err != nil || len(latest) != 2 {
		t.Fatalf("latest: %v %s", err, out)
	}
	var tagsB bytes.Buffer
	_ = json.Compact(&tagsB, latest[1].Tags)
	if latest[1].Host != "b" || tagsB.String() != second[1].tags {
		t.Errorf("latest of b: tags %s, want %s", latest[1].Tags, second[1].tags)
	}

	// Timelake's own append (an NDJSON object, a CSV cell) and compaction,
	// read back by Timelake and by pyiceberg (pyarrow reading the files
	// Timelake wrote)
	third := []tagRow{
		{"2026-11-27T00:00:05Z", "b", 7, `{"job":"tl","ключ":"значение 🙂","q":"\"\\\n"}`},
		{"2026-11-27T00:00:06Z", "c", 8, `{}`},
		{"2026-11-27T00:00:07Z", "c", 9, `null`},
		{"2026-11-27T00:00:08Z", "c", 10, `{"k":null}`},
	}
	var nd bytes.Buffer
	for _, r := range third[:3] {
		fmt.Fprintf(&nd, `{"ts":%q,"host":%q,"cpu":%v,"tags":%s}`+"\n", r.ts, r.host, r.cpu, r.tags)
	}
	in := filepath.Join(t.TempDir(), "r.ndjson")
	if err := os.WriteFile(in, nd.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	inCSV := filepath.Join(t.TempDir(), "r.csv")
	if err := os.WriteFile(inCSV, []byte("ts,host,cpu,tags\n2026-11-27T00:00:08Z,c,10,\"{\"\"k\"\":null}\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// and pyarrow's Arrow IPC stream and Parquet file of map<utf8, utf8> tags
	fourth := []tagRow{
		{"2026-11-27T00:00:09Z", "d", 11, `{"from":"arrow","z":null}`},
		{"2026-11-27T00:00:10Z", "d", 12, `null`},
		{"2026-11-27T00:00:11Z", "e", 13, `{"from":"parquet","é\n":"\""}`},
		{"2026-11-27T00:00:12Z", "e", 14, `{}`},
	}
	const toArrow = `import datetime as dt, json, sys, pyarrow as pa, pyarrow.parquet as pq
rs = json.load(open(sys.argv[1]))
t = pa.table({"ts": pa.array([dt.datetime.fromisoformat(r["ts"].replace("Z", "+00:00")) for r in rs], pa.timestamp("us", tz="UTC")),
    "host": [r["host"] for r in rs], "cpu": [float(r["cpu"]) for r in rs],
    "tags": pa.array([None if r["tags"] is None else list(r["tags"].items()) for r in rs], pa.map_(pa.string(), pa.string()))})
if sys.argv[3] == "parquet":
    pq.write_table(t, sys.argv[2])
else:
    with pa.ipc.new_stream(sys.argv[2], t.schema) as w:
        w.write_table(t)
`
	inArrow, inParquet := filepath.Join(t.TempDir(), "r.arrows"), filepath.Join(t.TempDir(), "r.parquet")
	for _, c := range []struct {
		rows       []tagRow
		out, field string
	}{{fourth[:2], inArrow, "arrow"}, {fourth[2:], inParquet, "parquet"}} {
		if out, err := run(py, "-c", toArrow, rowsFile("r-"+c.field+".json", c.rows), c.out, c.field); err != nil {
			t.Fatalf("pyarrow: %v\n%s", err, out)
		}
	}
	for _, args := range [][]string{{"append", dir, in}, {"append", dir, inCSV}, {"append", dir, inArrow}, {"append", dir, inParquet}, {"maintain", dir}} {
		if out, err := run(tl, args...); err != nil {
			t.Fatalf("%s: %v\n%s", args[0], err, out)
		}
	}
	all := append(append(append(append([]tagRow{}, first...), second...), third...), fourth...)
	check("after Timelake's appends and maintain", all)

	md, _, err := currentMetadata(dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err = run(py, filepath.Join(root, "interop", "readers.py"), "map-rows", md)
	if err != nil {
		t.Fatalf("pyiceberg map-rows: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r struct {
			TS   int64   `json:"ts"`
			Host string  `json:"host"`
			Tags *string `json:"tags"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("map-rows line %q: %v", line, err)
		}
		tags := "null"
		if r.Tags != nil {
			tags = *r.Tags
		}
		got[fmt.Sprintf("%s %d", r.Host, r.TS)] = tags
	}
	if len(got) != len(all) {
		t.Errorf("pyiceberg read %d rows (%v), want %d", len(got), got, len(all))
	}
	for _, r := range all {
		ts, err := time.Parse(time.RFC3339Nano, r.ts)
		if err != nil {
			t.Fatal(err)
		}
		if k := fmt.Sprintf("%s %d", r.host, ts.UnixMicro()); got[k] != r.tags {
			t.Errorf("pyiceberg: row %s: tags %s, want %s", k, got[k], r.tags)
		}
	}
}
