package table_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// The tests of this file change a table's schema the way another engine
// does (Spark's ALTER TABLE, pyiceberg's update_schema): a new schema in
// the metadata, with the current-schema-id moved and the same field ids for
// the columns that stay, and nothing else. Timelake must follow it: read
// old files by field id, write the current schema, keep its index.

// evolvingSchema has an int and a float column to widen, a string to drop
// and a required value column to make optional.
func evolvingSchema(t testing.TB) *schema.Table {
	t.Helper()
	s, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "region", Type: schema.String, Required: true},
		{Name: "cpu", Type: schema.Float},
		{Name: "mem", Type: schema.Int},
		{Name: "note", Type: schema.String},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// changeSchema commits, as another engine would, the next metadata version
// with a new current schema: the current one's fields passed through edit.
// It returns the version written.
func changeSchema(t testing.TB, st store.Store, edit func(fields []iceberg.SchemaField, lastID *int) []iceberg.SchemaField) int {
	t.Helper()
	ctx := context.Background()
	v, err := commit.Latest(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	md, err := iceberg.ParseMetadata(v.Raw)
	if err != nil {
		t.Fatal(err)
	}
	next := *md.CurrentSchema()
	for _, s := range md.Schemas {
		next.SchemaID = max(next.SchemaID, s.SchemaID+1)
	}
	lastID := md.LastColumnID
	next.Fields = edit(slices.Clone(next.Fields), &lastID)
	md.Schemas = append(slices.Clone(md.Schemas), next)
	md.CurrentSchemaID, md.LastColumnID = next.SchemaID, lastID
	md.MetadataLog = append(slices.Clone(md.MetadataLog), iceberg.MetadataLogEntry{TimestampMs: md.LastUpdatedMs, MetadataFile: md.Location + "/" + commit.MetadataKey(v.N)})
	raw, err := md.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(v.N+1), raw); err != nil || !ok {
		t.Fatalf("write v%d: %v %v", v.N+1, ok, err)
	}
	return v.N + 1
}

// Field edits, as engines make them.
func renameField(fields []iceberg.SchemaField, from, to string) {
	for i := range fields {
		if fields[i].Name == from {
			fields[i].Name = to
		}
	}
}

func retypeField(fields []iceberg.SchemaField, name, typ string) {
	for i := range fields {
		if fields[i].Name == name {
			fields[i].Type = json.RawMessage(`"` + typ + `"`)
		}
	}
}

func optionalField(fields []iceberg.SchemaField, name string) {
	for i := range fields {
		if fields[i].Name == name {
			fields[i].Required = false
		}
	}
}

func dropField(fields []iceberg.SchemaField, name string) []iceberg.SchemaField {
	return slices.DeleteFunc(fields, func(f iceberg.SchemaField) bool { return f.Name == name })
}

func addField(fields []iceberg.SchemaField, lastID *int, name, typ string) []iceberg.SchemaField {
	*lastID++
	return append(fields, iceberg.SchemaField{ID: *lastID, Name: name, Type: json.RawMessage(`"` + typ + `"`)})
}

// everyChange is one schema change of each kind Iceberg allows on a value
// column: cpu renamed to cpu_pct and widened to double, mem widened to
// long, region made optional, note dropped, disk added.
func everyChange(fields []iceberg.SchemaField, lastID *int) []iceberg.SchemaField {
	renameField(fields, "cpu", "cpu_pct")
	retypeField(fields, "cpu_pct", "double")
	retypeField(fields, "mem", "long")
	optionalField(fields, "region")
	fields = dropField(fields, "note")
	return addField(fields, lastID, "disk", "double")
}

