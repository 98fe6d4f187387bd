package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// inputRow is one line of batch-<k>.ndjson, as write.js wrote it.
type inputRow struct {
	TS    string   `json:"ts"`
	Host  string   `json:"host"`
	Shard string   `json:"shard"`
	CPU   *float64 `json:"cpu"`
	Mem   string   `json:"mem"`
}

type modelRow struct {
	ts, shard, mem int64
	host           string
	cpu            *float64
}

func readBatch(t *testing.T, path string) []modelRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []modelRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var in inputRow
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ts, err := time.Parse(time.RFC3339Nano, in.TS)
		if err != nil {
			t.Fatal(err)
		}
		shard, err1 := strconv.ParseInt(in.Shard, 10, 64)
		mem, err2 := strconv.ParseInt(in.Mem, 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: shard %q mem %q", path, in.Shard, in.Mem)
		}
		out = append(out, modelRow{ts: ts.UnixMicro(), host: in.Host, shard: shard, mem: mem, cpu: in.CPU})
	}
	return out
}

// summary is what a reader must see in a table holding rows (keyed, so
// duplicates within an append are already resolved: the last row wins).
func summary(rows map[string]modelRow) interoptest.Summary {
	out := make([]interoptest.Row, 0, len(rows))
	for _, r := range rows {
		out = append(out, interoptest.Row{TimeUS: r.ts, Series: fmt.Sprintf("%s/%d", r.host, r.shard), CPU: r.cpu, Mem: &r.mem})
	}
	return interoptest.Expect(out, nil)
}

// TestClientTablesReadOutside has write.js append four batches through the
// WebAssembly client in workerd and in Node, appends the same NDJSON with the
// native writer, and has every outside reader read every version of the
// three tables: each must hold exactly the model's rows, counts and sums.
func TestClientTablesReadOutside(t *testing.T) {
	if os.Getenv("TIMELAKE_CLIENT_E2E") != "1" {
		t.Skip("needs the built client: run scripts/test-client.sh (sets TIMELAKE_CLIENT_E2E=1)")
	}
	readers := interoptest.Readers(t)
	out := t.TempDir()
	interoptest.RunClientScript(t, "e2e/write.js", out)

	// The model, version by version (v1 is the empty table).
	var batches [][]modelRow
	for k := 0; ; k++ {
		p := filepath.Join(out, fmt.Sprintf("batch-%d.ndjson", k))
		if _, err := os.Stat(p); err != nil {
			break
		}
		batches = append(batches, readBatch(t, p))
	}
	if len(batches) == 0 {
		t.Fatal("write.js wrote no batches")
	}
	models := []interoptest.Summary{summary(nil)}
	all := map[string]modelRow{}
	for _, b := range batches {
		for _, r := range b {
			all[fmt.Sprintf("%s/%d/%d", r.host, r.shard, r.ts)] = r
		}
		models = append(models, summary(all))
	}

	native := filepath.Join(out, "native")
	appendNative(t, native, len(batches), out)

	q := interoptest.Query{Time: "ts", Series: []string{"host", "shard"}, Sums: []string{"cpu", "mem"}}
	for _, name := range []string{"workerd", "node", "native"} {
		dir := filepath.Join(out, name)
		var paths []string
		for v := 1; v <= len(batches)+1; v++ {
			p := filepath.Join(dir, commit.MetadataKey(v))
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			paths = append(paths, p)
		}
		if _, err := os.Stat(filepath.Join(dir, commit.MetadataKey(len(batches)+2))); err == nil {
			t.Errorf("%s has more versions than appends", name)
		}
		for _, r := range readers {
			got := interoptest.SummarizeVersions(t, r, paths, q)
			for v, g := range got {
				interoptest.ExpectSame(t, fmt.Sprintf("%s table, %s, version %d", name, r, v+1), models[v], g)
			}
		}
	}
}

// appendNative writes the batches with the Go core, as the CLI does.
func appendNative(t *testing.T, dir string, n int, in string) {
	t.Helper()
	ctx := context.Background()
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.New("ts", []string{"host", "shard"}, []schema.Field{
		{Name: "shard", Type: schema.Long, Required: true},
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long, Required: true},
		{Name: "note", Type: schema.String},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(ctx, st, testenv.New(7), "file://"+dir, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := range n {
		f, err := os.Open(filepath.Join(in, fmt.Sprintf("batch-%d.ndjson", k)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := rows.NewNDJSONReader(f, sch, rows.Options{}).Next(1 << 30)
		f.Close()
		if err != nil {
			t.Fatalf("batch %d: %v", k, err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatalf("native append %d: %v", k, err)
		}
	}
}
