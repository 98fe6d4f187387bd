package table_test

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/table"
)

// fileModel is what the test knows of one live data file: its rows in
// file order (the table's sort order), the data sequence number, which
// positions a delete file removed.
type fileModel struct {
	day     int32
	seq     int64
	rows    []rankedRow
	deleted map[int64]bool
	other   bool // of another partition spec
}

type rankedRow struct {
	modelRow
	rank rows.Rank
}

// tableModel is the rows every reader must see: the live files' rows less
// those position deletes removed.
type tableModel map[string]*fileModel

func (m tableModel) summary() interoptest.Summary {
	var rs []interoptest.Row
	for _, f := range m {
		for i, r := range f.rows {
			if f.deleted[int64(i)] {
				continue
			}
			rs = append(rs, interoptest.Row{TimeUS: r.ts, Series: fmt.Sprintf("%s/%d", r.host, r.shard), CPU: r.cpu, Mem: &r.mem})
		}
	}
	return interoptest.Expect(rs, nil)
}

func (m tableModel) storedRows() (n int64) {
	for _, f := range m {
		n += int64(len(f.rows))
	}
	return n
}

// compact replaces the files of day by one holding the winner of each key
// under the dedup rule (rows.Winner).
func (m tableModel) compact(day int32, seq int64) {
	byKey := map[string][]rankedRow{}
	for p, f := range m {
		if f.day != day || f.other {
			continue
		}
		for i, r := range f.rows {
			if f.deleted[int64(i)] {
				continue // applied by the merge
			}
			k := fmt.Sprintf("%s/%d/%d", r.host, r.shard, r.ts)
			byKey[k] = append(byKey[k], r)
		}
		delete(m, p)
	}
	out := &fileModel{day: day, seq: seq}
	for _, group := range byKey {
		ranks := make([]rows.Rank, len(group))
		for i, r := range group {
			ranks[i] = r.rank
		}
		out.rows = append(out.rows, group[rows.Winner(ranks)])
	}
	m[fmt.Sprintf("compacted-%d", day)] = out
}

func sortRows(rs []rankedRow) {
	slices.SortFunc(rs, func(a, b rankedRow) int {
		return cmp.Or(strings.Compare(a.host, b.host), cmp.Compare(a.shard, b.shard), cmp.Compare(a.ts, b.ts))
	})
}

