package table_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
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

// latestMem is Latest as "host/shard=mem" per series, in series order.
func latestMem(ctx context.Context, tb *table.Table) (string, error) {
	b, err := tb.Latest(ctx)
	if err != nil {
		return "", err
	}
	sch := b.Schema
	h, s, m := sch.Index("host"), sch.Index("shard"), sch.Index("mem")
	var out []string
	for i := 0; i < b.Len; i++ {
		out = append(out, fmt.Sprintf("%s/%d=%d", b.Cols[h].Strs[i], b.Cols[s].Ints[i], b.Cols[m].Ints[i]))
	}
	return strings.Join(out, ","), nil
}

// deleteCase is a table and the foreign steps after it: a Timelake append
// of one file (rows in file order: host-0 mem 10, 11, 12 at minutes 0–2,
// host-1 mem 20, 21 at minutes 0–1), then steps.
type deleteCase struct {
	name  string
	steps func(c *deleteEnv)
	want  string // Latest after the steps
	// noVisible: visibleMem cannot check the compaction (it matches paths
	// as written, not file:/p, and does not remove duplicates).
	noVisible bool
}

type deleteEnv struct {
	t    *testing.T
	fw   *foreignWriter
	day  time.Time
	p    int32
	path string // the Timelake data file
}

// del commits a position delete file of positions of path ("" is the
// Timelake file), in a foreign "delete" snapshot.
func (c *deleteEnv) del(path string, positions ...int64) {
	if path == "" {
		path = c.path
	}
	d := c.fw.positionDeletes(c.p, path, positions)
	c.fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *c.fw.tb.Metadata().DefaultSpec(),
		entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: d}}}},
		addedDeletes: 1, addedPositionDeletes: int64(len(positions))})
}

// add commits df in a foreign "append" snapshot.
func (c *deleteEnv) add(df iceberg.DataFile) {
	c.fw.commit(foreignCommit{op: "append", manifests: []foreignManifest{{spec: *c.fw.tb.Metadata().DefaultSpec(),
		entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: df}}}},
		addedFiles: 1, addedRecords: df.RecordCount, addedBytes: df.FileSize})
}

// reopen is the table as a new process sees it (no index kept in memory).
func (c *deleteEnv) reopen(seed uint64) *table.Table {
	tb, err := table.Open(c.fw.ctx, c.fw.st, testenv.New(seed))
	if err != nil {
		c.t.Fatal(err)
	}
	c.fw.tb = tb
	return tb
}

