package table_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// evolvedBatch aligns n rows with a new column disk (long) to the schema
// tb would have after adding it: the changes and the batch.
func evolvedBatch(t *testing.T, tb *table.Table, start time.Time, n int) ([]evolve.Change, *rows.Batch) {
	t.Helper()
	changes := evolve.Missing(tb.Schema(), []evolve.Column{{Name: "host", Type: schema.String}, {Name: "disk", Type: schema.Long}})
	next, err := tb.EvolvedSchema(changes)
	if err != nil {
		t.Fatal(err)
	}
	ms := make([]map[string]any, n)
	for i := range ms {
		ms[i] = map[string]any{"ts": start.Add(time.Duration(i) * time.Minute), "host": fmt.Sprintf("h%03d", i%3),
			"region": "eu", "cpu": float64(i), "mem": int64(i), "disk": int64(i) * 7}
	}
	b, err := rows.FromMaps(next, ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return changes, b
}

// latestDisk is the disk value of each series in the last-value index ("null" when null).
func latestDisk(t *testing.T, tb *table.Table) map[string]string {
	t.Helper()
	idx, err := tb.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d, h := idx.Schema.Index("disk"), idx.Schema.Index("host")
	out := map[string]string{}
	for i := 0; i < idx.Len; i++ {
		v := "null"
		if d >= 0 && !idx.Cols[d].IsNull(i) {
			v = fmt.Sprint(idx.Cols[d].Ints[i])
		}
		out[idx.Cols[h].Strs[i]] = v
	}
	return out
}

// TestAppendEvolved: the new column and the rows land in one version; the
// last-value index carries the column (null for series not appended since).
func TestAppendEvolved(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb := create(t, st, 1)
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 50, 5)); err != nil { // hosts h000–h004
		t.Fatal(err)
	}
	changes, b := evolvedBatch(t, tb, day1.Add(24*time.Hour), 30) // hosts h000–h002
	res, err := tb.AppendEvolved(ctx, changes, b)
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != 3 || res.Rows != 30 {
		t.Errorf("result = %+v, want 30 rows at v3", res)
	}
	re, err := table.Open(ctx, st, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	md := re.Metadata()
	snap := md.CurrentSnapshot()
	if len(md.Schemas) != 2 || md.CurrentSchemaID != 1 || snap.SchemaID == nil || *snap.SchemaID != 1 || len(md.Snapshots) != 2 {
		t.Errorf("metadata: %d schemas, current %d, snapshot schema %v, %d snapshots; want 2, 1, 1, 2", len(md.Schemas), md.CurrentSchemaID, snap.SchemaID, len(md.Snapshots))
	}
	if got := columns(md.CurrentSchema().Fields); got != "1:ts:timestamptz 2:host:string 3:region:string 4:cpu:double? 5:mem:long? 7:disk:long? 6:_ingest_ts:timestamptz?" {
		t.Errorf("schema %s", got)
	}
	want := map[string]string{"h000": "189", "h001": "196", "h002": "203", "h003": "null", "h004": "null"}
	if got := latestDisk(t, re); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("latest disk = %v, want %v", got, want)
	}
	if got := latestDisk(t, tb); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the appending table's latest disk = %v, want %v", got, want)
	}
	info, err := re.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 80 || info.Files != 2 {
		t.Errorf("info: %d rows, %d files; want 80, 2", info.Rows, info.Files)
	}
}

