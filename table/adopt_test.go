package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"slices"
	"testing"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// foreignShaped turns the hostile test table (40 rows, hosts h0-0, h0-1,
// h1-0, h1-1) into another engine's table: no timelake.* properties, and
// the default sort order order, the only one listed (nil: unsorted).
func foreignShaped(t *testing.T, order []iceberg.SortField) *hostileTable {
	t.Helper()
	h := newHostileTable(t)
	md := *h.tb.Metadata()
	props := map[string]string{}
	for k, v := range md.Properties {
		props[k] = v
	}
	md.Properties = props
	for _, k := range []string{iceberg.PropTimeColumn, iceberg.PropSeriesColumns, table.PropPartition} {
		delete(md.Properties, k)
	}
	// No last-value index: another engine's table has none.
	md.Statistics = nil
	md.Snapshots = slices.Clone(md.Snapshots)
	for i := range md.Snapshots {
		sum := map[string]string{}
		for k, v := range md.Snapshots[i].Summary {
			if k != lastvalue.SummaryKey {
				sum[k] = v
			}
		}
		md.Snapshots[i].Summary = sum
	}
	md.SortOrders = []iceberg.SortOrder{{OrderID: 0}}
	md.DefaultSortOrderID = 0
	if order != nil {
		md.SortOrders = append(md.SortOrders, iceberg.SortOrder{OrderID: 5, Fields: order})
		md.DefaultSortOrderID = 5
	}
	h.commitHostile(t, &md)
	return h
}

func scanAll(t *testing.T, tb *table.Table, opt table.ScanOptions) (int, error) {
	t.Helper()
	n := 0
	_, err := tb.Scan(context.Background(), opt, func(b *rows.Batch) error { n += b.Len; return nil })
	return n, err
}

// TestNotAdopted: another engine's table is read as stored (info, scan
// with filters on any column) and refuses what needs a key by name.
func TestNotAdopted(t *testing.T) {
	ctx := context.Background()
	h := foreignShaped(t, nil)
	tb, err := table.Open(ctx, h.st, testenv.New(5))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if tb.Schema().HasKey() {
		t.Fatalf("schema has a key: %+v", tb.Schema())
	}
	if info, err := tb.Info(ctx); err != nil || info.Rows != 40 {
		t.Errorf("Info: %+v, %v; want 40 rows", info, err)
	}
	before := snapshotStore(t, h.st)
	for name, err := range map[string]error{
		"latest": func() error { _, err := tb.Latest(ctx); return err }(),
		"append": func() error { _, err := tb.Append(ctx, rowsOf(t, tb, "new", day1, 5, 1)); return err }(),
		"maintain": func() error {
			_, err := tb.Maintain(ctx, table.MaintainOptions{})
			return err
		}(),
	} {
		if table.Code(err) != "NOT_ADOPTED" {
			t.Errorf("%s: %v (%s), want NOT_ADOPTED", name, err, table.Code(err))
		}
	}
	sameStore(t, before, snapshotStore(t, h.st))
	for _, c := range []struct {
		name string
		opt  table.ScanOptions
		rows int
		code string
	}{
		{"all", table.ScanOptions{}, 40, ""},
		{"one host", table.ScanOptions{Series: map[string][]any{"host": {"h0-0"}}}, 10, ""},
		{"any string column", table.ScanOptions{Series: map[string][]any{"region": {"eu"}, "host": {"h1-1", "h0-1"}}}, 20, ""},
		{"a long column", table.ScanOptions{Series: map[string][]any{"mem": {int64(0), int64(2000)}}}, 4, ""},
		{"limit", table.ScanOptions{Limit: 7}, 7, ""},
		{"projection", table.ScanOptions{Columns: []string{"cpu"}}, 40, ""},
		{"a double column", table.ScanOptions{Series: map[string][]any{"cpu": {"1"}}}, 0, "BAD_FILTER"},
		{"a time range", table.ScanOptions{FromUS: new(int64)}, 0, "BAD_OPTION"},
		{"unknown column", table.ScanOptions{Columns: []string{"nope"}}, 0, "UNKNOWN_COLUMN"},
	} {
		n, err := scanAll(t, tb, c.opt)
		if table.Code(err) != c.code || (c.code == "" && n != c.rows) {
			t.Errorf("scan %s: %d rows, %v (%q); want %d rows, code %q", c.name, n, err, table.Code(err), c.rows, c.code)
		}
	}
}