// TestCatchUpOverPositionDeletes: another engine's position deletes (Spark's
// merge-on-read DELETE) are applied by the index catch-up: Latest answers
// from the rows left, an append stores that index, a compaction that
// applies the deletes changes nothing in Latest.
func TestCatchUpOverPositionDeletes(t *testing.T) {
	mins := func(m int) int64 { return time.Date(2026, 11, 27, 0, m, 0, 0, time.UTC).UnixMicro() }
	cases := []deleteCase{
		{name: "the latest row of a series", want: "host-0/0=11,host-1/0=21",
			steps: func(c *deleteEnv) { c.del("", 2) }},
		{name: "an older row of a series", want: "host-0/0=12,host-1/0=21",
			steps: func(c *deleteEnv) { c.del("", 0, 3) }},
		{name: "every row of a series", want: "host-0/0=12",
			steps: func(c *deleteEnv) { c.del("", 3, 4) }},
		{name: "every row of the table", want: "",
			steps: func(c *deleteEnv) { c.del("", 0, 1, 2, 3, 4) }},
		{name: "spelled file:/p, as Spark writes", noVisible: true, want: "host-0/0=11,host-1/0=20",
			steps: func(c *deleteEnv) {
				c.del(strings.Replace(c.path, "file:///", "file:/", 1), 2, 4)
			}},
		{name: "only to older sequence numbers", want: "host-0/0=11,host-1/0=21,host-2/0=31",
			steps: func(c *deleteEnv) {
				// a file written before the delete names it, committed after
				df := c.fw.dataFile(c.p, []modelRow{{ts: mins(5), host: "host-2", mem: 30}, {ts: mins(6), host: "host-2", mem: 31}}, 0, false)
				d := c.fw.positionDeletes(c.p, c.path, []int64{2})
				d2 := c.fw.positionDeletes(c.p, df.Path, []int64{1}) // seq below df's: no effect
				c.fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *c.fw.tb.Metadata().DefaultSpec(),
					entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: d}, {Status: iceberg.StatusAdded, DataFile: d2}}}},
					addedDeletes: 2, addedPositionDeletes: 2})
				c.add(df)
			}},
		{name: "a delete after a stored index rebuilds it", want: "host-0/0=10,host-1/0=21,host-3/0=40",
			steps: func(c *deleteEnv) {
				c.del("", 2)
				tb := c.reopen(201)
				// an append stores the caught-up index (host-0 at 11)
				if _, err := tb.Append(c.fw.ctx, rowsFromMaps(c.t, tb, map[string]any{"ts": c.day.Add(-time.Hour), "host": "host-3", "shard": int64(0), "mem": int64(40)})); err != nil {
					c.t.Fatal(err)
				}
				if tb.Metadata().StatisticsFor(tb.Metadata().CurrentSnapshot().SnapshotID) == nil {
					c.t.Fatal("the append over a position delete stored no index")
				}
				c.del("", 1) // host-0's 11, which that index holds
			}},
		{name: "a foreign append of the same key after a delete", noVisible: true, want: "host-0/0=13,host-1/0=21",
			steps: func(c *deleteEnv) {
				c.del("", 2)
				c.add(c.fw.dataFile(c.p, []modelRow{{ts: mins(1), host: "host-0", mem: 13}}, 0, false))
			}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := memstore.New()
			seed := uint64(300 + 10*i)
			tb, err := table.Create(ctx, st, testenv.New(seed), loc, interopSchema(t), nil)
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
			c := &deleteEnv{t: t, fw: &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}, day: day, p: schema.Day.Apply(day.UnixMicro())}
			for pth := range liveEntries(t, c.fw) {
				c.path = pth
			}
			tc.steps(c)

			tb = c.reopen(seed + 1)
			got, err := latestMem(ctx, tb)
			if err != nil || got != tc.want {
				t.Fatalf("Latest = %q, %v; want %q", got, err, tc.want)
			}
			// An append stores the index Latest computed, plus its row.
			res, err := tb.Append(ctx, rowsFromMaps(t, tb, map[string]any{"ts": day.Add(-2 * time.Hour), "host": "host-9", "shard": int64(0), "mem": int64(99)}))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) != 0 || tb.Metadata().StatisticsFor(res.SnapshotID) == nil {
				t.Fatalf("append: warnings %q, statistics %v; want an index stored", res.Warnings, tb.Metadata().StatisticsFor(res.SnapshotID))
			}
			want := strings.TrimPrefix(tc.want+",host-9/0=99", ",")
			tb = c.reopen(seed + 2)
			if got, err := latestMem(ctx, tb); err != nil || got != want {
				t.Fatalf("Latest from the stored index = %q, %v; want %q", got, err, want)
			}
			// A compaction applying the deletes changes nothing in Latest,
			// nor in the rows a reader sees.
			var before []int64
			if !tc.noVisible {
				before = visibleMem(t, st, tb)
			}
			if _, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
				t.Fatal(err)
			}
			tb = c.reopen(seed + 3)
			if got, err := latestMem(ctx, tb); err != nil || got != want {
				t.Fatalf("Latest after the compaction = %q, %v; want %q", got, err, want)
			}
			if !tc.noVisible {
				if after := visibleMem(t, st, tb); !slices.Equal(sorted(after), sorted(before)) {
					t.Fatalf("rows after the compaction %v, before %v", after, before)
				}
			}
		})
	}
}

func sorted(xs []int64) []int64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs
}

