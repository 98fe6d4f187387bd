package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
)

// jsShapesRows are shapesRows as the JavaScript client is given them, one
// row a line for client/test/e2e/appendjs.js: bigints (the int64 ends,
// 2^53+1) and Maps tagged ({"$bigint"}, {"$map"}), Dates ({"$date"}),
// struct fields out of order, row 2's nested values left out.
func jsShapesRows(prefix string) string {
	rows := []string{
		`{"ts":{"$date":"2023-11-14T22:13:20.000Z"},"host":"P1","lst":[{"$bigint":"9223372036854775807"},{"$bigint":"-9223372036854775808"},null,0],` +
			`"st":{"b":["x",null,"é\"\n"],"a":{"$bigint":"9007199254740993"},"c":{"d":1.5,"e":{"$map":[["k",1],["z",null]]}}},` +
			`"mp":{"$map":[["k",-5],["日本",null]]},"deep":{"q":[{"a":1},null,{"a":null}],"r":[]}}`,
		`{"ts":{"$date":"2023-11-14T22:13:20.001Z"},"host":"P2"}`,
		`{"ts":{"$date":"2023-11-14T22:13:20.002Z"},"host":"P3","lst":[],"st":{"b":[]},"mp":{},"deep":{"$map":[]}}`,
		`{"ts":{"$date":"2023-11-14T22:13:20.003Z"},"host":"P4","lst":[{"$bigint":"7"}],"st":{"a":{"$bigint":"-1"},"c":{"d":-0.25,"e":{}}},"mp":{"":0},"deep":{"x":null}}`,
	}
	return strings.ReplaceAll(strings.Join(rows, "\n")+"\n", `"host":"P`, `"host":"`+prefix)
}

// TestNestedAllInputs: JS values (objects, arrays, Maps, bigints) appended
// by the WebAssembly client in Node, pyarrow's Arrow stream and Parquet
// file and NDJSON, all into one table created with a list, a depth-3
// struct and maps, the client appending again after a compaction: the
// scan prints every row's values exactly (NDJSON, and Arrow pyarrow
// reads), and iceberg-go and pyiceberg read the same, row for row. Needs the built
// client (scripts/test-client.sh runs it).
func TestNestedAllInputs(t *testing.T) {
	if os.Getenv("TIMELAKE_CLIENT_E2E") != "1" {
		t.Skip("needs the built client: run scripts/test-client.sh (sets TIMELAKE_CLIENT_E2E=1)")
	}
	dir := shapesTable(t)
	tmp := t.TempDir()
	jsAppend := func(prefix string) {
		t.Helper()
		file := filepath.Join(tmp, prefix+".jsonl")
		if err := os.WriteFile(file, []byte(jsShapesRows(prefix)), 0o644); err != nil {
			t.Fatal(err)
		}
		interoptest.RunClientScript(t, "e2e/appendjs.js", dir, file)
	}
	jsAppend("J")
	arrow := filepath.Join(tmp, "in.arrows")
	makeShapes(t, arrow, "A")
	mustCLI(t, "", "append", dir, arrow)
	pq := filepath.Join(tmp, "in.parquet")
	makeShapes(t, pq, "P", "1.0")
	mustCLI(t, "", "append", dir, pq)
	mustCLI(t, shapesNDJSON("N"), "append", dir, "-", "--format", "ndjson")
	equalLines(t, "four inputs: NDJSON scan", ndjsonShapes(t, dir, shapesNames), shapesWant("A", "J", "N", "P"))
	mustCLI(t, "", "maintain", dir)
	jsAppend("K")
	want := shapesWant("A", "J", "K", "N", "P")
	equalLines(t, "maintained, JS again: NDJSON scan", ndjsonShapes(t, dir, shapesNames), want)
	equalLines(t, "maintained, JS again: Arrow scan read by pyarrow", arrowShapes(t, dir, shapesNames, shapesArrowTypes), want)
	equalLines(t, "maintained, JS again: pyiceberg", pyicebergShapes(t, dir, shapesNames), want)
	got := interoptest.Summarize(t, interoptest.IcebergGo, latestMetadata(t, dir), interoptest.Query{Time: "ts", Series: []string{"host"}, Values: shapesNames})
	if got.Error != "" {
		t.Fatalf("iceberg-go: %s", got.Error)
	}
	var lines []string
	for _, v := range got.Values {
		lines = append(lines, string(v))
	}
	equalLines(t, "iceberg-go", lines, scanObjects(t, dir))
}
