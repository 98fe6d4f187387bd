package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// duckDBVariant has DuckDB 1.5 read column col of source (iceberg:METADATA
// or parquet:FILE) and compare each row, by the SQL expression key, with
// want (key → [JSON text or nil, variant_typeof or ""]); it fails t on a
// difference or a row count other than len(want).
func duckDBVariant(t *testing.T, source, key, col string, want map[string][2]any) {
	t.Helper()
	py := interoptest.PythonV3(t)
	exp := filepath.Join(t.TempDir(), "expected.json")
	b, _ := json.Marshal(want)
	if err := os.WriteFile(exp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, filepath.Join(interoptest.Root(), "interop", "variant.py"), "compare", source, key, col, exp).CombinedOutput()
	if err != nil {
		t.Fatalf("variant.py compare: %v\n%s", err, out)
	}
	var got struct {
		Rows       int
		Mismatches []map[string]any
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("variant.py: %v\n%s", err, out)
	}
	if got.Rows != len(want) || len(got.Mismatches) > 0 {
		t.Errorf("DuckDB read %d rows (want %d); mismatches: %v", got.Rows, len(want), got.Mismatches)
	}
}

// TestVariantDuckDB: DuckDB 1.5's iceberg_scan reads the variant column of
// a format 3 table Timelake wrote, before and after a compaction, as the
// same values, of the variant types Timelake chose (the smallest int, a
// decimal of the literal's scale, a double for an exponent, strings
// short and long, objects and arrays, a variant null beside SQL nulls).
func TestVariantDuckDB(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "v", Type: schema.Nested, Nested: schema.VariantType()}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, st, testenv.New(3), "file://"+dir, sch, map[string]string{table.PropFormatVersion: "3"})
	if err != nil {
		t.Fatal(err)
	}
	values := []struct{ json, typ string }{
		{`{"host":"a","n":1,"tags":["x",{"y":false,"z":null}],"r":0.25}`, "OBJECT(host, n, r, tags)"},
		{`42`, "INT8"}, {`-300`, "INT16"}, {`70000`, "INT32"}, {`5000000000`, "INT64"},
		{`12.50`, "DECIMAL(4, 2)"}, {`12345678901.5`, "DECIMAL(12, 1)"}, {`12345678901234567890.123`, "DECIMAL(38, 3)"}, // decimal16: DuckDB names its width,
		{`1e300`, "DOUBLE"}, {`-2.5E-7`, "DOUBLE"},
		{`"short"`, "VARCHAR"}, {`"` + strings.Repeat("long ", 30) + `"`, "VARCHAR"},
		{`true`, "BOOL_TRUE"}, {`null`, "VARIANT_NULL"}, {`[]`, "ARRAY(0)"}, {`{}`, "OBJECT()"},
		{`{"ключ":"значение 🙂","q":"\"\\\n"}`, ""},
		{"", ""}, // a SQL null
	}
	var lines []string
	want := map[string][2]any{}
	for i, v := range values {
		ts := day1.Add(time.Duration(i) * time.Minute)
		host := fmt.Sprintf("h%d", i%3)
		key := fmt.Sprintf("%s@%d", host, ts.UnixMicro())
		if v.json == "" {
			lines = append(lines, fmt.Sprintf(`{"ts":%q,"host":%q}`, ts.Format(time.RFC3339), host))
			want[key] = [2]any{nil, ""}
			continue
		}
		lines = append(lines, fmt.Sprintf(`{"ts":%q,"host":%q,"v":%s}`, ts.Format(time.RFC3339), host, v.json))
		want[key] = [2]any{v.json, v.typ}
	}
	// two appends, so that the compaction below merges
	for _, part := range [][]string{lines[:9], lines[9:]} {
		b, err := rows.NewNDJSONReader(strings.NewReader(strings.Join(part, "\n")), tb.Schema(), rows.Options{}).Next(100)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	key := `host || '@' || epoch_us(ts)`
	duckDBVariant(t, "iceberg:"+filepath.Join(dir, commit.MetadataKey(tb.Version())), key, "v", want)
	if res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil || res.Merges == 0 {
		t.Fatalf("maintain: %+v, %v; want a compaction", res, err)
	}
	duckDBVariant(t, "iceberg:"+filepath.Join(dir, commit.MetadataKey(tb.Version())), key, "v", want)
}

