package table_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestRollupFold: after each step the rollup refreshed by the appending
// Table equals a second rollup of the same aggregates refreshed through
// another handle of the raw table (which has no appended rows in memory:
// always a recompute); the mode says which path ran.
func TestRollupFold(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	raw, err := table.Create(ctx, st, testenv.New(61), loc, metricsSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	aggs := []string{"cpu:count,sum,min,max,first,last", "mem:count,sum,min,max,first,last", "region:count,min,max,first,last"}
	ru, d := addRollupOf(t, raw, "f", loc, aggs...)
	ref, dRef := addRollupOf(t, raw, "ref", loc, aggs...)
	other, err := table.Open(ctx, st, testenv.New(62))
	if err != nil {
		t.Fatal(err)
	}

	type row struct {
		host string
		min  float64 // minutes after 10:00 on day1
		cpu  any     // float64 or nil
		mem  any     // int64 or nil
	}
	batch := func(rs ...row) *rows.Batch {
		var ms []map[string]any
		for _, r := range rs {
			ms = append(ms, map[string]any{"ts": day1.Add(10*time.Hour + time.Duration(r.min*float64(time.Minute))), "host": r.host, "region": "r-" + r.host, "cpu": r.cpu, "mem": r.mem})
		}
		return rowsFromMaps(t, raw, ms...)
	}
	appendRows := func(rs ...row) {
		t.Helper()
		if _, err := raw.Append(ctx, batch(rs...)); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct {
		name   string
		before func() // what happens before the refresh
		via    *table.Table
		mode   string
	}{
		{"first rows: computed whole", func() {
			appendRows(row{"h0", 0, 1.5, int64(3)}, row{"h0", 10, 2.5, nil}, row{"h1", 5, nil, int64(7)}, row{"h1", 5, 9.0, int64(8)})
		}, raw, "full"},
		{"later rows: folded into 10:00, new 11:00 and a new series", func() {
			appendRows(row{"h0", 20, 0.5, int64(1)}, row{"h0", 70, 4.0, int64(2)}, row{"h1", 30, nil, nil}, row{"h2", 1, 3.0, int64(5)})
		}, raw, "fold"},
		{"later rows with NaN, ±Inf and nulls: folded", func() {
			appendRows(row{"h0", 80, math.Inf(1), int64(-4)}, row{"h1", 31, math.NaN(), nil}, row{"h1", 32, -2.0, int64(1 << 40)}, row{"h2", 2, math.Inf(-1), nil})
		}, raw, "fold"},
		{"a late row: recomputed", func() {
			appendRows(row{"h0", 5, 7.0, int64(9)}, row{"h1", 40, 1.0, int64(1)})
		}, raw, "incremental"},
		{"a row at its series' last time (a duplicate): recomputed", func() {
			appendRows(row{"h1", 40, 2.0, int64(2)})
		}, raw, "incremental"},
		{"two appends since the refresh: recomputed", func() {
			appendRows(row{"h0", 90, 1.0, int64(1)})
			appendRows(row{"h0", 91, 1.0, int64(1)})
		}, raw, "incremental"},
		{"a refresh through another handle: recomputed", func() {
			appendRows(row{"h0", 92, 3.0, int64(1)})
		}, other, "incremental"},
		{"a compaction in between: recomputed", func() {
			appendRows(row{"h0", 93, 1.0, int64(1)}, row{"h0", 20, 1.0, int64(1)}) // two files of one day
			if _, err := raw.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
				t.Fatal(err)
			}
			appendRows(row{"h0", 94, 1.0, int64(1)})
		}, raw, "incremental"},
		{"later rows again: folded", func() {
			appendRows(row{"h0", 95, 6.0, int64(6)}, row{"h1", 41, 6.0, int64(6)}, row{"h2", 3, 6.0, int64(6)}, row{"h3", 0, nil, nil})
		}, raw, "fold"},
		{"a column added after the append: recomputed", func() {
			appendRows(row{"h0", 96, 1.0, int64(1)})
			if _, err := raw.Alter(ctx, []evolve.Change{{Op: evolve.Add, Column: "disk", Type: schema.Long}}); err != nil {
				t.Fatal(err)
			}
		}, raw, "incremental"},
		{"later rows with the new column: folded", func() {
			appendRows(row{"h0", 97, 2.0, int64(2)}, row{"h1", 42, nil, int64(3)})
		}, raw, "fold"},
		{"rows before the raw retention cut-off (the clock is a day on): recomputed", func() {
			if err := raw.SetProperties(ctx, map[string]string{"timelake.retention": "1d"}, nil, nil); err != nil {
				t.Fatal(err)
			}
			appendRows(row{"h0", 98, 2.0, int64(2)})
		}, raw, "incremental"},
	} {
		step.before()
		res, err := table.RefreshRollup(ctx, step.via, ru, d, table.RefreshOptions{})
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if res.Mode != step.mode {
			t.Fatalf("%s: mode %s, want %s (%+v)", step.name, res.Mode, step.mode, res)
		}
		if res.Mode == "fold" && (res.BytesRead != 0 || res.Buckets == 0 || res.Rows != res.Buckets) {
			t.Fatalf("%s: %+v, want buckets folded without reading raw data", step.name, res)
		}
		if _, err := table.RefreshRollup(ctx, other, ref, dRef, table.RefreshOptions{}); err != nil {
			t.Fatal(err)
		}
		got, want := rollupDump(t, ru), rollupDump(t, ref)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: folded rollup\n%v\nrecomputed\n%v", step.name, got, want)
		}
	}
}

