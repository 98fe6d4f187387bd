package table_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// appendRows appends rows (ts, host-0, shard 0, mem) through Timelake.
func appendRows(t *testing.T, tb *table.Table, ts []time.Time, mem int64) {
	t.Helper()
	var ms []map[string]any
	for i, x := range ts {
		ms = append(ms, map[string]any{"ts": x, "host": "host-0", "shard": int64(0), "mem": mem + int64(i)})
	}
	b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(context.Background(), b); err != nil {
		t.Fatal(err)
	}
}

// liveMem reads the mem column of every live data file of partition p.
func liveMem(t *testing.T, fw *foreignWriter, p int32) []int64 {
	t.Helper()
	var out []int64
	for path, e := range liveEntries(t, fw) {
		if e.DataFile.IsDelete() || e.DataFile.Partition != p {
			continue
		}
		raw, err := fw.st.Get(fw.ctx, fw.key(path))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquet.Open(raw)
		if err != nil {
			t.Fatal(err)
		}
		for rg := range f.NumRowGroups() {
			c, err := f.ReadColumn(rg, fw.tb.Schema().Index("mem"))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c.Ints...)
		}
	}
	slices.Sort(out)
	return out
}

// TestDedupRuleAcrossEngines: on one cold day, Timelake appends keys k0–k2
// (mem 100…), a Spark INSERT without _ingest_ts writes k0–k1 (mem 200…),
// Timelake appends k0 again (mem 300). Compaction keeps, per key, the row
// of the latest commit: k0 from the last append, k1 from the INSERT, k2
// from the first append — whatever the order of the files.
func TestDedupRuleAcrossEngines(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(21), loc, interopSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	k := func(i int) time.Time { return day.Add(time.Duration(i) * time.Minute) }
	appendRows(t, tb, []time.Time{k(0), k(1), k(2)}, 100)
	fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}
	p := schema.Day.Apply(day.UnixMicro())
	df := fw.dataFile(p, []modelRow{{ts: k(0).UnixMicro(), host: "host-0", mem: 200}, {ts: k(1).UnixMicro(), host: "host-0", mem: 201}}, 0, false)
	fw.commit(foreignCommit{op: "append", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
		entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: df}}}},
		addedFiles: 1, addedRecords: df.RecordCount, addedBytes: df.FileSize})
	later := testenv.New(22) // an hour after the first append's clock
	now := later.Now
	later.Now = func() time.Time { return now().Add(time.Hour) }
	if tb, err = table.Open(ctx, st, later); err != nil {
		t.Fatal(err)
	}
	appendRows(t, tb, []time.Time{k(0)}, 300)
	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Merges != 1 || res.FilesRead != 3 {
		t.Fatalf("maintain = %+v, want one merge of 3 files", res)
	}
	if got, want := fmt.Sprint(liveMem(t, fw, p)), "[102 201 300]"; got != want {
		t.Errorf("mem after compaction = %s, want %s", got, want)
	}
}

// TestEqualityDeletesLeavePartitionAlone: an equality delete file keeps its
// partition out of compaction (the plan says so) while another partition
// compacts; the totals count it.
func TestEqualityDeletesLeavePartitionAlone(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(31), loc, interopSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	d1 := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	d2 := d1.AddDate(0, 0, 1)
	for i := range 2 {
		appendRows(t, tb, []time.Time{d1.Add(time.Duration(i) * time.Minute), d2.Add(time.Duration(i) * time.Minute)}, int64(10*i))
	}
	fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}
	sch := tb.Schema()
	eq := fw.dataFile(schema.Day.Apply(d1.UnixMicro()), []modelRow{{ts: d1.UnixMicro(), host: "host-0"}}, 0, false)
	eq.Content = iceberg.ContentEqualityDeletes
	eq.EqualityIDs = []int32{int32(sch.Fields[sch.Time].ID), int32(sch.Fields[sch.Series[0]].ID), int32(sch.Fields[sch.Series[1]].ID)}
	fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
		entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: eq}}}}, addedDeletes: 1})
	before := liveMem(t, fw, schema.Day.Apply(d1.UnixMicro()))
	if tb, err = table.Open(ctx, st, testenv.New(32)); err != nil {
		t.Fatal(err)
	}
	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(res.Plan, "\n")
	if !strings.Contains(plan, "skipped: 1 partition with equality delete files (ts_day=2026-11-26)") || res.PartitionsSkipped != 1 || res.Merges != 1 {
		t.Errorf("maintain = %+v\n%s\nwant d1 skipped, d2 merged", res, plan)
	}
	if got := liveMem(t, fw, schema.Day.Apply(d1.UnixMicro())); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("d1 after maintenance = %v, want it untouched: %v", got, before)
	}
	s := tb.Metadata().CurrentSnapshot().Summary
	if got := s["total-delete-files"] + "/" + s["total-equality-deletes"]; got != "1/1" {
		t.Errorf("total-delete-files/total-equality-deletes = %s, want 1/1", got)
	}
	info, err := tb.Info(ctx)
	if err != nil || info.DeleteFiles != 1 || info.EqualityDeletes != 1 {
		t.Errorf("info = %+v, %v; want 1 delete file of 1 equality delete", info, err)
	}
}

