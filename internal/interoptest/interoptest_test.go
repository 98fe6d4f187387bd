package interoptest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// refTable is the output of interop/maketable.py: a table written by
// pyiceberg, and per version what pyarrow computed from the rows appended.
type refTable struct {
	Time         string   `json:"time"`
	Series       []string `json:"series"`
	Sums         []string `json:"sums"`
	FromUS       int64    `json:"from_us"` // one whole day
	ToUS         int64    `json:"to_us"`
	BoundsFromUS int64    `json:"bounds_from_us"` // one hour where only column bounds prune
	BoundsToUS   int64    `json:"bounds_to_us"`
	Versions     []struct {
		Metadata         string  `json:"metadata"`
		Files            int     `json:"files"`
		Expected         Summary `json:"expected"`
		ExpectedFiltered Summary `json:"expected_filtered"`
		ExpectedBounds   Summary `json:"expected_bounds"`
	} `json:"versions"`
}

// makeRefTable runs maketable.py; with plainPaths the table's locations are
// absolute paths instead of file:// URIs.
func makeRefTable(t testing.TB, plainPaths bool) refTable {
	t.Helper()
	args := []string{filepath.Join(Root(), "interop", "maketable.py"), t.TempDir()}
	if plainPaths {
		args = append(args, "--plain-paths")
	}
	cmd := exec.Command(Python(t), args...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("maketable.py: %v\n%s", err, stderrOf(err))
	}
	var ref refTable
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatalf("maketable.py output: %v\n%s", err, out)
	}
	if len(ref.Versions) != 4 {
		t.Fatalf("maketable.py wrote %d versions, want 4 (empty + 3 appends)", len(ref.Versions))
	}
	return ref
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// TestReadersAgreeOnPyicebergTable validates the harness: every reader reads
// every version of a pyiceberg table, in full, filtered to one day and
// filtered to one hour, and agrees with pyarrow's figures for the rows
// appended, including the number of files planned (all; the day's partition;
// the one file of that partition whose time bounds meet the hour).
func TestReadersAgreeOnPyicebergTable(t *testing.T) {
	ref := makeRefTable(t, false)
	var paths []string
	for _, v := range ref.Versions {
		paths = append(paths, v.Metadata)
	}
	full := Query{Time: ref.Time, Series: ref.Series, Sums: ref.Sums}
	filtered := full
	filtered.Range = &TimeRange{FromUS: ref.FromUS, ToUS: ref.ToUS}
	bounded := full
	bounded.Range = &TimeRange{FromUS: ref.BoundsFromUS, ToUS: ref.BoundsToUS}

	// The reference table must be able to tell pruning from none.
	last := ref.Versions[len(ref.Versions)-1]
	if f, b := last.ExpectedFiltered.PlannedFiles, last.ExpectedBounds.PlannedFiles; !(0 < b && b < f && f < int64(last.Files)) {
		t.Fatalf("reference table: %d files, %d in the day, %d in the hour; want 0 < hour < day < all", last.Files, f, b)
	}

	for _, r := range Readers(t) {
		t.Run(string(r), func(t *testing.T) {
			start := time.Now()
			got := SummarizeVersions(t, r, paths, full)
			t.Logf("%s: %d versions, full scan, one process: %v", r, len(paths), time.Since(start))
			start = time.Now()
			gotF := SummarizeVersions(t, r, paths, filtered)
			t.Logf("%s: %d versions, filtered scan, one process: %v", r, len(paths), time.Since(start))
			gotB := SummarizeVersions(t, r, paths, bounded)
			for i, v := range ref.Versions {
				name := filepath.Base(v.Metadata)
				if got[i].Reader != string(r) {
					t.Errorf("%s: summary from reader %q, want %q", name, got[i].Reader, r)
				}
				if got[i].PlannedFiles < 0 || gotF[i].PlannedFiles < 0 || gotB[i].PlannedFiles < 0 {
					t.Errorf("%s: %s does not report planned files (full %d, day %d, hour %d)",
						name, r, got[i].PlannedFiles, gotF[i].PlannedFiles, gotB[i].PlannedFiles)
				}
				ExpectSame(t, name+" full", v.Expected, got[i])
				ExpectSame(t, name+" day", v.ExpectedFiltered, gotF[i])
				ExpectSame(t, name+" hour", v.ExpectedBounds, gotB[i])
			}
		})
	}
}

