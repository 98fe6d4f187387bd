package iceberg

// Outside checks: DuckDB and pyiceberg read what this package writes, and
// this package reads what pyiceberg writes. They need the venv of
// scripts/pyenv.sh and are skipped without it (or with -short).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/timelake/timelake/schema"
)

func python(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("interop: skipped with -short")
	}
	py, err := filepath.Abs(filepath.Join("..", ".venv", "bin", "python"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(py); err != nil {
		t.Skip("interop: no venv; run `bash scripts/pyenv.sh` first")
	}
	return py
}

// runPy runs testdata/interop/<script> with args and stdin, decoding its JSON output into out.
func runPy(t *testing.T, py, script string, stdin []byte, out any, args ...string) {
	t.Helper()
	cmd := exec.Command(py, append([]string{script}, args...)...)
	cmd.Dir = filepath.Join("testdata", "interop")
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("%s: output %q: %v", script, stdout, err)
	}
}

type interopRow struct {
	TS     int64    `json:"ts"`
	Host   string   `json:"host"`
	CPU    *float64 `json:"cpu"`
	Mem    *int64   `json:"mem"`
	OK     *bool    `json:"ok"`
	Ingest int64    `json:"_ingest_ts"`
}

func ptr[T any](v T) *T { return &v }

// interopFiles are two days of rows, one Parquet file per day.
func interopFiles(dir string) []struct {
	Path string       `json:"path"`
	Rows []interopRow `json:"rows"`
} {
	day := func(d int) int64 { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC).UnixMicro() }
	ing := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	long := "host-with-a-name-longer-than-sixteen-code-points"
	return []struct {
		Path string       `json:"path"`
		Rows []interopRow `json:"rows"`
	}{
		{dir + "/data/ts_day=2026-11-29/00000-a.parquet", []interopRow{
			{day(29) + 1, "a", ptr(0.5), ptr(int64(-3)), ptr(true), ing},
			{day(29) + 3600e6, "a", nil, ptr(int64(7)), nil, ing},
			{day(29) + 5, long, ptr(99.5), nil, ptr(false), ing},
		}},
		{dir + "/data/ts_day=2026-11-30/00001-b.parquet", []interopRow{
			{day(30), "b", ptr(1.0), ptr(int64(1 << 40)), ptr(true), ing},
			{day(30) + 86399e6, "c", ptr(-2.0), ptr(int64(0)), ptr(false), ing},
		}},
	}
}

// dataFileFor computes the data_file entry of rows the way the Parquet
// writer will: counts, nulls and bounds per column.
func dataFileFor(path string, size int64, rows []interopRow) DataFile {
	f := DataFile{Content: ContentData, Path: path, Format: FormatParquet, RecordCount: int64(len(rows)), FileSize: size,
		ValueCounts: map[int32]int64{}, NullCounts: map[int32]int64{}, NaNCounts: map[int32]int64{3: 0},
		Lower: map[int32][]byte{}, Upper: map[int32][]byte{}, SplitOffsets: []int64{4}, SortOrderID: int32p(schema.SortOrderID)}
	for id := int32(1); id <= 6; id++ {
		f.ValueCounts[id] = int64(len(rows))
		f.NullCounts[id] = 0
	}
	ts, ing, hosts := []int64{}, []int64{}, []string{}
	var cpus []float64
	var mems []int64
	var oks []bool
	for _, r := range rows {
		ts, ing, hosts = append(ts, r.TS), append(ing, r.Ingest), append(hosts, r.Host)
		if r.CPU == nil {
			f.NullCounts[3]++
		} else {
			cpus = append(cpus, *r.CPU)
		}
		if r.Mem == nil {
			f.NullCounts[4]++
		} else {
			mems = append(mems, *r.Mem)
		}
		if r.OK == nil {
			f.NullCounts[5]++
		} else {
			oks = append(oks, *r.OK)
		}
	}
	f.Partition = schema.Day.Apply(slices.Min(ts))
	f.Lower[1], f.Upper[1] = EncodeLong(slices.Min(ts)), EncodeLong(slices.Max(ts))
	f.Lower[2] = StringLowerBound(slices.Min(hosts))
	if up, ok := StringUpperBound(slices.Max(hosts)); ok {
		f.Upper[2] = up
	}
	if len(cpus) > 0 {
		f.Lower[3], f.Upper[3] = EncodeDouble(slices.Min(cpus)), EncodeDouble(slices.Max(cpus))
	}
	if len(mems) > 0 {
		f.Lower[4], f.Upper[4] = EncodeLong(slices.Min(mems)), EncodeLong(slices.Max(mems))
	}
	if len(oks) > 0 {
		f.Lower[5], f.Upper[5] = EncodeBool(!slices.Contains(oks, false)), EncodeBool(slices.Contains(oks, true))
	}
	f.Lower[6], f.Upper[6] = EncodeLong(slices.Min(ing)), EncodeLong(slices.Max(ing))
	return f
}