// TestRequiredIngestTableStillWorks: a table created before _ingest_ts
// was optional (required in its schema) appends and compacts as before,
// and keeps the column required.
func TestRequiredIngestTableStillWorks(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(41), loc, interopSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	requireIngest(t, st)
	if tb, err = table.Open(ctx, st, testenv.New(42)); err != nil {
		t.Fatal(err)
	}
	if f := tb.Schema().Fields[tb.Schema().Ingest]; !f.Required {
		t.Fatal("the rewritten table does not have _ingest_ts required")
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	appendRows(t, tb, []time.Time{day, day.Add(time.Minute)}, 1)
	appendRows(t, tb, []time.Time{day}, 7)
	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil || res.Merges != 1 || res.RowsAfter != 2 {
		t.Fatalf("maintain = %+v, %v; want one merge to 2 rows", res, err)
	}
	fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}
	if got := fmt.Sprint(liveMem(t, fw, schema.Day.Apply(day.UnixMicro()))); got != "[2 7]" {
		t.Errorf("mem = %s, want [2 7]", got)
	}
	if f := tb.Schema().Fields[tb.Schema().Ingest]; !f.Required {
		t.Error("_ingest_ts is no longer required")
	}
}

// requireIngest rewrites v1 (an empty table) with _ingest_ts required, as
// tables were created before.
func requireIngest(t *testing.T, st store.Store) {
	ctx := context.Background()
	raw, err := st.Get(ctx, commit.MetadataKey(1))
	if err != nil {
		t.Fatal(err)
	}
	md, err := iceberg.ParseMetadata(raw)
	if err != nil {
		t.Fatal(err)
	}
	for i := range md.Schemas {
		for j := range md.Schemas[i].Fields {
			if md.Schemas[i].Fields[j].Name == schema.IngestColumn {
				md.Schemas[i].Fields[j].Required = true
			}
		}
	}
	if raw, err = md.Marshal(); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, commit.MetadataKey(1), raw); err != nil {
		t.Fatal(err)
	}
}

// TestDeletionVectorWithoutPlace: a Puffin deletion vector without
// referenced_data_file, content_offset and content_size_in_bytes (the
// spec requires them) makes maintenance's compaction and retention
// CORRUPT_TABLE, naming it; info still reads the table and counts it.
func TestDeletionVectorWithoutPlace(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(61), loc, interopSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	appendRows(t, tb, []time.Time{day}, 1)
	fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}
	dv := iceberg.DataFile{Content: iceberg.ContentPositionDeletes, Path: loc + "/data/dv-1.puffin", Format: "PUFFIN",
		Partition: schema.Day.Apply(day.UnixMicro()), RecordCount: 1, FileSize: 100}
	fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
		entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: dv}}}}, addedDeletes: 1, addedPositionDeletes: 1})
	if tb, err = table.Open(ctx, st, testenv.New(62)); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []table.MaintainOptions{{Compact: true}, {Retention: true}} {
		_, err := tb.Maintain(ctx, opt)
		if opt.Retention && err == nil {
			continue // no retention set: nothing read
		}
		if table.Code(err) != "CORRUPT_TABLE" || !strings.Contains(err.Error(), "deletion vector "+dv.Path) {
			t.Errorf("maintain %+v: %v (%s), want CORRUPT_TABLE naming the deletion vector", opt, err, table.Code(err))
		}
	}
	info, err := tb.Info(ctx)
	if err != nil || info.DeleteFiles != 1 {
		t.Errorf("info = %+v, %v; want it read, with 1 delete file", info, err)
	}
}

