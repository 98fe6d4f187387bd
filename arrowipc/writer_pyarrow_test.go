package arrowipc

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
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
		cmd := exec.Command("bash", filepath.Join("..", "scripts", "pyenv.sh"))
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			pyErr = &exec.Error{Name: "scripts/pyenv.sh", Err: err}
			if stderr.Len() > 0 {
				pyErr = &exec.Error{Name: "scripts/pyenv.sh: " + strings.TrimSpace(stderr.String()), Err: err}
			}
			return
		}
		pyPath = strings.TrimSpace(string(out))
	})
	if pyErr != nil {
		t.Skipf("skipping outside check: python venv unavailable (%v)", pyErr)
	}
	return pyPath
}

// pyStream is what testdata/readstream.py says pyarrow read.
type pyStream struct {
	Schema []struct {
		Name     string            `json:"name"`
		Type     string            `json:"type"`
		Nullable bool              `json:"nullable"`
		Metadata map[string]string `json:"metadata"`
	} `json:"schema"`
	Batches []int      `json:"batches"`
	Rows    [][]string `json:"rows"`
	All     [][]string `json:"all"`
}

func pyarrowRead(t *testing.T, data []byte) *pyStream {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.arrows")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(python(t), filepath.Join("testdata", "readstream.py"), path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pyarrow could not read the stream: %v\n%s", err, stderr.String())
	}
	var s pyStream
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// pyCell is cell as readstream.py renders it.
func pyCell(b *rows.Batch, c, i int) string {
	s := cell(b, c, i)
	if b.Schema.Fields[c].Type == schema.String && s != "null" {
		v, _ := strconv.Unquote(s)
		return "s:" + v
	}
	return s
}

// TestWriterPyarrow: pyarrow reads the writer's streams (a batch of every
// type with nulls, an empty batch, a batch of nulls without values),
// validates every batch in full, and sees the same schema — Arrow types,
// nullability, the Iceberg field ids as PARQUET:field_id — and values.
func TestWriterPyarrow(t *testing.T) {
	tb := writerSchema(t)
	wantTypes := map[string]string{"ts": "timestamp[us, tz=UTC]", "host": "string", "shard": "int32", "mem": "int64",
		"cpu": "double", "load": "float", "ok": "bool", "note": "string", "seen": "timestamp[us, tz=UTC]", "n": "int64"}
	r := rand.New(rand.NewPCG(7, 8))
	for _, sizes := range [][]int{{40, 0, 300, 1}, {}, {9}} {
		var batches []*rows.Batch
		var want [][]string
		for _, n := range sizes {
			b := randomBatch(tb, n, r)
			batches = append(batches, b)
			for i := range n {
				var row []string
				for c := range tb.Fields {
					row = append(row, pyCell(b, c, i))
				}
				want = append(want, row)
			}
		}
		got := pyarrowRead(t, encode(t, tb, batches))
		if len(got.Schema) != len(tb.Fields) {
			t.Fatalf("sizes %v: pyarrow sees %d fields, want %d", sizes, len(got.Schema), len(tb.Fields))
		}
		for i, f := range got.Schema {
			w := tb.Fields[i]
			if f.Name != w.Name || f.Type != wantTypes[w.Name] || f.Nullable == w.Required || f.Metadata[fieldIDKey] != strconv.Itoa(w.ID) {
				t.Errorf("field %d: pyarrow sees %q %s nullable %v metadata %v; want %q %s nullable %v %s=%d",
					i, f.Name, f.Type, f.Nullable, f.Metadata, w.Name, wantTypes[w.Name], !w.Required, fieldIDKey, w.ID)
			}
		}
		if !slices.Equal(got.Batches, sizes) && !(len(sizes) == 0 && len(got.Batches) == 0) {
			t.Errorf("pyarrow reads batches of %v rows, want %v", got.Batches, sizes)
		}
		for _, rs := range [][][]string{got.Rows, got.All} {
			if len(rs) != len(want) {
				t.Fatalf("sizes %v: pyarrow reads %d rows, want %d", sizes, len(rs), len(want))
			}
			for i := range want {
				if !slices.Equal(rs[i], want[i]) {
					t.Fatalf("sizes %v row %d:\npyarrow %v\nwant    %v", sizes, i+1, rs[i], want[i])
				}
			}
		}
	}
}
