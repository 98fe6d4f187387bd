package parquet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestWriteMapDuckDB: DuckDB's read_parquet reads a map<string, string>
// column Timelake wrote (pages v2 and, in compatibility mode, v1; several
// pages and row groups) as the same maps: its to_json of each row is the
// JSON text written, nulls and empties included.
func TestWriteMapDuckDB(t *testing.T) {
	python(t) // skips without the venv
	var all []*string
	for range 3 {
		all = append(all, mapRows...)
	}
	n := len(all)
	ts := rows.Column{Ints: make([]int64, n)}
	for i := range n {
		ts.Ints[i] = int64(i)
	}
	specs := []ColumnSpec{
		{Name: "ts", FieldID: 1, Type: schema.Long, Required: true},
		{Name: "tags", FieldID: 2, Type: schema.Nested, Nested: stringMap(10, 11, false)},
	}
	for _, o := range []Options{{PageRowLimit: 4, RowGroupRows: 11}, {PageRowLimit: 3, RowGroupRows: 7, Compat: true, Codec: Snappy}} {
		t.Run(fmt.Sprintf("compat=%v", o.Compat), func(t *testing.T) {
			w, err := NewWriter(specs, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write([]rows.Column{ts, mapColumn(all)}, n); err != nil {
				t.Fatal(err)
			}
			data, _, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "tags.parquet")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			out := runPython(t, "-c", `import duckdb, json, sys
rows = duckdb.sql("select to_json(tags) from read_parquet('"+sys.argv[1]+"') order by ts").fetchall()
print(json.dumps([r[0] for r in rows]))`, path)
			var got []*string
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if len(got) != n {
				t.Fatalf("duckdb read %d rows, want %d", len(got), n)
			}
			for i := range all {
				if show(got[i]) != show(all[i]) {
					t.Errorf("row %d: duckdb %s, want %s", i, show(got[i]), show(all[i]))
				}
			}
		})
	}
}
