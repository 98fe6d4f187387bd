package table_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestScanCompacted: a compacted table scans as it did before.
func TestScanCompacted(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, m := scanTable(t, st, 21, 9, 300)
	vis := m.visible()
	before := tb.Metadata().CurrentSnapshot().SnapshotID
	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	if op := tb.Metadata().CurrentSnapshot().Summary["operation"]; op != "replace" {
		t.Fatalf("the compaction committed %q (%+v), want a replace", op, res)
	}
	tb, err = table.Open(ctx, st, testenv.New(22))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range scanCases() {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := scanRows(ctx, tb, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if want := filterRows(vis, tc.opt); !slices.Equal(got, want) {
				t.Fatalf("got %d rows, want %d: %s", len(got), len(want), firstDiff(got, want))
			}
			// as of the snapshot before the compaction: its files, the same rows
			old := tc.opt
			old.AsOfSnapshot = &before
			got, st, err := scanRows(ctx, tb, old)
			if want := filterRows(vis, tc.opt); err != nil || !slices.Equal(got, want) || st.SnapshotID != before {
				t.Fatalf("as of before the compaction: %d rows, %v; want %d: %s", len(got), err, len(want), firstDiff(got, want))
			}
		})
	}
}

// TestScanTimeTravel: a scan as of each snapshot (by id and by time) sees
// the appends up to it.
func TestScanTimeTravel(t *testing.T) {
	ctx := context.Background()
	tb, err := table.Create(ctx, memstore.New(), testenv.New(31), loc, metricsSchema(t), smallPages)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(31, 1))
	m := &scanModel{}
	var ids []int64
	for a := range 5 {
		var rs []scanRow
		for i := range 120 {
			rs = append(rs, scanRow{ts: day1.Add(time.Duration(rng.IntN(2*24*60)) * time.Minute).UnixMicro(), host: []string{"a", "b", "c"}[rng.IntN(3)], region: "eu", cpu: float64(i), mem: int64(a*1000 + i)})
		}
		if _, err := tb.Append(ctx, toBatch(t, tb.Schema(), rs)); err != nil {
			t.Fatal(err)
		}
		m.appends = append(m.appends, rs)
		ids = append(ids, tb.Metadata().CurrentSnapshot().SnapshotID)
	}
	log := tb.Metadata().SnapshotLog
	for k, id := range ids {
		past := &scanModel{appends: m.appends[:k+1]}
		want := filterRows(past.visible(), table.ScanOptions{})
		got, st, err := scanRows(ctx, tb, table.ScanOptions{AsOfSnapshot: &id})
		if err != nil || !slices.Equal(got, want) || st.SnapshotID != id {
			t.Fatalf("as of snapshot %d (#%d): %d rows, snapshot %d, %v; want %d rows: %s", id, k, len(got), st.SnapshotID, err, len(want), firstDiff(got, want))
		}
		var ms int64 = -1
		for _, l := range log {
			if l.SnapshotID == id {
				ms = l.TimestampMs
			}
		}
		got, st, err = scanRows(ctx, tb, table.ScanOptions{AsOfMs: &ms})
		if err != nil || !slices.Equal(got, want) || st.SnapshotID != id {
			t.Fatalf("as of %d ms (#%d): %d rows, snapshot %d, %v; want %d rows", ms, k, len(got), st.SnapshotID, err, len(want))
		}
	}
}

// TestScanPositionDeletes: another engine's position deletes hide the rows
// they name (in raw scans too), but not a later append of the same key.
func TestScanPositionDeletes(t *testing.T) {
	for _, n := range []int{200, 30000} {
		t.Run(fmt.Sprint(n, " rows"), func(t *testing.T) { positionDeletesCase(t, n) })
	}
}