// TestAdopt: adopting records the key in a metadata-only commit; then the
// table is appended to, indexed and scanned by key like one of ours.
func TestAdopt(t *testing.T) {
	ctx := context.Background()
	h := foreignShaped(t, nil)
	tb, err := table.Open(ctx, h.st, testenv.New(5))
	if err != nil {
		t.Fatal(err)
	}
	v0 := tb.Version()
	for _, bad := range []table.AdoptOptions{
		{},
		{Time: "nope"},
		{Time: "host"},
		{Time: "ts", Series: []string{"cpu"}},
		{Time: "ts", Series: []string{"host", "host"}},
		{Time: "ts", Series: []string{"ts"}},
	} {
		if _, err := tb.Adopt(ctx, bad); table.Code(err) != "BAD_KEY_COLUMN" {
			t.Errorf("Adopt(%+v) = %v (%s), want BAD_KEY_COLUMN", bad, err, table.Code(err))
		}
	}
	res, err := tb.Adopt(ctx, table.AdoptOptions{Time: "ts", Series: []string{"host"}, DryRun: true})
	if err != nil || tb.Version() != v0 || !res.SortOrderAdded {
		t.Fatalf("dry run: %+v, %v, version %d (was %d)", res, err, tb.Version(), v0)
	}
	res, err = tb.Adopt(ctx, table.AdoptOptions{Time: "ts", Series: []string{"host"}})
	if err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	if res.Version != v0+1 || !res.SortOrderAdded || !res.SortOrderDefault || res.WriteRefusal != "" {
		t.Errorf("Adopt = %+v; want version %d, our sort order added as the default (the table's was unsorted), writable", res, v0+1)
	}
	if !tb.Schema().HasKey() || len(tb.Schema().Series) != 1 {
		t.Fatalf("schema after adopt: %+v", tb.Schema())
	}
	latest, err := tb.Latest(ctx) // the catch-up reads the existing files
	if err != nil || latest.Len != 4 {
		t.Fatalf("Latest: %v, %v; want 4 series", latest, err)
	}
	if _, err := tb.Append(ctx, rowsOf(t, tb, "new", day1, 5, 1)); err != nil {
		t.Fatalf("Append: %v", err)
	}
	if n, err := scanAll(t, tb, table.ScanOptions{}); err != nil || n != 45 {
		t.Errorf("scan: %d rows, %v; want 45", n, err)
	}
	files, err := tb.DataFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, f := range files {
		if f.SortOrderID != nil && int(*f.SortOrderID) == res.SortOrderID {
			named++
		}
	}
	if named == 0 {
		t.Errorf("no data file names sort order %d", res.SortOrderID)
	}
	// The same key again: nothing to do; another key: refused.
	if again, err := tb.Adopt(ctx, table.AdoptOptions{Time: "ts", Series: []string{"host"}}); err != nil || !again.Already || again.Version != tb.Version() {
		t.Errorf("adopt again: %+v, %v; want already adopted", again, err)
	}
	if _, err := tb.Adopt(ctx, table.AdoptOptions{Time: "ts", Series: []string{"region"}}); table.Code(err) != "BAD_KEY_COLUMN" {
		t.Errorf("adopt with another key: %v, want BAD_KEY_COLUMN", err)
	}
	// Reopened, the key is there.
	re, err := table.Open(ctx, h.st, testenv.New(6))
	if err != nil || !re.Schema().HasKey() {
		t.Fatalf("reopen: %v", err)
	}
}

