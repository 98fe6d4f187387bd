package parquet

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// Outside checks: pyarrow and DuckDB (from the repo's venv, made by
// scripts/pyenv.sh) read our files, and we read pyarrow's.

var (
	pyOnce sync.Once
	pyPath string
	pyErr  error
)

func python(t *testing.T) string {
	t.Helper()
	pyOnce.Do(func() {
		cmd := exec.Command("bash", "../scripts/pyenv.sh")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			pyErr = err
			if stderr.Len() > 0 {
				pyErr = &exec.Error{Name: "scripts/pyenv.sh", Err: errorString(strings.TrimSpace(stderr.String()))}
			}
			return
		}
		pyPath = strings.TrimSpace(string(out))
	})
	if pyErr != nil {
		t.Skipf("skipping outside check: python venv unavailable (scripts/pyenv.sh failed: %v)", pyErr)
	}
	return pyPath
}

type errorString string

func (e errorString) Error() string { return string(e) }

func runPython(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(python(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

func decodeJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		off := int(d.InputOffset())
		t.Fatalf("decoding python output: %v\nnear: %s", err, b[max(0, off-200):min(len(b), off+50)])
	}
}

// checkValues compares a column we read or wrote with values from Python.
func checkValues(t *testing.T, where, name string, typ schema.Type, got rows.Column, want []any) {
	t.Helper()
	if l := (&got).Len(typ); l != len(want) {
		t.Fatalf("%s column %s: %d rows, want %d", where, name, l, len(want))
	}
	for i, w := range want {
		if w == nil {
			if !got.IsNull(i) {
				t.Fatalf("%s column %s row %d: got a value, want null", where, name, i)
			}
			continue
		}
		if got.IsNull(i) {
			t.Fatalf("%s column %s row %d: got null, want %v", where, name, i, w)
		}
		ok := true
		var g any
		switch {
		case typ.IsInteger():
			g = got.Ints[i]
			n, err := strconv.ParseInt(string(w.(json.Number)), 10, 64)
			ok = err == nil && n == got.Ints[i]
		case typ.IsFloat():
			g = got.Floats[i]
			var f float64
			switch x := w.(type) {
			case string:
				f = map[string]float64{"NaN": math.NaN(), "Inf": math.Inf(1), "-Inf": math.Inf(-1)}[x]
			case json.Number:
				f, _ = strconv.ParseFloat(string(x), 64)
			}
			if math.IsNaN(f) {
				ok = math.IsNaN(got.Floats[i])
			} else {
				ok = f == got.Floats[i] && math.Signbit(f) == math.Signbit(got.Floats[i])
			}
		case typ == schema.Boolean:
			g = got.Bools[i]
			ok = w == got.Bools[i]
		default:
			g = got.Strs[i]
			ok = w == got.Strs[i]
		}
		if !ok {
			t.Fatalf("%s column %s row %d: got %v, want %v", where, name, i, g, w)
		}
	}
}

type inspected struct {
	NumRows      int64            `json:"num_rows"`
	Columns      map[string][]any `json:"columns"`
	FieldIDs     map[string]int   `json:"field_ids"`
	Types        map[string]string
	LogicalTypes []string `json:"logical_types"`
	RowGroups    []struct {
		NumRows int64 `json:"num_rows"`
		Columns []struct {
			Path              string   `json:"path"`
			Encodings         []string `json:"encodings"`
			Compression       string   `json:"compression"`
			HasColumnIndex    bool     `json:"has_column_index"`
			HasOffsetIndex    bool     `json:"has_offset_index"`
			HasDictionaryPage bool     `json:"has_dictionary_page"`
			Statistics        *struct {
				NullCount json.Number `json:"null_count"`
				HasMinMax bool        `json:"has_min_max"`
				Min, Max  any
			} `json:"statistics"`
		} `json:"columns"`
		Sorting []struct {
			Column     int  `json:"column_index"`
			Descending bool `json:"descending"`
			NullsFirst bool `json:"nulls_first"`
		} `json:"sorting_columns"`
	} `json:"row_groups"`
	DuckDB struct {
		Count   json.Number       `json:"count"`
		Columns map[string][]any  `json:"columns"`
		Types   map[string]string `json:"types"`
		Chunks  []struct {
			Path        string      `json:"path"`
			Encodings   string      `json:"encodings"`
			Compression string      `json:"compression"`
			NumValues   json.Number `json:"num_values"`
		} `json:"chunks"`
	} `json:"duckdb"`
}

func TestPyarrowReadsOurFile(t *testing.T) {
	py := python(t)
	_ = py
	const n = 20_000
	data := makeRows(n, 0)
	for _, compat := range []bool{false, true} {
		name := "default"
		if compat {
			name = "compat"
		}
		t.Run(name, func(t *testing.T) {
			sorting := []SortingColumn{{Column: 1}, {Column: 0}}
			w, err := NewWriter(allTypes, Options{Compat: compat, Sorting: sorting, RowGroupBytes: 200 << 10,
				KeyValue: []KeyValue{{Key: "iceberg.schema", Value: "{}"}}, CreatedBy: "timelake test"})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(data, n); err != nil {
				t.Fatal(err)
			}
			file, _, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "ours.parquet")
			if err := os.WriteFile(path, file, 0o644); err != nil {
				t.Fatal(err)
			}
			var got inspected
			decodeJSON(t, runPython(t, "testdata/inspect_file.py", path), &got)
			if got.NumRows != n {
				t.Errorf("pyarrow num_rows %d, want %d", got.NumRows, n)
			}
			if len(got.RowGroups) < 2 {
				t.Errorf("pyarrow sees %d row groups, want several", len(got.RowGroups))
			}
			for c, spec := range allTypes {
				want := data[c]
				if spec.Type == schema.Float { // pyarrow gives the float32 widened
					want.Floats = slices.Clone(want.Floats)
					for i, v := range want.Floats {
						want.Floats[i] = float64(float32(v))
					}
				}
				// the comparison is from python's view: reuse checkValues with roles swapped
				checkValues(t, "pyarrow", spec.Name, spec.Type, want, got.Columns[spec.Name])
				checkValues(t, "duckdb", spec.Name, spec.Type, want, got.DuckDB.Columns[spec.Name])
				if id := got.FieldIDs[spec.Name]; id != int(spec.FieldID) {
					t.Errorf("column %s: PARQUET:field_id %d, want %d", spec.Name, id, spec.FieldID)
				}
			}
			if tp := got.Types["ts"]; tp != "timestamp[us, tz=UTC]" {
				t.Errorf("ts arrow type %q, want timestamp[us, tz=UTC]", tp)
			}
			if lt := got.LogicalTypes[0]; !strings.Contains(lt, "isAdjustedToUTC=true") || !strings.Contains(lt, "timeUnit=microseconds") {
				t.Errorf("ts logical type %q, want Timestamp(isAdjustedToUTC=true, timeUnit=microseconds)", lt)
			}
			wantEnc := map[string][]string{
				"ts": {"DELTA_BINARY_PACKED"}, "host": {"PLAIN", "RLE_DICTIONARY"}, "d": {"PLAIN", "RLE"},
				"i": {"DELTA_BINARY_PACKED", "RLE"}, "b": {"PLAIN", "RLE"}, "s": {"PLAIN", "RLE", "RLE_DICTIONARY"},
			}
			wantCodec := "ZSTD"
			if compat {
				wantEnc = map[string][]string{
					"ts": {"PLAIN"}, "host": {"PLAIN_DICTIONARY"}, "d": {"PLAIN", "RLE"},
					"i": {"PLAIN", "RLE"}, "b": {"PLAIN", "RLE"}, "s": {"PLAIN_DICTIONARY", "RLE"},
				}
			}
			for r, rg := range got.RowGroups {
				if len(rg.Sorting) != 2 || rg.Sorting[0].Column != 1 || rg.Sorting[1].Column != 0 || rg.Sorting[0].Descending {
					t.Errorf("sorting_columns %+v, want host then ts ascending", rg.Sorting)
				}
				for c, cc := range rg.Columns {
					if cc.Compression != wantCodec {
						t.Errorf("column %s compression %s, want %s", cc.Path, cc.Compression, wantCodec)
					}
					if !cc.HasColumnIndex || !cc.HasOffsetIndex {
						t.Errorf("column %s: has_column_index %v, has_offset_index %v, want both", cc.Path, cc.HasColumnIndex, cc.HasOffsetIndex)
					}
					if want, ok := wantEnc[cc.Path]; ok && r == 0 && !slices.Equal(cc.Encodings, want) { // later row groups of s are all null
						t.Errorf("column %s encodings %v, want %v", cc.Path, cc.Encodings, want)
					}
					if cc.Statistics == nil || cc.Statistics.NullCount == "" {
						t.Errorf("column %s has no null count statistics", cc.Path)
					}
					if allTypes[c].Type == schema.Long && cc.Statistics != nil && cc.Statistics.HasMinMax {
						if cc.Statistics.Min != json.Number(strconv.FormatInt(math.MinInt64, 10)) {
							t.Errorf("column l min %v, want MinInt64", cc.Statistics.Min)
						}
					}
				}
			}
			if got.DuckDB.Count != json.Number(strconv.Itoa(n)) {
				t.Errorf("duckdb count(*) %s, want %d", got.DuckDB.Count, n)
			}
			for _, ch := range got.DuckDB.Chunks {
				if ch.Compression != "ZSTD" {
					t.Errorf("duckdb: column %s compression %s, want ZSTD", ch.Path, ch.Compression)
				}
				if ch.Path == "ts" {
					want := "DELTA_BINARY_PACKED"
					if compat {
						want = "PLAIN"
					}
					if !strings.Contains(ch.Encodings, want) {
						t.Errorf("duckdb: ts encodings %q, want %s", ch.Encodings, want)
					}
				}
				if ch.Path == "host" && !strings.Contains(ch.Encodings, "DICTIONARY") {
					t.Errorf("duckdb: host encodings %q, want a dictionary encoding", ch.Encodings)
				}
			}
		})
	}
}

