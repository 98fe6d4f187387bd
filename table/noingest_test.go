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
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// noIngestSchema is interopSchema without _ingest_ts.
func noIngestSchema(t *testing.T) *schema.Table {
	s, err := schema.NewWithoutIngest("ts", []string{"host", "shard"}, interopFields, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// memRow is one row of host-0/shard 0 by minute and mem.
type memRow struct {
	minute int
	mem    int64
}

var noIngestDay = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)

func appendMemRows(t *testing.T, tb *table.Table, rs []memRow) {
	t.Helper()
	var ms []map[string]any
	for _, r := range rs {
		ms = append(ms, map[string]any{"ts": noIngestDay.Add(time.Duration(r.minute) * time.Minute), "host": "host-0", "shard": int64(0), "mem": r.mem})
	}
	b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(context.Background(), b); err != nil {
		t.Fatal(err)
	}
}

// laterEnv is a clock behind the previous one: with _ingest_ts it would
// lose every duplicate; without it, the later append still wins.
func laterEnv(seed uint64, by time.Duration) table.Env {
	e := testenv.New(seed)
	now := e.Now
	e.Now = func() time.Time { return now().Add(by) }
	return e
}

// TestNoIngestTable: a table created without _ingest_ts records it, writes
// no such column, and ranks duplicates by commit: within an append the
// last row wins, across appends the later append (whatever the clocks say),
// in Latest and after compaction.
func TestNoIngestTable(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(61), loc, noIngestSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.Metadata().Properties[iceberg.PropIngestColumn]; got != "false" {
		t.Errorf("property %s = %q, want false", iceberg.PropIngestColumn, got)
	}
	appends := []struct {
		clock time.Duration // the append's clock, relative to the first
		rows  []memRow
	}{
		{0, []memRow{{0, 100}, {1, 101}, {2, 102}, {2, 103}}}, // minute 2 twice: the last (103) wins
		{-time.Hour, []memRow{{0, 200}, {1, 201}}},            // a clock behind: still the later append
		{time.Hour, []memRow{{0, 300}}},
	}
	for i, a := range appends {
		if tb, err = table.Open(ctx, st, laterEnv(uint64(62+i), a.clock)); err != nil {
			t.Fatal(err)
		}
		if tb.Schema().HasIngest() || tb.Schema().Index(schema.IngestColumn) >= 0 {
			t.Fatalf("reopened schema has %s: %+v", schema.IngestColumn, tb.Schema().Fields)
		}
		appendMemRows(t, tb, a.rows)
	}
	fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}
	p := schema.Day.Apply(noIngestDay.UnixMicro())
	for path := range liveEntries(t, fw) {
		raw, err := st.Get(ctx, fw.key(path))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquet.Open(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range f.Schema() {
			if c.Name == schema.IngestColumn {
				t.Errorf("data file %s has a %s column", path, schema.IngestColumn)
			}
		}
	}
	steps := []struct {
		name    string
		compact bool
		wantMem string // mem of every live row of the day
		latest  int64  // mem of host-0's latest row (minute 2)
	}{
		{"before compaction", false, "[100 101 103 200 201 300]", 103},
		{"after compaction", true, "[103 201 300]", 103},
	}
	for _, s := range steps {
		if s.compact {
			res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Merges != 1 || res.FilesRead != 3 || res.RowsAfter != 3 {
				t.Fatalf("maintain = %+v, want one merge of the 3 files to 3 rows", res)
			}
		}
		if got := fmt.Sprint(liveMem(t, fw, p)); got != s.wantMem {
			t.Errorf("%s: mem = %s, want %s", s.name, got, s.wantMem)
		}
		b, err := tb.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b.Len != 1 || b.Cols[tb.Schema().Index("mem")].Ints[0] != s.latest {
			t.Errorf("%s: latest = %d rows %v, want mem %d", s.name, b.Len, b.Cols[tb.Schema().Index("mem")].Ints, s.latest)
		}
	}
	// A later append of the latest key wins in the index too.
	appendMemRows(t, tb, []memRow{{2, 400}})
	b, err := tb.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Cols[tb.Schema().Index("mem")].Ints; b.Len != 1 || got[0] != 400 {
		t.Errorf("latest after a later duplicate = %v, want [400]", got)
	}
	// A fresh Open (index from the stored file) agrees.
	if tb, err = table.Open(ctx, st, testenv.New(70)); err != nil {
		t.Fatal(err)
	}
	if b, err = tb.Latest(ctx); err != nil || b.Cols[tb.Schema().Index("mem")].Ints[0] != 400 {
		t.Errorf("latest after reopening = %v, %v; want [400]", b, err)
	}
}

// TestNoIngestForeignAppend: another engine's file (unsorted, as Spark
// may write it) between two Timelake appends of a table without
// _ingest_ts: the index catches up with it, and compaction keeps per key
// the row of the latest commit.
func TestNoIngestForeignAppend(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(81), loc, noIngestSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb, unsorted: true}
	p := schema.Day.Apply(noIngestDay.UnixMicro())
	at := func(m int) int64 { return noIngestDay.Add(time.Duration(m) * time.Minute).UnixMicro() }
	steps := []struct {
		name    string
		do      func()
		compact bool
		wantMem string
		latest  int64
	}{
		{"timelake append", func() { appendMemRows(t, tb, []memRow{{0, 100}, {1, 101}, {2, 102}}) }, false, "[100 101 102]", 102},
		{"foreign append", func() {
			df := fw.dataFile(p, []modelRow{{ts: at(1), host: "host-0", mem: 201}, {ts: at(2), host: "host-0", mem: 202}}, 0, false)
			fw.commit(foreignCommit{op: "append", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
				entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: df}}}},
				addedFiles: 1, addedRecords: df.RecordCount, addedBytes: df.FileSize})
			if tb, err = table.Open(ctx, st, laterEnv(82, -time.Hour)); err != nil {
				t.Fatal(err)
			}
			fw.tb = tb
		}, false, "[100 101 102 201 202]", 202},
		{"timelake append, clock behind", func() { appendMemRows(t, tb, []memRow{{0, 300}}) }, false, "[100 101 102 201 202 300]", 202},
		{"compaction", func() {}, true, "[201 202 300]", 202},
	}
	for _, s := range steps {
		s.do()
		if s.compact {
			if res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil || res.Merges != 1 || res.FilesRead != 3 {
				t.Fatalf("maintain = %+v, %v; want one merge of 3 files", res, err)
			}
		}
		if got := fmt.Sprint(liveMem(t, fw, p)); got != s.wantMem {
			t.Errorf("%s: mem = %s, want %s", s.name, got, s.wantMem)
		}
		b, err := tb.Latest(ctx)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if mem := b.Cols[tb.Schema().Index("mem")].Ints; b.Len != 1 || mem[0] != s.latest {
			t.Errorf("%s: latest mem = %v, want [%d]", s.name, mem, s.latest)
		}
	}
}

