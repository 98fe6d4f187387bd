package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/sysenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// driver is the WebAssembly writer of client/dist/test/e2e/driver.js, one
// Node process working on the table directory through localStore.
type driver struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Scanner
	nextID int
	// beforeCommit runs when the driver pauses before an armed metadata
	// write; the driver continues when it returns.
	beforeCommit func(key string)
}

func startDriver(t *testing.T, dir string) *driver {
	t.Helper()
	cmd := interoptest.ClientScript(t, "e2e/driver.js", dir)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &driver{t: t, cmd: cmd, in: in, out: bufio.NewScanner(out)}
	d.out.Buffer(make([]byte, 1<<20), 1<<24)
	t.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("driver.js: %v", err)
		}
	})
	return d
}

type driverReply struct {
	ID      int             `json:"id"`
	OK      bool            `json:"ok"`
	Result  json.RawMessage `json:"result"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Event   string          `json:"event"`
	Key     string          `json:"key"`
}

// call sends one request and waits for its reply, serving pauses meanwhile.
// A rejection is returned as an error "CODE: message".
func (d *driver) call(req map[string]any, result any) error {
	d.t.Helper()
	d.nextID++
	req["id"] = d.nextID
	d.send(req)
	for d.out.Scan() {
		var r driverReply
		if err := json.Unmarshal(d.out.Bytes(), &r); err != nil {
			d.t.Fatalf("driver.js said %q: %v", d.out.Text(), err)
		}
		if r.Event == "before-commit" {
			if d.beforeCommit != nil {
				f := d.beforeCommit
				d.beforeCommit = nil
				f(r.Key)
			}
			d.send(map[string]any{"op": "continue"})
			continue
		}
		if r.ID != d.nextID {
			d.t.Fatalf("driver.js replied to %d, want %d", r.ID, d.nextID)
		}
		if !r.OK {
			return fmt.Errorf("%s: %s", r.Code, r.Message)
		}
		if result != nil {
			if err := json.Unmarshal(r.Result, result); err != nil {
				d.t.Fatalf("driver.js result %s: %v", r.Result, err)
			}
		}
		return nil
	}
	d.t.Fatalf("driver.js ended: %v", d.out.Err())
	return nil
}

func (d *driver) send(v any) {
	b, _ := json.Marshal(v)
	if _, err := d.in.Write(append(b, '\n')); err != nil {
		d.t.Fatalf("driver.js stdin: %v", err)
	}
}

// hookStore calls before (once armed) ahead of the next conditional
// metadata write: the other writer commits meanwhile, so this one loses.
type hookStore struct {
	store.Store
	before func(key string)
}

func (h *hookStore) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	if h.before != nil && strings.HasPrefix(key, "metadata/v") && strings.HasSuffix(key, ".metadata.json") {
		f := h.before
		h.before = nil
		f(key)
	}
	return h.Store.PutIfAbsent(ctx, key, data)
}

// writeSharedBatch writes batch k as NDJSON: n rows over three cold days,
// keys (host, shard, ts) distinct across batches (second k of a minute).
func writeSharedBatch(t *testing.T, path string, k, n int) []modelRow {
	t.Helper()
	var sb strings.Builder
	var out []modelRow
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	x := uint32(7919*k + 1)
	next := func(m uint32) uint32 { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x % m }
	for i := range n {
		ts := day.Add(time.Duration(next(3*24*60))*time.Minute + time.Duration(k)*time.Second + time.Duration(next(1000))*time.Millisecond)
		host := fmt.Sprintf("host-%02d", next(12))
		shard := int64(next(3))
		mem := int64(next(1<<30))<<24 + int64(i)
		var cpu *float64
		cpuJSON := "null"
		if next(10) != 0 {
			v := float64(next(100000)) / 8
			cpu = &v
			cpuJSON = strconv.FormatFloat(v, 'g', -1, 64)
		}
		fmt.Fprintf(&sb, `{"ts":%q,"host":%q,"shard":"%d","cpu":%s,"mem":"%d","note":"n%d"}`+"\n",
			ts.Format(time.RFC3339Nano), host, shard, cpuJSON, mem, i%5)
		out = append(out, modelRow{ts: ts.UnixMicro(), host: host, shard: shard, mem: mem, cpu: cpu})
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNativeAndWasmWritersInTurn is the spec's shared-writer test: the native
// Go writer (the CLI's table package) and the WebAssembly client (Node,
// localStore on the same directory) append to and maintain one table in
// turn, with conflicts forced both ways — appends from writers opened at the
// same version, and maintenance commits that lose to the other writer's
// append — and every outside reader reads every version with exactly the
// expected rows.
func TestNativeAndWasmWritersInTurn(t *testing.T) {
	if os.Getenv("TIMELAKE_CLIENT_E2E") != "1" {
		t.Skip("needs the built client: run scripts/test-client.sh (sets TIMELAKE_CLIENT_E2E=1)")
	}
	readers := interoptest.Readers(t)
	ctx := context.Background()
	base := t.TempDir()
	dir := filepath.Join(base, "table")
	ds, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	hs := &hookStore{Store: ds}
	sch, err := schema.New("ts", []string{"host", "shard"}, []schema.Field{
		{Name: "shard", Type: schema.Long, Required: true},
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long, Required: true},
		{Name: "note", Type: schema.String},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	native, err := table.Create(ctx, hs, sysenv.Env(), "file://"+dir, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	wasm := startDriver(t, dir)

	m := newVersionModel(t, dir, base)
	prepare, versions := m.prepare, m.versions
	nativeAppend := func(path string) *table.AppendResult {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, err := rows.NewNDJSONReader(f, sch, rows.Options{}).Next(1 << 30)
		if err != nil {
			t.Fatal(err)
		}
		r, err := native.Append(ctx, b)
		if err != nil {
			t.Fatalf("native append %s: %v", path, err)
		}
		return r
	}
	type wasmAppend struct {
		Version int `json:"version"`
		Retries int `json:"retries"`
	}
	type wasmMaintain struct {
		Version   int `json:"version"`
		Merges    int `json:"merges"`
		Conflicts int `json:"conflicts"`
		RowsAfter int `json:"rowsAfter"`
	}
	wasmAppendFile := func(name, path string) wasmAppend {
		t.Helper()
		var r wasmAppend
		if err := wasm.call(map[string]any{"op": "append", "name": name, "file": path}, &r); err != nil {
			t.Fatalf("wasm append %s: %v", path, err)
		}
		return r
	}
	compact := map[string]any{"compact": true}

	// 1. Native appends; WASM opens at v2 and appends.
	nativeAppend(prepare(2000))
	versions("native append", 1)
	if err := wasm.call(map[string]any{"op": "open", "name": "a"}, nil); err != nil {
		t.Fatal(err)
	}
	wasmAppendFile("a", prepare(1500))
	versions("wasm append", 1)

	// 2. Conflicts between appends: native last saw v2, so its append loses v3
	// to the WASM one and rebases.
	if r := nativeAppend(prepare(800)); r.Conflicts < 1 {
		t.Errorf("native append opened at v2: %d conflicts, want a rebase over the WASM append", r.Conflicts)
	}
	versions("native append (rebased)", 1)
	// ...and WASM writer a (at v3) loses v4 to it.
	if r := wasmAppendFile("a", prepare(900)); r.Retries < 1 {
		t.Errorf("wasm append opened at v3: %d retries, want a rebase over the native append", r.Retries)
	}
	versions("wasm append (rebased)", 1)

	// 3. Native compaction (cold days with several files each).
	mr, err := native.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatalf("native maintain: %v", err)
	}
	if mr.Merges == 0 {
		t.Fatalf("native maintain merged nothing: %v", mr.Plan)
	}
	versions("native compaction", 0)

	// 4. WASM appends twice, then compacts; its commit loses to a native append.
	wasmAppendFile("a", prepare(1200))
	versions("wasm append", 1)
	wasmAppendFile("a", prepare(700))
	versions("wasm append", 1)
	if err := wasm.call(map[string]any{"op": "hook"}, nil); err != nil {
		t.Fatal(err)
	}
	p := prepare(600)
	wasm.beforeCommit = func(string) { nativeAppend(p) }
	var wm wasmMaintain
	if err := wasm.call(map[string]any{"op": "maintain", "name": "a", "options": compact}, &wm); err != nil {
		t.Fatalf("wasm maintain: %v", err)
	}
	if wm.Conflicts < 1 || wm.Merges < 1 {
		t.Errorf("wasm maintain: %+v, want merges after a conflict with the native append", wm)
	}
	versions("wasm compaction (rebased over a native append)", 1)

	// 5. Native appends twice, then compacts; its commit loses to a WASM append.
	nativeAppend(prepare(1000))
	versions("native append", 1)
	nativeAppend(prepare(1000))
	versions("native append", 1)
	p = prepare(650)
	hs.before = func(string) { wasmAppendFile("a", p) }
	mr, err = native.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatalf("native maintain: %v", err)
	}
	if mr.Conflicts < 1 || mr.Merges < 1 {
		t.Errorf("native maintain: merges %d conflicts %d, want merges after a conflict with the WASM append", mr.Merges, mr.Conflicts)
	}
	versions("native compaction (rebased over a WASM append)", 1)

	// 6. Two compactions of the same files from writers at the same version:
	// WASM's loses to the native one and is dropped; nothing is lost.
	wasmAppendFile("a", prepare(400))
	versions("wasm append", 1)
	nativeAppend(prepare(400))
	versions("native append", 1)
	if err := wasm.call(map[string]any{"op": "hook"}, nil); err != nil {
		t.Fatal(err)
	}
	wasm.beforeCommit = func(string) {
		if _, err := native.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
			t.Errorf("native maintain inside the hook: %v", err)
		}
	}
	err = wasm.call(map[string]any{"op": "maintain", "name": "a", "options": compact}, &wm)
	if err == nil || !strings.HasPrefix(err.Error(), "COMMIT_DROPPED") {
		t.Errorf("wasm maintain whose inputs the native one compacted: %v, %+v; want COMMIT_DROPPED", err, wm)
	}
	versions("native compaction wins; wasm compaction dropped", 0)

	// 7. All steps from both (nothing is old enough to expire or delete).
	if err := wasm.call(map[string]any{"op": "maintain", "name": "a", "options": map[string]any{}}, &wm); err != nil {
		t.Fatalf("wasm maintain: %v", err)
	}
	if _, err := native.Maintain(ctx, table.MaintainOptions{}); err != nil {
		t.Fatalf("native maintain: %v", err)
	}
	versions("full maintenance from both", 0)

	// Every version, by every reader.
	q := interoptest.Query{Time: "ts", Series: []string{"host", "shard"}, Sums: []string{"cpu", "mem"}}
	stored, paths := storedVersions(t, dir, len(m.models))
	for _, r := range readers {
		got := interoptest.SummarizeVersions(t, r, paths, q)
		for i, g := range got {
			v := stored[i]
			interoptest.ExpectSame(t, fmt.Sprintf("%s, version %d", r, v), m.models[v-1], g)
		}
	}
	info, err := native.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := m.models[len(m.models)-1].Rows; info.Rows != want {
		t.Errorf("native info: %d rows, want %d", info.Rows, want)
	}
}