func positionDeletesCase(t *testing.T, n int) {
	ctx := context.Background()
	st := memstore.New()
	env := testenv.New(41) // one clock: the later append's _ingest_ts is later
	tb, err := table.Create(ctx, st, env, loc, metricsSchema(t), smallPages)
	if err != nil {
		t.Fatal(err)
	}
	var first []scanRow
	rng := rand.New(rand.NewPCG(uint64(n), 3))
	for i := range n {
		first = append(first, scanRow{ts: day1.Add(time.Duration(i/4) * 2 * time.Second).UnixMicro(), host: []string{"h0", "h1", "h2", "h3"}[i%4], region: "eu", cpu: rng.Float64(), mem: rng.Int64()})
	}
	sortScanRows(first)
	if _, err := tb.Append(ctx, toBatch(t, tb.Schema(), first)); err != nil {
		t.Fatal(err)
	}
	beforeDeletes := tb.Metadata().CurrentSnapshot().SnapshotID
	fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}
	var path string
	for p := range liveEntries(t, fw) {
		path = p
	}
	gone := []int64{0, 5, 16, 17, 63, 100, int64(n - 1)}
	for x := int64(101); x < int64(n-1); x += int64(rng.IntN(90) + 1) {
		gone = append(gone, x)
	}
	p := schema.Day.Apply(day1.UnixMicro())
	d := fw.positionDeletes(p, path, gone)
	fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
		entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: d}}}}, addedDeletes: 1, addedPositionDeletes: int64(len(gone))})
	tb, err = table.Open(ctx, st, env)
	if err != nil {
		t.Fatal(err)
	}
	// a later append rewrites the key of deleted row 5 and of kept row 6
	second := []scanRow{first[5], first[6]}
	second[0].mem, second[1].mem = 9005, 9006
	if _, err := tb.Append(ctx, toBatch(t, tb.Schema(), second)); err != nil {
		t.Fatal(err)
	}
	var kept []scanRow
	for i, r := range first {
		if !slices.Contains(gone, int64(i)) {
			kept = append(kept, r)
		}
	}
	m := &scanModel{appends: [][]scanRow{kept, second}}
	for _, opt := range []table.ScanOptions{{}, {Series: map[string][]any{"host": {"h1"}}}, {FromUS: us(day1.Add(10 * time.Minute)), ToUS: us(day1.Add(30 * time.Minute))},
		{Series: map[string][]any{"host": {"h2"}}, FromUS: us(day1.Add(3 * time.Hour)), ToUS: us(day1.Add(4 * time.Hour))}} {
		got, _, err := scanRows(ctx, tb, opt)
		if want := filterRows(m.visible(), opt); err != nil || !slices.Equal(got, want) {
			t.Fatalf("%+v: %d rows, %v; want %d: %s", opt, len(got), err, len(want), firstDiff(got, want))
		}
	}
	// As of the snapshot before the deletes: every row of the first append.
	got0, _, err := scanRows(ctx, tb, table.ScanOptions{AsOfSnapshot: &beforeDeletes})
	if want := filterRows(first, table.ScanOptions{}); err != nil || !slices.Equal(got0, want) {
		t.Fatalf("as of before the deletes: %d rows, %v; want %d: %s", len(got0), err, len(want), firstDiff(got0, want))
	}
	// Raw: every stored row but the deleted, duplicates kept.
	got, _, err := scanRows(ctx, tb, table.ScanOptions{Raw: true})
	all := append(slices.Clone(kept), second...)
	sortScanRows(all)
	want := filterRows(all, table.ScanOptions{})
	slices.Sort(got)
	slices.Sort(want)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("raw: %d rows, %v; want %d: %s", len(got), err, len(want), firstDiff(got, want))
	}
}

// TestScanStoreFault: a store fault mid-scan fails the scan.
func TestScanStoreFault(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	scanTable(t, mem, 51, 4, 300)
	for _, nth := range []int{1, 2, 5} {
		fs := faultstore.New(mem, faultstore.Rule{Op: faultstore.OpGetRange, Key: "data/*/*.parquet", Nth: nth})
		tb, err := table.Open(ctx, fs, testenv.New(52))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		_, err = tb.Scan(ctx, table.ScanOptions{BatchRows: 10}, func(b *rows.Batch) error { n += b.Len; return nil })
		if !errors.Is(err, faultstore.ErrInjected) {
			t.Fatalf("fault at data read %d: err %v after %d rows, want the injected fault", nth, err, n)
		}
	}
}

// TestScanBadInput: each bad option is a coded error naming it.
func TestScanBadInput(t *testing.T) {
	ctx := context.Background()
	tb, _ := scanTable(t, memstore.New(), 61, 1, 50)
	nope := int64(42)
	early := int64(1)
	cases := []struct {
		name string
		opt  table.ScanOptions
		code string
	}{
		{"unknown column", table.ScanOptions{Columns: []string{"nope"}}, "UNKNOWN_COLUMN"},
		{"unknown filter column", table.ScanOptions{Series: map[string][]any{"nope": {"x"}}}, "UNKNOWN_COLUMN"},
		{"non-series filter", table.ScanOptions{Series: map[string][]any{"region": {"eu"}}}, "BAD_FILTER"},
		{"wrong type", table.ScanOptions{Series: map[string][]any{"host": {int64(3)}}}, "BAD_FILTER"},
		{"no values", table.ScanOptions{Series: map[string][]any{"host": {}}}, "BAD_FILTER"},
		{"from after to", table.ScanOptions{FromUS: us(day1.Add(time.Hour)), ToUS: us(day1)}, "BAD_RANGE"},
		{"from equals to", table.ScanOptions{FromUS: us(day1), ToUS: us(day1)}, "BAD_RANGE"},
		{"unknown snapshot", table.ScanOptions{AsOfSnapshot: &nope}, "NO_SNAPSHOT"},
		{"before the first snapshot", table.ScanOptions{AsOfMs: &early}, "NO_SNAPSHOT"},
		{"negative limit", table.ScanOptions{Limit: -1}, "BAD_OPTION"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := scanRows(ctx, tb, tc.opt)
			if table.Code(err) != tc.code {
				t.Fatalf("err %v [%s], want code %s", err, table.Code(err), tc.code)
			}
		})
	}
}

