package cowrite

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
)

// TestNestedColumnsSpark: Spark (parquet-mr through Iceberg's writer)
// creates a table with a tags map<string,string>, a list<bigint> and a
// struct<a:bigint,b:string>, and inserts rows with every kind of null and
// empty value; Timelake's scan prints each exactly, as JSON, and writes
// them as Arrow's map, list and struct that pyarrow reads as the same.
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

	// scan --format arrow: pyarrow reads each row's map, list and struct
	// (Arrow's nested types) as the same values
	arrowOut := filepath.Join(t.TempDir(), "scan.arrows")
	if _, err := run(tl, "scan", dir, "--format", "arrow", "-o", arrowOut); err != nil {
		t.Fatal(err)
	}
	pyOut, err := run(interoptest.Python(t), filepath.Join(interoptest.Root(), "arrowipc", "testdata", "readnested.py"), arrowOut)
	if err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, pyOut)
	}
	var arrowRead struct {
		Schema []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"schema"`
		Rows [][]*string `json:"rows"`
	}
	if err := json.Unmarshal(pyOut, &arrowRead); err != nil {
		t.Fatal(err)
	}
	at := map[string]int{}
	for i, f := range arrowRead.Schema {
		at[f.Name] = i
	}
	if ts, tags := arrowRead.Schema[at["ts"]], arrowRead.Schema[at["tags"]]; len(arrowRead.Rows) != len(want) || ts.Name != "ts" || tags.Type != "map<string, string>" ||
		arrowRead.Schema[at["nums"]].Type != "list<element: int64>" || arrowRead.Schema[at["st"]].Type != "struct<a: int64, b: string>" {
		t.Fatalf("pyarrow reads %d rows of %+v", len(arrowRead.Rows), arrowRead.Schema)
	}
	for _, r := range arrowRead.Rows {
		text := func(name string) string {
			if v := r[at[name]]; v != nil {
				return *v
			}
			return "null"
		}
		var ts string
		if err := json.Unmarshal([]byte(text("ts")), &ts); err != nil {
			t.Fatal(err)
		}
		if got := [3]string{text("tags"), text("nums"), text("st")}; got != want[ts] {
			t.Errorf("Arrow row %s: pyarrow reads %v, want %v", ts, got, want[ts])
		}
	}

	// The same rows in plain Parquet files of Spark's own writer, in its
	// standard and its legacy layout (spark.sql.parquet.writeLegacyFormat:
	// lists as repeated group "bag" of "array", maps as MAP_KEY_VALUE
	// groups), read by package parquet.
	// the session is shared by the package's tests: leave it as it was
	defer func() { _, _ = spark.SQL("RESET spark.sql.parquet.writeLegacyFormat") }()
	for _, legacy := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("legacy-%v", legacy))
		for _, q := range []string{
			fmt.Sprintf("SET spark.sql.parquet.writeLegacyFormat=%v", legacy),
			fmt.Sprintf("INSERT OVERWRITE DIRECTORY 'file://%s' USING parquet SELECT date_format(ts, 'yyyy-MM-dd HH:mm:ss') AS t, tags, nums, st FROM cat.nested.t", out),
		} {
			if _, err := spark.SQL(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.parquet"))
		got := 0
		for _, path := range files {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parquet.Open(data)
			if err != nil {
				t.Fatalf("legacy %v: %s: %v", legacy, path, err)
			}
			var paths []string
			for _, c := range f.Schema() {
				paths = append(paths, strings.Join(c.Path, "."))
			}
			// the layout asked for: legacy lists are bag.array, else list.element
			if wantPath := map[bool]string{false: "nums.list.element", true: "nums.bag.array"}[legacy]; !slices.Contains(paths, wantPath) {
				t.Errorf("legacy %v: leaves %v, want %s among them", legacy, paths, wantPath)
			}
			for rg := range f.NumRowGroups() {
				ts, err := f.ReadColumn(rg, 0)
				if err != nil {
					t.Fatal(err)
				}
				var cols [3]rows.Column
				for k := range cols {
					if cols[k], err = f.ReadNested(rg, k, nil); err != nil {
						t.Fatalf("legacy %v: %s: %v", legacy, f.Meta().Nested[k].Name, err)
					}
				}
				for r, s := range ts.Strs {
					key := strings.Replace(s, " ", "T", 1) + ".000000Z"
					var row [3]string
					for k := range cols {
						row[k] = cols[k].Strs[r]
						if cols[k].IsNull(r) {
							row[k] = "null"
						}
					}
					if w, ok := want[key]; !ok || row != w {
						t.Errorf("legacy %v: row %s: %v, want %v", legacy, key, row, w)
					}
					got++
				}
			}
		}
		if got != len(want) {
			t.Errorf("legacy %v: %d rows in %d files, want %d", legacy, got, len(files), len(want))
		}
	}
}

// TestNestedWriteSpark: Spark creates a table with a map<string,bigint>,
// a list<string> and a struct<a:bigint,b:array<string>> and fills them;
// Timelake adopts it, appends (NDJSON) and compacts; Spark adds a struct
// field (ALTER TABLE ADD COLUMN st.c) and inserts with it; Timelake
// appends with it and compacts again. After each step Spark reads every
// value exactly as Timelake's scan prints it (to_json with null fields
// kept), the rows before the added field with it null.
func TestNestedWriteSpark(t *testing.T) {
	spark, wh := sparkEngine(t)
	tl := build(t, interoptest.Root(), "./cmd/timelake", "timelake")
	dir := filepath.Join(wh, "nested", "w")
	for _, q := range []string{
		"CREATE TABLE cat.nested.w (ts timestamp, host string, tags map<string,bigint>, names array<string>, st struct<a:bigint,b:array<string>>) USING iceberg",
		`INSERT INTO cat.nested.w VALUES
		(TIMESTAMP '2026-11-27 00:00:00 UTC', 'a', map('x', 1, 'y', CAST(NULL AS BIGINT)), array('p', NULL), named_struct('a', 5, 'b', array('z'))),
		(TIMESTAMP '2026-11-27 00:00:01 UTC', 'b', map(), array(), NULL)`,
	} {
		if _, err := spark.SQL(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if out, err := run(tl, "adopt", dir, "--time", "ts", "--series", "host"); err != nil {
		t.Fatalf("adopt: %v\n%s", err, out)
	}
	want := map[string]string{ // host ts → tags names st, as Timelake prints them
		"a 2026-11-27T00:00:00.000000Z": `{"x":1,"y":null} ["p",null] {"a":5,"b":["z"]}`,
		"b 2026-11-27T00:00:01.000000Z": `{} [] null`,
	}
	// check compares Timelake's scan and Spark's read with want.
	check := func(step string) {
		t.Helper()
		out, err := run(tl, "scan", dir, "--format", "ndjson")
		if err != nil {
			t.Fatalf("%s: scan: %v\n%s", step, err, out)
		}
		got := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var r struct {
				TS, Host        string
				Tags, Names, St json.RawMessage
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			got[r.Host+" "+r.TS] = string(r.Tags) + " " + string(r.Names) + " " + string(r.St)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: Timelake scan:\n%v\nwant:\n%v", step, got, want)
		}
		rs, err := spark.SQL(`SELECT host, date_format(ts, "yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'") AS t,
			coalesce(to_json(tags), 'null') AS tags, coalesce(to_json(names), 'null') AS names,
			coalesce(to_json(st, map('ignoreNullFields', 'false')), 'null') AS st FROM cat.nested.w`)
		if err != nil {
			t.Fatalf("%s: spark: %v", step, err)
		}
		if len(rs) != len(want) {
			t.Errorf("%s: Spark read %d rows, want %d", step, len(rs), len(want))
		}
		sgot := map[string]string{}
		for _, r := range rs {
			sgot[fmt.Sprint(r["host"], " ", r["t"])] = fmt.Sprint(r["tags"], " ", r["names"], " ", r["st"])
		}
		if fmt.Sprint(sgot) != fmt.Sprint(want) {
			t.Errorf("%s: Spark:\n%v\nwant:\n%v", step, sgot, want)
		}
	}
	check("Spark's rows, adopted")

	appendND := func(step, nd string) {
		t.Helper()
		in := filepath.Join(t.TempDir(), "in.ndjson")
		if err := os.WriteFile(in, []byte(nd), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"append", dir, in}, {"maintain", dir}} {
			if out, err := run(tl, args...); err != nil {
				t.Fatalf("%s: %v: %v\n%s", step, args, err, out)
			}
		}
	}
	appendND("Timelake's append", `{"ts":"2026-11-27T00:00:02Z","host":"a","tags":{"n":-7},"names":["ключ 🙂"],"st":{"b":[null,"w"]}}
{"ts":"2026-11-27T00:00:05Z","host":"b","tags":null,"names":null,"st":{"a":1}}
`)
	want["a 2026-11-27T00:00:02.000000Z"] = `{"n":-7} ["ключ 🙂"] {"a":null,"b":[null,"w"]}`
	want["b 2026-11-27T00:00:05.000000Z"] = `null null {"a":1,"b":null}`
	check("Timelake appended and compacted")

	for _, q := range []string{
		"ALTER TABLE cat.nested.w ADD COLUMN st.c bigint",
		`INSERT INTO cat.nested.w VALUES (TIMESTAMP '2026-11-27 00:00:03 UTC', 'c', NULL, NULL, named_struct('a', 2, 'b', CAST(NULL AS array<string>), 'c', 9))`,
	} {
		if _, err := spark.SQL(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for k, v := range want {
		v = strings.Replace(v, `"b":["z"]}`, `"b":["z"],"c":null}`, 1)
		v = strings.Replace(v, `"b":[null,"w"]}`, `"b":[null,"w"],"c":null}`, 1)
		want[k] = strings.Replace(v, `{"a":1,"b":null}`, `{"a":1,"b":null,"c":null}`, 1)
	}
	want["c 2026-11-27T00:00:03.000000Z"] = `null null {"a":2,"b":null,"c":9}`
	check("Spark added st.c")
	appendND("Timelake's append with st.c", `{"ts":"2026-11-27T00:00:04Z","host":"c","st":{"c":10,"a":3}}
`)
	want["c 2026-11-27T00:00:04.000000Z"] = `null null {"a":3,"b":null,"c":10}`
	check("Timelake appended with st.c and compacted")
}
