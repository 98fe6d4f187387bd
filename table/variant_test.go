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

// TestVariantColumn: a format 3 table created with a variant column is
// appended to through the Go API, NDJSON (any JSON value) and CSV (the
// value's text in a cell); scanned back as each value's canonical JSON
// (compact, keys sorted, decimals with their digits), again after a
// compaction re-encoded the files and after a reopen; the last-value
// index carries it. Bad JSON is TYPE_MISMATCH naming row and column, the
// store unchanged.
func TestVariantColumn(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "v", Type: schema.Nested, Nested: schema.VariantType()}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, st, testenv.New(7), "mem://v", sch, map[string]string{table.PropFormatVersion: "3"})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tb.Metadata().CurrentSchema().Fields[2].Type); got != `"variant"` {
		t.Fatalf("schema type %s, want \"variant\"", got)
	}
	us := func(h int) int64 { return day1.Add(time.Duration(h) * time.Hour).UnixMicro() }
	goRows := []map[string]any{
		{"ts": day1, "host": "a", "v": `{"z": 1, "a": [true, null, 2.50], "m": {"k": "x"}}`},
		{"ts": day1.Add(time.Hour), "host": "a", "v": `"just a string"`},
		{"ts": day1.Add(2 * time.Hour), "host": "a"},
		{"ts": day1, "host": "b", "v": `-12345678901234567890`},
	}
	nd := `{"ts":"2026-11-28T01:00:00Z","host":"b","v":{"ключ":"значение 🙂","q":"\"\\\n"}}
{"ts":"2026-11-28T02:00:00Z","host":"b","v":[1,[2,[3]],{}]}
{"ts":"2026-11-28T03:00:00Z","host":"c","v":1e300}
{"ts":"2026-11-28T04:00:00Z","host":"c","v":null}
{"ts":"2026-11-28T05:00:00Z","host":"c","v":false}
`
	csv := "ts,host,v\n2026-11-28T06:00:00Z,c,\"{\"\"b\"\":0.1,\"\"a\"\":null}\"\n2026-11-28T07:00:00Z,c,\n2026-11-28T08:00:00Z,c,null\n"
	appendEachWay(t, ctx, tb, goRows, nd, csv)
	want := []string{
		fmt.Sprintf("a %d %s", us(0), `{"a":[true,null,2.50],"m":{"k":"x"},"z":1}`),
		fmt.Sprintf("a %d %s", us(1), `"just a string"`),
		fmt.Sprintf("a %d -", us(2)),
		fmt.Sprintf("b %d %s", us(0), `-12345678901234567890`),
		fmt.Sprintf("b %d %s", us(1), `{"q":"\"\\\n","ключ":"значение 🙂"}`),
		fmt.Sprintf("b %d %s", us(2), `[1,[2,[3]],{}]`),
		fmt.Sprintf("c %d %s", us(3), `1e+300`),
		fmt.Sprintf("c %d -", us(4)),
		fmt.Sprintf("c %d %s", us(5), `false`),
		fmt.Sprintf("c %d %s", us(6), `{"a":null,"b":0.1}`),
		fmt.Sprintf("c %d -", us(7)),
		fmt.Sprintf("c %d %s", us(8), `null`),
	}
	check := func(what string) {
		t.Helper()
		got := nestedRows(t, ctx, tb, "v")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	check("after appends")
	if res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil || res.Merges == 0 {
		t.Fatalf("maintain: %+v, %v; want a compaction", res, err)
	}
	check("after compaction")
	if tb, err = table.Open(ctx, st, testenv.New(10)); err != nil {
		t.Fatal(err)
	}
	check("reopened")
	if got, w := nestedLatest(t, ctx, tb, "v"), []string{"a -", `b [1,[2,[3]],{}]`, "c null"}; strings.Join(got, "|") != strings.Join(w, "|") {
		t.Errorf("latest: %q, want %q", got, w)
	}

	// bad values: coded, naming row and column; nothing written
	before := snapshotStore(t, st)
	badNestedInput(t, tb, "v", "2026-11-28T10:00:00Z", "2026-11-28T09:00:00Z", [][2]string{
		{`{"ts":"2026-11-28T09:00:00Z","host":"a","v":{"n":1,"n":2}}`, `key "n" twice`},
		{`{"ts":"2026-11-28T09:00:00Z","host":"a","v":1e999}`, `out of a double's range`},
	})
	if _, err := tb.Append(ctx, &rows.Batch{Schema: tb.Schema(), Len: 1, Cols: []rows.Column{
		{Ints: []int64{us(9)}}, {Strs: []string{"a"}}, {Strs: []string{`{"n":`}}, {Ints: []int64{0}, Nulls: []bool{true}}}}); err == nil {
		t.Errorf("a batch built by hand with v {\"n\": appended")
	} else if code := table.Code(err); code != "TYPE_MISMATCH" || !strings.Contains(err.Error(), `v`) {
		t.Errorf("a batch built by hand with bad JSON: %v (%s), want TYPE_MISMATCH naming v", err, code)
	}
	sameStore(t, before, snapshotStore(t, st))
}

// TestVariantSchema: a variant column is format 3's: create and alter --add
// of one in a format 2 table are BAD_SCHEMA; alter --add in a format 3
// table adds it (its Iceberg type "variant"); it is never the time or a
// series column.
func TestVariantSchema(t *testing.T) {
	ctx := context.Background()
	v := schema.Field{Name: "v", Type: schema.Nested, Nested: schema.VariantType()}
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{v}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	_, err = table.Create(ctx, memstore.New(), testenv.New(1), "mem://v2", sch, nil)
	if table.Code(err) != "BAD_SCHEMA" || !strings.Contains(err.Error(), `"v" (variant)`) {
		t.Errorf("create format 2: %v (%s), want BAD_SCHEMA naming v", err, table.Code(err))
	}
	plain, _ := schema.New("ts", []string{"host"}, nil, schema.Day)
	add, err := evolve.Parse("add", "v:variant")
	if err != nil || add.Arg() != "v:variant" {
		t.Fatalf("parse: %+v %v", add, err)
	}
	for _, version := range []string{"2", "3"} {
		st := memstore.New()
		tb, err := table.Create(ctx, st, testenv.New(2), "mem://alter", plain, map[string]string{table.PropFormatVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		_, err = tb.Alter(ctx, []evolve.Change{add})
		if version == "2" {
			if table.Code(err) != "BAD_SCHEMA" {
				t.Errorf("alter --add v:variant in format 2: %v (%s), want BAD_SCHEMA", err, table.Code(err))
			}
			continue
		}
		if err != nil {
			t.Fatalf("alter --add v:variant in format 3: %v", err)
		}
		if tb, err = table.Open(ctx, st, testenv.New(3)); err != nil {
			t.Fatal(err)
		}
		f := tb.Schema().Fields[tb.Schema().Index("v")]
		if !f.Nested.IsVariant() || f.TypeText() != "variant" {
			t.Errorf("added column %+v", f)
		}
	}
	if _, err := evolve.Parse("widen", "x:variant"); err == nil {
		t.Errorf("widen to variant parsed")
	}
	if _, err := schema.New("ts", []string{"v"}, []schema.Field{v}, schema.Day); err == nil || !strings.Contains(err.Error(), "not variant") {
		t.Errorf("variant series column: %v", err)
	}
	if _, err := schema.New("v", nil, []schema.Field{v}, schema.Day); err == nil || !strings.Contains(err.Error(), "not variant") {
		t.Errorf("variant time column: %v", err)
	}
}
