package table_test

import (
	"context"
	"strings"
	"testing"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestAppendRacesSchemaChange: an append whose batch was aligned before
// another engine changed the schema rebases onto the change when its rows
// are still valid under the new schema (written as they were, read by
// field id), and fails with SCHEMA_MISMATCH naming the column when not,
// leaving the table as the other engine left it.
func TestAppendRacesSchemaChange(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T) (store.Store, *table.Table) {
		st := memstore.New()
		tb, err := table.Create(ctx, st, testenv.New(1), loc, evolvingSchema(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, oldRows(t, tb.Schema())); err != nil {
			t.Fatal(err)
		}
		return st, tb
	}
	later := func(t *testing.T, sch *schema.Table, note any) *rows.Batch {
		return mapsBatch(t, sch, []map[string]any{
			{"ts": at(5), "host": "a", "region": "eu", "cpu": 6.5, "mem": int64(60), "note": note},
			{"ts": at(5), "host": "d", "region": "sa", "cpu": 7.5, "mem": int64(70)},
		})
	}

	t.Run("valid under the new schema", func(t *testing.T) {
		st, tb := setup(t)
		oldSch := tb.Schema()
		b := later(t, oldSch, nil)
		changeSchema(t, st, everyChange)
		res, err := tb.Append(ctx, b)
		if err != nil {
			t.Fatalf("append across the change: %v", err)
		}
		if res.Conflicts != 1 {
			t.Errorf("conflicts = %d, want 1 (the schema change)", res.Conflicts)
		}
		if tb.Schema().Index("cpu_pct") < 0 {
			t.Errorf("the table did not follow the change: %v", tb.Columns())
		}
		// a batch aligned to the old schema is written as the current one
		res, err = tb.Append(ctx, mapsBatch(t, oldSch, []map[string]any{{"ts": at(6), "host": "d", "region": "sa", "cpu": 8.5, "mem": int64(80)}}))
		if err != nil || res.Conflicts != 0 {
			t.Fatalf("append of an old batch: %+v, %v", res, err)
		}
		files, err := tb.DataFiles(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, df := range files {
			if df.RecordCount == 1 {
				checkFileSchema(t, st, tb, df.Path)
			}
		}
		checkScan(t, tb, table.ScanOptions{Series: map[string][]any{"host": {"a", "d"}}, Columns: []string{"cpu_pct", "mem", "disk"}}, []string{
			"ts=" + itoa(t0) + " host=a cpu_pct=0.5 mem=10 disk=null",
			"ts=" + itoa(t1) + " host=a cpu_pct=1.25 mem=11 disk=null",
			"ts=" + itoa(at(5).UnixMicro()) + " host=a cpu_pct=6.5 mem=60 disk=null",
			"ts=" + itoa(at(5).UnixMicro()) + " host=d cpu_pct=7.5 mem=70 disk=null",
			"ts=" + itoa(at(6).UnixMicro()) + " host=d cpu_pct=8.5 mem=80 disk=null",
		})
		checkLatestRows(t, tb, []string{
			"a@" + itoa(at(5).UnixMicro()) + " region=eu cpu_pct=6.5 mem=60 disk=null",
			"b@" + itoa(t1) + " region=us cpu_pct=null mem=21 disk=null",
			"d@" + itoa(at(6).UnixMicro()) + " region=sa cpu_pct=8.5 mem=80 disk=null",
		})
	})

	t.Run("a value for a dropped column", func(t *testing.T) {
		st, tb := setup(t)
		b := later(t, tb.Schema(), "kept?")
		changeSchema(t, st, everyChange)
		before := snapshotStore(t, st)
		_, err := tb.Append(ctx, b)
		if table.Code(err) != "SCHEMA_MISMATCH" || !strings.Contains(err.Error(), `"note"`) {
			t.Fatalf("append: %v (%s), want SCHEMA_MISMATCH naming note", err, table.Code(err))
		}
		sameStore(t, before, snapshotStore(t, st))
	})

	t.Run("a required column added", func(t *testing.T) {
		// Iceberg's rules forbid it, but an engine told to allow
		// incompatible changes makes it: rows without it cannot be valid.
		st, tb := setup(t)
		b := later(t, tb.Schema(), nil)
		changeSchema(t, st, func(fields []iceberg.SchemaField, lastID *int) []iceberg.SchemaField {
			fields = addField(fields, lastID, "rack", "string")
			fields[len(fields)-1].Required = true
			return fields
		})
		before := snapshotStore(t, st)
		_, err := tb.Append(ctx, b)
		if table.Code(err) != "SCHEMA_MISMATCH" || !strings.Contains(err.Error(), `"rack"`) {
			t.Fatalf("append: %v (%s), want SCHEMA_MISMATCH naming rack", err, table.Code(err))
		}
		sameStore(t, before, snapshotStore(t, st))
	})
}

// TestCompactionRacesSchemaChange: another engine's schema change lands
// while a compaction runs; the compaction rebases onto it (its outputs, in
// the schema it read, are valid by field id), the index follows the new
// schema, and the next append and compaction write the current one.
func TestCompactionRacesSchemaChange(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	env := testenv.New(1)
	tb, err := table.Create(ctx, mem, env, loc, evolvingSchema(t), map[string]string{maintenance.PropCompactMinFiles: "2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, oldRows(t, tb.Schema())); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, mapsBatch(t, tb.Schema(), []map[string]any{
		{"ts": at(1), "host": "b", "region": "us", "cpu": 3.0, "mem": int64(22)},
		{"ts": at(2), "host": "a", "region": "eu", "cpu": 0.1, "mem": int64(12)},
	})); err != nil {
		t.Fatal(err)
	}
	hs := &hookStore{Store: mem, hook: func() {
		changeSchema(t, mem, func(fields []iceberg.SchemaField, lastID *int) []iceberg.SchemaField {
			renameField(fields, "cpu", "cpu_pct")
			retypeField(fields, "cpu_pct", "double")
			return addField(fields, lastID, "disk", "double")
		})
	}}
	tb, err = table.Open(ctx, hs, env)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil || res.Merges != 1 || res.Conflicts != 1 {
		t.Fatalf("compact across the change: %+v, %v; want one merge, one conflict", res, err)
	}
	if tb.Schema().Index("cpu_pct") < 0 {
		t.Fatalf("the table did not follow the change: %v", tb.Columns())
	}
	want := []string{
		rowText(t0, "a", "region=eu cpu_pct=0.5 mem=10 note=x disk=null"),
		rowText(t1, "a", "region=eu cpu_pct=1.25 mem=11 note=y disk=null"),
		rowText(t2, "a", "region=eu cpu_pct=0.10000000149011612 mem=12 note=null disk=null"),
		rowText(t0, "b", "region=us cpu_pct=2.5 mem=20 note=null disk=null"),
		rowText(t1, "b", "region=us cpu_pct=3 mem=22 note=null disk=null"),
	}
	checkScan(t, tb, table.ScanOptions{}, want)
	checkLatestRows(t, tb, []string{
		"a@" + itoa(t2) + " region=eu cpu_pct=0.10000000149011612 mem=12 note=null disk=null",
		"b@" + itoa(t1) + " region=us cpu_pct=3 mem=22 note=null disk=null",
	})
	// The next append writes the current schema; a compaction merges it
	// with the output written under the old one.
	if _, err := tb.Append(ctx, mapsBatch(t, tb.Schema(), []map[string]any{
		{"ts": at(3), "host": "b", "region": "us", "cpu_pct": 0.1, "mem": int64(23), "disk": 1.5},
	})); err != nil {
		t.Fatal(err)
	}
	if res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil || res.Merges != 1 {
		t.Fatalf("second compaction: %+v, %v", res, err)
	}
	files, err := tb.DataFiles(ctx)
	if err != nil || len(files) != 1 {
		t.Fatalf("data files: %d, %v", len(files), err)
	}
	checkFileSchema(t, mem, tb, files[0].Path)
	checkScan(t, tb, table.ScanOptions{}, append(want, rowText(itoaAt(3), "b", "region=us cpu_pct=0.1 mem=23 note=null disk=1.5")))
}

func itoaAt(min int) int64 { return at(min).UnixMicro() }
