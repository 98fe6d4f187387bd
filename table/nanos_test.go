package table_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// nsSchema: a timestamptz_ns time column, a host series and a
// timestamp_ns value column.
func nsSchema(t *testing.T, tr schema.Transform) *schema.Table {
	t.Helper()
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "ts", Type: schema.TimestamptzNs},
		{Name: "seen", Type: schema.TimestampNs},
		{Name: "cpu", Type: schema.Double},
	}, tr)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// nsBatch: n rows of one host, 1 ns apart from start (RFC 3339 with 9
// fraction digits), seen 1 ns after ts.
func nsBatch(t *testing.T, sch *schema.Table, host string, start time.Time, n int) *rows.Batch {
	t.Helper()
	b := rows.NewBuilder(sch, rows.Options{})
	for i := range n {
		at := start.Add(time.Duration(i))
		for c, v := range []string{at.Format(time.RFC3339Nano), host, at.Add(1).Format("2006-01-02T15:04:05.000000000"), fmt.Sprint(i)} {
			if err := b.AppendString(c, v); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	return b.Batch()
}

func scanNanos(t *testing.T, tb *table.Table, opt table.ScanOptions) (ts, seen []int64) {
	t.Helper()
	sch := tb.Schema()
	_, err := tb.Scan(context.Background(), opt, func(b *rows.Batch) error {
		ti, si := b.Schema.Index("ts"), b.Schema.Index("seen")
		if b.Schema.Fields[ti].Type != schema.TimestamptzNs || b.Schema.Fields[si].Type != schema.TimestampNs {
			return fmt.Errorf("scan's types %v %v", b.Schema.Fields[ti].Type, b.Schema.Fields[si].Type)
		}
		ts = append(ts, b.Cols[ti].Ints[:b.Len]...)
		seen = append(seen, b.Cols[si].Ints[:b.Len]...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = sch
	return ts, seen
}

// TestNanosRoundTrip: a format 3 table with a timestamptz_ns time column
// takes rows 1 ns apart across midnight before the epoch (two day
// partitions), scans them back exact, filters by time, keeps the last
// value per series in ns, and after a reopen and a compaction still has
// every nanosecond.
func TestNanosRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(1), loc, nsSchema(t, schema.Day), map[string]string{table.PropFormatVersion: "3", maintenance.PropCompactMinFiles: "2"})
	if err != nil {
		t.Fatal(err)
	}
	// 1969-12-31T23:59:59.999999990Z .. +20 ns: the day partition -1, then 0
	start := time.Unix(0, -10).UTC()
	for _, host := range []string{"a", "b"} {
		if _, err := tb.Append(ctx, nsBatch(t, tb.Schema(), host, start, 20)); err != nil {
			t.Fatal(err)
		}
	}
	ts, seen := scanNanos(t, tb, table.ScanOptions{})
	if len(ts) != 40 {
		t.Fatalf("%d rows, want 40", len(ts))
	}
	for i := range ts {
		want := int64(-10 + i%20)
		if ts[i] != want || seen[i] != want+1 {
			t.Fatalf("row %d: ts %d seen %d, want %d and %d", i, ts[i], seen[i], want, want+1)
		}
	}
	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]bool{}
	for _, p := range info.Partitions {
		parts[p.Name] = true
	}
	if !parts["ts_day=1969-12-31"] || !parts["ts_day=1970-01-01"] || len(parts) != 2 {
		t.Errorf("partitions %v, want ts_day=1969-12-31 and ts_day=1970-01-01", parts)
	}
	// the manifests' bounds are 8-byte little-endian nanoseconds
	files, err := tb.DataFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bounds := map[int32][2]int64{}
	for _, df := range files {
		lo, err1 := iceberg.DecodeValue(schema.TimestamptzNs, df.Lower[1])
		hi, err2 := iceberg.DecodeValue(schema.TimestamptzNs, df.Upper[1])
		if err1 != nil || err2 != nil || len(df.Lower[1]) != 8 {
			t.Fatalf("file %s: bounds %x %x", df.Path, df.Lower[1], df.Upper[1])
		}
		bounds[df.Partition] = [2]int64{lo.(int64), hi.(int64)}
	}
	if want := map[int32][2]int64{-1: {-10, -1}, 0: {0, 9}}; fmt.Sprint(bounds) != fmt.Sprint(want) {
		t.Errorf("time bounds by day %v, want %v", bounds, want)
	}
	// a time range in microseconds: [0, 1 µs) holds the 10 rows of each host from 0 ns
	from, to := int64(0), int64(1)
	ts, _ = scanNanos(t, tb, table.ScanOptions{FromUS: &from, ToUS: &to})
	if len(ts) != 20 || ts[0] != 0 || ts[9] != 9 {
		t.Errorf("scan from 0 to 1 µs: %v, want 0..9 twice", ts)
	}
	to = 0
	ts, _ = scanNanos(t, tb, table.ScanOptions{ToUS: &to})
	if len(ts) != 20 || ts[0] != -10 || ts[9] != -1 {
		t.Errorf("scan to 0 µs: %v, want -10..-1 twice", ts)
	}
	// a range in nanoseconds: [-3 ns, 2 ns)
	fromNS, toNS := int64(-3), int64(2)
	ts, _ = scanNanos(t, tb, table.ScanOptions{FromNS: &fromNS, ToNS: &toNS, Series: map[string][]any{"host": {"a"}}})
	if fmt.Sprint(ts) != "[-3 -2 -1 0 1]" {
		t.Errorf("scan from -3 ns to 2 ns: %v", ts)
	}
	// a range within one microsecond: empty in µs, not in ns
	zeroUS, oneNS, twoNS := int64(0), int64(1), int64(2)
	ts, _ = scanNanos(t, tb, table.ScanOptions{FromUS: &zeroUS, ToUS: &zeroUS, FromNS: &oneNS, ToNS: &twoNS, Series: map[string][]any{"host": {"a"}}})
	if fmt.Sprint(ts) != "[1]" {
		t.Errorf("scan from 1 ns to 2 ns: %v", ts)
	}
	if _, err := tb.Scan(ctx, table.ScanOptions{FromNS: &toNS, ToNS: &fromNS}, func(*rows.Batch) error { return nil }); table.Code(err) != "BAD_RANGE" {
		t.Errorf("an empty ns range: %v, want BAD_RANGE", err)
	}
	latest, err := tb.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if latest.Len != 2 || latest.Cols[latest.Schema.Time].Ints[0] != 9 || latest.Cols[latest.Schema.Index("seen")].Ints[1] != 10 {
		t.Errorf("latest: %d rows, times %v", latest.Len, latest.Cols[latest.Schema.Time].Ints)
	}
	// the manifests' bounds are nanoseconds: a reopened table prunes by them
	again, err := table.Open(ctx, st, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	res, err := again.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Merges != 2 {
		t.Errorf("%d partitions compacted, want 2", res.Merges)
	}
	ts, seen = scanNanos(t, again, table.ScanOptions{})
	if len(ts) != 40 || ts[0] != -10 || ts[39] != 9 || seen[39] != 10 {
		t.Errorf("after compaction: %d rows %v", len(ts), ts)
	}
	// info's range is the summary's, in microseconds (floored)
	info, err = again.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.MinTime != "1969-12-31T23:59:59.999999Z" || info.MaxTime != "1970-01-01T00:00:00Z" {
		t.Errorf("info time range %s .. %s", info.MinTime, info.MaxTime)
	}
	// rollups count microseconds: refused on a nanosecond time column
	d, err := rollup.New("hourly", "1h", []string{"cpu:max"}, "")
	if err != nil {
		t.Fatal(err)
	}
	d.Location = loc + "__rollup_hourly"
	if _, err := table.AddRollup(ctx, again, memstore.New(), d); table.Code(err) != "BAD_ROLLUP" || !strings.Contains(err.Error(), "nanosecond") {
		t.Errorf("AddRollup on an ns table: %v (%s), want BAD_ROLLUP", err, table.Code(err))
	}
}

// TestNanosNeedV3: a format 2 table refuses nanosecond columns at create
// and alter with BAD_SCHEMA naming the column, and stores nothing.
func TestNanosNeedV3(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	_, err := table.Create(ctx, st, testenv.New(1), loc, nsSchema(t, schema.Day), nil)
	if table.Code(err) != "BAD_SCHEMA" || !strings.Contains(err.Error(), `"ts" (timestamptz_ns)`) || !strings.Contains(err.Error(), "format-version 3") {
		t.Fatalf("create v2: %v (%s), want BAD_SCHEMA naming ts and format 3", err, table.Code(err))
	}
	if objs, _ := st.List(ctx, ""); len(objs) != 0 {
		t.Fatalf("the refused create stored %v", objs)
	}
	if got := schema.RequiresV3(nsSchema(t, schema.Day)); strings.Join(got, ",") != "ts,seen" {
		t.Errorf("RequiresV3 = %v", got)
	}
	tb, err := table.Create(ctx, st, testenv.New(1), loc, metricsSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	v := tb.Metadata()
	_, err = tb.Alter(ctx, []evolve.Change{{Op: evolve.Add, Column: "seen", Type: schema.TimestampNs}})
	if table.Code(err) != "BAD_SCHEMA" || !strings.Contains(err.Error(), "seen") {
		t.Fatalf("alter v2: %v (%s), want BAD_SCHEMA naming seen", err, table.Code(err))
	}
	if tb.Metadata() != v {
		t.Error("the refused alter changed the table")
	}
	add := []evolve.Change{{Op: evolve.Add, Column: "seen", Type: schema.TimestampNs}}
	if _, err := tb.EvolvedSchema(add); table.Code(err) != "BAD_SCHEMA" {
		t.Errorf("EvolvedSchema on v2: %v, want BAD_SCHEMA", err)
	}
	if _, err := tb.AppendEvolved(ctx, add, nil); table.Code(err) != "BAD_SCHEMA" {
		t.Errorf("AppendEvolved on v2: %v, want BAD_SCHEMA", err)
	}
	// once format 3, the same alter is taken
	if _, err := tb.UpgradeFormat(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Alter(ctx, []evolve.Change{{Op: evolve.Add, Column: "seen", Type: schema.TimestampNs}}); err != nil {
		t.Fatalf("alter v3: %v", err)
	}
}

// TestNanosAdopt: another engine's format 3 table (no timelake.*
// properties, unsorted) with a timestamptz_ns column is adopted with it as
// the time column, takes an append and scans exact; the same schema in
// format 2 metadata (which no format 2 writer should make) is refused
// with BAD_SCHEMA and left as it was.
func TestNanosAdopt(t *testing.T) {
	ctx := context.Background()
	for _, version := range []int{3, 2} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			dir := t.TempDir()
			st, err := dirstore.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := table.Create(ctx, st, testenv.New(1), "file://"+dir, nsSchema(t, schema.Day), map[string]string{table.PropFormatVersion: "3"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tb.Append(ctx, nsBatch(t, tb.Schema(), "a", time.Unix(0, -5), 10)); err != nil {
				t.Fatal(err)
			}
			md := *tb.Metadata()
			md.FormatVersion = version
			md.Properties = map[string]string{}
			md.Statistics = nil
			md.SortOrders = []iceberg.SortOrder{{OrderID: 0}}
			md.DefaultSortOrderID = 0
			raw, err := md.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(tb.Version()+1), raw); err != nil || !ok {
				t.Fatalf("foreign commit: %v %v", ok, err)
			}
			foreign, err := table.Open(ctx, st, testenv.New(2))
			if err != nil {
				t.Fatal(err)
			}
			if foreign.Schema().HasKey() {
				t.Fatal("the foreign table has a key")
			}
			if ks := foreign.SuggestKey(); ks.Time != "ts" {
				t.Errorf("SuggestKey: %+v, want time ts", ks)
			}
			v := foreign.Version()
			_, err = foreign.Adopt(ctx, table.AdoptOptions{Time: "ts", Series: []string{"host"}})
			if version == 2 {
				if table.Code(err) != "BAD_SCHEMA" || !strings.Contains(err.Error(), "timestamptz_ns") {
					t.Fatalf("adopt of v2 metadata with ns columns: %v (%s), want BAD_SCHEMA", err, table.Code(err))
				}
				if foreign.Version() != v {
					t.Error("the refused adopt committed")
				}
				return
			}
			if err != nil {
				t.Fatalf("Adopt: %v", err)
			}
			if _, err := foreign.Append(ctx, nsBatch(t, foreign.Schema(), "b", time.Unix(0, -5), 10)); err != nil {
				t.Fatal(err)
			}
			ts, seen := scanNanos(t, foreign, table.ScanOptions{})
			if len(ts) != 20 || ts[0] != -5 || ts[19] != 4 || seen[19] != 5 {
				t.Errorf("after adopt and append: %v %v", ts, seen)
			}
		})
	}
}

// TestNanosDelete: a delete of a nanosecond table by a range in
// nanoseconds removes exactly the rows in it; one in microseconds, the
// rows of those whole microseconds; FromNS alone on a microsecond table
// is a bare delete, refused.
func TestNanosDelete(t *testing.T) {
	ctx := context.Background()
	tb, err := table.Create(ctx, memstore.New(), testenv.New(1), loc, nsSchema(t, schema.Day), map[string]string{table.PropFormatVersion: "3"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, nsBatch(t, tb.Schema(), "a", time.Unix(0, -1500), 3000)); err != nil { // -1500 ns .. 1499 ns
		t.Fatal(err)
	}
	from, to := int64(-3), int64(2)
	if _, err := tb.Delete(ctx, table.DeleteOptions{FromNS: &from, ToNS: &to}); err != nil {
		t.Fatal(err)
	}
	ts, _ := scanNanos(t, tb, table.ScanOptions{FromNS: &[]int64{-6}[0], ToNS: &[]int64{5}[0]})
	if fmt.Sprint(ts) != "[-6 -5 -4 2 3 4]" {
		t.Errorf("after deleting [-3, 2) ns: %v", ts)
	}
	us := int64(1) // [1 µs, ∞): 1000 ns .. 1499 ns
	if _, err := tb.Delete(ctx, table.DeleteOptions{FromUS: &us}); err != nil {
		t.Fatal(err)
	}
	ts, _ = scanNanos(t, tb, table.ScanOptions{})
	if len(ts) != 3000-5-500 || ts[len(ts)-1] != 999 {
		t.Errorf("after deleting from 1 µs: %d rows, last %d", len(ts), ts[len(ts)-1])
	}
	plain, err := table.Create(ctx, memstore.New(), testenv.New(1), loc, metricsSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Delete(ctx, table.DeleteOptions{FromNS: &from}); table.Code(err) != "BAD_FILTER" {
		t.Errorf("FromNS alone on a µs table: %v, want BAD_FILTER", err)
	}
}

// TestNanosSpec: an ns time column under another spec (hour and a bucket
// of the series) gets each row's hour from its nanoseconds (floor before
// 1970), scans and filters exact, and compacts.
func TestNanosSpec(t *testing.T) {
	ctx := context.Background()
	sch := nsSchema(t, schema.Day)
	_, fields, err := table.ParseSpec(sch, "hour, bucket(4, host)")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.CreateWithSpec(ctx, memstore.New(), testenv.New(1), loc, sch, map[string]string{table.PropFormatVersion: "3", maintenance.PropCompactMinFiles: "2"}, fields)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // twice: two files per partition to compact
		if _, err := tb.Append(ctx, nsBatch(t, tb.Schema(), "a", time.Unix(0, -4), 8)); err != nil {
			t.Fatal(err)
		}
	}
	files, err := tb.DataFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hours := map[string]bool{}
	for _, df := range files {
		if !df.OtherPartition || len(df.PartitionValues) != 2 {
			t.Fatalf("file %s: partition %v", df.Path, df.PartitionValues)
		}
		hours[fmt.Sprint(df.PartitionValues[0])] = true
	}
	if fmt.Sprint(hours) != "map[-1:true 0:true]" {
		t.Errorf("hours %v, want -1 and 0", hours)
	}
	from := int64(-1)
	ts, _ := scanNanos(t, tb, table.ScanOptions{FromNS: &from})
	if fmt.Sprint(ts) != "[-1 0 1 2 3]" {
		t.Errorf("scan from -1 ns: %v", ts)
	}
	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	ts, _ = scanNanos(t, tb, table.ScanOptions{})
	if res.Merges != 2 || fmt.Sprint(ts) != "[-4 -3 -2 -1 0 1 2 3]" {
		t.Errorf("after compaction (%d merges): %v", res.Merges, ts)
	}
}