func mapsBatch(t testing.TB, sch *schema.Table, ms []map[string]any) *rows.Batch {
	t.Helper()
	b, err := rows.FromMaps(sch, ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func at(min int) time.Time { return day1.Add(time.Duration(min) * time.Minute) }

// oldRows are appended under evolvingSchema: floats exact in float32.
func oldRows(t testing.TB, sch *schema.Table) *rows.Batch {
	return mapsBatch(t, sch, []map[string]any{
		{"ts": at(0), "host": "a", "region": "eu", "cpu": 0.5, "mem": int64(10), "note": "x"},
		{"ts": at(1), "host": "a", "region": "eu", "cpu": 1.25, "mem": int64(11), "note": "y"},
		{"ts": at(0), "host": "b", "region": "us", "cpu": 2.5, "mem": int64(20)},
		{"ts": at(1), "host": "b", "region": "us", "cpu": nil, "mem": int64(21)},
	})
}

// newRows are appended after everyChange: one row replaces (b, 1).
func newRows(t testing.TB, sch *schema.Table) *rows.Batch {
	return mapsBatch(t, sch, []map[string]any{
		{"ts": at(2), "host": "a", "region": nil, "cpu_pct": 0.1, "mem": int64(1) << 40, "disk": 7.5},
		{"ts": at(1), "host": "b", "region": "us", "cpu_pct": 3.0, "mem": int64(22), "disk": 8.0},
		{"ts": at(0), "host": "c", "region": "ap", "cpu_pct": 4.0, "mem": int64(30)},
	})
}

var (
	t0, t1, t2 = at(0).UnixMicro(), at(1).UnixMicro(), at(2).UnixMicro()
	// wantEvolved is the scan after oldRows, everyChange and newRows.
	wantEvolved = []string{
		rowText(t0, "a", "region=eu cpu_pct=0.5 mem=10 disk=null"),
		rowText(t1, "a", "region=eu cpu_pct=1.25 mem=11 disk=null"),
		rowText(t2, "a", "region=null cpu_pct=0.1 mem=1099511627776 disk=7.5"),
		rowText(t0, "b", "region=us cpu_pct=2.5 mem=20 disk=null"),
		rowText(t1, "b", "region=us cpu_pct=3 mem=22 disk=8"),
		rowText(t0, "c", "region=ap cpu_pct=4 mem=30 disk=null"),
	}
)

func rowText(ts int64, host, rest string) string {
	return "ts=" + itoa(ts) + " host=" + host + " " + rest
}

func TestFollowSchemaChangedByAnotherEngine(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	env := testenv.New(1) // one clock: the later append has the later _ingest_ts
	tb, err := table.Create(ctx, st, env, loc, evolvingSchema(t), map[string]string{maintenance.PropCompactMinFiles: "2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, oldRows(t, tb.Schema())); err != nil {
		t.Fatal(err)
	}
	changeSchema(t, st, everyChange)

	// Before any append: the old file and index read under the new schema.
	tb, err = table.Open(ctx, st, env)
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range tb.Columns() {
		cols = append(cols, c.Name+":"+c.Type+map[bool]string{true: "!", false: ""}[c.Required])
	}
	if got, want := strings.Join(cols, " "), "ts:timestamptz! host:string! region:string cpu_pct:double mem:long _ingest_ts:timestamptz disk:double"; got != want {
		t.Errorf("columns: got %s, want %s", got, want)
	}
	checkLatestRows(t, tb, []string{
		"a@" + itoa(t1) + " region=eu cpu_pct=1.25 mem=11 disk=null",
		"b@" + itoa(t1) + " region=us cpu_pct=null mem=21 disk=null",
	})

	if _, err := tb.Append(ctx, newRows(t, tb.Schema())); err != nil {
		t.Fatalf("append after the change: %v", err)
	}
	checkScan(t, tb, table.ScanOptions{}, wantEvolved)
	checkScan(t, tb, table.ScanOptions{Columns: []string{"disk"}}, []string{
		"ts=" + itoa(t0) + " host=a disk=null", "ts=" + itoa(t1) + " host=a disk=null", "ts=" + itoa(t2) + " host=a disk=7.5",
		"ts=" + itoa(t0) + " host=b disk=null", "ts=" + itoa(t1) + " host=b disk=8", "ts=" + itoa(t0) + " host=c disk=null",
	})
	wantLatest := []string{
		"a@" + itoa(t2) + " region=null cpu_pct=0.1 mem=1099511627776 disk=7.5",
		"b@" + itoa(t1) + " region=us cpu_pct=3 mem=22 disk=8",
		"c@" + itoa(t0) + " region=ap cpu_pct=4 mem=30 disk=null",
	}
	checkLatestRows(t, tb, wantLatest)
	info, err := tb.Info(ctx)
	if err != nil || info.Rows != 7 || info.MinTime == "" {
		t.Errorf("info: %+v, %v; want 7 rows and a time range", info, err)
	}

	// The new file is written under the current schema, by its names and ids.
	files, err := tb.DataFiles(ctx)
	if err != nil || len(files) != 2 {
		t.Fatalf("data files: %d, %v", len(files), err)
	}
	for _, df := range files {
		if _, ok := df.ValueCounts[8]; ok { // disk: the new file
			checkFileSchema(t, st, tb, df.Path)
		}
	}

	// Compaction merges the old file (widened, null-filled) and the new one
	// into one file of the current schema, bounds by field id.
	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil || res.Merges != 1 || res.RowsAfter != 6 {
		t.Fatalf("compact: %+v, %v; want one merge to 6 rows", res, err)
	}
	checkScan(t, tb, table.ScanOptions{}, wantEvolved)
	checkLatestRows(t, tb, wantLatest)
	files, err = tb.DataFiles(ctx)
	if err != nil || len(files) != 1 {
		t.Fatalf("data files after compaction: %d, %v", len(files), err)
	}
	checkFileSchema(t, st, tb, files[0].Path)
	memID, diskID := int32(tb.Schema().Fields[tb.Schema().Index("mem")].ID), int32(tb.Schema().Fields[tb.Schema().Index("disk")].ID)
	df := files[0]
	if got, want := df.Lower[memID], iceberg.EncodeLong(10); string(got) != string(want) {
		t.Errorf("mem lower bound %x, want %x (a long)", got, want)
	}
	if got, want := df.Upper[memID], iceberg.EncodeLong(1<<40); string(got) != string(want) {
		t.Errorf("mem upper bound %x, want %x", got, want)
	}
	if df.NullCounts[diskID] != 4 || df.ValueCounts[diskID] != 6 {
		t.Errorf("disk: %d nulls of %d values, want 4 of 6", df.NullCounts[diskID], df.ValueCounts[diskID])
	}
	if _, ok := df.ValueCounts[6]; ok {
		t.Errorf("the compacted file has the dropped note (field 6)")
	}
}

// checkFileSchema checks a data file's Parquet columns are the table's
// current schema: names, field ids and types, in order.
func checkFileSchema(t *testing.T, st store.Store, tb *table.Table, path string) {
	t.Helper()
	raw, err := st.Get(context.Background(), strings.TrimPrefix(path, loc+"/"))
	if err != nil {
		t.Fatal(err)
	}
	got := parquetColumns(t, raw)
	var want []string
	for _, f := range tb.Schema().Fields {
		want = append(want, columnText(f))
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s columns:\n got %v\nwant %v", path, got, want)
	}
}

// parquetColumns lists a Parquet file's columns as name#id:type.
func parquetColumns(t *testing.T, raw []byte) []string {
	t.Helper()
	f, err := parquet.Open(raw)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range f.Schema() {
		out = append(out, columnText(schema.Field{Name: c.Name, ID: int(c.FieldID), Type: c.Type}))
	}
	return out
}

func checkScan(t *testing.T, tb *table.Table, opt table.ScanOptions, want []string) {
	t.Helper()
	got, _, err := scanRows(context.Background(), tb, opt)
	if err != nil {
		t.Fatalf("scan %+v: %v", opt, err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("scan %+v:\n got %q\nwant %q", opt, got, want)
	}
}

// checkLatest compares the last-value index as host@ts and the value
// columns (not _ingest_ts).
func checkLatestRows(t *testing.T, tb *table.Table, want []string) {
	t.Helper()
	b, err := tb.Latest(context.Background())
	if err != nil {
		t.Fatalf("latest: %v", err)
	}
	var got []string
	series, tm := b.Schema.Fields[b.Schema.Series[0]].Name, b.Schema.TimeField().Name
	for _, r := range renderBatch(b) {
		var host, ts string
		var rest []string
		for _, kv := range strings.Fields(r) {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case series:
				host = v
			case tm:
				ts = v
			case "_ingest_ts":
			default:
				rest = append(rest, kv)
			}
		}
		got = append(got, host+"@"+ts+" "+strings.Join(rest, " "))
	}
	if !slices.Equal(got, want) {
		t.Errorf("latest:\n got %q\nwant %q", got, want)
	}
}

// TestFollowRenamedKeyColumns: another engine renames the time and series
// columns; the timelake.* properties still name them by their old names,
// and the columns are followed by field id.
func TestFollowRenamedKeyColumns(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	env := testenv.New(1)
	tb, err := table.Create(ctx, st, env, loc, evolvingSchema(t), map[string]string{maintenance.PropCompactMinFiles: "2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, oldRows(t, tb.Schema())); err != nil {
		t.Fatal(err)
	}
	changeSchema(t, st, func(fields []iceberg.SchemaField, lastID *int) []iceberg.SchemaField {
		renameField(fields, "ts", "time")
		renameField(fields, "host", "hostname")
		// a new column under the series column's old name is a value column
		return addField(fields, lastID, "host", "string")
	})
	tb, err = table.Open(ctx, st, env)
	if err != nil {
		t.Fatal(err)
	}
	sch := tb.Schema()
	if sch.TimeField().Name != "time" || sch.Fields[sch.Series[0]].Name != "hostname" {
		t.Fatalf("time %q, series %q; want time, hostname", sch.TimeField().Name, sch.Fields[sch.Series[0]].Name)
	}
	if _, err := tb.Append(ctx, mapsBatch(t, sch, []map[string]any{
		{"time": at(3), "hostname": "a", "region": "eu", "cpu": 9.5, "mem": int64(90), "host": "a.example"},
	})); err != nil {
		t.Fatalf("append with the new names: %v", err)
	}
	checkScan(t, tb, table.ScanOptions{Series: map[string][]any{"hostname": {"a"}}, FromUS: us(at(1)), Columns: []string{"cpu", "host"}}, []string{
		"time=" + itoa(t1) + " hostname=a cpu=1.25 host=null",
		"time=" + itoa(at(3).UnixMicro()) + " hostname=a cpu=9.5 host=a.example",
	})
	wantLatest := []string{
		"a@" + itoa(at(3).UnixMicro()) + " region=eu cpu=9.5 mem=90 note=null host=a.example",
		"b@" + itoa(t1) + " region=us cpu=null mem=21 note=null host=null",
	}
	checkLatestRows(t, tb, wantLatest)
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
		t.Fatal(err)
	}
	checkLatestRows(t, tb, wantLatest)
	info, err := tb.Info(ctx)
	if err != nil || info.Rows != 5 {
		t.Fatalf("info: %+v, %v; want 5 rows", info, err)
	}
}

// TestFollowWidenedSeriesColumn: another engine widens an int series column
// to long; filters on it prune and match old files (4-byte bounds and
// statistics) and new ones alike, and compaction merges them.
func TestFollowWidenedSeriesColumn(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	env := testenv.New(1)
	sch, err := schema.New("ts", []string{"shard"}, []schema.Field{{Name: "shard", Type: schema.Int}, {Name: "v", Type: schema.Double}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, st, env, loc, sch, map[string]string{maintenance.PropCompactMinFiles: "2"})
	if err != nil {
		t.Fatal(err)
	}
	var ms []map[string]any
	for i := range 6 {
		ms = append(ms, map[string]any{"ts": at(i), "shard": int64(i % 3), "v": float64(i)})
	}
	if _, err := tb.Append(ctx, mapsBatch(t, tb.Schema(), ms)); err != nil {
		t.Fatal(err)
	}
	changeSchema(t, st, func(fields []iceberg.SchemaField, _ *int) []iceberg.SchemaField {
		retypeField(fields, "shard", "long")
		return fields
	})
	tb, err = table.Open(ctx, st, env)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, mapsBatch(t, tb.Schema(), []map[string]any{
		{"ts": at(10), "shard": int64(1) << 40, "v": 10.0},
		{"ts": at(11), "shard": int64(1), "v": 11.0},
	})); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ts=" + itoa(at(1).UnixMicro()) + " shard=1 v=1",
		"ts=" + itoa(at(4).UnixMicro()) + " shard=1 v=4",
		"ts=" + itoa(at(11).UnixMicro()) + " shard=1 v=11",
		"ts=" + itoa(at(10).UnixMicro()) + " shard=1099511627776 v=10",
	}
	opt := table.ScanOptions{Series: map[string][]any{"shard": {int64(1), int64(1) << 40}}}
	checkScan(t, tb, opt, want)
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
		t.Fatal(err)
	}
	checkScan(t, tb, opt, want)
	checkLatestRows(t, tb, []string{
		"0@" + itoa(at(3).UnixMicro()) + " v=3",
		"1@" + itoa(at(11).UnixMicro()) + " v=11",
		"2@" + itoa(at(5).UnixMicro()) + " v=5",
		"1099511627776@" + itoa(at(10).UnixMicro()) + " v=10",
	})
}