// rollupDump renders every row of a rollup table, floats by their bits.
func rollupDump(t *testing.T, ru *table.Table) []string {
	t.Helper()
	var out []string
	_, err := ru.Scan(context.Background(), table.ScanOptions{}, func(b *rows.Batch) error {
		for i := 0; i < b.Len; i++ {
			s := ""
			for c, f := range b.Schema.Fields {
				col := &b.Cols[c]
				switch {
				case col.IsNull(i):
					s += f.Name + "=null "
				case f.Type.IsInteger():
					s += fmt.Sprintf("%s=%d ", f.Name, col.Ints[i])
				case f.Type.IsFloat():
					s += fmt.Sprintf("%s=%v/%x ", f.Name, col.Floats[i], math.Float64bits(col.Floats[i]))
				default:
					s += fmt.Sprintf("%s=%v ", f.Name, col.Strs[i])
				}
			}
			out = append(out, s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRollupFoldInPlace: an inline refresh folds from the versions the
// Tables hold. Another handle's refresh committing first makes it run
// again from the newest versions (here: up to date); another writer's
// append after it is left to the next refresh.
func TestRollupFoldInPlace(t *testing.T) {
	ctx := context.Background()
	st, rst := memstore.New(), memstore.New()
	raw, err := table.Create(ctx, st, testenv.New(71), loc, metricsSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := hourly(t)
	ru, err := table.AddRollup(ctx, raw, rst, d)
	if err != nil {
		t.Fatal(err)
	}
	open := func(st *memstore.Store, seed uint64) *table.Table {
		tb, err := table.Open(ctx, st, testenv.New(seed))
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	refresh := func(raw, ru *table.Table, mode string) *table.RefreshResult {
		t.Helper()
		res, err := table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Mode != mode {
			t.Fatalf("refresh: mode %s, want %s (%+v)", res.Mode, mode, res)
		}
		return res
	}
	k := 0
	appendTo := func(tb *table.Table) *table.AppendResult {
		t.Helper()
		k++
		ar, err := tb.Append(ctx, forwardRows(t, tb, k, 300))
		if err != nil {
			t.Fatal(err)
		}
		return ar
	}
	appendTo(raw)
	refresh(raw, ru, "full")

	// Another handle of the rollup table refreshes first.
	ru2 := open(rst, 72)
	ar := appendTo(raw)
	refresh(raw, ru2, "fold")
	if res := refresh(raw, ru, "up-to-date"); res.Source != ar.SnapshotID {
		t.Fatalf("after the other refresh: %+v, want raw snapshot %d", res, ar.SnapshotID)
	}

	// Another writer appends after this Table's append: the fold reflects
	// this Table's append, the next refresh the other's.
	other := open(st, 73)
	ar = appendTo(raw)
	appendTo(other)
	if res := refresh(raw, ru, "fold"); res.Source != ar.SnapshotID {
		t.Fatalf("in-place fold: %+v, want raw snapshot %d", res, ar.SnapshotID)
	}
	refresh(raw, ru, "incremental")
	want := rollupDump(t, ru)
	dw := d
	dw.Name, dw.Location = "whole", loc+"__whole"
	fresh, err := table.AddRollup(ctx, raw, memstore.New(), dw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.RefreshRollup(ctx, open(st, 74), fresh, dw, table.RefreshOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := rollupDump(t, fresh); !slices.Equal(got, want) {
		t.Fatalf("folded and caught up:\n%v\ncomputed whole:\n%v", want, got)
	}
}
