package table_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/deletionvector"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// dvEnv is a format v3 table with two days of host-0 rows, one Timelake
// data file a day (mem 10–14 at minutes 0–4 of day 1, 20–22 at minutes
// 0–2 of day 2), and deletion vectors another engine commits over them.
type dvEnv struct {
	t          *testing.T
	ctx        context.Context
	fw         *foreignWriter
	day1, day2 time.Time
	file       map[time.Time]iceberg.ManifestEntry // the data file of each day
}

func newDVEnv(t *testing.T, props map[string]string) *dvEnv {
	ctx := context.Background()
	st := memstore.New()
	if props == nil {
		props = map[string]string{table.PropFormatVersion: "3"}
	}
	tb, err := table.Create(ctx, st, testenv.New(3001), loc, interopSchema(t), props)
	if err != nil {
		t.Fatal(err)
	}
	e := &dvEnv{t: t, ctx: ctx, fw: &foreignWriter{t: t, ctx: ctx, st: st, tb: tb},
		day1: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), day2: time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)}
	min := func(d time.Time, n int) []time.Time {
		var ts []time.Time
		for i := range n {
			ts = append(ts, d.Add(time.Duration(i)*time.Minute))
		}
		return ts
	}
	appendRows(t, tb, min(e.day1, 5), 10)
	appendRows(t, tb, min(e.day2, 3), 20)
	e.findFiles()
	return e
}

func (e *dvEnv) findFiles() {
	e.file = map[time.Time]iceberg.ManifestEntry{}
	for _, le := range liveEntries(e.t, e.fw) {
		if le.DataFile.IsDelete() {
			continue
		}
		for _, d := range []time.Time{e.day1, e.day2} {
			if strings.Contains(le.DataFile.Path, d.Format("2006-01-02")) {
				e.file[d] = le
			}
		}
	}
	if len(e.file) != 2 {
		e.t.Fatalf("data files %v, want one a day", e.file)
	}
}

func (e *dvEnv) keyOf(path string) (string, error) {
	if strings.HasPrefix(path, "file:/") && !strings.HasPrefix(path, "file:///") {
		path = "file:///" + strings.TrimPrefix(path, "file:/") // as Spark spells it
	}
	return strings.TrimPrefix(path, e.fw.tb.Metadata().Location+"/"), nil
}

// liveDeletes are the live delete entries, for WriteDVs and a rewrite.
func (e *dvEnv) liveDeletes() []iceberg.ManifestEntry {
	var out []iceberg.ManifestEntry
	_, md := e.fw.latest()
	for _, mf := range e.fw.list(md) {
		for _, le := range e.fw.manifest(mf).Entries {
			if le.Status != iceberg.StatusDeleted && le.DataFile.IsDelete() {
				out = append(out, le)
			}
		}
	}
	return out
}

func asMaintenance(es []iceberg.ManifestEntry) []maintenance.File {
	var out []maintenance.File
	for _, le := range es {
		df := le.DataFile
		f := maintenance.File{Path: df.Path, Size: df.FileSize, Rows: df.RecordCount, Seq: le.SequenceNumber}
		if df.IsDV() {
			f.DV, f.Referenced, f.Offset, f.Length = true, df.ReferencedDataFile, *df.ContentOffset, *df.ContentSizeInBytes
		}
		out = append(out, f)
	}
	return out
}