// TestAdoptKeepsForeignSortOrder: the engine's own order stays the
// default; ours is added beside it, and appends name ours.
func TestAdoptKeepsForeignSortOrder(t *testing.T) {
	ctx := context.Background()
	h := foreignShaped(t, nil)
	tb, _ := table.Open(ctx, h.st, testenv.New(5))
	regionID := tb.Schema().Fields[tb.Schema().Index("region")].ID
	h = foreignShaped(t, []iceberg.SortField{{Transform: "identity", SourceID: regionID, Direction: "desc", NullOrder: "nulls-last"}})
	tb, err := table.Open(ctx, h.st, testenv.New(5))
	if err != nil {
		t.Fatal(err)
	}
	res, err := tb.Adopt(ctx, table.AdoptOptions{Time: "ts", Series: []string{"host"}})
	if err != nil || !res.SortOrderAdded || res.SortOrderDefault {
		t.Fatalf("Adopt = %+v, %v; want our order added, not the default", res, err)
	}
	if md := tb.Metadata(); md.DefaultSortOrderID != 5 || !slices.ContainsFunc(md.SortOrders, func(o iceberg.SortOrder) bool { return o.OrderID == res.SortOrderID }) {
		t.Errorf("sort orders %+v default %d; want 5 the default and %d listed", md.SortOrders, md.DefaultSortOrderID, res.SortOrderID)
	}
	if _, err := tb.Append(ctx, rowsOf(t, tb, "new", day1, 5, 1)); err != nil {
		t.Fatalf("Append: %v", err)
	}
}

// TestOneSeriesTable: a table without series columns keeps one latest row.
func TestOneSeriesTable(t *testing.T) {
	ctx := context.Background()
	h := foreignShaped(t, nil)
	tb, _ := table.Open(ctx, h.st, testenv.New(5))
	if _, err := tb.Adopt(ctx, table.AdoptOptions{Time: "ts"}); err != nil {
		t.Fatal(err)
	}
	latest, err := tb.Latest(ctx)
	if err != nil || latest.Len != 1 {
		t.Fatalf("Latest: %v, %v; want one row", latest, err)
	}
	// Rows of the four hosts at the same times are one key each: dedup keeps one per time.
	if n, err := scanAll(t, tb, table.ScanOptions{}); err != nil || n != 20 {
		t.Errorf("scan: %d, %v; want 20 (one row per time)", n, err)
	}
	if n, err := scanAll(t, tb, table.ScanOptions{Raw: true}); err != nil || n != 40 {
		t.Errorf("raw scan: %d, %v; want 40", n, err)
	}
}