// TestNoIngestInput: input naming _ingest_ts is refused (UNKNOWN_COLUMN) on
// a table without it, and an unknown column is still ignored on request.
func TestNoIngestInput(t *testing.T) {
	sch := noIngestSchema(t)
	cases := []struct {
		name, csv string
		opt       rows.Options
		wantCode  string // "" for success
		wantRows  int
	}{
		{"user's columns", "ts,host,shard,mem\n2026-11-27T00:00:00Z,h,0,1\n", rows.Options{}, "", 1},
		{"_ingest_ts given", "ts,host,shard,mem,_ingest_ts\n2026-11-27T00:00:00Z,h,0,1,2026-11-27T00:00:00Z\n", rows.Options{}, rows.CodeUnknownColumn, 0},
		{"_ingest_ts given, unknown ignored", "ts,host,shard,mem,_ingest_ts\n2026-11-27T00:00:00Z,h,0,1,2026-11-27T00:00:00Z\n", rows.Options{IgnoreUnknown: true}, rows.CodeUnknownColumn, 0},
		{"unknown column", "ts,host,shard,mem,x\n2026-11-27T00:00:00Z,h,0,1,2\n", rows.Options{}, rows.CodeUnknownColumn, 0},
		{"unknown column ignored", "ts,host,shard,mem,x\n2026-11-27T00:00:00Z,h,0,1,2\n", rows.Options{IgnoreUnknown: true}, "", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := rows.NewCSVReader(strings.NewReader(c.csv), sch, c.opt).Next(0)
			var re *rows.Error
			switch {
			case c.wantCode == "" && err != nil:
				t.Fatalf("err = %v, want none", err)
			case c.wantCode == "" && b.Len != c.wantRows:
				t.Errorf("rows = %d, want %d", b.Len, c.wantRows)
			case c.wantCode != "" && (!errors.As(err, &re) || re.Code != c.wantCode):
				t.Errorf("err = %v, want %s", err, c.wantCode)
			}
		})
		t.Run(c.name+" (maps)", func(t *testing.T) {
			if strings.Contains(c.name, "ignored") {
				t.Skip("maps: same lookup as csv")
			}
			lines := strings.Split(strings.TrimSpace(c.csv), "\n")
			head, vals := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
			m := map[string]any{}
			for i, h := range head {
				m[h] = vals[i]
			}
			_, err := rows.FromMaps(sch, []map[string]any{m}, c.opt)
			var re *rows.Error
			if c.wantCode == "" && err != nil || c.wantCode != "" && (!errors.As(err, &re) || re.Code != c.wantCode) {
				t.Errorf("err = %v, want %q", err, c.wantCode)
			}
		})
	}
}