// dv commits one Puffin file of deletion vectors, positions by day, each
// merged with the live deletes of its data file (merge false: written
// without them), replacing the vectors they hold: one delete manifest
// of the live delete files left (EXISTING), the replaced (DELETED) and the
// new (ADDED), in place of the delete manifests before.
func (e *dvEnv) dv(merge bool, positions map[time.Time][]int64) *datafile.WrittenDVs {
	t := e.t
	var dvs []datafile.NewDV
	for _, d := range []time.Time{e.day1, e.day2} {
		if pos, ok := positions[d]; ok {
			v, err := deletionvector.Of(pos...)
			if err != nil {
				t.Fatal(err)
			}
			dvs = append(dvs, datafile.NewDV{Data: e.file[d], Positions: v})
		}
	}
	live := e.liveDeletes()
	var liveFiles []maintenance.File
	if merge {
		liveFiles = asMaintenance(live)
	}
	key := e.fw.name("data/") + "-deletes.puffin"
	var read int64
	w, err := datafile.WriteDVs(e.ctx, e.fw.st, e.keyOf, loc+"/"+key, dvs, liveFiles, "timelake-test", &read)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.fw.st.Put(e.ctx, key, w.Puffin); err != nil {
		t.Fatal(err)
	}
	replaced := map[string]bool{}
	for _, f := range w.Replaced {
		replaced[f.Key()] = true
	}
	var entries []iceberg.ManifestEntry
	for _, le := range live {
		if replaced[le.DataFile.EntryKey()] {
			le.Status = iceberg.StatusDeleted
		} else {
			le.Status = iceberg.StatusExisting
		}
		entries = append(entries, le)
	}
	var n int64
	for _, df := range w.Entries {
		entries = append(entries, iceberg.ManifestEntry{Status: iceberg.StatusAdded, DataFile: df})
		n += df.RecordCount
	}
	_, md := e.fw.latest()
	drop := map[string]bool{}
	for _, mf := range e.fw.list(md) {
		if mf.Content != iceberg.ContentData {
			drop[mf.ManifestPath] = true
		}
	}
	e.fw.commit(foreignCommit{op: "delete", replace: drop, manifests: []foreignManifest{{spec: *e.fw.tb.Metadata().DefaultSpec(), entries: entries}},
		addedDeletes: int64(len(w.Entries)), addedPositionDeletes: n})
	return w
}

func (e *dvEnv) reopen(seed uint64) *table.Table {
	tb, err := table.Open(e.ctx, e.fw.st, testenv.New(seed))
	if err != nil {
		e.t.Fatal(err)
	}
	e.fw.tb = tb
	return tb
}