// TestSingleCall measures one reader call on one metadata file: the cost a
// test pays per Summarize (start-up included). Its table's locations are
// plain absolute paths, not file:// URIs: readers must take both.
func TestSingleCall(t *testing.T) {
	ref := makeRefTable(t, true)
	last := ref.Versions[len(ref.Versions)-1]
	if meta, err := os.ReadFile(last.Metadata); err != nil || strings.Contains(string(meta), "file:") {
		t.Fatalf("%s: want a table without file:// locations (read error %v)", last.Metadata, err)
	}
	q := Query{Time: ref.Time, Series: ref.Series, Sums: ref.Sums}
	for _, r := range Readers(t) {
		start := time.Now()
		got := Summarize(t, r, last.Metadata, q)
		t.Logf("%s: one call: %v", r, time.Since(start))
		ExpectSame(t, string(r), last.Expected, got)
	}
}

// TestReaderErrorsAreReported checks that a reader that cannot read a table
// says so: the harness must never report an empty table for a broken one.
func TestReaderErrorsAreReported(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "metadata", "v1.metadata.json")
	q := Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu"}}
	for _, r := range Readers(t) {
		out, err := Run(r, []string{missing}, q)
		if err != nil {
			t.Errorf("%s: Run: %v; want one summary with an error", r, err)
			continue
		}
		if out[0].Error == "" {
			t.Errorf("%s: reading %s: got %v, want an error", r, missing, out[0])
		}
	}
	ref := makeRefTable(t, false)
	bad := Query{Time: "ts", Sums: []string{"no_such_column"}}
	for _, r := range Readers(t) {
		out, err := Run(r, []string{ref.Versions[1].Metadata}, bad)
		if err != nil {
			t.Fatalf("%s: Run: %v", r, err)
		}
		if !strings.Contains(out[0].Error, "no_such_column") {
			t.Errorf("%s: summing a missing column: error %q, want one naming the column", r, out[0].Error)
		}
	}
}

func TestParquetMeta(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pages.parquet")
	if out, err := exec.Command(Python(t), filepath.Join(Root(), "interop", "maketable.py"), "--parquet", file).CombinedOutput(); err != nil {
		t.Fatalf("maketable.py --parquet: %v\n%s", err, out)
	}
	m := ReadParquetMeta(t, file)

	if len(m.File) != 1 || m.File[0].NumRows != 10_000 || m.File[0].NumRowGroups != 2 {
		t.Errorf("file: got %+v, want 10000 rows in 2 row groups", m.File)
	}
	ids := map[string]int{}
	for _, s := range m.Schema {
		if s.FieldID != nil {
			ids[s.Name] = *s.FieldID
		}
	}
	if want := map[string]int{"ts": 1, "host": 2, "cpu": 3, "mem": 4}; !equalMaps(ids, want) {
		t.Errorf("field ids: got %v, want %v", ids, want)
	}
	if ts := m.Schema[1]; !strings.Contains(ts.LogicalType, "isAdjustedToUTC=1") || !strings.Contains(ts.LogicalType, "MICROS=MicroSeconds()") {
		t.Errorf("ts logical type: got %q, want TIMESTAMP(MICROS, adjusted to UTC)", ts.LogicalType)
	}
	for _, c := range m.Columns {
		if c.Compression != "ZSTD" {
			t.Errorf("row group %d column %s: compression %s, want ZSTD", c.RowGroupID, c.PathInSchema, c.Compression)
		}
		if (c.PathInSchema == "ts" || c.PathInSchema == "mem") && !strings.Contains(c.Encodings, "DELTA_BINARY_PACKED") {
			t.Errorf("row group %d column %s: encodings %q, want DELTA_BINARY_PACKED", c.RowGroupID, c.PathInSchema, c.Encodings)
		}
	}
	for rg, sc := range m.SortingColumns {
		if len(sc) != 2 || sc[0].Column != 1 || sc[1].Column != 0 || sc[0].Descending || sc[1].Descending {
			t.Errorf("row group %d sorting columns: got %+v, want host, ts ascending", rg, sc)
		}
	}
	wantRows := [][]int64{{1000, 1000, 1000, 1000, 1000, 1000}, {1000, 1000, 1000, 1000}}
	if len(m.Chunks) != 8 {
		t.Fatalf("got %d column chunks, want 8", len(m.Chunks))
	}
	for _, c := range m.Chunks {
		where := fmt.Sprintf("%s in row group %d", c.Path, c.RowGroup)
		if !c.HasColumnIndex || !c.HasOffsetIndex {
			t.Errorf("%s: column index %v, offset index %v; want both", where, c.HasColumnIndex, c.HasOffsetIndex)
		}
		if !slices.Equal(c.OffsetIndexRows, wantRows[c.RowGroup]) {
			t.Errorf("%s: offset index page rows %v, want %v", where, c.OffsetIndexRows, wantRows[c.RowGroup])
		}
		if c.ColumnIndexPages != len(wantRows[c.RowGroup]) {
			t.Errorf("%s: column index has %d pages, want %d", where, c.ColumnIndexPages, len(wantRows[c.RowGroup]))
		}
		var data []int64
		for _, p := range c.Pages {
			switch p.Type {
			case "DICTIONARY_PAGE":
				if c.Path != "host" {
					t.Errorf("%s: unexpected dictionary page", where)
				}
			case "DATA_PAGE_V2":
				if p.NumRows == nil {
					t.Errorf("%s: v2 page without num_rows", where)
					continue
				}
				data = append(data, *p.NumRows)
				if (c.Path == "ts" || c.Path == "mem") && p.Encoding != "DELTA_BINARY_PACKED" {
					t.Errorf("%s: page encoding %s, want DELTA_BINARY_PACKED", where, p.Encoding)
				}
			default:
				t.Errorf("%s: page type %s, want DATA_PAGE_V2 or DICTIONARY_PAGE", where, p.Type)
			}
		}
		if !slices.Equal(data, wantRows[c.RowGroup]) {
			t.Errorf("%s: page header rows %v, want %v", where, data, wantRows[c.RowGroup])
		}
		if c.Path == "cpu" && !slices.Equal(c.ColumnIndexNullCounts, []int64{100, 100, 100, 100, 100, 100}[:len(wantRows[c.RowGroup])]) {
			t.Errorf("%s: column index null counts %v, want 100 per page", where, c.ColumnIndexNullCounts)
		}
	}
}

