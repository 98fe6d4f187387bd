package table_test

import (
	"context"
	"strings"
	"testing"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/table"
)

// latestAttrs is Latest's "host attrs" per series.
func latestAttrs(t *testing.T, tb *table.Table) []string {
	t.Helper()
	b, err := tb.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for r := 0; r < b.Len; r++ {
		c := &b.Cols[b.Schema.Index("attrs")]
		v := "-"
		if !c.IsNull(r) {
			v = c.Strs[r]
		}
		out = append(out, b.Cols[b.Schema.Index("host")].Strs[r]+" "+v)
	}
	return out
}

// TestNestedLatestAfterAlter: after a struct field is added, the same
// Table's Latest gives the rows from before with the field null, as a
// newly opened table's Latest and a scan do (the index it keeps in memory
// follows the new schema's nested type, not only its columns).
func TestNestedLatestAfterAlter(t *testing.T) {
	ctx := context.Background()
	_, st, tb := dirTable(t, testenv.New(91), nestedShapesSchema(t), nil)
	nb, err := rows.NewNDJSONReader(strings.NewReader(
		`{"ts":"2026-11-28T01:00:00Z","host":"a","attrs":{"a":1,"b":["x"]}}`+"\n"+
			`{"ts":"2026-11-28T01:00:00Z","host":"b","attrs":null}`+"\n"), tb.Schema(), rows.Options{}).Next(100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, nb); err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "before", latestAttrs(t, tb), []string{`a {"a":1,"b":["x"]}`, `b -`})
	add, err := evolve.Parse("add", "attrs.c:long")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Alter(ctx, []evolve.Change{add}); err != nil {
		t.Fatal(err)
	}
	want := []string{`a {"a":1,"b":["x"],"c":null}`, `b -`}
	equalStrings(t, "same Table after alter", latestAttrs(t, tb), want)
	reopened, err := table.Open(ctx, st, testenv.New(92))
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "reopened", latestAttrs(t, reopened), want)
}

func equalStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
