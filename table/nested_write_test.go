package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// addForeignColumn commits another engine's schema change adding field f
// (lastID the table's new last column id) and reopens the table.
func addForeignColumn(t testing.TB, ctx context.Context, st store.Store, tb *table.Table, f iceberg.SchemaField, lastID int, seed uint64) *table.Table {
	t.Helper()
	md := *tb.Metadata()
	cur := *md.CurrentSchema()
	cur.Fields = append(append([]iceberg.SchemaField(nil), cur.Fields...), f)
	md.Schemas = []iceberg.Schema{cur}
	md.LastColumnID = lastID
	raw, err := md.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(tb.Version()+1), raw); err != nil || !ok {
		t.Fatalf("schema change: %v %v", ok, err)
	}
	if err := st.Put(ctx, "metadata/version-hint.text", []byte(strconv.Itoa(tb.Version()+1))); err != nil {
		t.Fatal(err)
	}
	tb, err = table.Open(ctx, st, testenv.New(seed))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestWriteStringMap: a table with tags map<string, string> (added by
// another engine) is appended to through the Go API, NDJSON (an object)
// and CSV (the object's text in a cell); scanned back exactly (null maps,
// empty maps, null values, unicode and escapes; the last row of a key
// winning), and again after a compaction merged the files. Bad values are
// TYPE_MISMATCH naming row and column, the store unchanged; a map keyed by
// a struct added beside keeps the table refused (UNSUPPORTED_TYPE naming it).
func TestWriteStringMap(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	sch, err := schema.New("ts", []string{"host"}, nil, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, st, testenv.New(7), "mem://tags", sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb = addForeignColumn(t, ctx, st, tb, iceberg.SchemaField{ID: 4, Name: "tags",
		Type: json.RawMessage(`{"type":"map","key-id":5,"key":"string","value-id":6,"value":"string","value-required":false}`)}, 6, 8)

	us := func(h int) int64 { return day1.Add(time.Duration(h) * time.Hour).UnixMicro() }
	goRows := []map[string]any{
		{"ts": day1, "host": "a", "tags": `{"job":"api", "instance":"10.0.0.1:9090"}`}, // spaces: stored compact
		{"ts": day1.Add(time.Hour), "host": "a", "tags": `{}`},
		{"ts": day1.Add(2 * time.Hour), "host": "a"},
		{"ts": day1, "host": "b", "tags": `{"k":null,"ключ":"значение 🙂","q":"\"\\\n\t"}`},
		{"ts": day1.Add(time.Hour), "host": "b", "tags": `{"old":"x"}`},
	}
	nd := `{"ts":"2026-11-28T01:00:00Z","host":"b","tags":{"new":"y","z":""}}
{"ts":"2026-11-28T03:00:00Z","host":"c","tags":{ "e\u0301" : "v" }}
{"ts":"2026-11-28T04:00:00Z","host":"c","tags":null}
`
	csv := "ts,host,tags\n2026-11-28T05:00:00Z,c,\"{\"\"a\"\":\"\"1\"\",\"\"b\"\":null}\"\n2026-11-28T06:00:00Z,c,\n"
	b := appendEachWay(t, ctx, tb, goRows, nd, csv)
	want := []string{
		fmt.Sprintf("a %d %s", us(0), `{"job":"api","instance":"10.0.0.1:9090"}`),
		fmt.Sprintf("a %d %s", us(1), `{}`),
		fmt.Sprintf("a %d -", us(2)),
		fmt.Sprintf("b %d %s", us(0), `{"k":null,"ключ":"значение 🙂","q":"\"\\\n\t"}`),
		fmt.Sprintf("b %d %s", us(1), `{"new":"y","z":""}`),
		fmt.Sprintf("c %d %s", us(3), "{\"e\u0301\":\"v\"}"), // the escape decoded: e and a combining accent,
		fmt.Sprintf("c %d -", us(4)),
		fmt.Sprintf("c %d %s", us(5), `{"a":"1","b":null}`),
		fmt.Sprintf("c %d -", us(6)),
	}
	check := func(what string) {
		t.Helper()
		got := nestedRows(t, ctx, tb, "tags")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	check("after appends")
	if res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil || res.Merges == 0 {
		t.Fatalf("maintain: %+v, %v; want a compaction", res, err)
	}
	check("after compaction")
	// the last-value index (written by the appends, with the map column)
	// gives each series' last row with its tags
	for _, reopen := range []bool{false, true} {
		if reopen {
			if tb, err = table.Open(ctx, st, testenv.New(10)); err != nil {
				t.Fatal(err)
			}
		}
		if got, w := nestedLatest(t, ctx, tb, "tags"), []string{"a -", `b {"new":"y","z":""}`, "c -"}; strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("latest (reopened %v): %q, want %q", reopen, got, w)
		}
	}

	// bad values: coded, naming row and column; nothing written
	before := snapshotStore(t, st)
	badNestedInput(t, tb, "tags", "2026-11-28T08:00:00Z", "2026-11-28T07:00:00Z", [][2]string{
		{`{"ts":"2026-11-28T07:00:00Z","host":"a","tags":{"n":1}}`, `at tags[n]: a number 1 given for a string`},
		{`{"ts":"2026-11-28T07:00:00Z","host":"a","tags":{"n":{"m":"x"}}}`, `at tags[n]: an object or array given for a string`},
		{`{"ts":"2026-11-28T07:00:00Z","host":"a","tags":{"n":"x","n":"y"}}`, `key "n" appears twice`},
		{`{"ts":"2026-11-28T07:00:00Z","host":"a","tags":"{}"}`, `a string given for a map<string, string> column`},
		{`{"ts":"2026-11-28T07:00:00Z","host":"a","tags":[1]}`, `an array given for a map<string, string> (want a JSON object)`},
	})
	if _, err := tb.Append(ctx, &rows.Batch{Schema: tb.Schema(), Len: 1, Cols: []rows.Column{
		{Ints: []int64{us(9)}}, {Strs: []string{"a"}}, {Ints: []int64{0}, Nulls: []bool{true}}, {Strs: []string{`{"n":1}`}}}}); err == nil {
		t.Errorf("a batch built by hand with tags {\"n\":1}: appended")
	} else if code := table.Code(err); code != "TYPE_MISMATCH" || !strings.Contains(err.Error(), `tags`) {
		t.Errorf("a batch built by hand with tags {\"n\":1}: %v (%s), want TYPE_MISMATCH naming tags", err, code)
	}
	sameStore(t, before, snapshotStore(t, st))

	// a map keyed by a struct: the table is refused to writers again
	tb = addForeignColumn(t, ctx, st, tb, iceberg.SchemaField{ID: 7, Name: "xs",
		Type: json.RawMessage(`{"type":"map","key-id":8,"key":{"type":"struct","fields":[{"id":10,"name":"a","required":true,"type":"long"}]},"value-id":9,"value":"long","value-required":false}`)}, 10, 9)
	before = snapshotStore(t, st)
	_, aerr := tb.Append(ctx, b)
	_, merr := tb.Maintain(ctx, table.MaintainOptions{})
	for op, err := range map[string]error{"append": aerr, "maintain": merr} {
		if table.Code(err) != "UNSUPPORTED_TYPE" || err == nil || !strings.Contains(err.Error(), "xs map<struct<a: long>, long>") || strings.Contains(err.Error(), "tags") {
			t.Errorf("%s: %v (%s), want UNSUPPORTED_TYPE naming xs alone", op, err, table.Code(err))
		}
	}
	sameStore(t, before, snapshotStore(t, st))
}