// TestCatchUpRefusesOtherDeletes: equality deletes stay refused by name
// for Latest (UNSUPPORTED_TABLE), a deletion vector that does not say
// where it is as corrupt (CORRUPT_TABLE). An append over equality deletes
// goes on without an index and says so; one over such a vector is refused
// (its summary totals read every live file, refusing it).
func TestCatchUpRefusesOtherDeletes(t *testing.T) {
	cases := []struct {
		name string
		file func(fw *foreignWriter, p int32, day time.Time) iceberg.DataFile
		want string // in the error
		// appendRefused: the append fails (code, naming want)
		appendRefused bool
		code          string // "": UNSUPPORTED_TABLE
	}{
		{name: "equality deletes", want: "equality deletes", file: func(fw *foreignWriter, p int32, day time.Time) iceberg.DataFile {
			sch := fw.tb.Schema()
			eq := fw.dataFile(p, []modelRow{{ts: day.UnixMicro(), host: "host-0"}}, 0, false)
			eq.Content = iceberg.ContentEqualityDeletes
			eq.EqualityIDs = []int32{int32(sch.Fields[sch.Time].ID), int32(sch.Fields[sch.Series[0]].ID), int32(sch.Fields[sch.Series[1]].ID)}
			return eq
		}},
		{name: "a deletion vector without its place", want: "lacks referenced_data_file", code: "CORRUPT_TABLE", appendRefused: true, file: func(fw *foreignWriter, p int32, day time.Time) iceberg.DataFile {
			return iceberg.DataFile{Content: iceberg.ContentPositionDeletes, Path: loc + "/data/dv-1.puffin", Format: "PUFFIN",
				Partition: p, RecordCount: 1, FileSize: 100}
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := memstore.New()
			tb, err := table.Create(ctx, st, testenv.New(uint64(400+10*i)), loc, interopSchema(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
			appendRows(t, tb, []time.Time{day, day.Add(time.Minute)}, 10)
			fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}
			df := tc.file(fw, schema.Day.Apply(day.UnixMicro()), day)
			fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
				entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: df}}}}, addedDeletes: 1})
			if tb, err = table.Open(ctx, st, testenv.New(uint64(401+10*i))); err != nil {
				t.Fatal(err)
			}
			got, err := latestMem(ctx, tb)
			code := cmp.Or(tc.code, "UNSUPPORTED_TABLE")
			if table.Code(err) != code || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), df.Path) {
				t.Fatalf("Latest = %q, %v; want %s naming %s and %s", got, err, code, tc.want, df.Path)
			}
			res, err := tb.Append(ctx, rowsFromMaps(t, tb, map[string]any{"ts": day.Add(-time.Hour), "host": "host-1", "shard": int64(0), "mem": int64(7)}))
			if tc.appendRefused {
				if table.Code(err) != code || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("append = %v, want %s naming %s", err, code, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "no last-value index") || tb.Metadata().StatisticsFor(res.SnapshotID) != nil {
				t.Fatalf("append: warnings %q, statistics %v; want none stored, and a warning", res.Warnings, tb.Metadata().StatisticsFor(res.SnapshotID))
			}
		})
	}
}

// TestCatchUpDeleteLimit: past the position deletes the catch-up holds,
// Latest is refused by name (UNSUPPORTED_TABLE) and an append goes on
// without an index and says so; a compaction applies the deletes and the
// next Latest catches up.
func TestCatchUpDeleteLimit(t *testing.T) {
	defer table.SetCatchUpDeleteLimit(2)()
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(91), loc, interopSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	appendRows(t, tb, []time.Time{day, day.Add(time.Minute), day.Add(2 * time.Minute), day.Add(3 * time.Minute)}, 10) // host-0: mem 10–13
	c := &deleteEnv{t: t, fw: &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}, day: day, p: schema.Day.Apply(day.UnixMicro())}
	for pth := range liveEntries(t, c.fw) {
		c.path = pth
	}
	c.del("", 1, 2, 3)
	tb = c.reopen(92)
	if got, err := latestMem(ctx, tb); table.Code(err) != "UNSUPPORTED_TABLE" || !strings.Contains(err.Error(), "more than 2 position deletes") {
		t.Fatalf("Latest over 3 position deletes, 2 allowed = %q, %v; want UNSUPPORTED_TABLE naming the limit", got, err)
	}
	res, err := tb.Append(ctx, rowsFromMaps(t, tb, map[string]any{"ts": day.Add(-time.Hour), "host": "host-1", "shard": int64(0), "mem": int64(7)}))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "no last-value index") || tb.Metadata().StatisticsFor(res.SnapshotID) != nil {
		t.Fatalf("append past the limit: warnings %q, statistics %v", res.Warnings, tb.Metadata().StatisticsFor(res.SnapshotID))
	}
	if mr, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil || mr.DeleteFilesApplied != 1 {
		t.Fatalf("maintain = %+v, %v", mr, err)
	}
	if got, err := latestMem(ctx, c.reopen(93)); err != nil || got != "host-0/0=10,host-1/0=7" {
		t.Fatalf("Latest after the compaction = %q, %v; want host-0/0=10,host-1/0=7", got, err)
	}
}

func rowsFromMaps(t *testing.T, tb *table.Table, ms ...map[string]any) *rows.Batch {
	t.Helper()
	b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