func TestAvroMeta(t *testing.T) {
	ref := makeRefTable(t, false)
	dir := filepath.Dir(ref.Versions[1].Metadata)
	manifests, _ := filepath.Glob(filepath.Join(dir, "*-m0.avro"))
	lists, _ := filepath.Glob(filepath.Join(dir, "snap-*.avro"))
	if len(manifests) != 3 || len(lists) != 3 {
		t.Fatalf("got %d manifests and %d manifest lists, want 3 each", len(manifests), len(lists))
	}
	for _, f := range manifests {
		m := ReadAvroMeta(t, f)
		for _, k := range []string{"schema", "schema-id", "partition-spec", "partition-spec-id", "format-version", "content", "avro.schema"} {
			if _, ok := m.Metadata[k]; !ok && k != "schema-id" { // pyiceberg 0.12 writes no schema-id
				t.Errorf("%s: no header key %q (have %v)", filepath.Base(f), k, keys(m.Metadata, nil))
			}
		}
		if m.Metadata["format-version"] != "2" {
			t.Errorf("%s: format-version %q, want 2", filepath.Base(f), m.Metadata["format-version"])
		}
		var spec []map[string]any
		if err := json.Unmarshal([]byte(m.Metadata["partition-spec"]), &spec); err != nil || len(spec) != 1 || spec[0]["transform"] != "day" {
			t.Errorf("%s: partition-spec %s (%v), want one day field", filepath.Base(f), m.Metadata["partition-spec"], err)
		}
		var schema struct {
			Type   string `json:"type"`
			Fields []struct {
				Name string `json:"name"`
			} `json:"fields"`
		}
		if err := json.Unmarshal(m.Schema, &schema); err != nil || schema.Type != "record" || len(schema.Fields) == 0 || schema.Fields[0].Name != "status" {
			t.Errorf("%s: schema %s, want the manifest entry record", filepath.Base(f), m.Schema)
		}
		if m.Records < 1 || m.Blocks < 1 {
			t.Errorf("%s: %d records in %d blocks, want some", filepath.Base(f), m.Records, m.Blocks)
		}
	}
	for _, f := range lists {
		m := ReadAvroMeta(t, f)
		if m.Metadata["format-version"] != "2" {
			t.Errorf("%s: format-version %q, want 2", filepath.Base(f), m.Metadata["format-version"])
		}
		if m.Codec != "deflate" {
			t.Errorf("%s: codec %q, want deflate (pyiceberg's default)", filepath.Base(f), m.Codec)
		}
	}
}

func equalMaps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func BenchmarkSummarize(b *testing.B) {
	ref := makeRefTable(b, false)
	last := ref.Versions[len(ref.Versions)-1].Metadata
	q := Query{Time: ref.Time, Series: ref.Series, Sums: ref.Sums, Range: &TimeRange{ref.FromUS, ref.ToUS}}
	for _, r := range Readers(b) {
		b.Run(string(r), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Summarize(b, r, last, q)
			}
		})
	}
}