// memsOf scans the table: "day/mem" of every row, in scan order.
func memsOf(t *testing.T, tb *table.Table, opt table.ScanOptions) []string {
	t.Helper()
	var out []string
	_, err := tb.Scan(context.Background(), opt, func(b *rows.Batch) error {
		ts, m := b.Cols[b.Schema.Time].Ints, b.Cols[b.Schema.Index("mem")].Ints
		for i := 0; i < b.Len; i++ {
			out = append(out, fmt.Sprintf("%s/%d", time.UnixMicro(ts[i]).UTC().Format("01-02"), m[i]))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	return out
}

// TestDeletionVectors: deletion vectors another engine committed (two in
// one Puffin file, a replaced one, one beside a Parquet position delete
// file) are applied by scans, Latest, info and compaction, which removes
// the rows and drops the vectors it applied.
func TestDeletionVectors(t *testing.T) {
	cases := []struct {
		name  string
		steps func(e *dvEnv)
		rows  []string // scan after the steps
		want  string   // Latest
	}{
		{name: "two vectors in one Puffin file",
			steps: func(e *dvEnv) { e.dv(true, map[time.Time][]int64{e.day1: {1, 4}, e.day2: {0}}) },
			rows:  []string{"11-27/10", "11-27/12", "11-27/13", "11-28/21", "11-28/22"}, want: "host-0/0=22"},
		{name: "the latest row",
			steps: func(e *dvEnv) { e.dv(true, map[time.Time][]int64{e.day2: {2}}) },
			rows:  []string{"11-27/10", "11-27/11", "11-27/12", "11-27/13", "11-27/14", "11-28/20", "11-28/21"}, want: "host-0/0=21"},
		{name: "every row of the newest file",
			steps: func(e *dvEnv) { e.dv(true, map[time.Time][]int64{e.day2: {0, 1, 2}}) },
			rows:  []string{"11-27/10", "11-27/11", "11-27/12", "11-27/13", "11-27/14"}, want: "host-0/0=14"},
		{name: "a new vector replaces the one before and holds its positions",
			steps: func(e *dvEnv) {
				e.dv(true, map[time.Time][]int64{e.day1: {0}, e.day2: {2}})
				w := e.dv(true, map[time.Time][]int64{e.day2: {1}})
				if len(w.Replaced) != 1 || w.Entries[0].RecordCount != 2 {
					e.t.Fatalf("replaced %v, record count %d; want the day 2 vector replaced, 2 positions", w.Replaced, w.Entries[0].RecordCount)
				}
			},
			rows: []string{"11-27/11", "11-27/12", "11-27/13", "11-27/14", "11-28/20"}, want: "host-0/0=20"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newDVEnv(t, nil)
			c.steps(e)
			tb := e.reopen(3002)
			if got := memsOf(t, tb, table.ScanOptions{}); !slices.Equal(got, c.rows) {
				t.Fatalf("scan: got %v, want %v", got, c.rows)
			}
			if got, err := latestMem(e.ctx, tb); err != nil || got != c.want {
				t.Fatalf("Latest = %q, %v; want %q", got, err, c.want)
			}
			info, err := tb.Info(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if info.Rows != int64(len(c.rows)) || info.RowsStored != 8 {
				t.Fatalf("info: rows %d (stored %d), want %d (8)", info.Rows, info.RowsStored, len(c.rows))
			}
			var sum int64
			for _, p := range info.Partitions {
				sum += p.Rows
			}
			if sum != info.Rows {
				t.Fatalf("info: partitions sum to %d rows, want %d", sum, info.Rows)
			}
			// compaction applies the vectors: the same rows, no delete file
			res, err := tb.Maintain(e.ctx, table.MaintainOptions{Compact: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.RowsDeleted != int64(8-len(c.rows)) {
				t.Fatalf("compaction left out %d rows, want %d", res.RowsDeleted, 8-len(c.rows))
			}
			tb = e.reopen(3003)
			if got := memsOf(t, tb, table.ScanOptions{}); !slices.Equal(got, c.rows) {
				t.Fatalf("scan after compaction: got %v, want %v", got, c.rows)
			}
			if got, err := latestMem(e.ctx, tb); err != nil || got != c.want {
				t.Fatalf("Latest after compaction = %q, %v; want %q", got, err, c.want)
			}
			if info, err = tb.Info(e.ctx); err != nil || info.DeleteFiles != 0 || info.Rows != int64(len(c.rows)) {
				t.Fatalf("info after compaction: %d delete files, %d rows, %v; want 0, %d", info.DeleteFiles, info.Rows, err, len(c.rows))
			}
		})
	}
}

// TestDeletionVectorsCompactOnePartition: a compaction of one partition
// drops that partition's vector only; the other vector of the same Puffin
// file stays live and applied.
func TestDeletionVectorsCompactOnePartition(t *testing.T) {
	// day 2 stays hot (a day after its end), so only day 1 is merged
	e := newDVEnv(t, map[string]string{table.PropFormatVersion: "3", maintenance.PropCompactColdAfter: "24h"})
	e.dv(true, map[time.Time][]int64{e.day1: {1, 4}, e.day2: {0}})
	tb := e.reopen(3102)
	res, err := tb.Maintain(e.ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.RowsDeleted != 2 || res.DeleteFilesApplied != 1 {
		t.Fatalf("compaction: %d rows left out, %d delete files applied; want 2 and 1 (day 1 only)", res.RowsDeleted, res.DeleteFilesApplied)
	}
	tb = e.reopen(3103)
	live := e.liveDeletes()
	if len(live) != 1 || live[0].DataFile.ReferencedDataFile != e.file[e.day2].DataFile.Path {
		t.Fatalf("live delete files %v, want day 2's vector", live)
	}
	want := []string{"11-27/10", "11-27/12", "11-27/13", "11-28/21", "11-28/22"}
	if got := memsOf(t, tb, table.ScanOptions{}); !slices.Equal(got, want) {
		t.Fatalf("scan: got %v, want %v", got, want)
	}
	info, err := tb.Info(e.ctx)
	if err != nil || info.Rows != 5 || info.DeleteFiles != 1 || info.PositionDeletes != 1 {
		t.Fatalf("info: %d rows, %d delete files, %d position deletes, %v; want 5, 1, 1", info.Rows, info.DeleteFiles, info.PositionDeletes, err)
	}
}

// TestDeletionVectorBesidePositionDeletes: in a table upgraded from format
// 2, a vector written over a Parquet position delete file holds its
// positions; a vector that does not is what applies (the spec: position
// delete files are ignored for a data file with a vector).
func TestDeletionVectorBesidePositionDeletes(t *testing.T) {
	for _, merge := range []bool{true, false} {
		t.Run(fmt.Sprintf("merged %v", merge), func(t *testing.T) {
			e := newDVEnv(t, map[string]string{})
			c := &deleteEnv{t: t, fw: e.fw, day: e.day1, p: e.file[e.day1].DataFile.Partition, path: e.file[e.day1].DataFile.Path}
			c.del("", 0)
			tb := e.reopen(3201)
			if _, err := tb.UpgradeFormat(e.ctx, 3); err != nil {
				t.Fatal(err)
			}
			e.reopen(3202)
			e.findFiles()
			e.dv(merge, map[time.Time][]int64{e.day1: {3}})
			tb = e.reopen(3203)
			want := []string{"11-27/11", "11-27/12", "11-27/14", "11-28/20", "11-28/21", "11-28/22"}
			if !merge {
				want = append([]string{"11-27/10"}, want...)
			}
			if got := memsOf(t, tb, table.ScanOptions{}); !slices.Equal(got, want) {
				t.Fatalf("scan: got %v, want %v", got, want)
			}
			info, err := tb.Info(e.ctx)
			if err != nil || info.Rows != int64(len(want)) {
				t.Fatalf("info: %d rows, %v; want %d", info.Rows, err, len(want))
			}
			if _, err := tb.Maintain(e.ctx, table.MaintainOptions{Compact: true}); err != nil {
				t.Fatal(err)
			}
			if got := memsOf(t, e.reopen(3204), table.ScanOptions{}); !slices.Equal(got, want) {
				t.Fatalf("scan after compaction: got %v, want %v", got, want)
			}
			if live := e.liveDeletes(); len(live) != 0 {
				t.Fatalf("after compaction %d delete files live, want none", len(live))
			}
		})
	}
}

// TestDeletionVectorCorrupt: a vector whose blob fails its checks, whose
// record_count differs from its positions, or whose place is outside its
// Puffin file is CORRUPT_TABLE naming the file, for a scan, Latest and a
// compaction alike; two vectors for one data file too.
func TestDeletionVectorCorrupt(t *testing.T) {
	cases := []struct {
		name  string
		spoil func(e *dvEnv, w *datafile.WrittenDVs, entries []iceberg.ManifestEntry) []iceberg.ManifestEntry
		want  string
	}{
		{"a flipped byte", func(e *dvEnv, w *datafile.WrittenDVs, es []iceberg.ManifestEntry) []iceberg.ManifestEntry {
			b := slices.Clone(w.Puffin)
			b[*es[0].DataFile.ContentOffset+10] ^= 1
			if err := e.fw.st.Put(e.ctx, e.fw.key(es[0].DataFile.Path), b); err != nil {
				e.t.Fatal(err)
			}
			return es
		}, "CRC-32"},
		{"record_count", func(e *dvEnv, w *datafile.WrittenDVs, es []iceberg.ManifestEntry) []iceberg.ManifestEntry {
			es[0].DataFile.RecordCount = 3
			return es
		}, "record_count says 3"},
		{"outside the file", func(e *dvEnv, w *datafile.WrittenDVs, es []iceberg.ManifestEntry) []iceberg.ManifestEntry {
			off := int64(len(w.Puffin))
			es[0].DataFile.ContentOffset = &off
			return es
		}, "outside the file"},
		{"two for one data file", func(e *dvEnv, w *datafile.WrittenDVs, es []iceberg.ManifestEntry) []iceberg.ManifestEntry {
			other := es[0]
			other.DataFile.Path = strings.Replace(other.DataFile.Path, ".puffin", "-2.puffin", 1)
			if err := e.fw.st.Put(e.ctx, e.fw.key(other.DataFile.Path), w.Puffin); err != nil {
				e.t.Fatal(err)
			}
			return append(es, other)
		}, "two deletion vectors"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newDVEnv(t, nil)
			v, _ := deletionvector.Of(1, 2)
			key := "data/dv.puffin"
			var read int64
			w, err := datafile.WriteDVs(e.ctx, e.fw.st, e.keyOf, loc+"/"+key, []datafile.NewDV{{Data: e.file[e.day1], Positions: v}}, nil, "test", &read)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.fw.st.Put(e.ctx, key, w.Puffin); err != nil {
				t.Fatal(err)
			}
			es := c.spoil(e, w, []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: w.Entries[0]}})
			e.fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *e.fw.tb.Metadata().DefaultSpec(), entries: es}}, addedDeletes: int64(len(es))})
			tb := e.reopen(3301)
			_, scanErr := tb.Scan(e.ctx, table.ScanOptions{}, func(*rows.Batch) error { return nil })
			_, latestErr := latestMem(e.ctx, tb)
			_, compactErr := tb.Maintain(e.ctx, table.MaintainOptions{Compact: true})
			for what, err := range map[string]error{"scan": scanErr, "Latest": latestErr, "compaction": compactErr} {
				if table.Code(err) != "CORRUPT_TABLE" || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "dv") {
					t.Errorf("%s: %v (%s); want CORRUPT_TABLE saying %q and naming the file", what, err, table.Code(err), c.want)
				}
			}
		})
	}
}