// TestAdoptedSpecOfSeveralFields: an adopted table whose engine's spec is
// day(ts) and bucket[4](host) is appended to in that spec: files under
// data/ts_day=…/host_bucket=…/, each with its tuple, read back by key
// with the files of the spec before; info names the partitions field by field.
func TestAdoptedSpecOfSeveralFields(t *testing.T) {
	ctx := context.Background()
	h := foreignShaped(t, nil)
	tb, _ := table.Open(ctx, h.st, testenv.New(5))
	md := *tb.Metadata()
	day := md.PartitionSpecs[0].Fields[0]
	hostID := tb.Schema().Fields[tb.Schema().Index("host")].ID
	md.PartitionSpecs = append(slices.Clone(md.PartitionSpecs), iceberg.PartitionSpec{SpecID: 1, Fields: []iceberg.PartitionField{
		day, {Name: "host_bucket", Transform: "bucket[4]", SourceID: hostID, FieldID: 1001}}})
	md.DefaultSpecID, md.LastPartitionID = 1, 1001
	h.tb = tb
	h.commitHostile(t, &md)
	tb, err := table.Open(ctx, h.st, testenv.New(6))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Adopt(ctx, table.AdoptOptions{Time: "ts", Series: []string{"host"}}); err != nil {
		t.Fatalf("Adopt: %v", err)
	}
	res, err := tb.Append(ctx, rowsOf(t, tb, "new", day1, 40, 8))
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	files, err := tb.DataFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	buckets := map[string]bool{}
	for _, f := range files {
		if f.SpecID != 1 {
			continue
		}
		if len(f.PartitionValues) != 2 || !strings.Contains(f.Path, "/data/ts_day=") || !strings.Contains(f.Path, "/host_bucket=") {
			t.Errorf("file %s: partition %v; want day and bucket, in the path", f.Path, f.PartitionValues)
		}
		buckets[fmt.Sprint(f.PartitionValues[1])] = true
	}
	if len(buckets) < 2 {
		t.Errorf("buckets %v: want the 8 hosts spread over several", buckets)
	}
	_ = res
	if n, err := scanAll(t, tb, table.ScanOptions{}); err != nil || n != 80 {
		t.Errorf("scan: %d rows, %v; want 80", n, err)
	}
	if n, err := scanAll(t, tb, table.ScanOptions{Series: map[string][]any{"host": {"new-3"}}}); err != nil || n != 5 {
		t.Errorf("scan of one host: %d rows, %v; want 5", n, err)
	}
	latest, err := tb.Latest(ctx)
	if err != nil || latest.Len != 12 {
		t.Errorf("Latest: %v, %v; want 12 series", latest, err)
	}
	info, err := tb.Info(ctx)
	if err != nil || info.Rows != 80 {
		t.Fatalf("Info: %+v, %v", info, err)
	}
	named := 0
	for _, p := range info.Partitions {
		if strings.HasPrefix(p.Name, "ts_day=2026-11-28/host_bucket=") {
			named++
		}
	}
	if named != len(buckets) {
		t.Errorf("info partitions %+v; want one per bucket written", info.Partitions)
	}

	// A second append (later rows of the same hosts, and new ones), then
	// maintain: the files of each tuple are merged into that tuple, and the
	// files of the spec before are rewritten into the current one.
	if _, err := tb.Append(ctx, rowsOf(t, tb, "new", day1.Add(time.Hour), 40, 8)); err != nil {
		t.Fatalf("second append: %v", err)
	}
	mres, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatalf("Maintain: %v", err)
	}
	if mres.Merges < 2 || !strings.Contains(strings.Join(mres.Plan, "\n"), "rewrite 2 files of older partition specs") {
		t.Errorf("maintain: %q; want merges of the tuples' files and the older spec's rewritten", mres.Plan)
	}
	// A second run merges what the first left in two files per tuple (its
	// merges of the current spec's files and of the older spec's).
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
		t.Fatalf("Maintain: %v", err)
	}
	files, _ = tb.DataFiles(ctx)
	perTuple := map[string]int{}
	for _, f := range files {
		if f.SpecID != 1 {
			t.Errorf("file %s is of spec %d after maintain, want every file rewritten into spec 1", f.Path, f.SpecID)
		}
		if f.SpecID == 1 || f.PartitionValues != nil {
			perTuple[fmt.Sprint(f.PartitionValues)]++
			if !strings.Contains(f.Path, fmt.Sprintf("/host_bucket=%v/", f.PartitionValues[1])) {
				t.Errorf("file %s is not under its tuple %v", f.Path, f.PartitionValues)
			}
		}
	}
	for tuple, n := range perTuple {
		if n != 1 {
			t.Errorf("tuple %s has %d files after compaction, want 1 (plan %q)", tuple, n, mres.Plan)
		}
	}
	if n, err := scanAll(t, tb, table.ScanOptions{}); err != nil || n != 120 {
		t.Errorf("scan after maintain: %d rows, %v; want 120", n, err)
	}
	re, err := table.Open(ctx, h.st, testenv.New(7))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := scanAll(t, re, table.ScanOptions{}); err != nil || n != 120 {
		t.Errorf("scan reopened: %d rows, %v; want 120", n, err)
	}
}