// TestIngestColumnProperty: TableFromMetadata accepts a table without
// _ingest_ts only with timelake.ingest-column=false, and refuses the
// property on a table that has the column.
func TestIngestColumnProperty(t *testing.T) {
	with, err := schema.New("ts", []string{"host"}, nil, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	without, err := schema.NewWithoutIngest("ts", []string{"host"}, nil, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		sch     *schema.Table
		prop    string // "" leaves the property as NewTableMetadata wrote it; "-" deletes it
		wantErr string
	}{
		{"with the column", with, "", ""},
		{"without, property false", without, "", ""},
		{"without, no property", without, "-", "column _ingest_ts is missing"},
		{"with, property false", with, "false", "says the table has none"},
		{"with, property true", with, "true", ""},
		{"without, property yes", without, "yes", "not true or false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := iceberg.NewTableMetadata(c.sch, "00000000-0000-4000-8000-000000000000", "mem://t", 1, nil)
			switch c.prop {
			case "":
			case "-":
				delete(m.Properties, iceberg.PropIngestColumn)
			default:
				m.Properties[iceberg.PropIngestColumn] = c.prop
			}
			got, err := iceberg.TableFromMetadata(m)
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("err = %v", err)
			case c.wantErr == "":
				if got.Ingest != c.sch.Ingest || len(got.Fields) != len(c.sch.Fields) {
					t.Errorf("ingest %d of %d fields, want %d of %d", got.Ingest, len(got.Fields), c.sch.Ingest, len(c.sch.Fields))
				}
			case err == nil || !strings.Contains(err.Error(), c.wantErr):
				t.Errorf("err = %v, want one with %q", err, c.wantErr)
			}
		})
	}
}

// TestNoIngestOutsideReaders: iceberg-go, DuckDB and pyiceberg read a table
// without _ingest_ts: two appends with a duplicate key, then compaction;
// after it they see one row per key, the later append's.
func TestNoIngestOutsideReaders(t *testing.T) {
	if testing.Short() {
		t.Skip("outside readers: skipped with -short")
	}
	readers := interoptest.Readers(t)
	ctx := context.Background()
	dir, _, tb := dirTable(t, testenv.New(71), noIngestSchema(t), nil)
	appendMemRows(t, tb, []memRow{{0, 1}, {1, 2}, {60 * 24, 3}})
	appendMemRows(t, tb, []memRow{{0, 10}, {2, 20}})
	if res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil || res.Merges != 1 {
		t.Fatalf("maintain = %+v, %v; want one merge", res, err)
	}
	mem := func(vs ...int64) []interoptest.Row {
		var out []interoptest.Row
		for i, v := range vs {
			minute := []int{0, 1, 2, 60 * 24}[i]
			out = append(out, interoptest.Row{TimeUS: noIngestDay.Add(time.Duration(minute) * time.Minute).UnixMicro(), Series: "host-0/0", Mem: &v})
		}
		return out
	}
	want := interoptest.Expect(mem(10, 2, 20, 3), nil)
	var paths []string
	for v := 1; v <= tb.Version(); v++ {
		paths = append(paths, filepath.Join(dir, commit.MetadataKey(v)))
	}
	q := interoptest.Query{Time: "ts", Series: []string{"host", "shard"}, Sums: []string{"cpu", "mem"}}
	for _, r := range readers {
		interoptest.ExpectSame(t, fmt.Sprintf("%s, after compaction", r), want, interoptest.Summarize(t, r, paths[len(paths)-1], q))
	}
	checkDuckDBDirectory(t, dir, want.Rows)
}
