package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// withTagsColumn adds tags map<string, string> to the table in dir as
// another engine's schema change would (create cannot declare a nested
// column): the next metadata version with the field, then the hint.
func withTagsColumn(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Open(ctx, st, testenv.New(3))
	if err != nil {
		t.Fatal(err)
	}
	md := *tb.Metadata()
	cur := *md.CurrentSchema()
	id := md.LastColumnID + 1
	cur.Fields = append(append([]iceberg.SchemaField(nil), cur.Fields...), iceberg.SchemaField{ID: id, Name: "tags",
		Type: json.RawMessage(`{"type":"map","key-id":` + strconv.Itoa(id+1) + `,"key":"string","value-id":` + strconv.Itoa(id+2) + `,"value":"string","value-required":false}`)})
	md.Schemas = []iceberg.Schema{cur}
	md.LastColumnID = id + 2
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
}

// TestScanWhere: scan --where on a map<string, string> column: = and !=
// (a row without the key matches !=), several --where ANDed, beside
// --series and --columns (the filtered column need not be projected),
// in CSV and NDJSON; a bad expression is BAD_FILTER naming it, a column
// that is not a map BAD_FILTER naming it, an unknown one UNKNOWN_COLUMN.
func TestScanWhere(t *testing.T) {
	tbl := t.TempDir() + "/t"
	mustCLI(t, "", "create", tbl, "--time", "ts", "--series", "host", "--column", "ts:timestamptz", "--column", "host:string", "--column", "cpu:double?")
	withTagsColumn(t, tbl)
	mustCLI(t, `{"ts":"2026-11-28T00:00:00Z","host":"a","cpu":1,"tags":{"env":"prod","job":"api"}}
{"ts":"2026-11-28T01:00:00Z","host":"a","cpu":2,"tags":{"env":"dev","job":"api"}}
{"ts":"2026-11-28T02:00:00Z","host":"a","cpu":3,"tags":{"job":"db"}}
{"ts":"2026-11-28T00:00:00Z","host":"b","cpu":4,"tags":null}
{"ts":"2026-11-28T01:00:00Z","host":"b","cpu":5,"tags":{"env":"prod","job":"db"}}
`, "append", tbl, "-", "--format", "ndjson")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--where", "tags[env]=prod", "--columns", "cpu"}, "ts,host,cpu\n2026-11-28T00:00:00.000000Z,a,1\n2026-11-28T01:00:00.000000Z,b,5\n"},
		{[]string{"--where", "tags[env]!=prod", "--columns", "cpu"}, "ts,host,cpu\n2026-11-28T01:00:00.000000Z,a,2\n2026-11-28T02:00:00.000000Z,a,3\n2026-11-28T00:00:00.000000Z,b,4\n"},
		{[]string{"--where", "tags[env]!=dev", "--where", "tags[job]=db", "--columns", "cpu"}, "ts,host,cpu\n2026-11-28T02:00:00.000000Z,a,3\n2026-11-28T01:00:00.000000Z,b,5\n"},
		{[]string{"--where", "tags[job]=db", "--series", "host=b"}, "ts,host,cpu,tags\n2026-11-28T01:00:00.000000Z,b,5,\"{\"\"env\"\":\"\"prod\"\",\"\"job\"\":\"\"db\"\"}\"\n"},
		{[]string{"--where", "tags[job]=db", "--series", "host=b", "--format", "ndjson"}, `{"ts":"2026-11-28T01:00:00.000000Z","host":"b","cpu":5,"tags":{"env":"prod","job":"db"}}` + "\n"},
		{[]string{"--where", "tags[env]=test"}, "ts,host,cpu,tags\n"},
	} {
		if got := mustCLI(t, "", append([]string{"scan", tbl}, c.args...)...); got != c.want {
			t.Errorf("scan %v:\n%s\nwant:\n%s", c.args, got, c.want)
		}
	}
	for _, c := range []struct{ expr, says string }{
		{"tags[env]", `where "tags[env]": no = or != after tags[env] [BAD_FILTER]`},
		{"tags=prod", `give a path into tags`},
		{"cpu=1", `column cpu is double, not a map or struct`},
		{"labels[env]=prod", `where "labels[env]=prod": no such column (map and struct columns: tags) [UNKNOWN_COLUMN]`},
	} {
		code, out, errs := cli(t, "", "scan", tbl, "--where", c.expr)
		if code == 0 || out != "" || !strings.Contains(errs, c.says) || !strings.Contains(errs, strconv.Quote(c.expr)) {
			t.Errorf("--where %q: exit %d, out %q, err %q; want one saying %q", c.expr, code, out, errs, c.says)
		}
	}
}
