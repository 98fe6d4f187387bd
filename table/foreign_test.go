package table_test

// Compaction over data files other engines wrote (pyarrow, as pyiceberg
// writes them; the same variants parquet-mr and DuckDB produce): unsorted,
// with duplicate keys, without page index, sorting_columns or field ids, v1
// and v2 pages, every codec. The result must be exactly the deduplicated
// rows.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// foreignRow is one row of a foreign file.
type foreignRow struct {
	host, region string
	ts, ingest   int64
	cpu          float64
	mem          int64
}

type foreignFile struct {
	name    string
	rows    []foreignRow
	noMem   bool // the file lacks the optional column mem
	noIDs   bool // no Parquet field ids
	sorting bool // declare sorting_columns (host, ts)
	options map[string]any
}

// writeForeign writes the files with pyarrow (testdata/foreign_files.py)
// into dir/data/<partition>/. Their columns are in name order (_ingest_ts,
// cpu, host, mem, region, ts), not the table's: they are matched by id.
func writeForeign(t *testing.T, dir, part string, files []foreignFile) []string {
	t.Helper()
	type spec struct {
		Name     string           `json:"name"`
		Rows     map[string][]any `json:"rows"`
		Options  map[string]any   `json:"options"`
		FieldIDs bool             `json:"field_ids"`
		Sorting  bool             `json:"sorting"`
	}
	var specs []spec
	var keys []string
	for _, f := range files {
		cols := map[string][]any{}
		for _, r := range f.rows {
			cols["ts"] = append(cols["ts"], r.ts)
			cols["host"] = append(cols["host"], r.host)
			cols["region"] = append(cols["region"], r.region)
			cols["cpu"] = append(cols["cpu"], r.cpu)
			if !f.noMem {
				cols["mem"] = append(cols["mem"], r.mem)
			}
			cols["_ingest_ts"] = append(cols["_ingest_ts"], r.ingest)
		}
		specs = append(specs, spec{Name: f.name, Rows: cols, Options: f.options, FieldIDs: !f.noIDs, Sorting: f.sorting})
		keys = append(keys, "data/"+part+"/"+f.name)
	}
	out := filepath.Join(dir, "data", part)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(specs)
	specPath := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(specPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(interoptest.Python(t), "testdata/foreign_files.py", specPath, out).CombinedOutput(); err != nil {
		t.Fatalf("foreign_files.py: %v\n%s", err, msg)
	}
	return keys
}

// commitForeign commits an append of the files at keys (partition p) as
// another engine would: a manifest of ADDED entries with only the required
// fields, a manifest list of it and the current manifests, a snapshot
// without Timelake's summary keys but for the last-value index.
func commitForeign(t *testing.T, st *dirstore.Store, tb *table.Table, p int32, keys []string) {
	t.Helper()
	commitForeignCounted(t, st, tb, p, keys, false)
}

// commitForeignCounted is commitForeign; with ingestCounted the entries also
// say that _ingest_ts has no nulls (null_value_counts, as pyiceberg and Java
// write them), which lets compaction merge part of a partition.
func commitForeignCounted(t *testing.T, st *dirstore.Store, tb *table.Table, p int32, keys []string, ingestCounted bool) {
	t.Helper()
	ctx := context.Background()
	md := tb.Metadata()
	cur := md.CurrentSnapshot()
	loc := md.Location + "/"
	raw, err := st.Get(ctx, strings.TrimPrefix(cur.ManifestList, loc))
	if err != nil {
		t.Fatal(err)
	}
	ml, err := iceberg.ReadManifestList(raw, cur.ManifestList)
	if err != nil {
		t.Fatal(err)
	}
	var entries []iceberg.ManifestEntry
	var rowsAdded, bytesAdded int64
	for _, k := range keys {
		data, err := st.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquet.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		df := iceberg.DataFile{Path: loc + k, Format: iceberg.FormatParquet, Partition: p, RecordCount: f.NumRows(), FileSize: int64(len(data))}
		if ingestCounted {
			df.NullCounts = map[int32]int64{int32(tb.Schema().Fields[tb.Schema().Ingest].ID): 0}
		}
		entries = append(entries, iceberg.ManifestEntry{Status: iceberg.StatusAdded, DataFile: df})
		rowsAdded += f.NumRows()
		bytesAdded += int64(len(data))
	}
	snapID, seq := cur.SnapshotID+7919, md.LastSequenceNumber+1
	var buf bytes.Buffer
	mf, err := iceberg.WriteManifest(&buf, *md.CurrentSchema(), *md.DefaultSpec(), entries, [16]byte{9})
	if err != nil {
		t.Fatal(err)
	}
	mkey := fmt.Sprintf("metadata/foreign-%d-m0.avro", snapID)
	if err := st.Put(ctx, mkey, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	mf.ManifestPath = loc + mkey
	mf.Assign(snapID, seq)
	buf.Reset()
	parent := cur.SnapshotID
	if err := iceberg.WriteManifestList(&buf, snapID, &parent, seq, append([]iceberg.ManifestFile{mf}, ml.Files...), [16]byte{9}); err != nil {
		t.Fatal(err)
	}
	lkey := fmt.Sprintf("metadata/snap-%d-foreign.avro", snapID)
	if err := st.Put(ctx, lkey, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	n := func(k string) int64 { v, _ := strconv.ParseInt(cur.Summary[k], 10, 64); return v }
	next := *md
	schemaID := md.CurrentSchemaID
	ts := md.LastUpdatedMs + 1
	next.Snapshots = append(append([]iceberg.Snapshot(nil), md.Snapshots...), iceberg.Snapshot{
		SnapshotID: snapID, ParentSnapshotID: &parent, SequenceNumber: seq, TimestampMs: ts, ManifestList: loc + lkey, SchemaID: &schemaID,
		Summary: map[string]string{"operation": "append",
			"total-records": strconv.FormatInt(n("total-records")+rowsAdded, 10), "total-data-files": strconv.FormatInt(n("total-data-files")+int64(len(keys)), 10),
			"total-files-size": strconv.FormatInt(n("total-files-size")+bytesAdded, 10), lastvalue.SummaryKey: cur.Summary[lastvalue.SummaryKey]}})
	next.SnapshotLog = append(append([]iceberg.SnapshotLogEntry(nil), md.SnapshotLog...), iceberg.SnapshotLogEntry{TimestampMs: ts, SnapshotID: snapID})
	next.CurrentSnapshotID, next.LastSequenceNumber, next.LastUpdatedMs = &snapID, seq, ts
	next.Refs = map[string]iceberg.SnapshotRef{"main": {SnapshotID: snapID, Type: "branch"}}
	b, err := next.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(tb.Version()+1), b); err != nil || !ok {
		t.Fatalf("foreign commit: %v %v", ok, err)
	}
}

// foreignTable is a directory table with Timelake's appends in day1.
func foreignTable(t *testing.T, props map[string]string) (string, *dirstore.Store, *table.Table) {
	t.Helper()
	p := map[string]string{maintenance.PropCompactMinFiles: "2"}
	for k, v := range props {
		p[k] = v
	}
	dir, st, tb := dirTable(t, testenv.New(1), metricsSchema(t), p)
	for k := range 2 {
		if _, err := tb.Append(context.Background(), rowsOf(t, tb, "h", day1.Add(time.Duration(k)*100*time.Second), 300, 5)); err != nil {
			t.Fatal(err)
		}
	}
	return dir, st, tb
}

func reopen(t *testing.T, st *dirstore.Store) *table.Table {
	t.Helper()
	tb, err := table.Open(context.Background(), st, testenv.New(3))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// foreignRows makes n rows of hosts h-0…h-(hosts-1) from day1 on, some with
// the keys of Timelake's rows (rowsOf), with _ingest_ts around base (offset
// by salt so no two rows of one key tie), and shuffled unless sorted; every
// seventh row is written again later in the file with a greater _ingest_ts.
func foreignRows(n, hosts int, base, salt int64, sorted bool) []foreignRow {
	var out []foreignRow
	for j := range n {
		out = append(out, foreignRow{host: fmt.Sprintf("h-%d", j%hosts), region: fmt.Sprintf("r%d-%d", salt, j%3),
			ts: day1.Add(time.Duration(j) * time.Second).UnixMicro(), ingest: base + int64(j%3-1)*1_000_000 + salt*10 + 1,
			cpu: float64(j) + float64(salt)/100, mem: int64(j) * salt})
	}
	if !sorted {
		for j := 0; j < n; j += 7 {
			d := out[j]
			d.ingest += 5_000_000 + int64(j)
			d.region += "-dup"
			out = append(out, d)
		}
		// a fixed shuffle: reversed, then interleaved
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		var mixed []foreignRow
		for i := 0; i < len(out); i += 2 {
			mixed = append(mixed, out[i])
		}
		for i := 1; i < len(out); i += 2 {
			mixed = append(mixed, out[i])
		}
		out = mixed
	} else {
		sortForeign(out)
	}
	return out
}

func sortForeign(rs []foreignRow) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && (rs[j].host < rs[j-1].host || rs[j].host == rs[j-1].host && rs[j].ts < rs[j-1].ts); j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// withForeign is want with the rows of files merged in by the dedup rule
// (no two rows of a key tie on _ingest_ts by construction).
func withForeign(want scanned, files []foreignFile) scanned {
	out := scanned{rows: map[string]string{}, ingest: map[string]int64{}}
	for k, v := range want.rows {
		out.rows[k], out.ingest[k] = v, want.ingest[k]
	}
	for _, f := range files {
		for _, r := range f.rows {
			k := fmt.Sprintf("%s/%d", r.host, r.ts)
			mem := any(r.mem)
			if f.noMem {
				mem = "null"
			}
			if old, ok := out.ingest[k]; !ok || r.ingest > old {
				out.rows[k] = fmt.Sprintf("%d|%s|%s|%v|%v|", r.ts, r.host, r.region, r.cpu, mem)
				out.ingest[k] = r.ingest
			}
		}
	}
	return out
}

func TestCompactForeignFiles(t *testing.T) {
	// the default read budget fetches a row group whole; a tiny one makes
	// every chunk without an offset index a request of its own
	for _, budget := range []int64{0, 1} {
		t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
			if budget > 0 {
				defer table.SetMergeReadBudget(budget)()
			}
			compactForeign(t)
		})
	}
}

// foreignVariants are files as pyarrow writes them: unsorted with
// duplicates, every codec, v1 and v2 pages, without page index or
// sorting_columns, missing an optional column, row groups of few rows.
func foreignVariants(base int64) []foreignFile {
	return []foreignFile{
		{name: "snappy-v1-unsorted.parquet", rows: foreignRows(500, 7, base, 1, false),
			options: map[string]any{"compression": "snappy", "data_page_version": "1.0", "data_page_size": 1024}},
		{name: "zstd-v2-delta-nomem.parquet", rows: foreignRows(400, 3, base, 2, true), noMem: true,
			options: map[string]any{"compression": "zstd", "data_page_version": "2.0", "use_dictionary": false, "row_group_size": 150,
				"column_encoding": map[string]string{"ts": "DELTA_BINARY_PACKED", "_ingest_ts": "DELTA_BINARY_PACKED", "host": "DELTA_BYTE_ARRAY",
					"region": "DELTA_LENGTH_BYTE_ARRAY", "cpu": "BYTE_STREAM_SPLIT"}}},
		{name: "lz4-fallback-rowgroups.parquet", rows: foreignRows(600, 11, base, 3, false),
			options: map[string]any{"compression": "lz4", "row_group_size": 64, "data_page_size": 256, "dictionary_pagesize_limit": 64}},
		{name: "gzip-v1-plaindict.parquet", rows: foreignRows(300, 5, base, 4, false),
			options: map[string]any{"compression": "gzip", "data_page_version": "1.0", "version": "1.0"}},
		{name: "none-sorted-pageindex.parquet", rows: foreignRows(350, 4, base, 5, true), sorting: true, noMem: true,
			options: map[string]any{"compression": "none", "write_page_index": true, "data_page_size": 512, "row_group_size": 100}},
		{name: "snappy-v1-sorted-noindex.parquet", rows: foreignRows(450, 6, base, 7, true), sorting: true,
			options: map[string]any{"compression": "snappy", "data_page_version": "1.0", "data_page_size": 600, "row_group_size": 120}},
		{name: "none-v1-sorted-noindex-big.parquet", rows: foreignRows(5000, 9, base, 8, true), sorting: true,
			options: map[string]any{"compression": "none", "data_page_version": "1.0", "use_dictionary": false, "row_group_size": 1500}},
		{name: "snappy-claims-sorted.parquet", rows: foreignRows(200, 6, base, 6, false), sorting: true,
			options: map[string]any{"compression": "snappy"}},
	}
}

func compactForeign(t *testing.T) {
	dir, st, tb := foreignTable(t, nil)
	before := scan(t, st, tb)
	var base int64
	for _, v := range before.ingest {
		base = v
	}
	part := tb.Schema().PartitionName() + "=" + day1.Format("2006-01-02")
	p := int32(day1.Unix() / 86400)
	files := foreignVariants(base)
	commitForeign(t, st, tb, p, writeForeign(t, dir, part, files))
	want := withForeign(before, files)

	tb = reopen(t, st)
	res, err := tb.Maintain(context.Background(), table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatalf("Maintain: %v (plan %q)", err, res.Plan)
	}
	if res.Merges != 1 || res.FilesRead != 2+len(files) || res.MergesSkipped != 0 {
		t.Fatalf("merges %d, files read %d, skipped %d; plan %q", res.Merges, res.FilesRead, res.MergesSkipped, res.Plan)
	}
	got := scan(t, st, tb)
	sameRows(t, "after compaction", want, got)
	if got.stored != int64(len(want.rows)) || res.RowsAfter != int64(len(want.rows)) {
		t.Errorf("stored %d rows (result says %d), want exactly the %d deduplicated", got.stored, res.RowsAfter, len(want.rows))
	}
	checkOutputsSorted(t, st, tb)
	// and the outputs are ours: a second run finds nothing to do
	if res, err := tb.Maintain(context.Background(), table.MaintainOptions{Compact: true}); err != nil || res.Merges != 0 {
		t.Fatalf("second run: %v, %d merges", err, res.Merges)
	}
}

// checkOutputsSorted reads every live file and checks its keys increase.
func checkOutputsSorted(t *testing.T, st *dirstore.Store, tb *table.Table) {
	t.Helper()
	ctx := context.Background()
	files, err := tb.DataFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sch := tb.Schema()
	for _, df := range files {
		data, err := st.Get(ctx, strings.TrimPrefix(df.Path, tb.Metadata().Location+"/"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquet.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		prevHost, prevTS := "", int64(0)
		for rg := range f.NumRowGroups() {
			h, _ := f.ReadColumn(rg, sch.Series[0])
			ts, _ := f.ReadColumn(rg, sch.Time)
			for r := range h.Strs {
				if h.Strs[r] < prevHost || h.Strs[r] == prevHost && ts.Ints[r] <= prevTS {
					t.Fatalf("%s: row %d out of order", df.Path, r)
				}
				prevHost, prevTS = h.Strs[r], ts.Ints[r]
			}
		}
	}
}

// Files without field ids: UNSUPPORTED_TABLE naming the file, unless the
// table has schema.name-mapping.default.
func TestCompactForeignWithoutFieldIDs(t *testing.T) {
	mapping := `[{"field-id":1,"names":["ts"]},{"field-id":2,"names":["host"]},{"field-id":3,"names":["region"]},` +
		`{"field-id":4,"names":["cpu"]},{"field-id":5,"names":["mem"]},{"field-id":6,"names":["_ingest_ts"]}]`
	for _, withMapping := range []bool{false, true} {
		t.Run(fmt.Sprintf("mapping=%v", withMapping), func(t *testing.T) {
			props := map[string]string{}
			if withMapping {
				props["schema.name-mapping.default"] = mapping
			}
			dir, st, tb := foreignTable(t, props)
			before := scan(t, st, tb)
			var base int64
			for _, v := range before.ingest {
				base = v
			}
			part := tb.Schema().PartitionName() + "=" + day1.Format("2006-01-02")
			files := []foreignFile{{name: "no-ids.parquet", rows: foreignRows(200, 5, base, 1, false), noIDs: true,
				options: map[string]any{"compression": "snappy"}}}
			commitForeign(t, st, tb, int32(day1.Unix()/86400), writeForeign(t, dir, part, files))
			tb = reopen(t, st)
			res, err := tb.Maintain(context.Background(), table.MaintainOptions{Compact: true})
			if !withMapping {
				if table.Code(err) != "UNSUPPORTED_TABLE" || !strings.Contains(err.Error(), "no-ids.parquet") || !errors.Is(err, table.ErrUnsupportedTable) {
					t.Fatalf("got %v (%s), want UNSUPPORTED_TABLE naming the file", err, table.Code(err))
				}
				return
			}
			if err != nil || res.Merges != 1 {
				t.Fatalf("Maintain: %v, %d merges", err, res.Merges)
			}
			sameRows(t, "after compaction", withForeign(before, files), scan(t, st, tb))
		})
	}
}

// An unsorted file too large to sort under the byte cap leaves its
// partition alone, and the result says so.
func TestCompactForeignTooLargeToSort(t *testing.T) {
	dir, st, tb := foreignTable(t, map[string]string{maintenance.PropByteCap: "200KiB"})
	before := scan(t, st, tb)
	part := tb.Schema().PartitionName() + "=" + day1.Format("2006-01-02")
	files := []foreignFile{{name: "big-unsorted.parquet", rows: foreignRows(3000, 5, 1, 1, false),
		options: map[string]any{"compression": "snappy"}}}
	commitForeign(t, st, tb, int32(day1.Unix()/86400), writeForeign(t, dir, part, files))
	tb = reopen(t, st)
	v := tb.Version()
	res, err := tb.Maintain(context.Background(), table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatalf("Maintain: %v", err)
	}
	if res.MergesSkipped != 1 || res.Merges != 0 || tb.Version() != v {
		t.Fatalf("skipped %d, merges %d, version %d → %d; plan %q", res.MergesSkipped, res.Merges, v, tb.Version(), res.Plan)
	}
	if !strings.Contains(strings.Join(res.Plan, "\n"), "big-unsorted.parquet is not sorted") {
		t.Errorf("plan does not name the file: %q", res.Plan)
	}
	if df, err := tb.DataFiles(context.Background()); err != nil || len(df) != before.files+1 {
		t.Errorf("%d data files (%v), want the %d there were", len(df), err, before.files+1)
	}
}

// A codec Timelake does not read is UNSUPPORTED_TABLE naming the file, the
// column and the codec; nothing is committed.
func TestCompactForeignUnsupportedCodec(t *testing.T) {
	dir, st, tb := foreignTable(t, nil)
	part := tb.Schema().PartitionName() + "=" + day1.Format("2006-01-02")
	files := []foreignFile{{name: "brotli.parquet", rows: foreignRows(100, 5, 1, 1, false), options: map[string]any{"compression": "brotli"}}}
	commitForeign(t, st, tb, int32(day1.Unix()/86400), writeForeign(t, dir, part, files))
	tb = reopen(t, st)
	v := tb.Version()
	_, err := tb.Maintain(context.Background(), table.MaintainOptions{Compact: true})
	if table.Code(err) != "UNSUPPORTED_TABLE" || !strings.Contains(err.Error(), "brotli.parquet") || !strings.Contains(err.Error(), "BROTLI") {
		t.Fatalf("got %v (%s), want UNSUPPORTED_TABLE naming the file and codec", err, table.Code(err))
	}
	if tb.Version() != v {
		t.Errorf("version %d → %d", v, tb.Version())
	}
}

// Unsorted inputs are sorted in memory together up to the limit; the rest
// wait for the next round, and the table still ends exactly deduplicated.
func TestCompactForeignDeferred(t *testing.T) {
	dir, st, tb := foreignTable(t, map[string]string{maintenance.PropByteCap: "300KiB"})
	before := scan(t, st, tb)
	var base int64
	for _, v := range before.ingest {
		base = v
	}
	part := tb.Schema().PartitionName() + "=" + day1.Format("2006-01-02")
	var files []foreignFile
	for k := range 5 {
		files = append(files, foreignFile{name: fmt.Sprintf("unsorted-%d.parquet", k), rows: foreignRows(600, 4+k, base, int64(k+1), false),
			options: map[string]any{"compression": "snappy"}})
	}
	// Their _ingest_ts is counted (no nulls): a merge need not take the
	// whole partition, so inputs may wait (a whole-partition merge is left
	// alone instead: TestCompactForeignWholeTooLargeToSort).
	commitForeignCounted(t, st, tb, int32(day1.Unix()/86400), writeForeign(t, dir, part, files), true)
	tb = reopen(t, st)
	deferredLines := 0
	for run := 0; run < 6; run++ {
		res, err := tb.Maintain(context.Background(), table.MaintainOptions{Compact: true})
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		for _, l := range res.Plan {
			if strings.Contains(l, "left for the next round") {
				deferredLines++
			}
		}
		if res.Merges == 0 {
			break
		}
	}
	if deferredLines == 0 {
		t.Error("no input was deferred: the test does not test it")
	}
	want := withForeign(before, files)
	got := scan(t, st, tb)
	sameRows(t, "after compaction", want, got)
	if got.stored != int64(len(want.rows)) || got.files != 1 {
		t.Errorf("%d rows in %d files, want the %d deduplicated in one", got.stored, got.files, len(want.rows))
	}
}

// A merge that must take its whole partition (entries that do not say
// _ingest_ts has no nulls: rows without it rank by sequence number, so
// merging part of the partition could reorder them) cannot leave inputs for
// the next round: when its unsorted inputs do not fit in memory together,
// the partition is left alone, unchanged, and the result says so.
func TestCompactForeignWholeTooLargeToSort(t *testing.T) {
	dir, st, tb := foreignTable(t, map[string]string{maintenance.PropByteCap: "300KiB"})
	var base int64
	for _, v := range scan(t, st, tb).ingest {
		base = v
	}
	part := tb.Schema().PartitionName() + "=" + day1.Format("2006-01-02")
	var files []foreignFile
	for k := range 5 {
		files = append(files, foreignFile{name: fmt.Sprintf("unsorted-%d.parquet", k), rows: foreignRows(600, 4+k, base, int64(k+1), false),
			options: map[string]any{"compression": "snappy"}})
	}
	commitForeign(t, st, tb, int32(day1.Unix()/86400), writeForeign(t, dir, part, files))
	tb = reopen(t, st)
	paths := func() []string {
		files, err := tb.DataFiles(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range files {
			out = append(out, f.Path)
		}
		slices.Sort(out)
		return out
	}
	before := paths()
	res, err := tb.Maintain(context.Background(), table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	alone := false
	for _, l := range res.Plan {
		alone = alone || strings.Contains(l, "alone")
		if strings.Contains(l, "left for the next round") {
			t.Errorf("a whole-partition merge deferred inputs: %q", l)
		}
	}
	if res.MergesSkipped == 0 || !alone || res.Merges != 0 {
		t.Errorf("maintain = merges %d, skipped %d, plan %q; want the partition left alone", res.Merges, res.MergesSkipped, res.Plan)
	}
	if after := paths(); !slices.Equal(after, before) {
		t.Errorf("data files after %q, before %q: the partition changed", after, before)
	}
}