// hookStore runs hook once, before the first conditional write of a
// metadata version: another engine's commit landing first.
type hookStore struct {
	store.Store
	once sync.Once
	hook func()
}

func (s *hookStore) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	if strings.HasSuffix(key, ".metadata.json") {
		s.once.Do(s.hook)
	}
	return s.Store.PutIfAbsent(ctx, key, data)
}

// TestCompactionDroppedWhenDeletesArrive: a position delete committed into
// a partition while its merge runs drops the merge on rebase (its outputs
// would resurrect the deleted rows); the next run applies the delete.
func TestCompactionDroppedWhenDeletesArrive(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	tb, err := table.Create(ctx, mem, testenv.New(71), loc, interopSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	p := schema.Day.Apply(day.UnixMicro())
	appendRows(t, tb, []time.Time{day, day.Add(time.Minute)}, 10)
	appendRows(t, tb, []time.Time{day.Add(2 * time.Minute)}, 20)
	fw := &foreignWriter{t: t, ctx: ctx, st: mem, tb: tb}
	var target string
	for path, e := range liveEntries(t, fw) {
		if e.DataFile.RecordCount == 2 {
			target = path
		}
	}
	hs := &hookStore{Store: mem, hook: func() {
		del := fw.positionDeletes(p, target, []int64{1}) // mem 11
		fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
			entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: del}}}}, addedDeletes: 1, addedPositionDeletes: 1})
	}}
	mt, err := table.Open(ctx, hs, testenv.New(72))
	if err != nil {
		t.Fatal(err)
	}
	res, err := mt.Maintain(ctx, table.MaintainOptions{Compact: true})
	if !errors.Is(err, commit.ErrDropped) || res.MergesDropped != 1 {
		t.Fatalf("maintain = %+v, %v; want the merge dropped (COMMIT_DROPPED)", res, err)
	}
	if got := fmt.Sprint(liveMem(t, fw, p)); got != "[10 11 20]" {
		t.Errorf("files after the dropped merge hold mem %s, want [10 11 20] (the delete file applies to them)", got)
	}
	res, err = mt.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil || res.DeleteFilesApplied != 1 || res.RowsDeleted != 1 {
		t.Fatalf("second maintain = %+v, %v; want the delete applied", res, err)
	}
	if got := fmt.Sprint(liveMem(t, fw, p)); got != "[10 20]" {
		t.Errorf("after the delete was applied: mem %s, want [10 20]", got)
	}
	for _, e := range liveEntries(t, fw) {
		if e.DataFile.IsDelete() {
			t.Errorf("delete file %s still live after it was applied", e.DataFile.Path)
		}
	}
}

// TestPositionDeletesOnOneFile: a cold partition of one file with a
// position delete is rewritten without the deleted rows; deleting every
// row leaves no file at all.
func TestPositionDeletesOnOneFile(t *testing.T) {
	for _, c := range []struct {
		name      string
		positions []int64
		want      string
		files     int
	}{
		{"some rows", []int64{0, 2}, "[11]", 1},
		{"every row", []int64{0, 1, 2}, "[]", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			st := memstore.New()
			tb, err := table.Create(ctx, st, testenv.New(91), loc, interopSchema(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
			appendRows(t, tb, []time.Time{day, day.Add(time.Minute), day.Add(2 * time.Minute)}, 10)
			fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}
			p := schema.Day.Apply(day.UnixMicro())
			var path string
			for pth := range liveEntries(t, fw) {
				path = pth
			}
			del := fw.positionDeletes(p, path, c.positions)
			fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
				entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: del}}}}, addedDeletes: 1, addedPositionDeletes: int64(len(c.positions))})
			if tb, err = table.Open(ctx, st, testenv.New(92)); err != nil {
				t.Fatal(err)
			}
			res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
			if err != nil || res.DeleteFilesApplied != 1 || res.RowsDeleted != int64(len(c.positions)) {
				t.Fatalf("maintain = %+v, %v", res, err)
			}
			if got := fmt.Sprint(liveMem(t, fw, p)); got != c.want {
				t.Errorf("mem = %s, want %s", got, c.want)
			}
			if live := liveEntries(t, fw); len(live) != c.files {
				t.Errorf("%d live files, want %d", len(live), c.files)
			}
			info, err := tb.Info(ctx)
			if err != nil || info.DeleteFiles != 0 || info.Rows != int64(3-len(c.positions)) {
				t.Errorf("info = %+v, %v", info, err)
			}
		})
	}
}
