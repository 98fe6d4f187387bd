package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/table"
)

// model is what the table should hold: rows by key, as outside readers see
// them (deduplicated within each append; keys never repeat across appends
// here, since outside readers do not apply Timelake's cross-append rule).
type model struct {
	rows map[string]modelRow
}

type modelRow struct {
	ts    int64
	host  string
	shard int64
	cpu   *float64
	mem   int64
}

func (m *model) summary(r *interoptest.TimeRange) interoptest.Summary {
	rows := make([]interoptest.Row, 0, len(m.rows))
	for _, row := range m.rows {
		rows = append(rows, interoptest.Row{TimeUS: row.ts, Series: fmt.Sprintf("%s/%d", row.host, row.shard), CPU: row.cpu, Mem: &row.mem})
	}
	return interoptest.Expect(rows, r)
}

// interopFields are the value columns of interopSchema (and noIngestSchema).
var interopFields = []schema.Field{
	{Name: "shard", Type: schema.Long, Required: true},
	{Name: "cpu", Type: schema.Double},
	{Name: "mem", Type: schema.Long, Required: true},
	{Name: "note", Type: schema.String},
}

func interopSchema(t *testing.T) *schema.Table {
	s, err := schema.New("ts", []string{"host", "shard"}, interopFields, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOutsideReaders appends four batches (with duplicate keys and nulls,
// across three days) and has iceberg-go, DuckDB and pyiceberg read every
// version: full scans and a one-day scan whose planned files prove pruning.
func TestOutsideReaders(t *testing.T) {
	if testing.Short() {
		t.Skip("outside readers: skipped with -short")
	}
	readers := interoptest.Readers(t)
	ctx := context.Background()
	dir, _, tb := dirTable(t, testenv.New(1), interopSchema(t), nil)
	rnd := rand.New(rand.NewPCG(1, 2))
	m := &model{rows: map[string]modelRow{}}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	var models []map[string]modelRow // per version, v1 (empty) first
	models = append(models, map[string]modelRow{})
	sizes := []int{500, 20000, 3000, 1200}
	for k, n := range sizes {
		ms := make([]map[string]any, 0, n+n/10)
		batchRows := map[string]modelRow{}
		for i := range n {
			// Times spread over three days (the big append in the second day
			// alone, so one file passes a page); second k keeps appends' keys apart.
			minute := rnd.IntN(3 * 24 * 60)
			if k == 1 {
				minute = 24*60 + rnd.IntN(24*60)
			}
			ts := day.Add(time.Duration(minute)*time.Minute + time.Duration(k)*time.Second)
			row := modelRow{ts: ts.UnixMicro(), host: fmt.Sprintf("host-%02d", rnd.IntN(25)), shard: int64(rnd.IntN(3)), mem: rnd.Int64N(1 << 50)}
			if rnd.IntN(10) > 0 {
				c := float64(rnd.IntN(100000)) / 7
				row.cpu = &c
			}
			vals := map[string]any{"ts": ts, "host": row.host, "shard": row.shard, "mem": row.mem, "note": "n" + strconv.Itoa(i%5)}
			if row.cpu != nil {
				vals["cpu"] = *row.cpu
			}
			ms = append(ms, vals)
			batchRows[fmt.Sprintf("%s/%d/%d", row.host, row.shard, row.ts)] = row // the last row for a key wins
		}
		b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := tb.Append(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		if res.Rows != len(batchRows) {
			t.Fatalf("append %d wrote %d rows, want %d after deduplication", k, res.Rows, len(batchRows))
		}
		for key, r := range batchRows {
			m.rows[key] = r
		}
		models = append(models, maps(m.rows))
	}

	var paths []string
	for v := 1; v <= tb.Version(); v++ {
		paths = append(paths, filepath.Join(dir, commit.MetadataKey(v)))
	}
	// The one-day range and the files a pruning reader must plan for it.
	from := day.Add(24 * time.Hour).UnixMicro()
	rng := &interoptest.TimeRange{FromUS: from, ToUS: from + 24*3600*1e6}
	files, err := tb.DataFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dayFiles := 0
	for _, f := range files {
		if f.Partition == tb.Schema().Partition.Apply(from) {
			dayFiles++
		}
	}
	q := interoptest.Query{Time: "ts", Series: []string{"host", "shard"}, Sums: []string{"cpu", "mem"}}
	for _, r := range readers {
		got := interoptest.SummarizeVersions(t, r, paths, q)
		for v, g := range got {
			want := (&model{rows: models[v]}).summary(nil)
			interoptest.ExpectSame(t, fmt.Sprintf("%s, version %d, full scan", r, v+1), want, g)
		}
		qr := q
		qr.Range = rng
		last := interoptest.Summarize(t, r, paths[len(paths)-1], qr)
		want := m.summary(rng)
		want.PlannedFiles = int64(dayFiles)
		interoptest.ExpectSame(t, fmt.Sprintf("%s, latest version, one day", r), want, last)
	}
	checkFileBytes(t, dir, tb)
	checkDuckDBDirectory(t, dir, m.summary(nil).Rows)
}

// checkDuckDBDirectory reads the table by its directory, as DuckDB finds a
// file-based table: through metadata/version-hint.text.
func checkDuckDBDirectory(t *testing.T, dir string, wantRows int64) {
	t.Helper()
	if strings.Contains(os.Getenv(interoptest.SkipEnv), "duckdb") {
		t.Log("duckdb skipped by " + interoptest.SkipEnv)
		return
	}
	script := `import duckdb, site, sys
d = site.getsitepackages()[0] + '/duckdb_ext/extensions/v1.4.4/linux_amd64/'
c = duckdb.connect(config={'allow_unsigned_extensions': 'true', 'autoinstall_known_extensions': 'false'})
for e in ['avro', 'iceberg']:
    c.execute(f"LOAD '{d}{e}.duckdb_extension'")
print(c.execute("select count(*) from iceberg_scan(?)", [sys.argv[1]]).fetchone()[0])`
	out, err := exec.Command(interoptest.Python(t), "-c", script, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb on the table directory: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != strconv.FormatInt(wantRows, 10) {
		t.Errorf("duckdb iceberg_scan(directory) = %s rows, want %d", got, wantRows)
	}
}

func maps(m map[string]modelRow) map[string]modelRow {
	out := make(map[string]modelRow, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// checkFileBytes reads our files with the independent byte-level readers:
// Avro header keys and field ids of manifests and manifest lists, and the
// Parquet settings every data file promises.
func checkFileBytes(t *testing.T, dir string, tb *table.Table) {
	t.Helper()
	ctx := context.Background()
	snap := tb.Metadata().CurrentSnapshot()
	listPath := strings.TrimPrefix(snap.ManifestList, "file://")
	list := interoptest.ReadAvroMeta(t, listPath)
	for _, k := range []string{"format-version", "snapshot-id", "parent-snapshot-id", "sequence-number"} {
		if list.Metadata[k] == "" {
			t.Errorf("manifest list header lacks %q: %v", k, list.Metadata)
		}
	}
	if list.Metadata["format-version"] != "2" {
		t.Errorf("manifest list format-version = %q, want 2", list.Metadata["format-version"])
	}
	manifests, _ := filepath.Glob(filepath.Join(dir, "metadata", "*-m0.avro"))
	if len(manifests) == 0 {
		t.Fatal("no manifests")
	}
	man := interoptest.ReadAvroMeta(t, manifests[0])
	for _, k := range []string{"schema", "schema-id", "partition-spec", "partition-spec-id", "format-version", "content"} {
		if man.Metadata[k] == "" {
			t.Errorf("manifest header lacks %q", k)
		}
	}
	if man.Metadata["content"] != "data" || man.Metadata["format-version"] != "2" {
		t.Errorf("manifest content/format-version = %q/%q", man.Metadata["content"], man.Metadata["format-version"])
	}
	var spec []map[string]any
	if err := json.Unmarshal([]byte(man.Metadata["partition-spec"]), &spec); err != nil || len(spec) != 1 || spec[0]["field-id"] != float64(1000) {
		t.Errorf("manifest partition-spec = %s (%v), want the fields array with field-id 1000", man.Metadata["partition-spec"], err)
	}
	// Field ids in the manifest entry schema, as the spec numbers them.
	ids := fieldIDs(man.Schema)
	for _, want := range []int{0, 1, 2, 3, 4, 100, 101, 102, 103, 104, 108, 109, 110, 125, 128, 132, 134, 137, 140, 1000} {
		if !slices.Contains(ids, want) {
			t.Errorf("manifest schema lacks field-id %d", want)
		}
	}
	ids = fieldIDs(list.Schema)
	for _, want := range []int{500, 501, 502, 503, 504, 505, 506, 507, 508, 509, 510, 511, 512, 513, 514, 515, 516, 517, 518} {
		if !slices.Contains(ids, want) {
			t.Errorf("manifest list schema lacks field-id %d", want)
		}
	}

	// The biggest data file has more than 8,192 rows in one partition.
	files, err := tb.DataFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	big := files[0]
	for _, f := range files {
		if f.RecordCount > big.RecordCount {
			big = f
		}
	}
	if big.RecordCount <= 8192 {
		t.Fatalf("largest file has %d rows; the test needs one past a page", big.RecordCount)
	}
	pm := interoptest.ReadParquetMeta(t, strings.TrimPrefix(big.Path, "file://"))
	wantIDs := map[string]int{}
	for _, f := range tb.Schema().Fields {
		wantIDs[f.Name] = f.ID
	}
	for _, el := range pm.Schema {
		if el.Type == "" {
			continue
		}
		if el.FieldID == nil || *el.FieldID != wantIDs[el.Name] {
			t.Errorf("parquet column %s field_id = %v, want %d", el.Name, el.FieldID, wantIDs[el.Name])
		}
		if el.Name == "ts" && (!strings.Contains(el.LogicalType, "isAdjustedToUTC=1") || !strings.Contains(el.LogicalType, "MICROS")) {
			t.Errorf("ts logical type = %s, want TIMESTAMP(MICROS, isAdjustedToUTC)", el.LogicalType)
		}
	}
	for _, c := range pm.Columns {
		if c.Compression != "ZSTD" {
			t.Errorf("column %s compression = %s, want ZSTD", c.PathInSchema, c.Compression)
		}
		want := map[string]string{"ts": "DELTA_BINARY_PACKED", "shard": "DELTA_BINARY_PACKED", "mem": "DELTA_BINARY_PACKED",
			"_ingest_ts": "DELTA_BINARY_PACKED", "host": "RLE_DICTIONARY", "note": "RLE_DICTIONARY"}[c.PathInSchema]
		if want != "" && !strings.Contains(c.Encodings, want) {
			t.Errorf("column %s encodings = %s, want %s", c.PathInSchema, c.Encodings, want)
		}
	}
	for _, ch := range pm.Chunks {
		if !ch.HasColumnIndex || !ch.HasOffsetIndex {
			t.Errorf("chunk %s lacks a page index (column %v, offset %v)", ch.Path, ch.HasColumnIndex, ch.HasOffsetIndex)
		}
		for i, n := range ch.OffsetIndexRows {
			if i < len(ch.OffsetIndexRows)-1 && n != 8192 {
				t.Errorf("chunk %s page %d has %d rows, want 8192", ch.Path, i, n)
			}
		}
		for _, p := range ch.Pages {
			if p.Type == "DATA_PAGE" {
				t.Errorf("chunk %s has a v1 data page; v2 pages are the default", ch.Path)
			}
		}
	}
	if len(pm.SortingColumns) == 0 || len(pm.SortingColumns[0]) != 3 {
		t.Errorf("sorting_columns = %v, want host, shard, ts", pm.SortingColumns)
	} else if sc := pm.SortingColumns[0]; sc[0].Column != 1 || sc[1].Column != 2 || sc[2].Column != 0 {
		t.Errorf("sorting_columns = %+v, want columns 1, 2, 0", sc)
	}
}

// fieldIDs collects every "field-id" (and element-id) in an Avro schema.
func fieldIDs(raw json.RawMessage) []int {
	var ids []int
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if (k == "field-id" || k == "element-id") && e != nil {
					if f, ok := e.(float64); ok {
						ids = append(ids, int(f))
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	var v any
	_ = json.Unmarshal(raw, &v)
	walk(v)
	return ids
}
