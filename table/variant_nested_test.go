package table_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestVariantNested: a format 3 table with struct<a: long, v: variant>,
// list<variant> and map<string, variant> columns (type text as create takes it) is appended
// to by NDJSON and scanned back with each variant as its canonical JSON,
// again after a compaction re-encoded the files and after a reopen; a
// struct field added by alter may be a variant. Format 2 refuses the
// schema (BAD_SCHEMA); bad JSON inside the variant is TYPE_MISMATCH
// naming the path.
func TestVariantNested(t *testing.T) {
	ctx := context.Background()
	col := func(name, text string) schema.Field {
		typ, nt, err := schema.ParseTypeText(text)
		if err != nil {
			t.Fatal(err)
		}
		return schema.Field{Name: name, Type: typ, Nested: nt}
	}
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{
		col("s", "struct<a: long, v: variant>"), col("l", "list<variant>"), col("m", "map<string, variant>")}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.Create(ctx, memstore.New(), testenv.New(1), "mem://v2", sch, nil); table.Code(err) != "BAD_SCHEMA" {
		t.Errorf("create format 2 with struct<a: long, v: variant>: %v (%s), want BAD_SCHEMA", err, table.Code(err))
	}
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(7), "mem://nv", sch, map[string]string{table.PropFormatVersion: "3"})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tb.Metadata().CurrentSchema().Fields[2].Type); !strings.Contains(got, `"type":"variant"`) {
		t.Fatalf("struct's Iceberg type %s lacks its variant field", got)
	}
	nd := `{"ts":"2026-11-28T00:00:00Z","host":"a","s":{"a":1,"v":{"z":[1, 2.50],"a":"x"}},"l":[{"k":true},null,"s",[]],"m":{"x":{"b":1,"a":2},"y":null}}
{"ts":"2026-11-28T01:00:00Z","host":"a","s":{"v":-12345678901234567890,"a":2},"l":[],"m":{}}
{"ts":"2026-11-28T02:00:00Z","host":"a","s":{"a":3,"v":null},"l":null}
{"ts":"2026-11-28T03:00:00Z","host":"a","s":null,"l":[1e300]}
{"ts":"2026-11-28T04:00:00Z","host":"a","s":{"a":5}}
`
	b, err := rows.NewNDJSONReader(strings.NewReader(nd), tb.Schema(), rows.Options{}).Next(100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, b); err != nil {
		t.Fatal(err)
	}
	us := func(h int) int64 { return day1.Add(time.Duration(h) * time.Hour).UnixMicro() }
	want := func(col string) []string {
		texts := map[string][]string{
			"s": {`{"a":1,"v":{"a":"x","z":[1,2.50]}}`, `{"a":2,"v":-12345678901234567890}`, `{"a":3,"v":null}`, `-`, `{"a":5,"v":null}`},
			"l": {`[{"k":true},null,"s",[]]`, `[]`, `-`, `[1e+300]`, `-`},
			"m": {`{"x":{"a":2,"b":1},"y":null}`, `{}`, `-`, `-`, `-`},
		}[col]
		var out []string
		for h, s := range texts {
			out = append(out, fmt.Sprintf("a %d %s", us(h), s))
		}
		return out
	}
	check := func(what string) {
		t.Helper()
		for _, c := range []string{"s", "l", "m"} {
			if got, w := nestedRows(t, ctx, tb, c), want(c); strings.Join(got, "\n") != strings.Join(w, "\n") {
				t.Errorf("%s: column %s:\n%s\nwant:\n%s", what, c, strings.Join(got, "\n"), strings.Join(w, "\n"))
			}
		}
	}
	check("after the append")
	// a second file, so that the compaction merges and re-encodes both
	b2, err := rows.NewNDJSONReader(strings.NewReader(`{"ts":"2026-11-28T05:00:00Z","host":"b","s":{"a":6,"v":[{}]}}`+"\n"), tb.Schema(), rows.Options{}).Next(100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, b2); err != nil {
		t.Fatal(err)
	}
	if res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil || res.Merges == 0 {
		t.Fatalf("maintain: %+v, %v; want a compaction", res, err)
	}
	if tb, err = table.Open(ctx, st, testenv.New(10)); err != nil {
		t.Fatal(err)
	}
	got := nestedRows(t, ctx, tb, "s")
	if len(got) != 6 || got[5] != fmt.Sprintf("b %d %s", us(5), `{"a":6,"v":[{}]}`) {
		t.Errorf("after compaction and reopen: %q", got)
	}
	if strings.Join(got[:5], "\n") != strings.Join(want("s"), "\n") {
		t.Errorf("after compaction and reopen:\n%s\nwant:\n%s", strings.Join(got[:5], "\n"), strings.Join(want("s"), "\n"))
	}

	// a variant inside the struct that is no JSON value: coded, naming the path
	_, err = rows.NewNDJSONReader(strings.NewReader(`{"ts":"2026-11-28T09:00:00Z","host":"a","s":{"a":1,"v":{"n":1,"n":2}}}`+"\n"), tb.Schema(), rows.Options{}).Next(100)
	if code := table.Code(err); code != "TYPE_MISMATCH" || !strings.Contains(err.Error(), "s.v") || !strings.Contains(err.Error(), `key "n" twice`) {
		t.Errorf("a struct's bad variant: %v (%s), want TYPE_MISMATCH at s.v naming the key", err, code)
	}

	// alter: a variant field added to the struct
	add, err := evolve.Parse("add", "s.w:variant")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Alter(ctx, []evolve.Change{add}); err != nil {
		t.Fatalf("alter --add s.w:variant: %v", err)
	}
	b3, err := rows.NewNDJSONReader(strings.NewReader(`{"ts":"2026-11-28T06:00:00Z","host":"b","s":{"a":7,"w":{"b":1,"a":0}}}`+"\n"), tb.Schema(), rows.Options{}).Next(100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, b3); err != nil {
		t.Fatal(err)
	}
	got = nestedRows(t, ctx, tb, "s")
	if w := fmt.Sprintf("b %d %s", us(6), `{"a":7,"v":null,"w":{"a":0,"b":1}}`); len(got) != 7 || got[6] != w {
		t.Errorf("after alter --add s.w:variant: %q, want last %s", got, w)
	}
}
