package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
)

// TestNestedShapesIcebergGo: iceberg-go (interop/cmd/icebergread -values),
// pyiceberg (interop/readers.py map-rows) and DuckDB (iceberg_scan,
// to_json) read the list, struct
// (depth 3) and map columns Timelake wrote from
// Arrow, Parquet and NDJSON input, before and after a compaction, row for
// row as Timelake's scan prints them (longs at the int64 ends and past
// 2^53, nulls at every level, empties, unicode keys).
func TestNestedShapesIcebergGo(t *testing.T) {
	dir := shapesTable(t)
	tmp := t.TempDir()
	check := func(step string, prefixes ...string) {
		t.Helper()
		got := interoptest.Summarize(t, interoptest.IcebergGo, latestMetadata(t, dir), interoptest.Query{Time: "ts", Series: []string{"host"}, Values: shapesNames})
		if got.Error != "" {
			t.Fatalf("%s: iceberg-go: %s", step, got.Error)
		}
		var gotLines []string
		for _, v := range got.Values {
			gotLines = append(gotLines, string(v))
		}
		equalLines(t, step+": iceberg-go", gotLines, scanObjects(t, dir))
		// and the scan is what was appended, and pyiceberg and DuckDB read it
		equalLines(t, step+": NDJSON scan", ndjsonShapes(t, dir, shapesNames), shapesWant(prefixes...))
		equalLines(t, step+": pyiceberg", pyicebergShapes(t, dir, shapesNames), shapesWant(prefixes...))
		equalLines(t, step+": DuckDB", duckdbShapes(t, dir, shapesNames), shapesWant(prefixes...))
	}
	arrow := filepath.Join(tmp, "in.arrows")
	makeShapes(t, arrow, "A")
	mustCLI(t, "", "append", dir, arrow)
	pq := filepath.Join(tmp, "in.parquet")
	makeShapes(t, pq, "P", "2.0")
	mustCLI(t, "", "append", dir, pq)
	mustCLI(t, shapesNDJSON("N"), "append", dir, "-", "--format", "ndjson")
	check("three appends", "A", "P", "N")
	mustCLI(t, "", "maintain", dir)
	check("maintained", "A", "P", "N")
}

// latestMetadata is the path of dir's newest metadata file.
func latestMetadata(t *testing.T, dir string) string {
	t.Helper()
	hint, err := os.ReadFile(filepath.Join(dir, "metadata", "version-hint.text"))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "metadata", "v"+strings.TrimSpace(string(hint))+".metadata.json")
}

// scanObjects is scan's NDJSON of dir as icebergread -values prints rows:
// {"host":…,"time_us":…,"lst":…,"st":…,"mp":…,"deep":…}, in its order.
func scanObjects(t *testing.T, dir string) []string {
	t.Helper()
	return scanObjectsOf(t, dir, shapesNames)
}

// scanObjectsOf is scanObjects of the named columns.
func scanObjectsOf(t *testing.T, dir string, names []string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(mustCLI(t, "", "scan", dir, "--format", "ndjson")), "\n") {
		var r map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		var ts string
		json.Unmarshal(r["ts"], &ts)
		tm, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			t.Fatal(err)
		}
		s := `{"host":` + string(r["host"]) + `,"time_us":` + jsonInt(tm.UnixMicro())
		for _, n := range names {
			s += `,"` + n + `":` + string(r[n])
		}
		out = append(out, s+"}")
	}
	return out
}

func jsonInt(v int64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// pyicebergShapes has pyiceberg read dir's newest version
// (interop/readers.py map-rows: nested values as Timelake's JSON text)
// and returns "host col…" lines, sorted, as ndjsonShapes does.
func pyicebergShapes(t *testing.T, dir string, names []string) []string {
	t.Helper()
	out, err := exec.Command(python(t), filepath.Join(interoptest.Root(), "interop", "readers.py"), "map-rows", latestMetadata(t, dir)).CombinedOutput()
	if err != nil {
		t.Fatalf("pyiceberg map-rows: %v\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("map-rows line %q: %v", l, err)
		}
		var host string
		json.Unmarshal(r["host"], &host)
		line := host
		for _, n := range names {
			var text *string
			if err := json.Unmarshal(r[n], &text); err != nil {
				t.Fatalf("map-rows %s: %v", n, err)
			}
			if text == nil {
				line += " null"
			} else {
				line += " " + *text
			}
		}
		lines = append(lines, line)
	}
	sort.Strings(lines)
	return lines
}

// duckdbShapes has DuckDB's iceberg_scan read dir's newest version, each
// nested column through to_json, as "host col…" lines, sorted.
func duckdbShapes(t *testing.T, dir string, names []string) []string {
	t.Helper()
	script := `import json, sys
sys.path.insert(0, sys.argv[2])
from readers import duckdb_connect, sql_str
c = duckdb_connect()
cols = sys.argv[3].split(",")
q = "SELECT host, " + ", ".join("to_json(" + n + ")" for n in cols) + " FROM iceberg_scan(" + sql_str(sys.argv[1]) + ")"
for r in c.execute(q).fetchall():
    print(json.dumps(list(r), ensure_ascii=False))`
	out, err := exec.Command(python(t), "-c", script, latestMetadata(t, dir), filepath.Join(interoptest.Root(), "interop"), strings.Join(names, ",")).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r []*string
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("duckdb line %q: %v", l, err)
		}
		line := *r[0]
		for _, v := range r[1:] {
			if v == nil {
				line += " null"
			} else {
				line += " " + *v
			}
		}
		lines = append(lines, line)
	}
	sort.Strings(lines)
	return lines
}
