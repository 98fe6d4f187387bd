package table_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// rowIDs reads the row id of every live row of the table's current
// snapshot, by (host, time, cpu): the stored _row_id where a file has one,
// else first_row_id + position, as a v3 reader computes it.
func rowIDs(t *testing.T, st store.Store, tb *table.Table) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	md := tb.Metadata()
	raw, err := st.Get(ctx, strings.TrimPrefix(md.CurrentSnapshot().ManifestList, md.Location+"/"))
	if err != nil {
		t.Fatal(err)
	}
	ml, err := iceberg.ReadManifestList(raw, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, mf := range ml.Files {
		if mf.FirstRowID == nil {
			t.Fatalf("manifest %s has no first_row_id in a v3 list", mf.ManifestPath)
		}
		raw, err := st.Get(ctx, strings.TrimPrefix(mf.ManifestPath, md.Location+"/"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := iceberg.ReadManifest(raw, mf)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range m.Entries {
			if e.Status == iceberg.StatusDeleted {
				continue
			}
			data, err := st.Get(ctx, strings.TrimPrefix(e.DataFile.Path, md.Location+"/"))
			if err != nil {
				t.Fatal(err)
			}
			f, err := parquet.Open(data)
			if err != nil {
				t.Fatal(err)
			}
			col := map[string]int{}
			for j, c := range f.Schema() {
				col[c.Name] = j
			}
			at := int64(0)
			for rg := range f.NumRowGroups() {
				ts, _ := f.ReadColumn(rg, col["ts"])
				host, _ := f.ReadColumn(rg, col["host"])
				cpu, _ := f.ReadColumn(rg, col["cpu"])
				var ids *[]int64
				if j, ok := col["_row_id"]; ok {
					c, _ := f.ReadColumn(rg, j)
					ids = &c.Ints
				}
				for r := range ts.Ints {
					id := *e.DataFile.FirstRowID + at + int64(r)
					if ids != nil {
						id = (*ids)[r]
					}
					k := fmt.Sprintf("%s@%d=%g", host.Strs[r], ts.Ints[r], cpu.Floats[r])
					if _, dup := out[k]; dup {
						t.Fatalf("row %s is live twice", k)
					}
					out[k] = id
				}
				at += int64(len(ts.Ints))
			}
		}
	}
	return out
}

// TestRowLineage: a format v3 table's appends give rows ids from
// next-row-id (snapshot first-row-id and added-rows, the manifest lists'
// first_row_id); a rebased append takes its ids after the winner's; a
// compaction keeps every surviving row's id; no id is ever given twice.
func TestRowLineage(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(1), loc, metricsSchema(t), map[string]string{
		table.PropFormatVersion: "3", maintenance.PropCompactMinFiles: "2"})
	if err != nil {
		t.Fatal(err)
	}
	if v := tb.Metadata().FormatVersion; v != 3 {
		t.Fatalf("format-version %d, want 3", v)
	}
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 30, 3)); err != nil {
		t.Fatal(err)
	}
	stale, err := table.Open(ctx, st, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(10*time.Minute), 30, 3)); err != nil {
		t.Fatal(err)
	}
	// stale appends on the first version: it loses and rebases
	if _, err := stale.Append(ctx, batch(t, tb.Schema(), day1.Add(40*time.Minute), 20, 2)); err != nil {
		t.Fatal(err)
	}
	md := stale.Metadata()
	var lineage [][2]int64
	for _, s := range md.Snapshots {
		first, added, ok := s.RowLineage()
		if !ok {
			t.Fatalf("snapshot %d has no row lineage", s.SnapshotID)
		}
		lineage = append(lineage, [2]int64{first, added})
	}
	if want := [][2]int64{{0, 30}, {30, 30}, {60, 20}}; fmt.Sprint(lineage) != fmt.Sprint(want) {
		t.Errorf("snapshots' (first-row-id, added-rows) = %v, want %v", lineage, want)
	}
	if md.NextRowID() != 80 {
		t.Errorf("next-row-id %d, want 80", md.NextRowID())
	}
	before := rowIDs(t, st, stale)
	seen := map[int64]string{}
	for k, id := range before {
		if other, dup := seen[id]; dup {
			t.Fatalf("row id %d given to %s and %s", id, k, other)
		}
		seen[id] = k
	}
	// The second append overwrote 20 keys of the first with the same
	// values: 80 rows stored, 60 distinct (host, time, cpu) after dedup.
	if len(before) < 60 {
		t.Fatalf("%d live rows before compaction", len(before))
	}
	res, err := stale.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Merges == 0 {
		t.Fatal("nothing compacted")
	}
	after := rowIDs(t, st, stale)
	for k, id := range after {
		if was, ok := before[k]; !ok || was != id {
			t.Errorf("row %s: id %d after compaction, %d (present %v) before", k, id, was, ok)
		}
	}
	if stale.Metadata().NextRowID() < 80 {
		t.Errorf("next-row-id went back to %d", stale.Metadata().NextRowID())
	}
}

// TestUpgradeToV3: a format 2 table upgraded with UpgradeFormat is format 3
// with next-row-id 0; the next append gives every stored row an id (the
// manifests written before get their first_row_id), all distinct; a
// second upgrade changes nothing and a downgrade is refused.
func TestUpgradeToV3(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb := create(t, st, 1)
	for k := range 2 {
		if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(k)*time.Hour), 25, 5)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := tb.UpgradeFormat(ctx, 3)
	if err != nil || !res.Changed || res.From != 2 {
		t.Fatalf("upgrade: %+v, %v", res, err)
	}
	if md := tb.Metadata(); md.FormatVersion != 3 || md.NextRowID() != 0 {
		t.Fatalf("after the upgrade: format %d, next-row-id %d", md.FormatVersion, md.NextRowID())
	}
	if res, err := tb.UpgradeFormat(ctx, 3); err != nil || res.Changed {
		t.Errorf("second upgrade: %+v, %v; want nothing changed", res, err)
	}
	if _, err := tb.UpgradeFormat(ctx, 2); table.Code(err) != "BAD_PROPERTY" {
		t.Errorf("downgrade: err = %v, want BAD_PROPERTY", err)
	}
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(5*time.Hour), 10, 5)); err != nil {
		t.Fatal(err)
	}
	ids := rowIDs(t, st, tb)
	if len(ids) != 60 {
		t.Fatalf("%d live rows, want 60", len(ids))
	}
	seen := map[int64]bool{}
	for k, id := range ids {
		if seen[id] {
			t.Fatalf("row id %d given twice (%s)", id, k)
		}
		seen[id] = true
	}
	if n := tb.Metadata().NextRowID(); n < 60 {
		t.Errorf("next-row-id %d, want at least the 60 rows", n)
	}
}