// TestDeletionVectorsReadByPyiceberg: the Puffin file WriteDVs builds is
// read by pyiceberg (its Puffin reader and pyroaring): one vector per data
// file, the positions, the blob properties the spec requires.
func TestDeletionVectorsReadByPyiceberg(t *testing.T) {
	if testing.Short() {
		t.Skip("outside engines: skipped with -short")
	}
	e := newDVEnv(t, nil)
	// positions past the files' rows are refused; these fit record counts
	// only when the files are large, so the entries claim more rows
	big := func(d time.Time) iceberg.ManifestEntry {
		le := e.file[d]
		le.DataFile.RecordCount = 1 << 20
		return le
	}
	want := map[string][]int64{
		e.file[e.day1].DataFile.Path: append(seq(0, 70000, 2), seq(80000, 90001, 1)...),
		e.file[e.day2].DataFile.Path: {3, 1 << 19},
	}
	var dvs []datafile.NewDV
	for _, d := range []time.Time{e.day1, e.day2} {
		v, _ := deletionvector.Of(want[e.file[d].DataFile.Path]...)
		dvs = append(dvs, datafile.NewDV{Data: big(d), Positions: v})
	}
	var read int64
	w, err := datafile.WriteDVs(e.ctx, e.fw.st, e.keyOf, loc+"/data/x.puffin", dvs, nil, "timelake-test", &read)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "x.puffin")
	if err := os.WriteFile(file, w.Puffin, 0o644); err != nil {
		t.Fatal(err)
	}
	got := interoptest.ReadDeletionVectors(t, file)
	if len(got.Vectors) != 2 {
		t.Fatalf("pyiceberg read %d vectors, want 2", len(got.Vectors))
	}
	for _, v := range got.Vectors {
		if !slices.Equal(v.Positions, want[v.ReferencedDataFile]) {
			t.Errorf("%s: pyiceberg read %d positions, want %d", v.ReferencedDataFile, len(v.Positions), len(want[v.ReferencedDataFile]))
		}
		if v.Properties["cardinality"] != fmt.Sprint(len(want[v.ReferencedDataFile])) {
			t.Errorf("%s: cardinality %q, want %d", v.ReferencedDataFile, v.Properties["cardinality"], len(want[v.ReferencedDataFile]))
		}
	}
}