// TestForeignManifestsAndDeletes: three Timelake appends, then what other
// engines commit — a Spark INSERT without _ingest_ts over existing keys, two
// merge-on-read position deletes, a pyiceberg-style delete of a whole file
// (a DELETED entry, the rest of its manifest rewritten EXISTING with their
// own snapshot ids and sequence numbers), a new partition spec and a file
// of it — then Timelake maintenance. The outside readers and Timelake agree
// on rows and exact sums at every step; compaction merges the day with
// rows without _ingest_ts whole (the INSERT's rows win their keys: a later
// data sequence number), merges the day with a position delete whole,
// leaving its deleted rows out, and drops the delete file; retention drops the old day with its delete file; untouched entries
// keep their sequence numbers; the other spec's manifest is carried
// through unchanged; expiry and cleanup keep the live delete file.
func TestForeignManifestsAndDeletes(t *testing.T) {
	ctx := context.Background()
	dir, st, tb := dirTable(t, testenv.New(11), interopSchema(t), map[string]string{
		table.PropMaxSnapshotAgeMs: "0", table.PropMinSnapshotsKeep: "1", maintenance.PropOrphanGrace: "0",
		maintenance.PropRetention: "3d",
	})
	dayOf := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	part := func(d int) int32 { return schema.Day.Apply(dayOf(d).UnixMicro()) }
	dOld, d1, d2, d3, d4 := 20, 26, 27, 28, 29
	model := tableModel{}
	fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}

	// Three appends: 3 hosts × 10 minutes per day; minutes 0–4 repeat their
	// keys in every append.
	appendFiles := make([]map[int32]string, 3) // append → partition → its file
	for a := range 3 {
		var ms []map[string]any
		byDay := map[int32][]rankedRow{}
		for _, d := range []int{dOld, d1, d2, d3, d4} {
			for h := range 3 {
				for m := range 10 {
					min := m
					if m >= 5 {
						min = m + 10*a
					}
					ts := dayOf(d).Add(time.Duration(min) * time.Minute)
					cpu := float64(a*100+m) / 4
					r := modelRow{ts: ts.UnixMicro(), host: fmt.Sprintf("host-%d", h), shard: 0, cpu: &cpu, mem: int64(a*1000 + m*10 + h)}
					ms = append(ms, map[string]any{"ts": ts, "host": r.host, "shard": r.shard, "cpu": cpu, "mem": r.mem})
					byDay[part(d)] = append(byDay[part(d)], rankedRow{modelRow: r})
				}
			}
		}
		b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
		_, md := fw.latest()
		list := fw.list(md)
		appendFiles[a] = map[int32]string{}
		for _, e := range fw.manifest(list[0]).Entries {
			p := e.DataFile.Partition
			rs := byDay[p]
			sortRows(rs)
			model[e.DataFile.Path] = &fileModel{day: p, seq: e.SequenceNumber, rows: rs}
			appendFiles[a][p] = e.DataFile.Path
		}
	}
	// The appends' _ingest_ts: every row of a file has its append's.
	for p, f := range model {
		lv := readIngest(t, st, tb, p)
		for i := range f.rows {
			f.rows[i].rank = rows.Rank{Ingest: lv, HasIngest: true, Seq: f.seq}
		}
	}

	// Spark INSERT of only the user's columns into d1: host-0's minutes
	// 0–4 again (keys every append has) and five new minutes.
	var insert []rankedRow
	for m := range 10 {
		min := m
		if m >= 5 {
			min = 40 + m
		}
		cpu := float64(9000 + m)
		insert = append(insert, rankedRow{modelRow: modelRow{ts: dayOf(d1).Add(time.Duration(min) * time.Minute).UnixMicro(), host: "host-0", cpu: &cpu, mem: int64(90000 + m)}})
	}
	sortRows(insert)
	df := fw.dataFile(part(d1), modelRowsOf(insert), 0, false)
	seq := fw.commit(foreignCommit{op: "append", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
		entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: df}}}},
		addedFiles: 1, addedRecords: df.RecordCount, addedBytes: df.FileSize})
	for i := range insert {
		insert[i].rank = rows.Rank{Seq: seq}
	}
	model[df.Path] = &fileModel{day: part(d1), seq: seq, rows: insert}

	// Merge-on-read DELETEs: positions 0, 3, 7 of the second append's d2
	// file, position 1 of the first append's old file.
	posDelete := func(d int, path string, positions []int64) string {
		del := fw.positionDeletes(part(d), path, positions)
		fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
			entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: del}}}},
			addedDeletes: 1, addedPositionDeletes: int64(len(positions))})
		f := model[path]
		if f.deleted == nil {
			f.deleted = map[int64]bool{}
		}
		for _, p := range positions {
			f.deleted[p] = true
		}
		return del.Path
	}
	appliedDelete := posDelete(d2, appendFiles[1][part(d2)], []int64{0, 3, 7})
	oldDelete := posDelete(dOld, appendFiles[0][part(dOld)], []int64{1})
	liveDelete := posDelete(d4, appendFiles[2][part(d4)], []int64{2}) // today: not compacted

	// A pyiceberg-style delete of the first append's d3 file: its manifest
	// is rewritten with the other files EXISTING, plus a DELETED entry.
	_, md := fw.latest()
	var first iceberg.ManifestFile
	for _, mf := range fw.list(md) {
		for _, e := range fw.manifest(mf).Entries {
			if e.DataFile.Path == appendFiles[0][part(d3)] {
				first = mf
			}
		}
	}
	var existing, deleted []iceberg.ManifestEntry
	for _, e := range fw.manifest(first).Entries {
		if e.DataFile.Path == appendFiles[0][part(d3)] {
			e.Status = iceberg.StatusDeleted
			deleted = append(deleted, e)
			continue
		}
		e.Status = iceberg.StatusExisting
		existing = append(existing, e)
	}
	gone := model[appendFiles[0][part(d3)]]
	spec := *tb.Metadata().DefaultSpec()
	fw.commit(foreignCommit{op: "delete", replace: map[string]bool{first.ManifestPath: true},
		manifests:    []foreignManifest{{spec: spec, entries: deleted}, {spec: spec, entries: existing}},
		removedFiles: 1, removedRecords: int64(len(gone.rows)), removedBytes: deleted[0].DataFile.FileSize})
	delete(model, appendFiles[0][part(d3)])

	// Another engine adds an unpartitioned spec and writes a file with it.
	other := iceberg.PartitionSpec{SpecID: 1, Fields: []iceberg.PartitionField{}}
	var otherRows []rankedRow
	for m := range 4 {
		cpu := float64(m)
		otherRows = append(otherRows, rankedRow{modelRow: modelRow{ts: dayOf(29).Add(time.Duration(m) * time.Minute).UnixMicro(), host: "host-9", cpu: &cpu, mem: int64(m)}})
	}
	odf := fw.dataFile(0, modelRowsOf(otherRows), 1, true)
	odf.Partition = 0
	fw.commit(foreignCommit{op: "append", addSpec: &other, manifests: []foreignManifest{{spec: other,
		entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: odf}}}},
		addedFiles: 1, addedRecords: odf.RecordCount, addedBytes: odf.FileSize})
	model[odf.Path] = &fileModel{other: true, rows: otherRows}
	_, md = fw.latest()
	otherManifest := fw.list(md)[0]

	readers := outsideReaders(t)
	q := interoptest.Query{Time: "ts", Series: []string{"host", "shard"}, Sums: []string{"cpu", "mem"}}
	wantOther := 1 // files of the other spec: rewritten into the current one by the maintenance
	check := func(what string) {
		t.Helper()
		v, _ := fw.latest()
		for _, r := range readers {
			interoptest.ExpectSame(t, fmt.Sprintf("%s, %s (v%d)", r, what, v.N), model.summary(), interoptest.Summarize(t, r, filepath.Join(dir, commit.MetadataKey(v.N)), q))
		}
		tb, err := table.Open(ctx, st, testenv.New(12))
		if err != nil {
			t.Fatal(err)
		}
		info, err := tb.Info(ctx)
		if err != nil {
			t.Fatalf("%s: info: %v", what, err)
		}
		var deletes, positions int64
		for _, f := range model {
			if len(f.deleted) > 0 {
				deletes++
				positions += int64(len(f.deleted))
			}
		}
		var otherFiles int64
		for _, p := range info.Partitions {
			if p.Name == table.OtherSpecPartition {
				otherFiles = p.Files
			}
		}
		stored := info.Rows
		if info.DeleteFiles > 0 {
			stored = info.RowsStored
		}
		// info's rows are what readers see (less position deletes); rows-stored what the files hold
		got := fmt.Sprintf("rows %d, stored %d, files %d, delete files %d, position deletes %d, other-spec files %d", info.Rows, stored, info.Files, info.DeleteFiles, info.PositionDeletes, otherFiles)
		want := fmt.Sprintf("rows %d, stored %d, files %d, delete files %d, position deletes %d, other-spec files %d", model.storedRows()-positions, model.storedRows(), len(model), deletes, positions, wantOther)
		if got != want {
			t.Errorf("%s: info: got %s, want %s", what, got, want)
		}
		s := tb.Metadata().CurrentSnapshot().Summary
		got = fmt.Sprintf("total-records %s, total-data-files %s, total-delete-files %s, total-position-deletes %s", s["total-records"], s["total-data-files"], s["total-delete-files"], s["total-position-deletes"])
		want = fmt.Sprintf("total-records %d, total-data-files %d, total-delete-files %d, total-position-deletes %d", model.storedRows(), len(model), deletes, positions)
		if got != want {
			t.Errorf("%s: summary: got %s, want %s", what, got, want)
		}
	}
	check("after the foreign commits")

	entriesBefore := liveEntries(t, fw)
	tb, err := table.Open(ctx, st, testenv.New(13))
	if err != nil {
		t.Fatal(err)
	}
	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true, Retention: true})
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(res.Plan, "\n")
	for _, want := range []string{
		"dropped ts_day=2026-11-20",
		"retention leaves alone: 1 data files of another partition spec",
		"rewrite 1 files of older partition specs into the current one: ",
		"compact ts_day=2026-11-26 (cold): 4 files",
		"compact ts_day=2026-11-27 (cold): 3 files, 4447 bytes, 90 rows, applying 1 position delete files",
		"compact ts_day=2026-11-28 (cold): 2 files",
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %q:\n%s", want, plan)
		}
	}
	if res.DeleteFilesApplied != 1 || res.RowsDeleted != 3 || res.DeleteFilesDropped != 1 || res.PartitionsDropped != 1 || res.Merges != 4 {
		t.Errorf("maintain = %+v, want 4 merges (one of the other spec's file) applying 1 delete file (3 rows), 1 partition dropped with 1 delete file", res)
	}
	for p, f := range model {
		if f.day == part(dOld) && !f.other {
			delete(model, p)
		}
	}
	_, md = fw.latest()
	for p, f := range model { // the other spec's file, rewritten into the current spec
		if f.other {
			delete(model, p)
			f.other, f.day = false, part(29)
			model["migrated"] = f
		}
	}
	wantOther = 0
	model.compact(part(d1), md.LastSequenceNumber)
	model.compact(part(d3), md.LastSequenceNumber)
	model.compact(part(d2), md.LastSequenceNumber)
	check("after compaction and retention")

	// Entries no commit of ours touched keep their snapshot ids and
	// sequence numbers; the other spec's manifest is replaced (its file
	// rewritten into the current spec).
	after := liveEntries(t, fw)
	kept := 0
	for p, e := range after {
		if b, ok := entriesBefore[p]; ok {
			kept++
			if got, want := fmt.Sprint(e.SnapshotID, e.SequenceNumber, e.FileSequenceNumber), fmt.Sprint(b.SnapshotID, b.SequenceNumber, b.FileSequenceNumber); got != want {
				t.Errorf("%s: snapshot id, seq, file seq = %s, were %s", p, got, want)
			}
		}
	}
	if kept != 4 { // today's 3 files and its delete file
		t.Errorf("%d entries kept through maintenance, want 4", kept)
	}
	if slices.ContainsFunc(fw.list(md), func(mf iceberg.ManifestFile) bool { return reflect.DeepEqual(mf, otherManifest) }) {
		t.Errorf("the other spec's manifest %s is still listed as it was; its file was rewritten", otherManifest.ManifestPath)
	}

	// Expiry and cleanup an hour past the real clock (the directory's
	// stamps): the old day's delete file goes with the expired snapshots,
	// the live one stays.
	env := testenv.New(14)
	env.Now = func() time.Time { return time.Now().Add(time.Hour) }
	if tb, err = table.Open(ctx, st, env); err != nil {
		t.Fatal(err)
	}
	if res, err = tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true}); err != nil || res.SnapshotsExpired == 0 {
		t.Fatalf("expiry = %+v, %v", res, err)
	}
	for path, want := range map[string]bool{liveDelete: true, oldDelete: false, appliedDelete: false} {
		_, err := st.Get(ctx, fw.key(path))
		if got := err == nil; got != want {
			t.Errorf("%s exists = %v after cleanup, want %v (%v)", path, got, want, err)
		}
	}
	check("after expiry and cleanup")
}