// TestAdoptReadsOnlyMetadata: adopting reads the metadata and nothing else:
// no manifest list, manifest or data file, however many files the table has.
func TestAdoptReadsOnlyMetadata(t *testing.T) {
	ctx := context.Background()
	h := foreignShaped(t, nil)
	rec := &recordingStore{Store: h.st}
	tb, err := table.Open(ctx, rec, testenv.New(5))
	if err != nil {
		t.Fatal(err)
	}
	rec.keys = nil
	if _, err := tb.Adopt(ctx, table.AdoptOptions{Time: "ts", Series: []string{"host"}}); err != nil {
		t.Fatal(err)
	}
	for _, k := range rec.keys {
		if !strings.HasSuffix(k, ".metadata.json") && k != "metadata/version-hint.text" && k != "head.json" {
			t.Errorf("adopt touched %s; want metadata only", k)
		}
	}
}

// TestV1SnapshotWithoutManifestList: a format v1 snapshot that names its
// manifests itself (no manifest list, as the first Iceberg writers made
// them) is read: info counts its rows and scan returns them.
func TestV1SnapshotWithoutManifestList(t *testing.T) {
	ctx := context.Background()
	h := foreignShaped(t, nil)
	tb, _ := table.Open(ctx, h.st, testenv.New(5))
	mfs, _ := h.manifests(t)
	var paths []string
	for _, mf := range mfs {
		paths = append(paths, mf.ManifestPath)
	}
	md := *tb.Metadata()
	md.FormatVersion = 1
	md.Snapshots = slices.Clone(md.Snapshots)
	s := &md.Snapshots[len(md.Snapshots)-1]
	s.ManifestList = ""
	raw, _ := json.Marshal(paths)
	s.Extra = iceberg.Extra{"manifests": raw}
	md.Snapshots = []iceberg.Snapshot{*s}
	md.SnapshotLog = nil
	md.Refs = nil
	md.Statistics = nil
	h.tb = tb
	h.commitHostile(t, &md)
	re, err := table.Open(ctx, h.st, testenv.New(6))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if info, err := re.Info(ctx); err != nil || info.Rows != 40 {
		t.Errorf("Info: %+v, %v; want 40 rows", info, err)
	}
	if n, err := scanAll(t, re, table.ScanOptions{}); err != nil || n != 40 {
		t.Errorf("scan: %d, %v; want 40", n, err)
	}
}

// TestAdoptedTableRollup: a rollup of an adopted table of another engine's
// spec (day and bucket of the series) is added, refreshed after appends
// to it, and holds one row per series and hour of the rows appended.
func TestAdoptedTableRollup(t *testing.T) {
	ctx := context.Background()
	sch := metricsSchema(t)
	_, fields, err := table.ParseSpec(sch, "day, bucket(4, host)")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := table.CreateWithSpec(ctx, memstore.New(), testenv.New(1), loc, sch, nil, fields)
	if err != nil {
		t.Fatal(err)
	}
	d := hourly(t)
	ru, err := table.AddRollup(ctx, raw, memstore.New(), d)
	if err != nil {
		t.Fatalf("AddRollup: %v", err)
	}
	if _, err := raw.Append(ctx, rowsOf(t, raw, "h", day1, 7200, 6)); err != nil { // two hours, 6 hosts
		t.Fatal(err)
	}
	if _, err := table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{}); err != nil {
		t.Fatalf("RefreshRollup: %v", err)
	}
	if n, err := scanAll(t, ru, table.ScanOptions{}); err != nil || n != 12 {
		t.Errorf("rollup rows: %d, %v; want 12 (6 series x 2 hours)", n, err)
	}
}
