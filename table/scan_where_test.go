package table_test

import (
	"context"
	"encoding/json"
	"errors"
	stdmaps "maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestScanWhere: the label filter on a map<string, string> column, in a
// keyed scan: = and != split the rows (a missing key, a null map and a
// null value match !=), several conditions are ANDed, a row overwritten by
// a later append is judged by its newest tags (an older version that
// matched does not come back), raw judges every stored row, the limit
// counts rows that pass, and a projection without the column still
// filters by it without handing it out. A bad expression is BAD_FILTER
// naming it; a column that is not a map UNKNOWN_COLUMN or BAD_FILTER. The
// table without its key (not adopted) judges every stored row.
func TestScanWhere(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "cpu", Type: schema.Double}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, st, testenv.New(7), "mem://where", sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb = addForeignColumn(t, ctx, st, tb, iceberg.SchemaField{ID: 5, Name: "tags",
		Type: json.RawMessage(`{"type":"map","key-id":6,"key":"string","value-id":7,"value":"string","value-required":false}`)}, 7, 8)
	at := func(h int) time.Time { return day1.Add(time.Duration(h) * time.Hour) }
	appendRows := func(rs []map[string]any) {
		t.Helper()
		b, err := rows.FromMaps(tb.Schema(), rs, rows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	appendRows([]map[string]any{
		{"ts": at(0), "host": "a", "cpu": 1.0, "tags": `{"env":"prod","job":"api"}`},
		{"ts": at(1), "host": "a", "cpu": 2.0, "tags": `{"env":"prod","job":"db"}`},
		{"ts": at(2), "host": "a", "cpu": 3.0, "tags": `{"job":"api"}`},
		{"ts": at(0), "host": "b", "cpu": 4.0},
		{"ts": at(1), "host": "b", "cpu": 5.0, "tags": `{"env":null}`},
		{"ts": at(2), "host": "b", "cpu": 6.0, "tags": `{"env":"prod","job":"api"}`},
	})
	// b at 2h now says dev: its prod version must not answer tags[env]=prod
	appendRows([]map[string]any{{"ts": at(2), "host": "b", "cpu": 7.0, "tags": `{"env":"dev","job":"api"}`}})

	scanCPU := func(opt table.ScanOptions) ([]float64, []string) {
		t.Helper()
		var cpu []float64
		var cols []string
		if _, err := tb.Scan(ctx, opt, func(b *rows.Batch) error {
			cols = nil
			for _, f := range b.Schema.Fields {
				cols = append(cols, f.Name)
			}
			c := b.Schema.Index("cpu")
			cpu = append(cpu, b.Cols[c].Floats[:b.Len]...)
			return nil
		}); err != nil {
			t.Fatalf("%+v: %v", opt.Where, err)
		}
		return cpu, cols
	}
	eq := slices.Equal[[]float64]
	for _, c := range []struct {
		where []string
		raw   bool
		limit int
		want  []float64
	}{
		{where: []string{"tags[env]=prod"}, want: []float64{1, 2}},
		{where: []string{"tags[env]!=prod"}, want: []float64{3, 4, 5, 7}},
		{where: []string{"tags[env]=prod", "tags[job]=api"}, want: []float64{1}},
		{where: []string{"tags[job]!=db", "tags[env]!=dev"}, want: []float64{1, 3, 4, 5}},
		{where: []string{"tags[env]=dev"}, want: []float64{7}},
		{where: []string{"tags[env]=prod"}, raw: true, want: []float64{1, 2, 6}},
		{where: []string{"tags[env]!=prod"}, limit: 2, want: []float64{3, 4}},
		{where: []string{"tags[nope]=x"}, want: nil},
	} {
		got, _ := scanCPU(table.ScanOptions{Where: c.where, Raw: c.raw, Limit: c.limit})
		if !eq(got, c.want) {
			t.Errorf("where %q raw %v limit %d: cpu %v, want %v", c.where, c.raw, c.limit, got, c.want)
		}
	}
	got, cols := scanCPU(table.ScanOptions{Where: []string{"tags[env]=prod"}, Columns: []string{"cpu"}})
	if !eq(got, []float64{1, 2}) || strings.Join(cols, ",") != "ts,host,cpu" {
		t.Errorf("projected to cpu: cpu %v columns %v, want [1 2] and ts,host,cpu", got, cols)
	}

	// The same table without a key (another engine's, not adopted): every
	// stored row is judged, file by file, as raw above.
	md := *tb.Metadata()
	md.Properties = stdmaps.Clone(md.Properties)
	for _, k := range []string{iceberg.PropTimeColumn, iceberg.PropSeriesColumns, table.PropPartition} {
		delete(md.Properties, k)
	}
	raw, err := md.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(tb.Version()+1), raw); err != nil || !ok {
		t.Fatalf("%v %v", ok, err)
	}
	if err := st.Put(ctx, "metadata/version-hint.text", []byte(strconv.Itoa(tb.Version()+1))); err != nil {
		t.Fatal(err)
	}
	keyed := tb
	if tb, err = table.Open(ctx, st, testenv.New(9)); err != nil || tb.Schema().HasKey() {
		t.Fatalf("reopened without a key: %v (key %v)", err, tb.Schema().HasKey())
	}
	for _, c := range []struct {
		where []string
		limit int
		want  []float64
	}{
		{where: []string{"tags[env]=prod"}, want: []float64{1, 2, 6}},
		{where: []string{"tags[env]!=prod"}, want: []float64{3, 4, 5, 7}},
		{where: []string{"tags[env]!=prod", "tags[job]=api"}, limit: 2, want: []float64{3, 7}},
	} {
		got, _ := scanCPU(table.ScanOptions{Where: c.where, Limit: c.limit})
		if !eq(got, c.want) {
			t.Errorf("no key: where %q limit %d: cpu %v, want %v", c.where, c.limit, got, c.want)
		}
	}
	tb = keyed

	for _, c := range []struct{ expr, code string }{
		{"tags[env]", "BAD_FILTER"},
		{"cpu=1", "BAD_FILTER"},
		{"host=a", "BAD_FILTER"},
		{"nope[a]=b", "UNKNOWN_COLUMN"},
	} {
		_, err := tb.Scan(ctx, table.ScanOptions{Where: []string{c.expr}}, func(*rows.Batch) error { return nil })
		var re *rows.Error
		if !errors.As(err, &re) || re.Code != c.code || table.Code(err) != c.code || !strings.Contains(err.Error(), c.expr) {
			t.Errorf("where %q: %v (%s), want %s naming it", c.expr, err, table.Code(err), c.code)
		}
	}
}