// TestVariantForeignFile: a data file DuckDB wrote, its variant column
// shredded, added to a Timelake table as another engine would: scanned
// (beside Timelake's own rows) as DuckDB's values, and after a compaction
// rewrote it (re-encoding each value from its JSON) scanned as the same
// JSON text.
func TestVariantForeignFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "v", Type: schema.Nested, Nested: schema.VariantType()}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, st, testenv.New(3), "file://"+dir, sch, map[string]string{table.PropFormatVersion: "3"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rows.NewNDJSONReader(strings.NewReader(`{"ts":"2026-11-28T01:00:00Z","host":"a","v":{"mine":true}}`), tb.Schema(), rows.Options{}).Next(10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, b); err != nil {
		t.Fatal(err)
	}
	part := tb.Schema().PartitionName() + "=" + day1.Format("2006-01-02")
	if err := os.MkdirAll(filepath.Join(dir, "data", part), 0o755); err != nil {
		t.Fatal(err)
	}
	key := "data/" + part + "/duckdb-variant.parquet"
	if out, err := exec.Command(interoptest.PythonV3(t), filepath.Join(interoptest.Root(), "interop", "variant.py"), "write-table-file", filepath.Join(dir, key)).CombinedOutput(); err != nil {
		t.Fatalf("variant.py write-table-file: %v\n%s", err, out)
	}
	commitForeign(t, st, tb, int32(day1.Unix()/86400), []string{key})
	if tb, err = table.Open(ctx, st, testenv.New(4)); err != nil {
		t.Fatal(err)
	}
	us := func(m int) int64 { return day1.Add(6*time.Hour + time.Duration(m)*time.Minute).UnixMicro() }
	want := []string{
		fmt.Sprintf("a %d %s", day1.Add(time.Hour).UnixMicro(), `{"mine":true}`),
		fmt.Sprintf("d %d %s", us(0), `{"a":1,"b":[1.5,"x",null]}`),
		fmt.Sprintf("d %d %s", us(1), `"2024-03-01"`),
		fmt.Sprintf("d %d %s", us(2), `12.340`),
		fmt.Sprintf("d %d %s", us(3), `null`), // DuckDB writes a NULL variant as a variant null
		fmt.Sprintf("d %d %s", us(4), `{"a":2,"c":"y"}`),
		fmt.Sprintf("d %d %s", us(5), `"text"`),
	}
	check := func(what string) {
		t.Helper()
		if got := nestedRows(t, ctx, tb, "v"); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	check("with DuckDB's file")
	if res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil || res.Merges == 0 {
		t.Fatalf("maintain: %+v, %v; want a compaction", res, err)
	}
	check("after compaction")
}

// TestVariantNestedDuckDB: DuckDB 1.5's iceberg_scan reads the variant
// field of a struct<a: long, v: variant> column Timelake wrote as the
// values appended, of the variant types Timelake chose, a null field and
// a null struct as SQL nulls.
func TestVariantNestedDuckDB(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	typ, nt, err := schema.ParseTypeText("struct<a: long, v: variant>")
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "s", Type: typ, Nested: nt}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, st, testenv.New(3), "file://"+dir, sch, map[string]string{table.PropFormatVersion: "3"})
	if err != nil {
		t.Fatal(err)
	}
	values := []struct{ s, v, typ string }{
		{`{"a":1,"v":{"z":[1,"x"],"a":true}}`, `{"a":true,"z":[1,"x"]}`, "OBJECT(a, z)"},
		{`{"a":2,"v":12.50}`, `12.50`, "DECIMAL(4, 2)"},
		{`{"a":3,"v":"short"}`, `"short"`, "VARCHAR"},
		{`{"a":4,"v":null}`, "", ""},
		{`null`, "", ""},
		{`{"a":6,"v":70000}`, `70000`, "INT32"},
	}
	var lines []string
	want := map[string][2]any{}
	for i, v := range values {
		ts := day1.Add(time.Duration(i) * time.Minute)
		lines = append(lines, fmt.Sprintf(`{"ts":%q,"host":"h","s":%s}`, ts.Format(time.RFC3339), v.s))
		key := fmt.Sprintf("h@%d", ts.UnixMicro())
		if v.v == "" {
			want[key] = [2]any{nil, ""}
		} else {
			want[key] = [2]any{v.v, v.typ}
		}
	}
	b, err := rows.NewNDJSONReader(strings.NewReader(strings.Join(lines, "\n")), tb.Schema(), rows.Options{}).Next(100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, b); err != nil {
		t.Fatal(err)
	}
	duckDBVariant(t, "iceberg:"+filepath.Join(dir, commit.MetadataKey(tb.Version())), `host || '@' || epoch_us(ts)`, "s.v", want)
}
