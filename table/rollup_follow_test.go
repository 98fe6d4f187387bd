package table_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestRollupFollowsAlter: Timelake's alter renames the time, series and an
// aggregated column and widens two aggregated ones (int → long, float →
// double); the rollup made before goes on refreshing (late rows, a
// duplicate key, a value past an int), its columns named as created and
// widened, and its rows equal those of a rollup added after the changes
// (computed whole). Then a drop of an aggregated column: the refresh fails
// with ROLLUP_COLUMN_DROPPED naming the rollup and the column, and the
// rollup table is left as it was; a drop of the rollup removes its keys.
func TestRollupFollowsAlter(t *testing.T) {
	ctx := context.Background()
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "cpu", Type: schema.Float}, {Name: "mem", Type: schema.Int}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, memstore.New(), testenv.New(51), loc, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return day.Add(time.Duration(min) * time.Minute) }
	var ms []map[string]any
	for m := 0; m < 180; m += 7 {
		ms = append(ms, map[string]any{"ts": at(m), "host": fmt.Sprintf("h%d", m%3), "cpu": float64(m%11) / 4, "mem": int64(m * 3)})
	}
	if _, err := tb.Append(ctx, rowsFromMaps(t, tb, ms...)); err != nil {
		t.Fatal(err)
	}
	ru, d := addRefreshed(t, tb, "h", loc, "cpu:min,max,sum,last", "mem:max,first,count")
	if got := tb.Metadata().Properties[rollup.Key("h", rollup.SuffixFieldIDs)]; got != "cpu:3;mem:4" {
		t.Fatalf("stored field ids %q, want cpu:3;mem:4", got)
	}
	_, err = tb.Alter(ctx, []evolve.Change{
		{Op: evolve.Rename, Column: "cpu", To: "cpu_pct"},
		{Op: evolve.Rename, Column: "host", To: "hostname"},
		{Op: evolve.Rename, Column: "ts", To: "time"},
		{Op: evolve.Widen, Column: "mem", Type: schema.Long},
		{Op: evolve.Widen, Column: "cpu_pct", Type: schema.Double},
	})
	if err != nil {
		t.Fatal(err)
	}
	// A late row for the first hour, a duplicate key with new values, a
	// value past an int, a new hour.
	late := []map[string]any{
		{"time": at(3), "hostname": "h0", "cpu_pct": 9.5, "mem": int64(1) << 40},
		{"time": at(7), "hostname": "h1", "cpu_pct": -1.0, "mem": int64(-5)},
		{"time": at(200), "hostname": "h2", "cpu_pct": 0.1, "mem": int64(7)},
	}
	if _, err := tb.Append(ctx, rowsFromMaps(t, tb, late...)); err != nil {
		t.Fatal(err)
	}
	// The Def as the caller added it (no ids: the stored ones are taken).
	res, err := table.RefreshRollup(ctx, tb, ru, d, table.RefreshOptions{})
	if err != nil {
		t.Fatalf("refresh after the alter: %v", err)
	}
	if res.Mode != "incremental" || res.Rows == 0 {
		t.Fatalf("refresh: %+v, want an incremental one", res)
	}
	var cols []string
	for _, f := range ru.Schema().Fields {
		cols = append(cols, f.Name+":"+f.Type.String())
	}
	if got, want := strings.Join(cols, " "), "bucket:timestamptz host:string row_count:long cpu_sum:double cpu_min:double cpu_max:double cpu_last:double mem_count:long mem_max:long mem_first:long"; got != want {
		t.Errorf("rollup columns:\n got %s\nwant %s", got, want)
	}
	// A rollup added now, of the renamed columns, computed whole.
	got := sameAsFresh(t, tb, ru, loc, "the alter")
	if !strings.Contains(strings.Join(got, "\n"), "mem_max=1099511627776") {
		t.Errorf("the value past an int is not in the rollup:\n%s", strings.Join(got, "\n"))
	}

	// A dropped aggregated column.
	if _, err := tb.Alter(ctx, []evolve.Change{{Op: evolve.Drop, Column: "mem"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, rowsFromMaps(t, tb, map[string]any{"time": at(300), "hostname": "h0", "cpu_pct": 1.0})); err != nil {
		t.Fatal(err)
	}
	v := ru.Version()
	_, err = table.RefreshRollup(ctx, tb, ru, d, table.RefreshOptions{})
	if code := table.Code(err); code != rollup.CodeColumnDropped || !strings.Contains(err.Error(), "rollup: h: column mem (field id 4)") {
		t.Fatalf("refresh after the drop: %v (%s), want %s naming rollup h and column mem", err, code, rollup.CodeColumnDropped)
	}
	if ru.Version() != v || !slices.Equal(scanText(t, ru, nil), got) {
		t.Fatalf("the failed refresh changed the rollup (version %d, was %d)", ru.Version(), v)
	}
	// Dropping the rollup removes every key of it, field-ids too.
	if _, err := table.DropRollup(ctx, tb, "h"); err != nil {
		t.Fatal(err)
	}
	for k := range tb.Metadata().Properties {
		if strings.HasPrefix(k, "timelake.rollup.h.") {
			t.Errorf("property %s left after the drop", k)
		}
	}
}

// sameAsFresh checks that rollup ru, made before the columns cpu and host
// were renamed cpu_pct and hostname (by what), has the rows of a rollup
// "fresh" of the renamed columns added now and computed whole; it returns
// ru's rows (scanText).
func sameAsFresh(t *testing.T, tb, ru *table.Table, base, what string) []string {
	t.Helper()
	fru, _ := addRefreshed(t, tb, "fresh", base, "cpu_pct:min,max,sum,last", "mem:max,first,count")
	got := scanText(t, ru, nil)
	want := scanText(t, fru, map[string]string{"hostname": "host", "cpu_pct_min": "cpu_min", "cpu_pct_max": "cpu_max", "cpu_pct_sum": "cpu_sum", "cpu_pct_last": "cpu_last"})
	if !slices.Equal(got, want) {
		t.Fatalf("the rollup followed through %s:\n%s\nthe one added after:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	return got
}

// scanText renders every row of tb, columns sorted by name (renamed by
// as), values as fmt prints them.
func scanText(t *testing.T, tb *table.Table, as map[string]string) []string {
	t.Helper()
	var out []string
	_, err := tb.Scan(context.Background(), table.ScanOptions{}, func(b *rows.Batch) error {
		for i := 0; i < b.Len; i++ {
			var parts []string
			for c, f := range b.Schema.Fields {
				name := f.Name
				if n, ok := as[name]; ok {
					name = n
				}
				col := &b.Cols[c]
				var v any
				switch {
				case col.IsNull(i):
					v = "null"
				case f.Type.IsInteger():
					v = col.Ints[i]
				case f.Type.IsFloat():
					v = col.Floats[i]
				case f.Type == schema.Boolean:
					v = col.Bools[i]
				default:
					v = col.Strs[i]
				}
				parts = append(parts, fmt.Sprintf("%s=%v", name, v))
			}
			slices.Sort(parts)
			out = append(out, strings.Join(parts, " "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPyicebergRenameRollup: pyiceberg renames an aggregated column and a
// series column and widens two aggregated ones (update_schema), then
// appends under the new names (a late row, a duplicate key of a Timelake
// row); the rollup added before refreshes and equals a rollup added after
// the change, computed whole.
func TestPyicebergRenameRollup(t *testing.T) {
	if testing.Short() {
		t.Skip("pyiceberg: skipped with -short")
	}
	py := interoptest.Python(t)
	ctx := context.Background()
	env := testenv.New(62)
	dir, st, tb := dirTable(t, env, evolvingSchema(t), nil)
	var ms []map[string]any
	for h := range 3 {
		for m := 0; m < 150; m += 10 {
			ms = append(ms, map[string]any{"ts": at(m), "host": fmt.Sprintf("host-%d", h), "region": "eu",
				"cpu": float64(h*20+m) / 4, "mem": int64(h*1000 + m), "note": "n"})
		}
	}
	if _, err := tb.Append(ctx, mapsBatch(t, tb.Schema(), ms)); err != nil {
		t.Fatal(err)
	}
	ru, _ := addRefreshed(t, tb, "h", "file://"+dir, "cpu:min,max,sum,last", "mem:max,first,count")
	changes := `[["widen","cpu","double"],["rename","cpu","cpu_pct"],["rename","host","hostname"],["widen","mem","long"]]`
	pyRows := []map[string]any{
		{"ts": at(5).UnixMicro(), "hostname": "host-0", "region": "us", "cpu_pct": 99.5, "mem": int64(1) << 40, "note": nil}, // late
		{"ts": at(10).UnixMicro(), "hostname": "host-1", "region": "us", "cpu_pct": -3.0, "mem": int64(-7), "note": nil},     // a duplicate key
		{"ts": at(170).UnixMicro(), "hostname": "host-2", "region": "us", "cpu_pct": 0.25, "mem": int64(3), "note": nil},
	}
	pyiceberg(t, py, dir, st, changes, pyRows)
	tb, err := table.Open(ctx, st, env)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := rollup.Parse(tb.Metadata().Properties) // as maintain finds them
	if err != nil {
		t.Fatal(err)
	}
	if res, err := table.RefreshRollup(ctx, tb, ru, defs[0], table.RefreshOptions{}); err != nil || res.Rows == 0 {
		t.Fatalf("refresh after pyiceberg's change: %+v, %v", res, err)
	}
	got := sameAsFresh(t, tb, ru, "file://"+dir, "pyiceberg's change")
	for _, s := range []string{"cpu_min=-3 ", "mem_max=1099511627776"} {
		if !strings.Contains(strings.Join(got, "\n"), s) {
			t.Errorf("%q (pyiceberg's rows) is not in the rollup:\n%s", s, strings.Join(got, "\n"))
		}
	}
}