func seq(from, to, step int64) []int64 {
	var out []int64
	for x := from; x < to; x += step {
		out = append(out, x)
	}
	return out
}

// TestDeleteOverDeletionVectors: a Timelake delete in a partition with a
// deletion vector writes a new vector for the file holding the old one's
// positions and the new ones (the old vector leaves; the other vector of
// the same Puffin file stays and applies); with Purge, which must remove
// the bytes, it rewrites the file with the vector applied and drops it.
func TestDeleteOverDeletionVectors(t *testing.T) {
	for _, purge := range []bool{false, true} {
		t.Run(fmt.Sprintf("purge=%v", purge), func(t *testing.T) {
			e := newDVEnv(t, nil)
			e.dv(true, map[time.Time][]int64{e.day1: {1, 4}, e.day2: {0}})
			tb := e.reopen(3401)
			from, to := e.day1.Add(2*time.Minute).UnixMicro(), e.day1.Add(3*time.Minute).UnixMicro()
			res, err := tb.Delete(e.ctx, table.DeleteOptions{FromUS: &from, ToUS: &to, Purge: purge, Now: purge})
			if err != nil {
				t.Fatal(err)
			}
			if res.RowsDeleted != 1 {
				t.Errorf("rows deleted %d, want 1", res.RowsDeleted)
			}
			tb = e.reopen(3402)
			want := []string{"11-27/10", "11-27/13", "11-28/21", "11-28/22"}
			if got := memsOf(t, tb, table.ScanOptions{}); !slices.Equal(got, want) {
				t.Fatalf("scan: got %v, want %v", got, want)
			}
			live := e.liveDeletes()
			if purge {
				if len(live) != 1 || live[0].DataFile.ReferencedDataFile != e.file[e.day2].DataFile.Path {
					t.Fatalf("live delete files %v, want day 2's vector only", live)
				}
				return
			}
			if len(live) != 2 || res.DeletionVectors != 1 {
				t.Fatalf("live delete files %v (%d vectors written), want day 1's new vector and day 2's", live, res.DeletionVectors)
			}
			for _, d := range live {
				if d.DataFile.ReferencedDataFile == e.file[e.day1].DataFile.Path && d.DataFile.RecordCount != 3 {
					t.Errorf("day 1's vector holds %d rows, want 3 (the old 2 and the new one)", d.DataFile.RecordCount)
				}
			}
		})
	}
}

// TestCatchUpDeletionVectorByBytes: the catch-up bounds a deletion vector
// by its blob's bytes, not its count: a run of 100,000 positions (a few
// bytes) is held under a bound of 1,000 positions.
func TestCatchUpDeletionVectorByBytes(t *testing.T) {
	defer table.SetCatchUpDeleteLimit(1000)()
	e := newDVEnv(t, nil)
	le := e.file[e.day1]
	le.DataFile.RecordCount = 100_000 // the vector may name positions up to it
	e.file[e.day1] = le
	e.dv(true, map[time.Time][]int64{e.day1: seq(0, 100_000, 1)})
	tb := e.reopen(3501)
	if got, err := latestMem(e.ctx, tb); err != nil || got != "host-0/0=22" {
		t.Fatalf("Latest = %q, %v; want host-0/0=22", got, err)
	}
}