func modelRowsOf(rs []rankedRow) []modelRow {
	out := make([]modelRow, len(rs))
	for i, r := range rs {
		out[i] = r.modelRow
	}
	return out
}

// liveEntries are the live entries of the current snapshot by path.
func liveEntries(t *testing.T, fw *foreignWriter) map[string]iceberg.ManifestEntry {
	_, md := fw.latest()
	out := map[string]iceberg.ManifestEntry{}
	for _, mf := range fw.list(md) {
		for _, e := range fw.manifest(mf).Entries {
			if e.Status != iceberg.StatusDeleted {
				out[e.DataFile.Path] = e
			}
		}
	}
	return out
}

// readIngest reads the _ingest_ts of a Timelake data file's first row.
func readIngest(t *testing.T, st interface {
	Get(context.Context, string) ([]byte, error)
}, tb *table.Table, path string) int64 {
	t.Helper()
	raw, err := st.Get(context.Background(), strings.TrimPrefix(path, tb.Metadata().Location+"/"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.Open(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.ReadColumn(0, tb.Schema().Ingest)
	if err != nil {
		t.Fatal(err)
	}
	return c.Ints[0]
}

// outsideReaders are the outside readers, none with -short.
func outsideReaders(t *testing.T) []interoptest.Reader {
	if testing.Short() {
		return nil
	}
	return interoptest.Readers(t)
}
