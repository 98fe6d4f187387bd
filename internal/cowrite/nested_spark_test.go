package cowrite

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
)

// TestNestedColumnsSpark: Spark (parquet-mr through Iceberg's writer)
// creates a table with a tags map<string,string>, a list<bigint> and a
// struct<a:bigint,b:string>, and inserts rows with every kind of null and
// empty value; Timelake's scan prints each exactly, as JSON.
func TestNestedColumnsSpark(t *testing.T) {
	spark, wh := sparkEngine(t)
	tl := build(t, interoptest.Root(), "./cmd/timelake", "timelake")
	dir := filepath.Join(wh, "nested", "t")
	if _, err := spark.SQL("CREATE TABLE cat.nested.t (ts timestamp, host string, tags map<string,string>, nums array<bigint>, st struct<a:bigint,b:string>) USING iceberg"); err != nil {
		t.Fatal(err)
	}
	if _, err := spark.SQL(`INSERT INTO cat.nested.t VALUES
		(TIMESTAMP '2026-11-27 00:00:00 UTC', 'a', map('job','api','instance','10.0.0.1:9090'), array(1, 2, 3), named_struct('a', 1, 'b', 'x')),
		(TIMESTAMP '2026-11-27 00:00:01 UTC', 'a', map(), array(), named_struct('a', CAST(NULL AS BIGINT), 'b', CAST(NULL AS STRING))),
		(TIMESTAMP '2026-11-27 00:00:02 UTC', 'b', NULL, NULL, NULL),
		(TIMESTAMP '2026-11-27 00:00:03 UTC', 'b', map('k', CAST(NULL AS STRING)), array(CAST(NULL AS BIGINT), 5), named_struct('a', 3, 'b', CAST(NULL AS STRING)))`); err != nil {
		t.Fatal(err)
	}
	want := map[string][3]string{ // ts → tags, nums, st
		"2026-11-27T00:00:00.000000Z": {`{"job":"api","instance":"10.0.0.1:9090"}`, `[1,2,3]`, `{"a":1,"b":"x"}`},
		"2026-11-27T00:00:01.000000Z": {`{}`, `[]`, `{"a":null,"b":null}`},
		"2026-11-27T00:00:02.000000Z": {`null`, `null`, `null`},
		"2026-11-27T00:00:03.000000Z": {`{"k":null}`, `[null,5]`, `{"a":3,"b":null}`},
	}
	out, err := run(tl, "scan", dir, "--format", "ndjson")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(want) {
		t.Fatalf("scan: %d rows, want %d:\n%s", len(lines), len(want), out)
	}
	for _, line := range lines {
		var r struct {
			TS   string          `json:"ts"`
			Tags json.RawMessage `json:"tags"`
			Nums json.RawMessage `json:"nums"`
			St   json.RawMessage `json:"st"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		w, ok := want[r.TS]
		if got := [3]string{string(r.Tags), string(r.Nums), string(r.St)}; !ok || got != w {
			t.Errorf("row %s: %v, want %v", r.TS, got, w)
		}
	}
}
