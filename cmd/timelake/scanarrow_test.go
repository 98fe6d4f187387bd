package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	pyOnce sync.Once
	pyPath string
	pyErr  error
)

// python is the repo's venv python (scripts/pyenv.sh), or a skip.
func python(t *testing.T) string {
	t.Helper()
	pyOnce.Do(func() {
		var stderr bytes.Buffer
		cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "pyenv.sh"))
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			pyErr = fmt.Errorf("scripts/pyenv.sh: %v: %s", err, strings.TrimSpace(stderr.String()))
			return
		}
		pyPath = strings.TrimSpace(string(out))
	})
	if pyErr != nil {
		t.Skipf("skipping outside check: python venv unavailable (%v)", pyErr)
	}
	return pyPath
}

// pyStream is what arrowipc/testdata/readstream.py says pyarrow read:
// values rendered as text (see the script).
type pyStream struct {
	Schema []struct {
		Name     string            `json:"name"`
		Type     string            `json:"type"`
		Nullable bool              `json:"nullable"`
		Metadata map[string]string `json:"metadata"`
	} `json:"schema"`
	Batches []int      `json:"batches"`
	Rows    [][]string `json:"rows"`
}

func pyarrowReads(t *testing.T, path string) *pyStream {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(python(t), filepath.Join("..", "..", "arrowipc", "testdata", "readstream.py"), path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pyarrow could not read %s: %v\n%s", path, err, stderr.String())
	}
	var s pyStream
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// ndjsonCell renders a value of the NDJSON output as readstream.py renders
// the same value read from Arrow.
func ndjsonCell(t *testing.T, typ string, v any) string {
	t.Helper()
	if v == nil {
		return "null"
	}
	switch typ {
	case "timestamptz":
		tm, err := time.Parse(time.RFC3339Nano, v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return strconv.FormatInt(tm.UnixMicro(), 10)
	case "long", "int":
		return string(v.(json.Number))
	case "double", "float":
		var f float64
		switch s := fmt.Sprint(v); s {
		case "NaN":
			return "NaN"
		case "Infinity":
			f = math.Inf(1)
		case "-Infinity":
			f = math.Inf(-1)
		default:
			bits := 64
			if typ == "float" {
				bits = 32 // printed as the float it is; Arrow holds the float32
			}
			var err error
			if f, err = strconv.ParseFloat(s, bits); err != nil {
				t.Fatal(err)
			}
		}
		return strconv.FormatUint(math.Float64bits(f), 16)
	case "boolean":
		return strconv.FormatBool(v.(bool))
	}
	return "s:" + v.(string)
}

// TestScanCLIArrow: --format arrow writes an Arrow IPC stream, in record
// batches of 8192 rows, that pyarrow reads (and validates) to the same
// rows as the NDJSON output of the same scan, with the CSV header's
// columns, the Iceberg field ids and Arrow types of every column type; an
// empty result is the projected schema alone; stdout and -o agree.
func TestScanCLIArrow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host,shard", "--column", "shard:int", "--column", "cpu:double?",
		"--column", "load:float?", "--column", "mem:long", "--column", "ok:boolean?", "--column", "note:string?", "--partition", "hour")
	types := map[string]string{"ts": "timestamptz", "host": "string", "shard": "int", "cpu": "double", "load": "float",
		"mem": "long", "ok": "boolean", "note": "string", "_ingest_ts": "timestamptz"}
	arrowTypes := map[string]string{"timestamptz": "timestamp[us, tz=UTC]", "string": "string", "int": "int32", "double": "double",
		"float": "float", "long": "int64", "boolean": "bool"}
	ids := map[string]string{"ts": "1", "host": "2", "shard": "3", "cpu": "4", "load": "5", "mem": "6", "ok": "7", "note": "8", "_ingest_ts": "9"}
	floats := []string{"", "NaN", "Infinity", "-Infinity", "0.1", "-0", "1e300", "3.25"}
	floats32 := []string{"", "NaN", "Infinity", "-Infinity", "0.1", "-0", "1e30", "3.25"}
	notes := []string{"", "x", "héllo", "say \"\"hi\"\"", "日本"}
	var csv strings.Builder
	csv.WriteString("ts,host,shard,cpu,load,mem,ok,note\n")
	t0 := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	for i := range 20_000 {
		ok := []string{"", "true", "false"}[i%3]
		note := notes[i%len(notes)]
		if note != "" {
			note = `"` + note + fmt.Sprint(i) + `"`
		}
		fmt.Fprintf(&csv, "%s,h%d,%d,%s,%s,%d,%s,%s\n", t0.Add(time.Duration(i/6)*1500*time.Millisecond+time.Duration(i%7)*time.Microsecond).Format(time.RFC3339Nano),
			i%3, i%2-1, floats[i%len(floats)], floats32[(i/3)%len(floats32)], int64(i)<<40-int64(i), ok, note)
	}
	mustCLI(t, csv.String(), "append", dir, "-", "--format", "csv")
	mustCLI(t, "ts,host,shard,mem\n2026-11-28T10:00:00Z,h0,-1,7\n", "append", dir, "-", "--format", "csv") // a rewrite: dedup

	for _, c := range []struct {
		name    string
		args    []string
		batches int // record batches pyarrow must see (-1: not checked)
	}{
		{"every column", nil, 3},
		{"filtered and projected", []string{"--series", "host=h1", "--columns", "load,note", "--from", "2026-11-28T11:00:00Z"}, -1},
		{"raw, limited", []string{"--raw", "--limit", "9000"}, 2},
		{"_ingest_ts projected", []string{"--columns", "_ingest_ts", "--series", "host=h0,h2", "--to", "2026-11-28T10:30:00Z"}, -1},
		{"empty result", []string{"--series", "host=zz", "--columns", "mem,ok"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.arrows")
			mustCLI(t, "", append([]string{"scan", dir, "--format", "arrow", "-o", path}, c.args...)...)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if stdout := mustCLI(t, "", append([]string{"scan", dir, "--format", "arrow"}, c.args...)...); stdout != string(data) {
				t.Fatalf("stdout (%d bytes) and -o (%d bytes) differ", len(stdout), len(data))
			}
			header := strings.SplitN(mustCLI(t, "", append([]string{"scan", dir}, c.args...)...), "\n", 2)[0]
			cols := strings.Split(header, ",")
			got := pyarrowReads(t, path)
			var names []string
			for _, f := range got.Schema {
				names = append(names, f.Name)
				want := arrowTypes[types[f.Name]]
				nullable := !slices.Contains([]string{"ts", "host", "shard", "mem"}, f.Name)
				if f.Type != want || f.Nullable != nullable || f.Metadata["PARQUET:field_id"] != ids[f.Name] {
					t.Errorf("column %s: %s nullable %v metadata %v; want %s nullable %v field id %s", f.Name, f.Type, f.Nullable, f.Metadata, want, nullable, ids[f.Name])
				}
			}
			if !slices.Equal(names, cols) {
				t.Fatalf("pyarrow sees columns %v, the CSV header %v", names, cols)
			}
			var want [][]string
			nd := mustCLI(t, "", append([]string{"scan", dir, "--format", "ndjson"}, c.args...)...)
			for _, line := range strings.Split(strings.TrimSuffix(nd, "\n"), "\n") {
				if line == "" {
					continue
				}
				d := json.NewDecoder(strings.NewReader(line))
				d.UseNumber()
				var m map[string]any
				if err := d.Decode(&m); err != nil {
					t.Fatal(err)
				}
				row := make([]string, len(cols))
				for k, name := range cols {
					row[k] = ndjsonCell(t, types[name], m[name])
				}
				want = append(want, row)
			}
			if len(got.Rows) != len(want) {
				t.Fatalf("pyarrow reads %d rows, ndjson has %d", len(got.Rows), len(want))
			}
			for i := range want {
				if !slices.Equal(got.Rows[i], want[i]) {
					t.Fatalf("row %d: pyarrow %v, ndjson %v", i+1, got.Rows[i], want[i])
				}
			}
			if c.batches >= 0 && len(got.Batches) != c.batches {
				t.Errorf("%d record batches %v, want %d", len(got.Batches), got.Batches, c.batches)
			}
			for _, n := range got.Batches {
				if n > 8192 {
					t.Errorf("a record batch of %d rows, past the scan's 8192", n)
				}
			}
		})
	}
}