func writeFileT(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInteropOutsideReadersReadOurTable writes a two-file table (Parquet by
// pyarrow, everything else by this package) and reads it with pyiceberg and
// DuckDB, in its empty (v1) and appended (v2) states.
func TestInteropOutsideReadersReadOurTable(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	files := interopFiles(dir)
	in, _ := json.Marshal(files)
	var written []struct {
		Path string `json:"path"`
		Size int64  `json:"size"`
	}
	runPy(t, py, "write_parquet.py", in, &written)

	tbl := fixtureTable(t)
	const snap = int64(5826157720357011327)
	m := NewTableMetadata(tbl, fixtureUUID, dir, fixtureNowMs, nil)
	v1, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	writeFileT(t, dir+"/metadata/v1.metadata.json", v1)

	var entries []ManifestEntry
	var rows, size int64
	for i, f := range files {
		entries = append(entries, ManifestEntry{Status: StatusAdded, DataFile: dataFileFor(f.Path, written[i].Size, f.Rows)})
		rows += int64(len(f.Rows))
		size += written[i].Size
	}
	var man bytes.Buffer
	mf, err := WriteManifest(&man, m.Schemas[0], m.PartitionSpecs[0], entries, sync16(7))
	if err != nil {
		t.Fatal(err)
	}
	mf.ManifestPath = dir + "/metadata/6f1c-m0.avro"
	mf.Assign(snap, 1)
	writeFileT(t, mf.ManifestPath, man.Bytes())
	var list bytes.Buffer
	if err := WriteManifestList(&list, snap, nil, 1, []ManifestFile{mf}, sync16(9)); err != nil {
		t.Fatal(err)
	}
	listPath := dir + "/metadata/snap-" + strconv.FormatInt(snap, 10) + "-1-6f1c.avro"
	writeFileT(t, listPath, list.Bytes())

	m.Snapshots = []Snapshot{{SnapshotID: snap, SequenceNumber: 1, TimestampMs: fixtureNowMs + 1, ManifestList: listPath,
		Summary: map[string]string{"operation": "append", "added-data-files": "2", "added-records": strconv.FormatInt(rows, 10),
			"added-files-size": strconv.FormatInt(size, 10), "total-data-files": "2", "total-records": strconv.FormatInt(rows, 10),
			"total-files-size": strconv.FormatInt(size, 10), "total-delete-files": "0", "total-position-deletes": "0",
			"total-equality-deletes": "0"}, SchemaID: ptr(0)}}
	m.CurrentSnapshotID = ptr(snap)
	m.LastSequenceNumber = 1
	m.LastUpdatedMs = fixtureNowMs + 1
	m.SnapshotLog = []SnapshotLogEntry{{TimestampMs: fixtureNowMs + 1, SnapshotID: snap}}
	m.MetadataLog = []MetadataLogEntry{{TimestampMs: fixtureNowMs, MetadataFile: dir + "/metadata/v1.metadata.json"}}
	m.Refs = map[string]SnapshotRef{MainBranch: {SnapshotID: snap, Type: "branch"}}
	v2, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	writeFileT(t, dir+"/metadata/v2.metadata.json", v2)
	writeFileT(t, dir+"/metadata/version-hint.text", []byte("2"))

	var got struct {
		PyV1, PyV2, DuckV1, DuckV2 [][]any
		SnapshotID                 int64 `json:"snapshot_id"`
		List                       []map[string]any
		Entries                    []map[string]any
		DuckList, DuckManifest     [][]any
	}
	var raw map[string]json.RawMessage
	runPy(t, py, "read_table.py", nil, &raw, dir)
	for k, dst := range map[string]any{"pyiceberg_v1": &got.PyV1, "pyiceberg_v2": &got.PyV2, "duckdb_v1": &got.DuckV1,
		"duckdb_v2": &got.DuckV2, "snapshot_id": &got.SnapshotID, "pyiceberg_list": &got.List,
		"pyiceberg_entries": &got.Entries, "duckdb_list": &got.DuckList, "duckdb_manifest": &got.DuckManifest} {
		if err := json.Unmarshal(raw[k], dst); err != nil {
			t.Fatalf("%s: %v in %s", k, err, raw[k])
		}
	}

	// rows: [host, ts ISO, cpu, mem, ok], sorted, as both readers render them
	var want [][]any
	for _, f := range files {
		for _, r := range f.Rows {
			row := []any{r.Host, time.UnixMicro(r.TS).UTC().Format("2006-01-02T15:04:05.999999") + "+00:00", nil, nil, nil}
			if r.CPU != nil {
				row[2] = *r.CPU
			}
			if r.Mem != nil {
				row[3] = float64(*r.Mem)
			}
			if r.OK != nil {
				row[4] = *r.OK
			}
			want = append(want, row)
		}
	}
	slices.SortFunc(want, func(a, b []any) int { return cmpJSON(a, b) })
	for name, rows := range map[string][][]any{"pyiceberg": got.PyV2, "duckdb": got.DuckV2} {
		if !reflect.DeepEqual(normTimes(rows), want) {
			t.Errorf("%s rows of v2:\n got %v\nwant %v", name, rows, want)
		}
	}
	if len(got.PyV1) != 0 || len(got.DuckV1) != 0 {
		t.Errorf("empty table v1: pyiceberg %v, duckdb %v, want no rows", got.PyV1, got.DuckV1)
	}
	if got.SnapshotID != snap {
		t.Errorf("pyiceberg current snapshot: got %d, want %d", got.SnapshotID, snap)
	}

	// the manifest list as pyiceberg reads it
	if len(got.List) != 1 {
		t.Fatalf("pyiceberg manifest list: got %v", got.List)
	}
	l := got.List[0]
	for k, want := range map[string]any{"path": mf.ManifestPath, "length": float64(mf.ManifestLength), "spec_id": 0.0,
		"content": 0.0, "seq": 1.0, "min_seq": 1.0, "added_snapshot_id": float64(snap), "added_files": 2.0,
		"existing_files": 0.0, "deleted_files": 0.0, "added_rows": float64(rows),
		"partitions": []any{[]any{false, false, hexOf(EncodeInt(entries[0].DataFile.Partition)), hexOf(EncodeInt(entries[1].DataFile.Partition))}}} {
		if !reflect.DeepEqual(l[k], want) {
			t.Errorf("pyiceberg manifest list %s: got %v, want %v", k, l[k], want)
		}
	}
	// the manifest entries, with inherited snapshot id and sequence numbers
	if len(got.Entries) != 2 {
		t.Fatalf("pyiceberg entries: got %d, want 2", len(got.Entries))
	}
	for i, e := range got.Entries {
		f := entries[i].DataFile
		for k, want := range map[string]any{"status": 1.0, "snapshot_id": float64(snap), "seq": 1.0, "file_seq": 1.0,
			"path": f.Path, "format": "PARQUET", "partition": float64(f.Partition), "records": float64(f.RecordCount),
			"size": float64(f.FileSize), "sort_order_id": 1.0, "split_offsets": []any{4.0},
			"lower": hexMap(f.Lower), "upper": hexMap(f.Upper), "null_counts": numMap(f.NullCounts)} {
			if !reflect.DeepEqual(e[k], want) {
				t.Errorf("pyiceberg entry %d %s: got %v, want %v", i, k, e[k], want)
			}
		}
	}
	// DuckDB's read_avro on the raw files: nulls where inheritance applies
	if want := [][]any{{mf.ManifestPath, float64(snap), 1.0, 2.0}}; !reflect.DeepEqual(got.DuckList, want) {
		t.Errorf("duckdb read_avro(manifest list): got %v, want %v", got.DuckList, want)
	}
	if len(got.DuckManifest) != 2 || got.DuckManifest[0][1] != nil || got.DuckManifest[0][2] != nil ||
		got.DuckManifest[0][3] != entries[0].DataFile.Path || got.DuckManifest[1][4] != 2.0 {
		t.Errorf("duckdb read_avro(manifest): got %v", got.DuckManifest)
	}
}

// TestInteropReadPyicebergTable reads a table pyiceberg wrote: metadata,
// manifest list and manifests, and compares with what pyiceberg plans. With
// -update it also refreshes testdata/pyiceberg/, the committed copies used
// by TestReadCommittedPyicebergFiles and as fuzz seeds.
func TestInteropReadPyicebergTable(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	var want struct {
		Metadata string
		Files    []struct {
			Path    string
			Records int64
		}
	}
	runPy(t, py, "pyiceberg_write.py", nil, &want, dir)
	data, err := os.ReadFile(want.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseMetadata(data)
	if err != nil {
		t.Fatalf("pyiceberg metadata: %v", err)
	}
	snap := m.CurrentSnapshot()
	if snap == nil || len(m.Snapshots) != 2 || snap.Summary["operation"] != "append" {
		t.Fatalf("pyiceberg metadata: got snapshots %+v", m.Snapshots)
	}
	listData, err := os.ReadFile(trimFileScheme(snap.ManifestList))
	if err != nil {
		t.Fatal(err)
	}
	list, err := ReadManifestList(listData, snap.ManifestList)
	if err != nil {
		t.Fatal(err)
	}
	if list.SnapshotID != snap.SnapshotID || list.SequenceNumber != snap.SequenceNumber || list.ParentSnapshotID == nil {
		t.Errorf("list header: got %+v, want snapshot %d seq %d with a parent", list, snap.SnapshotID, snap.SequenceNumber)
	}
	type file struct {
		Path    string
		Records int64
	}
	var got []file
	for _, mf := range list.Files {
		md, err := os.ReadFile(trimFileScheme(mf.ManifestPath))
		if err != nil {
			t.Fatal(err)
		}
		man, err := ReadManifest(md, mf)
		if err != nil {
			t.Fatal(err)
		}
		if man.Spec.Fields[0].Transform != "day" || man.Schema.Fields[0].Name != "ts" {
			t.Errorf("manifest header: spec %+v schema %+v", man.Spec, man.Schema.Fields)
		}
		for _, e := range man.Entries {
			if e.SnapshotID != mf.AddedSnapshotID || e.SequenceNumber != mf.SequenceNumber {
				t.Errorf("entry %s: snapshot %d seq %d, want %d %d", e.DataFile.Path, e.SnapshotID, e.SequenceNumber, mf.AddedSnapshotID, mf.SequenceNumber)
			}
			lo, err := DecodeValue(schema.Timestamptz, e.DataFile.Lower[1])
			if err != nil || schema.Day.Apply(lo.(int64)) != e.DataFile.Partition {
				t.Errorf("entry %s: ts lower bound %v (%v) not in partition %d", e.DataFile.Path, lo, err, e.DataFile.Partition)
			}
			got = append(got, file{e.DataFile.Path, e.DataFile.RecordCount})
		}
		if *update {
			writeFileT(t, filepath.Join("testdata", "pyiceberg", fmt.Sprintf("manifest-%d.avro", mf.SequenceNumber)), md)
		}
	}
	slices.SortFunc(got, func(a, b file) int { return cmpJSON(a.Path, b.Path) })
	wantFiles := make([]file, len(want.Files))
	for i, f := range want.Files {
		wantFiles[i] = file{f.Path, f.Records}
	}
	if !reflect.DeepEqual(got, wantFiles) {
		t.Errorf("data files:\n got %v\nwant %v", got, wantFiles)
	}
	if *update {
		writeFileT(t, filepath.Join("testdata", "pyiceberg", "manifest-list.avro"), listData)
		writeFileT(t, filepath.Join("testdata", "pyiceberg", "metadata.json"), data)
	}
}

func trimFileScheme(p string) string {
	if len(p) > 7 && p[:7] == "file://" {
		return p[7:]
	}
	return p
}

func hexOf(b []byte) string { return fmt.Sprintf("%x", b) }

func hexMap(m map[int32][]byte) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[strconv.Itoa(int(k))] = hexOf(v)
	}
	return out
}

func numMap(m map[int32]int64) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[strconv.Itoa(int(k))] = float64(v)
	}
	return out
}

func cmpJSON(a, b any) int {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Compare(x, y)
}

// normTimes leaves rows as they are; DuckDB and pyiceberg both render
// timestamptz as ISO-8601 with +00:00, checked by the comparison.
func normTimes(rows [][]any) [][]any {
	for _, r := range rows {
		if f, ok := r[3].(float64); ok && f == math.Trunc(f) {
			r[3] = f
		}
	}
	return rows
}
