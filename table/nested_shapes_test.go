package table_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/table"
)

// nestedShapesSchema is a table with tags map<string, long>, names
// list<string> and attrs struct<a: long, b: list<string>>, created from
// type text as `create --column` takes it.
func nestedShapesSchema(t *testing.T) *schema.Table {
	t.Helper()
	var vals []schema.Field
	for _, c := range []struct{ name, typ string }{
		{"tags", "map<string, long>"}, {"names", "list<string>"}, {"attrs", "struct<a: long, b: list<string>>"}, {"v", "double"},
	} {
		typ, nt, err := schema.ParseTypeText(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, schema.Field{Name: c.name, Type: typ, Nested: nt})
	}
	sch, err := schema.New("ts", []string{"host"}, vals, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// shapeRows scans the table into "host ts tags names attrs" lines ("-"
// for null), sorted.
func shapeRows(t *testing.T, ctx context.Context, tb *table.Table) []string {
	t.Helper()
	var out []string
	if _, err := tb.Scan(ctx, table.ScanOptions{}, func(b *rows.Batch) error {
		for r := 0; r < b.Len; r++ {
			line := fmt.Sprintf("%s %d", b.Cols[b.Schema.Index("host")].Strs[r], b.Cols[b.Schema.Index("ts")].Ints[r])
			for _, name := range []string{"tags", "names", "attrs"} {
				c := &b.Cols[b.Schema.Index(name)]
				if c.IsNull(r) {
					line += " -"
				} else {
					line += " " + c.Strs[r]
				}
			}
			out = append(out, line)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestWriteNestedShapes: a table created with map<string, long>,
// list<string> and struct<a: long, b: list<string>> columns is appended to
// through the Go API (JSON text and Go values), NDJSON (objects and arrays)
// and CSV (JSON text cells); scanned back exactly (nulls, empties, null
// elements, fields left out, unicode), and again after a compaction merged
// the files (the last row of a key winning); a struct field added later
// (alter --add attrs.c) reads as null in the rows before and takes values
// after; a delete's rewrite keeps the other rows' values. pyiceberg and
// DuckDB read every row's values exactly. Bad values
// are TYPE_MISMATCH naming the row, the column and the path inside the
// value, the store unchanged.
func TestWriteNestedShapes(t *testing.T) {
	ctx := context.Background()
	dir, st, tb := dirTable(t, testenv.New(61), nestedShapesSchema(t), nil)
	day := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	us := func(h int) int64 { return day.Add(time.Duration(h) * time.Hour).UnixMicro() }

	goRows := []map[string]any{
		{"ts": day, "host": "a", "tags": `{"x": 1, "y": null}`, "names": `["p", null, "q"]`, "attrs": `{"b": ["z"], "a": 5}`},
		{"ts": day.Add(time.Hour), "host": "a", "tags": map[string]any{"n": -9223372036854775808}, "names": []string{}, "attrs": map[string]any{"a": 7}},
		{"ts": day.Add(2 * time.Hour), "host": "a"},
	}
	b, err := rows.FromMaps(tb.Schema(), goRows, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, b); err != nil {
		t.Fatal(err)
	}
	nd := `{"ts":"2026-11-28T00:00:00Z","host":"b","tags":{},"names":["ключ 🙂","\"q\""],"attrs":{"a":null,"b":[]}}
{"ts":"2026-11-28T01:00:00Z","host":"b","tags":{"k":3},"names":null,"attrs":{"b":[null,"w"]}}
{"ts":"2026-11-28T02:00:00Z","host":"a","tags":{"new":2},"names":["r"],"attrs":null}
`
	nb, err := rows.NewNDJSONReader(strings.NewReader(nd), tb.Schema(), rows.Options{}).Next(100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, nb); err != nil {
		t.Fatal(err)
	}
	csv := "ts,host,tags,names,attrs\n" +
		"2026-11-28T03:00:00Z,c,\"{\"\"a\"\":1,\"\"b\"\":2}\",\"[\"\"x\"\"]\",\"{\"\"a\"\":1}\"\n" +
		"2026-11-28T04:00:00Z,c,,,\n"
	cb, err := rows.NewCSVReader(strings.NewReader(csv), tb.Schema(), rows.Options{}).Next(100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, cb); err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("a %d %s", us(0), `{"x":1,"y":null} ["p",null,"q"] {"a":5,"b":["z"]}`),
		fmt.Sprintf("a %d %s", us(1), `{"n":-9223372036854775808} [] {"a":7,"b":null}`),
		fmt.Sprintf("a %d %s", us(2), `{"new":2} ["r"] -`), // the NDJSON row over the Go one
		fmt.Sprintf("b %d %s", us(0), `{} ["ключ 🙂","\"q\""] {"a":null,"b":[]}`),
		fmt.Sprintf("b %d %s", us(1), `{"k":3} - {"a":null,"b":[null,"w"]}`),
		fmt.Sprintf("c %d %s", us(3), `{"a":1,"b":2} ["x"] {"a":1,"b":null}`),
		fmt.Sprintf("c %d - - -", us(4)),
	}
	sort.Strings(want)
	check := func(what string, want []string) {
		t.Helper()
		if got := shapeRows(t, ctx, tb); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	check("after appends", want)
	if _, err := tb.Maintain(ctx, table.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	check("after compaction", want)
	latest, err := tb.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < latest.Len; r++ {
		if h := latest.Cols[latest.Schema.Index("host")].Strs[r]; h == "b" {
			if got := latest.Cols[latest.Schema.Index("attrs")].Strs[r]; got != `{"a":null,"b":[null,"w"]}` {
				t.Errorf("latest attrs of b: %s", got)
			}
		}
	}

	// outside readers: every value exactly
	outside(t, dir, tb, want)

	// bad values: coded, naming row, column and path; nothing written
	before := snapshotStore(t, st)
	for _, c := range []struct{ input, want string }{
		{`{"ts":"2026-11-28T07:00:00Z","host":"a","tags":{"n":"1"}}`, `at tags[n]: a string "1" given for a long`},
		{`{"ts":"2026-11-28T07:00:00Z","host":"a","names":["x",2]}`, `at names[1]: a number 2 given for a string`},
		{`{"ts":"2026-11-28T07:00:00Z","host":"a","attrs":{"a":1,"c":2}}`, `at attrs.c: no such field`},
		{`{"ts":"2026-11-28T07:00:00Z","host":"a","attrs":{"b":"x"}}`, `at attrs.b: a string given for a list<string> (want a JSON array)`},
		{`{"ts":"2026-11-28T07:00:00Z","host":"a","tags":{"n":1.5}}`, `at tags[n]: 1.5 has a fraction`},
	} {
		_, err := rows.NewNDJSONReader(strings.NewReader("{\"ts\":\"2026-11-28T08:00:00Z\",\"host\":\"a\"}\n"+c.input+"\n"), tb.Schema(), rows.Options{}).Next(100)
		var re *rows.Error
		if !errors.As(err, &re) || re.Code != rows.CodeTypeMismatch || re.Row != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want TYPE_MISMATCH row 2: %s", c.input, err, c.want)
		}
	}
	bad := &rows.Batch{Schema: tb.Schema(), Len: 1, Cols: make([]rows.Column, len(tb.Schema().Fields))}
	for i, f := range tb.Schema().Fields {
		switch {
		case f.Name == "ts":
			bad.Cols[i].Ints = []int64{us(9)}
		case f.Name == "host":
			bad.Cols[i].Strs = []string{"a"}
		case f.Name == "names":
			bad.Cols[i].Strs = []string{`[1]`}
		case f.Type == schema.Nested:
			bad.Cols[i] = rows.Column{Strs: []string{""}, Nulls: []bool{true}}
		case f.Type == schema.Double:
			bad.Cols[i] = rows.Column{Floats: []float64{0}, Nulls: []bool{true}}
		default:
			bad.Cols[i] = rows.Column{Ints: []int64{0}, Nulls: []bool{true}}
		}
	}
	if _, err := tb.Append(ctx, bad); table.Code(err) != "TYPE_MISMATCH" || !strings.Contains(err.Error(), "at names[0]") {
		t.Errorf("a batch built by hand with names [1]: %v (%s), want TYPE_MISMATCH at names[0]", err, table.Code(err))
	}
	sameStore(t, before, snapshotStore(t, st))

	// a struct field added: null in the rows before, values after
	add, err := evolve.Parse("add", "attrs.c:long")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Alter(ctx, []evolve.Change{add}); err != nil {
		t.Fatal(err)
	}
	if got := tb.Schema().Fields[tb.Schema().Index("attrs")].Nested.String(); got != "struct<a: long, b: list<string>, c: long>" {
		t.Fatalf("attrs is %s", got)
	}
	nb, err = rows.NewNDJSONReader(strings.NewReader(`{"ts":"2026-11-28T05:00:00Z","host":"c","attrs":{"c":42}}`+"\n"), tb.Schema(), rows.Options{}).Next(100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, nb); err != nil {
		t.Fatal(err)
	}
	want2 := []string{fmt.Sprintf("c %d - - %s", us(5), `{"a":null,"b":null,"c":42}`)}
	for _, w := range want {
		w = strings.Replace(w, `{"a":5,"b":["z"]}`, `{"a":5,"b":["z"],"c":null}`, 1)
		w = strings.Replace(w, `{"a":7,"b":null}`, `{"a":7,"b":null,"c":null}`, 1)
		w = strings.Replace(w, `{"a":null,"b":[]}`, `{"a":null,"b":[],"c":null}`, 1)
		w = strings.Replace(w, `{"a":null,"b":[null,"w"]}`, `{"a":null,"b":[null,"w"],"c":null}`, 1)
		w = strings.Replace(w, `{"a":1,"b":null}`, `{"a":1,"b":null,"c":null}`, 1)
		want2 = append(want2, w)
	}
	sort.Strings(want2)
	check("a struct field added", want2)
	if _, err := tb.Maintain(ctx, table.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	check("a struct field added, compacted", want2)
	outside(t, dir, tb, want2)

	// a delete rewrites the file without host b's rows, the others' values kept
	if _, err := tb.Delete(ctx, table.DeleteOptions{Series: map[string][]any{"host": {"b"}}}); err != nil {
		t.Fatal(err)
	}
	var want3 []string
	for _, w := range want2 {
		if !strings.HasPrefix(w, "b ") {
			want3 = append(want3, w)
		}
	}
	check("host b deleted", want3)
}

// outside checks that pyiceberg (readers.py map-rows) and DuckDB's
// iceberg_scan read the table's nested values as want's lines.
func outside(t *testing.T, dir string, tb *table.Table, want []string) {
	t.Helper()
	if testing.Short() {
		return
	}
	py := interoptest.Python(t)
	md := filepath.Join(dir, commit.MetadataKey(tb.Version()))
	out, err := exec.Command(py, filepath.Join(interoptest.Root(), "interop", "readers.py"), "map-rows", md).CombinedOutput()
	if err != nil {
		t.Fatalf("pyiceberg map-rows: %v\n%s", err, out)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("map-rows line %q: %v", line, err)
		}
		got = append(got, shapeLine(r))
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pyiceberg:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	out, err = exec.Command(py, "-c", `import json, sys
sys.path.insert(0, sys.argv[2])
from readers import duckdb_connect, sql_str
c = duckdb_connect()
for r in c.execute("SELECT host, epoch_us(ts), to_json(tags), to_json(names), to_json(attrs) FROM iceberg_scan(" + sql_str(sys.argv[1]) + ")").fetchall():
    print(json.dumps({"host": r[0], "ts": r[1], "tags": r[2], "names": r[3], "attrs": r[4]}, ensure_ascii=False))`,
		md, filepath.Join(interoptest.Root(), "interop")).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	got = got[:0]
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("duckdb line %q: %v", line, err)
		}
		got = append(got, shapeLine(r))
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("duckdb:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func shapeLine(r map[string]any) string {
	line := fmt.Sprintf("%v %d", r["host"], int64(r["ts"].(float64)))
	for _, name := range []string{"tags", "names", "attrs"} {
		if s, ok := r[name].(string); ok {
			line += " " + s
		} else {
			line += " -"
		}
	}
	return line
}

// TestNestedStreamed: a file with a nested column streams like any other
// (its nested column read a row group at a time): a scan filtered by time
// and series decodes fewer pages than the file has and gives the rows a
// full scan gives, each with its own struct; a compaction merging an
// overlapping append keeps every row's value (the later row winning).
func TestNestedStreamed(t *testing.T) {
	ctx := context.Background()
	typ, attrs, err := schema.ParseTypeText("struct<i: long, b: list<string>>")
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "attrs", Type: typ, Nested: attrs}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	_, _, tb := dirTable(t, testenv.New(71), sch, map[string]string{table.PropPageRowLimit: "37"})
	day := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	value := func(i, sign int) string {
		if i%7 == 0 && sign > 0 {
			return "null"
		}
		return fmt.Sprintf(`{"i":%d,"b":%s}`, sign*i, []string{`[]`, `["x"]`, `["x","y"]`}[i%3])
	}
	var nd strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&nd, `{"ts":"%s","host":"h%d","attrs":%s}`+"\n", day.Add(time.Duration(i)*time.Second).Format(time.RFC3339), i%3, value(i, 1))
	}
	appendND := func(text string) {
		t.Helper()
		b, err := rows.NewNDJSONReader(strings.NewReader(text), tb.Schema(), rows.Options{}).Next(10000)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	appendND(nd.String())
	scanAll := func(opt table.ScanOptions) ([]string, *table.ScanStats) {
		t.Helper()
		var out []string
		stats, err := tb.Scan(ctx, opt, func(b *rows.Batch) error {
			a := &b.Cols[b.Schema.Index("attrs")]
			for r := 0; r < b.Len; r++ {
				v := a.Strs[r]
				if a.IsNull(r) {
					v = "null"
				}
				out = append(out, fmt.Sprintf("%s %d %s", b.Cols[b.Schema.Index("host")].Strs[r], b.Cols[b.Schema.Index("ts")].Ints[r], v))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out, stats
	}
	all, _ := scanAll(table.ScanOptions{})
	if len(all) != 2000 {
		t.Fatalf("%d rows", len(all))
	}
	for _, line := range all {
		var h, us int64
		var v string
		if _, err := fmt.Sscanf(line, "h%d %d %s", &h, &us, &v); err != nil {
			t.Fatal(err)
		}
		if i := int((us - day.UnixMicro()) / 1e6); v != value(i, 1) {
			t.Fatalf("row %d: %s, want %s", i, v, value(i, 1))
		}
	}
	from, to := day.Add(10*time.Minute).UnixMicro(), day.Add(20*time.Minute).UnixMicro()
	part, stats := scanAll(table.ScanOptions{FromUS: &from, ToUS: &to, Series: map[string][]any{"host": {"h1"}}})
	var want []string
	for _, line := range all {
		var h, us int64
		fmt.Sscanf(line, "h%d %d", &h, &us)
		if h == 1 && us >= from && us < to {
			want = append(want, line)
		}
	}
	if strings.Join(part, "\n") != strings.Join(want, "\n") || len(want) != 200 {
		t.Fatalf("filtered scan: %d rows, want %d", len(part), len(want))
	}
	if stats.PagesRead >= stats.Pages {
		t.Errorf("pages read %d of %d: the scan did not stream by pages", stats.PagesRead, stats.Pages)
	}

	// an overlapping append, then a compaction merging both files
	nd.Reset()
	for i := 0; i < 2000; i += 5 {
		fmt.Fprintf(&nd, `{"ts":"%s","host":"h%d","attrs":%s}`+"\n", day.Add(time.Duration(i)*time.Second).Format(time.RFC3339), i%3, value(i, -1))
	}
	appendND(nd.String())
	before, _ := scanAll(table.ScanOptions{})
	if _, err := tb.Maintain(ctx, table.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	after, _ := scanAll(table.ScanOptions{})
	if strings.Join(before, "\n") != strings.Join(after, "\n") || len(after) != 2000 {
		t.Fatalf("compaction changed the rows: %d before, %d after", len(before), len(after))
	}
	for _, line := range after {
		var h, us int64
		var v string
		fmt.Sscanf(line, "h%d %d %s", &h, &us, &v)
		i := int((us - day.UnixMicro()) / 1e6)
		sign := 1
		if i%5 == 0 {
			sign = -1
		}
		if v != value(i, sign) {
			t.Fatalf("after compaction, row %d: %s, want %s", i, v, value(i, sign))
		}
	}
}
