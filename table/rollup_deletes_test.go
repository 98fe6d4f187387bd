package table_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestRollupOverPositionDeletes: another engine's position deletes (a
// Parquet position delete file, or a deletion vector in a format 3 table)
// remove rows the rollup counted; the refresh recomputes the buckets of
// the delete file's partition: one bucket loses a row, the other all of
// its rows and becomes a row_count 0 row.
func TestRollupOverPositionDeletes(t *testing.T) {
	for _, dv := range []bool{false, true} {
		t.Run(map[bool]string{false: "position delete file", true: "deletion vector"}[dv], func(t *testing.T) {
			rollupOverDeletes(t, dv)
		})
	}
}

func rollupOverDeletes(t *testing.T, dv bool) {
	ctx := context.Background()
	st := memstore.New()
	props := map[string]string{}
	if dv {
		props[table.PropFormatVersion] = "3"
	}
	tb, err := table.Create(ctx, st, testenv.New(41), loc, interopSchema(t), props)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	var ms []map[string]any
	for m, mem := range []int64{10, 11, 12} {
		ms = append(ms, map[string]any{"ts": day.Add(time.Duration(m) * time.Minute), "host": "host-0", "shard": int64(0), "mem": mem})
	}
	for m, mem := range []int64{20, 21} {
		ms = append(ms, map[string]any{"ts": day.Add(time.Duration(m) * time.Minute), "host": "host-1", "shard": int64(0), "mem": mem})
	}
	if _, err := tb.Append(ctx, rowsFromMaps(t, tb, ms...)); err != nil {
		t.Fatal(err)
	}
	ru, d := addRefreshed(t, tb, "h", loc, "mem:sum,max,first")
	if got, want := rollupText(t, ru), "host-0/0 rows=3 sum=33 max=12 first=10; host-1/0 rows=2 sum=41 max=21 first=20"; got != want {
		t.Fatalf("before the deletes: %s, want %s", got, want)
	}
	c := &deleteEnv{t: t, fw: &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}, day: day, p: schema.Day.Apply(day.UnixMicro())}
	for pth := range liveEntries(t, c.fw) {
		c.path = pth
	}
	if dv { // host-0's first row, every row of host-1
		e := &dvEnv{t: t, ctx: ctx, fw: c.fw, day1: day, file: map[time.Time]iceberg.ManifestEntry{day: liveEntries(t, c.fw)[c.path]}}
		e.dv(true, map[time.Time][]int64{day: {0, 3, 4}})
	} else {
		c.del("", 0, 3, 4)
	}
	raw := c.reopen(42)
	res, err := table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "incremental" || res.Tombstones != 1 || res.Rows != 2 {
		t.Fatalf("refresh: %+v, want 2 rows, one of them a tombstone", res)
	}
	if got, want := rollupText(t, ru), "host-0/0 rows=2 sum=23 max=12 first=11; host-1/0 rows=0 sum=null max=null first=null"; got != want {
		t.Fatalf("after the deletes: %s, want %s", got, want)
	}
}

// rollupText renders the rows of the rollup table of TestRollupOverPositionDeletes.
func rollupText(t *testing.T, ru *table.Table) string {
	var out []string
	_, err := ru.Scan(context.Background(), table.ScanOptions{}, func(b *rows.Batch) error {
		s := b.Schema
		v := func(name string, i int) string {
			c := &b.Cols[s.Index(name)]
			if c.IsNull(i) {
				return "null"
			}
			return fmt.Sprint(c.Ints[i])
		}
		for i := 0; i < b.Len; i++ {
			out = append(out, fmt.Sprintf("%s/%d rows=%s sum=%s max=%s first=%s", b.Cols[s.Index("host")].Strs[i], b.Cols[s.Index("shard")].Ints[i],
				v("row_count", i), v("mem_sum", i), v("mem_max", i), v("mem_first", i)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, "; ")
}

// TestRollupFollowsDelete: Timelake's own delete (a rewrite of the file)
// changes the buckets the rollup holds; the refresh recomputes them.
func TestRollupFollowsDelete(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(41), loc, interopSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	var ms []map[string]any
	for m, mem := range []int64{10, 11, 12} {
		ms = append(ms, map[string]any{"ts": day.Add(time.Duration(m) * time.Minute), "host": "host-0", "shard": int64(0), "mem": mem})
	}
	for m, mem := range []int64{20, 21} {
		ms = append(ms, map[string]any{"ts": day.Add(time.Duration(m) * time.Minute), "host": "host-1", "shard": int64(0), "mem": mem})
	}
	if _, err := tb.Append(ctx, rowsFromMaps(t, tb, ms...)); err != nil {
		t.Fatal(err)
	}
	ru, d := addRefreshed(t, tb, "h", loc, "mem:sum,max,first")
	from := day.UnixMicro() // host-0's first minute, and all of host-1
	to := day.Add(time.Minute).UnixMicro()
	if _, err := tb.Delete(ctx, table.DeleteOptions{Series: map[string][]any{"host": {"host-0"}}, FromUS: &from, ToUS: &to}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Delete(ctx, table.DeleteOptions{Series: map[string][]any{"host": {"host-1"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := table.RefreshRollup(ctx, tb, ru, d, table.RefreshOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, want := rollupText(t, ru), "host-0/0 rows=2 sum=23 max=12 first=11; host-1/0 rows=0 sum=null max=null first=null"; got != want {
		t.Fatalf("after the deletes: %s, want %s", got, want)
	}
}
