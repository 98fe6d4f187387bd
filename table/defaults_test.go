package table_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestColumnDefaults: another engine adds a column to a format 3 table with
// an initial-default and a write-default (Spark's ADD COLUMN … DEFAULT).
// Rows of files written before read the initial default; a Timelake append
// that leaves the column out stores the write default, one that gives it
// stores its value; a compaction keeps all three.
func TestColumnDefaults(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(1), loc, metricsSchema(t), map[string]string{table.PropFormatVersion: "3", maintenance.PropCompactMinFiles: "2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 4, 2)); err != nil {
		t.Fatal(err)
	}
	// The other engine's schema change: zone string, initial "old", write "eu".
	md := *tb.Metadata()
	sch := *md.CurrentSchema()
	sch.SchemaID = 1
	sch.Fields = append(slices.Clone(sch.Fields), iceberg.SchemaField{ID: md.LastColumnID + 1, Name: "zone", Type: json.RawMessage(`"string"`),
		Extra: iceberg.Extra{"initial-default": json.RawMessage(`"old"`), "write-default": json.RawMessage(`"eu"`)}})
	md.Schemas = append(slices.Clone(md.Schemas), sch)
	md.CurrentSchemaID, md.LastColumnID = 1, md.LastColumnID+1
	raw, err := md.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(tb.Version()+1), raw); err != nil || !ok {
		t.Fatal(ok, err)
	}
	tb, err = table.Open(ctx, st, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	without := batch(t, tb.Schema(), day1.Add(60*60e9), 2, 2) // no zone: the write default
	with, err := rows.FromMaps(tb.Schema(), []map[string]any{{"ts": day1.Add(2 * 60 * 60e9), "host": "h000", "region": "eu", "zone": "us"}}, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []*rows.Batch{without, with} {
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	zones := func(what string) {
		t.Helper()
		got, _, err := scanRows(ctx, tb, table.ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		count := map[string]int{}
		for _, r := range got {
			_, z, _ := strings.Cut(r, "zone=")
			z, _, _ = strings.Cut(z, " ")
			count[z]++
		}
		if count["old"] != 4 || count["eu"] != 2 || count["us"] != 1 || len(got) != 7 {
			t.Errorf("%s: zones %v in %d rows; want old 4 (initial default), eu 2 (write default), us 1", what, count, len(got))
		}
	}
	zones("before compaction")
	if res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil || res.Merges == 0 {
		t.Fatalf("maintain: %+v, %v; want a compaction", res, err)
	}
	zones("after compaction")
}

// TestAlterAddWithDefault: alter --add zone:string=eu on a format 3 table
// gives the rows stored before "eu" (initial-default) and appends that
// leave zone out "eu" (write-default); a format 2 table refuses a default.
func TestAlterAddWithDefault(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(1), loc, metricsSchema(t), map[string]string{table.PropFormatVersion: "3"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 3, 1)); err != nil {
		t.Fatal(err)
	}
	add, err := evolve.Parse("add", "zone:string=eu")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Alter(ctx, []evolve.Change{add}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Hour), 2, 1)); err != nil {
		t.Fatal(err)
	}
	re, err := table.Open(ctx, st, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := scanRows(ctx, re, table.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.Join(got, "\n"), "zone=eu"); n != 5 || len(got) != 5 {
		t.Errorf("%d rows, %d with zone=eu; want all 5:\n%s", len(got), n, strings.Join(got, "\n"))
	}
	v2 := create(t, memstore.New(), 1)
	if _, err := v2.Alter(ctx, []evolve.Change{add}); table.Code(err) != "BAD_CHANGE" || !strings.Contains(err.Error(), "--upgrade 3") {
		t.Errorf("format 2: err = %v (%s), want BAD_CHANGE naming --upgrade 3", err, table.Code(err))
	}
}