func TestReadPyarrowFiles(t *testing.T) {
	dir := t.TempDir()
	var manifest []struct {
		File     string           `json:"file"`
		Expected map[string][]any `json:"expected"`
	}
	decodeJSON(t, runPython(t, "testdata/pyarrow_write.py", dir, "5000"), &manifest)
	if len(manifest) == 0 {
		t.Fatal("pyarrow wrote no files")
	}
	for _, m := range manifest {
		t.Run(m.File, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, m.File))
			if err != nil {
				t.Fatal(err)
			}
			f, err := Open(data)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			for c, info := range f.Schema() {
				var col rows.Column
				n := 0
				for rg := range f.NumRowGroups() {
					part, err := f.ReadColumnAs(rg, c, info.Type.InMicros()) // the manifest floors nanoseconds
					if err != nil {
						t.Fatalf("ReadColumn(%d, %s): %v", rg, info.Name, err)
					}
					col = concat(col, part, n)
					n += int(f.Meta().RowGroups[rg].NumRows)
				}
				want, ok := m.Expected[info.Name]
				if !ok {
					t.Fatalf("column %s not in the manifest", info.Name)
				}
				checkValues(t, m.File, info.Name, info.Type.InMicros(), col, want)
			}
			wantTypes := map[string]schema.Type{"ts_us": schema.Timestamptz, "ts_ms": schema.Timestamptz, "ts_ns": schema.TimestampNs, // pyarrow's naive timestamp[ns]
				"host": schema.String, "i64": schema.Long, "i32": schema.Int, "i16": schema.Int, "u32": schema.Long,
				"f64": schema.Double, "f32": schema.Float, "flag": schema.Boolean}
			for _, info := range f.Schema() {
				if w, ok := wantTypes[info.Name]; ok && info.Type != w {
					t.Errorf("column %s read as %v, want %v", info.Name, info.Type, w)
				}
			}
		})
	}
}