// TestScanRefusesOtherDeletes: equality deletes are refused by name
// (UNSUPPORTED_TABLE), and a deletion vector that does not say where it is
// or what it applies to as corrupt (CORRUPT_TABLE), never answered without
// them.
func TestScanRefusesOtherDeletes(t *testing.T) {
	cases := []struct {
		name string
		file func(fw *foreignWriter, p int32, day time.Time) iceberg.DataFile
		want string
		code string // "": UNSUPPORTED_TABLE
	}{
		{"equality deletes", func(fw *foreignWriter, p int32, day time.Time) iceberg.DataFile {
			sch := fw.tb.Schema()
			eq := fw.dataFile(p, []modelRow{{ts: day.UnixMicro(), host: "host-0"}}, 0, false)
			eq.Content = iceberg.ContentEqualityDeletes
			eq.EqualityIDs = []int32{int32(sch.Fields[sch.Time].ID), int32(sch.Fields[sch.Series[0]].ID), int32(sch.Fields[sch.Series[1]].ID)}
			return eq
		}, "equality deletes", ""},
		{"a deletion vector without its place", func(fw *foreignWriter, p int32, day time.Time) iceberg.DataFile {
			return iceberg.DataFile{Content: iceberg.ContentPositionDeletes, Path: loc + "/data/dv-1.puffin", Format: "PUFFIN", Partition: p, RecordCount: 1, FileSize: 100}
		}, "lacks referenced_data_file", "CORRUPT_TABLE"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := memstore.New()
			tb, err := table.Create(ctx, st, testenv.New(uint64(900+i)), loc, interopSchema(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
			appendRows(t, tb, []time.Time{day, day.Add(time.Minute)}, 10)
			fw := &foreignWriter{t: t, ctx: ctx, st: st, tb: tb}
			df := tc.file(fw, schema.Day.Apply(day.UnixMicro()), day)
			fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
				entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: df}}}}, addedDeletes: 1})
			if tb, err = table.Open(ctx, st, testenv.New(uint64(950+i))); err != nil {
				t.Fatal(err)
			}
			_, _, err = scanRows(ctx, tb, table.ScanOptions{})
			code := cmp.Or(tc.code, "UNSUPPORTED_TABLE")
			if table.Code(err) != code || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), df.Path) {
				t.Fatalf("scan: %v; want %s naming %s and %s", err, code, tc.want, df.Path)
			}
		})
	}
}

// TestScanPrunesManifestsAndFiles: one append a day, a manifest each: the
// partition summaries skip manifests, the entries' partitions and bounds
// skip files, counted in the stats.
func TestScanPrunesManifestsAndFiles(t *testing.T) {
	ctx := context.Background()
	tb, err := table.Create(ctx, memstore.New(), testenv.New(1), loc, metricsSchema(t), map[string]string{"timelake.auto-maintain": "false"})
	if err != nil {
		t.Fatal(err)
	}
	for d := range 4 { // hosts h000…h002, a row a minute from 00:00 to 01:39
		if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(d)*24*time.Hour), 100, 3)); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name                                  string
		opt                                   table.ScanOptions
		manifests, manifestsRead, files, read int
		rows                                  int64
	}{
		{"all", table.ScanOptions{}, 4, 4, 4, 4, 400},
		{"one day", table.ScanOptions{FromUS: us(day1.Add(24 * time.Hour)), ToUS: us(day1.Add(48 * time.Hour))}, 4, 1, 4, 1, 100},
		{"two days' edges", table.ScanOptions{FromUS: us(day1.Add(47 * time.Hour)), ToUS: us(day1.Add(49 * time.Hour))}, 4, 2, 4, 1, 60},
		{"after the rows of a day (file bounds)", table.ScanOptions{FromUS: us(day1.Add(2 * time.Hour)), ToUS: us(day1.Add(3 * time.Hour))}, 4, 1, 4, 0, 0},
		{"an absent series (file bounds)", table.ScanOptions{Series: map[string][]any{"host": {"h009"}}}, 4, 4, 4, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, st, err := scanRows(ctx, tb, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if st.Manifests != tc.manifests || st.ManifestsRead != tc.manifestsRead || st.Files != tc.files || st.FilesRead != tc.read || st.Rows != tc.rows {
				t.Fatalf("stats %+v; want %d manifests (%d read), %d files (%d read), %d rows", *st, tc.manifests, tc.manifestsRead, tc.files, tc.read, tc.rows)
			}
		})
	}
}