// TestAppendEvolvedRace: an evolving append that loses to a plain append
// rebases (the same ids); one that loses to another schema change fails
// with SCHEMA_MISMATCH and commits nothing.
func TestAppendEvolvedRace(t *testing.T) {
	ctx := context.Background()
	open := func(st store.Store, seed uint64) *table.Table {
		tb, err := table.Open(ctx, st, testenv.New(seed))
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	t.Run("over an append", func(t *testing.T) {
		st := memstore.New()
		create(t, st, 1)
		a, b := open(st, 2), open(st, 3)
		if _, err := a.Append(ctx, batch(t, a.Schema(), day1, 40, 4)); err != nil {
			t.Fatal(err)
		}
		changes, rb := evolvedBatch(t, b, day1.Add(time.Hour), 10)
		res, err := b.AppendEvolved(ctx, changes, rb)
		if err != nil {
			t.Fatal(err)
		}
		if res.Conflicts != 1 || res.Version != 3 {
			t.Errorf("result = %+v, want one conflict, v3", res)
		}
		re := open(st, 4)
		info, err := re.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.Rows != 50 || len(info.Schemas) != 2 {
			t.Errorf("info: %d rows, %d schemas; want 50, 2", info.Rows, len(info.Schemas))
		}
		want := map[string]string{"h000": "63", "h001": "49", "h002": "56", "h003": "null"}
		if got := latestDisk(t, re); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("latest disk = %v, want %v", got, want)
		}
	})
	t.Run("over the same change", func(t *testing.T) {
		st := memstore.New()
		create(t, st, 1)
		a, b := open(st, 2), open(st, 3)
		ca, ra := evolvedBatch(t, a, day1, 10)
		cb, rb := evolvedBatch(t, b, day1.Add(time.Hour), 10)
		if _, err := a.AppendEvolved(ctx, ca, ra); err != nil {
			t.Fatal(err)
		}
		res, err := b.AppendEvolved(ctx, cb, rb)
		if err != nil {
			t.Fatalf("the second writer adding the same column: %v", err)
		}
		if res.Conflicts != 1 {
			t.Errorf("result = %+v, want one conflict", res)
		}
		re := open(st, 4)
		info, err := re.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.Rows != 20 || len(info.Schemas) != 2 {
			t.Errorf("info: %d rows, %d schemas; want 20, 2", info.Rows, len(info.Schemas))
		}
		want := map[string]string{"h000": "63", "h001": "49", "h002": "56"}
		if got := latestDisk(t, re); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("latest disk = %v, want %v", got, want)
		}
	})
	t.Run("over another schema change", func(t *testing.T) {
		// The winner took id 7; the append starts again with disk as 8.
		st := memstore.New()
		create(t, st, 1)
		a, b := open(st, 2), open(st, 3)
		if _, err := a.Alter(ctx, mustChanges(t, "add other:string", "rename cpu=load")); err != nil {
			t.Fatal(err)
		}
		changes, rb := evolvedBatch(t, b, day1, 10)
		res, err := b.AppendEvolved(ctx, changes, rb)
		if err != nil {
			t.Fatalf("append over a schema change: %v", err)
		}
		if res.Version != 3 {
			t.Errorf("result = %+v, want v3", res)
		}
		re := open(st, 4)
		if got := columns(re.Metadata().CurrentSchema().Fields); got != "1:ts:timestamptz 2:host:string 3:region:string 4:load:double? 5:mem:long? 7:other:string? 8:disk:long? 6:_ingest_ts:timestamptz?" {
			t.Errorf("schema %s", got)
		}
		want := map[string]string{"h000": "63", "h001": "49", "h002": "56"}
		if got := latestDisk(t, re); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("latest disk = %v, want %v", got, want)
		}
		var load float64
		if _, err := re.Scan(ctx, table.ScanOptions{}, func(b *rows.Batch) error {
			for i := 0; i < b.Len; i++ {
				load += b.Cols[b.Schema.Index("load")].Floats[i]
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if load != 45 {
			t.Errorf("load (was cpu) sums to %v, want 45", load)
		}
	})
	t.Run("later batches after a restart", func(t *testing.T) {
		// The CLI's --batch-rows: every batch of the input was aligned
		// when it was opened, disk as id 7. The first batch restarts on a
		// schema change that took id 7 for other (string), adding disk as
		// 8; the second must follow it there (Retarget), not land in other.
		st := memstore.New()
		create(t, st, 1)
		a, b := open(st, 2), open(st, 3)
		base := b.Schema()
		changes, rb1 := evolvedBatch(t, b, day1, 10)
		_, rb2 := evolvedBatch(t, b, day1.Add(time.Hour), 10)
		if _, err := a.Alter(ctx, mustChanges(t, "add other:string")); err != nil {
			t.Fatal(err)
		}
		if _, err := b.AppendEvolved(ctx, changes, rb1); err != nil {
			t.Fatalf("first batch: %v", err)
		}
		more, rb2, err := b.Retarget(base, rb2)
		if err != nil {
			t.Fatalf("retarget: %v", err)
		}
		if len(more) != 0 {
			t.Errorf("retarget left changes %v, want none (the first batch added disk)", more)
		}
		if _, err := b.AppendEvolved(ctx, more, rb2); err != nil {
			t.Fatalf("second batch: %v", err)
		}
		re := open(st, 4)
		var disk int64
		var others, n int
		if _, err := re.Scan(ctx, table.ScanOptions{}, func(bt *rows.Batch) error {
			d, o := bt.Schema.Index("disk"), bt.Schema.Index("other")
			for i := 0; i < bt.Len; i++ {
				n++
				disk += bt.Cols[d].Ints[i]
				if !bt.Cols[o].IsNull(i) {
					others++
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n != 20 || disk != 2*315 || others != 0 {
			t.Errorf("scan: %d rows, disk sums to %d, %d non-null other; want 20, 630, 0", n, disk, others)
		}
		// A batch already in the current schema is left as it is.
		_, rb3 := evolvedBatch(t, b, day1.Add(2*time.Hour), 3)
		if more, got, err := b.Retarget(base, rb3); err != nil || len(more) != 0 || got != rb3 {
			t.Errorf("retarget of a current batch = %v, %p, %v; want no changes, the same batch", more, got, err)
		}
	})
	for _, tc := range []struct{ name, alter, inErr string }{
		{"over the same column of another type", "add disk:string", `another writer added column "disk" meanwhile as string`},
		{"over a drop of a column the rows hold", "drop cpu", `cpu`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := memstore.New()
			create(t, st, 1)
			a, b := open(st, 2), open(st, 3)
			if _, err := a.Alter(ctx, mustChanges(t, tc.alter)); err != nil {
				t.Fatal(err)
			}
			before := snapshotStore(t, st)
			changes, rb := evolvedBatch(t, b, day1, 10)
			_, err := b.AppendEvolved(ctx, changes, rb)
			if !errors.Is(err, table.ErrSchemaMismatch) || table.Code(err) != "SCHEMA_MISMATCH" || !strings.Contains(err.Error(), tc.inErr) {
				t.Fatalf("append = %v, want SCHEMA_MISMATCH saying %q", err, tc.inErr)
			}
			if v, _ := commit.Latest(ctx, st); v.N != 2 {
				t.Errorf("latest version %d, want 2 (a's alter)", v.N)
			}
			for k := range snapshotStore(t, st) {
				if _, ok := before[k]; !ok {
					t.Errorf("the failed append left %s", k)
				}
			}
		})
	}
}

// TestAppendEvolvedOutsideReaders: old files without the column and new
// ones with it, read by iceberg-go, DuckDB and pyiceberg.
func TestAppendEvolvedOutsideReaders(t *testing.T) {
	if testing.Short() {
		t.Skip("outside readers: skipped with -short")
	}
	readers := interoptest.Readers(t)
	ctx := context.Background()
	dir, _, tb := dirTable(t, testenv.New(71), metricsSchema(t), nil)
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 50, 5)); err != nil {
		t.Fatal(err)
	}
	changes, b := evolvedBatch(t, tb, day1.Add(24*time.Hour), 30)
	if _, err := tb.AppendEvolved(ctx, changes, b); err != nil {
		t.Fatal(err)
	}
	// disk: 7·(0+…+29) over the 30 new rows; cpu: 0+…+49 then 0+…+29.
	min, max := day1.UnixMicro(), day1.Add(24*time.Hour+29*time.Minute).UnixMicro()
	want := interoptest.Summary{Rows: 80, DistinctSeries: 5, MinTimeUS: &min, MaxTimeUS: &max, PlannedFiles: -1,
		Sums:    map[string]interoptest.Sum{"disk": "3045", "cpu": "1.66e+03", "mem": "1225435"},
		NonNull: map[string]int64{"disk": 30, "cpu": 80, "mem": 80}}
	q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"disk", "cpu", "mem"}}
	for _, r := range readers {
		got := interoptest.Summarize(t, r, filepath.Join(dir, commit.MetadataKey(tb.Version())), q)
		interoptest.ExpectSame(t, string(r), want, got)
	}
}
