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

// TestWriteNestedDuckDB: DuckDB's read_parquet (and pyarrow) reads lists, structs and
// maps of other keys and values that Timelake wrote (pages v2 and v1,
// several pages and row groups) as the same values: its to_json of each
// row is the JSON text written, nulls and empties included; pyarrow's
// values printed as JSON are too.
func TestWriteNestedDuckDB(t *testing.T) {
	python(t) // skips without the venv
	cols := []struct {
		typ  string
		vals []string // "" a null row
	}{
		{`{"type":"struct","fields":[{"id":11,"name":"a","required":false,"type":"long"},{"id":12,"name":"b","required":false,"type":{"type":"list","element-id":13,"element-required":false,"element":"string"}}]}`,
			[]string{`{"a":1,"b":["x","y"]}`, ``, `{"a":null,"b":[]}`, `{"a":-7,"b":null}`, `{"a":5,"b":["ключ 🙂",null,"\"q\""]}`}},
		{`{"type":"map","key-id":21,"key":"string","value-id":22,"value-required":false,"value":"long"}`,
			[]string{`{"x":1,"y":null}`, `{}`, ``, `{"a":9223372036854775807}`, `{"z":-1}`}},
		{`{"type":"list","element-id":31,"element-required":false,"element":{"type":"list","element-id":32,"element-required":true,"element":"int"}}`,
			[]string{`[[1,2],[],null,[3]]`, ``, `[]`, `[[-2147483648]]`, `[null]`}},
		{`{"type":"map","key-id":41,"key":"long","value-id":42,"value-required":false,"value":{"type":"struct","fields":[{"id":43,"name":"x","required":false,"type":"double"},{"id":44,"name":"l","required":false,"type":{"type":"list","element-id":45,"element-required":false,"element":"boolean"}}]}}`,
			[]string{`{"1":{"x":1.5,"l":[true,null,false]},"2":null}`, ``, `{}`, `{"-3":{"x":null,"l":[]}}`, `{"4":{"x":-0.25,"l":null}}`}},
	}
	const reps = 4
	n := reps * 5
	specs := []ColumnSpec{{Name: "ts", FieldID: 1, Type: schema.Long, Required: true}}
	in := []rows.Column{{Ints: make([]int64, n)}}
	for i := range n {
		in[0].Ints[i] = int64(i)
	}
	for k, c := range cols {
		nt, err := schema.ParseNested([]byte(c.typ))
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, ColumnSpec{Name: fmt.Sprintf("c%d", k), FieldID: int32(2 + k), Type: schema.Nested, Nested: nt})
		var vs []*string
		for range reps {
			for i := range c.vals {
				if c.vals[i] == "" {
					vs = append(vs, nil)
				} else {
					vs = append(vs, &c.vals[i])
				}
			}
		}
		in = append(in, mapColumn(vs))
	}
	for _, o := range []Options{{PageRowLimit: 4, RowGroupRows: 11}, {PageRowLimit: 3, RowGroupRows: 7, Compat: true, Codec: Snappy}} {
		t.Run(fmt.Sprintf("compat=%v", o.Compat), func(t *testing.T) {
			w, err := NewWriter(specs, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(in, n); err != nil {
				t.Fatal(err)
			}
			data, _, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "nested.parquet")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			out := runPython(t, "-c", `import duckdb, json, sys
rows = duckdb.sql("select to_json(c0), to_json(c1), to_json(c2), to_json(c3) from read_parquet('"+sys.argv[1]+"') order by ts").fetchall()
print(json.dumps([list(r) for r in rows]))`, path)
			var got [][]*string
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if len(got) != n {
				t.Fatalf("duckdb read %d rows, want %d", len(got), n)
			}
			// pyarrow: maps come as lists of pairs, made objects here
			out = runPython(t, "-c", `import json, sys
import pyarrow as pa, pyarrow.parquet as pq
def norm(v, t):
    if v is None: return None
    if pa.types.is_map(t): return {str(k).lower() if isinstance(k, bool) else str(k): norm(x, t.item_type) for k, x in v}
    if pa.types.is_list(t): return [norm(x, t.value_type) for x in v]
    if pa.types.is_struct(t): return {t.field(i).name: norm(v[t.field(i).name], t.field(i).type) for i in range(t.num_fields)}
    return v
tb = pq.read_table(sys.argv[1]).sort_by("ts")
out = []
for r in tb.to_pylist():
    out.append([None if r[c] is None else json.dumps(norm(r[c], tb.schema.field(c).type), separators=(",", ":"), ensure_ascii=False) for c in ["c0", "c1", "c2", "c3"]])
print(json.dumps(out))`, path)
			var arrow [][]*string
			if err := json.Unmarshal(out, &arrow); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			for k := range cols {
				for i := range n {
					want := show(strPtr(in[k+1], i))
					if show(got[i][k]) != want {
						t.Errorf("c%d row %d: duckdb %s, want %s", k, i, show(got[i][k]), want)
					}
					if i >= len(arrow) || show(arrow[i][k]) != want {
						t.Errorf("c%d row %d: pyarrow %v, want %s", k, i, arrow, want)
					}
				}
			}
		})
	}
}

func strPtr(c rows.Column, i int) *string {
	if c.IsNull(i) {
		return nil
	}
	return &c.Strs[i]
}
