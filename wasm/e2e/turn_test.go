package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
)

// cli runs the timelake binary built by buildCLI.
type cli struct {
	t   *testing.T
	bin string
}

// buildCLI builds cmd/timelake once into a temporary directory.
func buildCLI(t *testing.T) cli {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "timelake")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/timelake")
	cmd.Dir = interoptest.Root()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/timelake: %v\n%s", err, out)
	}
	return cli{t: t, bin: bin}
}

// run runs the CLI with args and decodes its --json output into result.
func (c cli) run(result any, args ...string) {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("timelake %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if result != nil {
		if err := json.Unmarshal(out, result); err != nil {
			c.t.Fatalf("timelake %s: output %q: %v", strings.Join(args, " "), out, err)
		}
	}
}

// cliAppend is what `timelake append --json` prints (the fields used here).
type cliAppend struct {
	Version int `json:"version"`
	Commits int `json:"commits"`
	Rows    int `json:"rows"`
	Results []struct {
		Version   int
		Conflicts int
	} `json:"results"`
}

type cliMaintain struct {
	Version   int `json:"version"`
	Merges    int `json:"merges"`
	Conflicts int `json:"conflicts"`
}

// versionModel is the expected reader summary of each version of a table
// several writers append to and maintain: appends add the next prepared
// batch's rows, other commits (maintenance) keep the rows.
type versionModel struct {
	t       *testing.T
	dir     string // the table directory
	base    string // where batch files go
	all     map[string]modelRow
	models  []interoptest.Summary // by version - 1
	pending []interoptest.Summary
	files   []string // batch files, in order
}

func newVersionModel(t *testing.T, dir, base string) *versionModel {
	return &versionModel{t: t, dir: dir, base: base, all: map[string]modelRow{}, models: []interoptest.Summary{summary(nil)}}
}

// prepare writes the next batch file of n rows and the model after it.
func (m *versionModel) prepare(n int) string {
	k := len(m.files)
	p := filepath.Join(m.base, fmt.Sprintf("batch-%d.ndjson", k))
	for _, r := range writeSharedBatch(m.t, p, k, n) {
		m.all[fmt.Sprintf("%s/%d/%d", r.host, r.shard, r.ts)] = r
	}
	m.files = append(m.files, p)
	m.pending = append(m.pending, summary(m.all))
	return p
}

// versions brings the models up to the table's newest version: the first
// `appended` new versions each take the next prepared model, the rest are
// maintenance commits that keep the rows.
func (m *versionModel) versions(step string, appended int) {
	m.t.Helper()
	if len(m.pending) != appended {
		m.t.Fatalf("%s: %d prepared models, %d appends", step, len(m.pending), appended)
	}
	n := latestVersion(m.t, m.dir)
	if n-len(m.models) < appended {
		m.t.Fatalf("%s: table at v%d after %d versions; want at least %d new", step, n, len(m.models), appended)
	}
	for v := len(m.models) + 1; v <= n; v++ {
		if len(m.pending) > 0 {
			m.models = append(m.models, m.pending[0])
			m.pending = m.pending[1:]
		} else {
			m.models = append(m.models, m.models[len(m.models)-1])
		}
	}
	m.t.Logf("%s: now v%d", step, n)
}

// latestVersion is the newest metadata version in dir (no hint trusted).
func latestVersion(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	for {
		if _, err := os.Stat(filepath.Join(dir, commit.MetadataKey(n+1))); err != nil {
			return n
		}
		n++
	}
}

// metadataPaths are v1 … vN of dir.
func metadataPaths(dir string, n int) []string {
	var paths []string
	for v := 1; v <= n; v++ {
		paths = append(paths, filepath.Join(dir, commit.MetadataKey(v)))
	}
	return paths
}

// storedVersions are the versions among v1 … vN of dir that still hold
// metadata, and their paths: a version that left the metadata log
// (write.metadata.previous-versions-max, 20) is a superseded marker
// (commit.Superseded) that no reader can open. The newest 21 always hold it.
func storedVersions(t *testing.T, dir string, n int) (versions []int, paths []string) {
	t.Helper()
	for v := 1; v <= n; v++ {
		p := filepath.Join(dir, commit.MetadataKey(v))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !commit.IsSuperseded(b) {
			versions, paths = append(versions, v), append(paths, p)
		}
	}
	if len(versions) < min(n, 21) {
		t.Fatalf("%s: versions %v of %d hold metadata, want the newest %d at least", dir, versions, n, min(n, 21))
	}
	return versions, paths
}

// TestCLINodeWorkerdInTurn has three writers append to and maintain one
// table directory in turn: the timelake CLI binary (append --format ndjson,
// maintain --compact, info), the WebAssembly client in Node (localStore on
// the directory) and the test Worker in workerd (Miniflare, R2 binding; the
// bucket mirrored with the directory around each Worker request, see
// client/test/e2e/driver.ts). Conflicts are forced between every pair: a
// writer opened at a version others have since passed appends and rebases
// (the CLI too: it waits on a FIFO for its second input file while the
// Worker commits), and compactions lose their commit to a CLI append made
// while they pause. Every outside reader reads every version with exactly
// the expected rows. Then the same NDJSON files, appended by the CLI to one
// table and by the Node client to another, give identical summaries from
// every reader, version by version, and the same `latest`.
func TestCLINodeWorkerdInTurn(t *testing.T) {
	if os.Getenv("TIMELAKE_CLIENT_E2E") != "1" {
		t.Skip("needs the built client: run scripts/test-client.sh (sets TIMELAKE_CLIENT_E2E=1)")
	}
	readers := interoptest.Readers(t)
	tl := buildCLI(t)
	base := t.TempDir()
	dir := filepath.Join(base, "table")
	create := func(d string) {
		tl.run(nil, "create", d, "--time", "ts", "--series", "host,shard", "--column", "shard:long",
			"--column", "cpu:double?", "--column", "mem:long", "--column", "note:string?", "--partition", "day")
	}
	create(dir)
	m := newVersionModel(t, dir, base)
	drv := startDriver(t, dir)
	if err := drv.call(map[string]any{"op": "worker-start"}, nil); err != nil {
		t.Fatal(err)
	}
	cliAppendFile := func(path string) cliAppend {
		t.Helper()
		var r cliAppend
		tl.run(&r, "append", dir, path, "--format", "ndjson", "--json")
		return r
	}
	type wasmResult struct {
		Version   int `json:"version"`
		Retries   int `json:"retries"`
		Merges    int `json:"merges"`
		Conflicts int `json:"conflicts"`
	}
	nodeCall := func(req map[string]any) wasmResult {
		t.Helper()
		var r wasmResult
		if err := drv.call(req, &r); err != nil {
			t.Fatalf("node %v: %v", req, err)
		}
		return r
	}
	worker := func(path, file string) wasmResult {
		t.Helper()
		req := map[string]any{"op": "worker", "path": path}
		if file != "" {
			req["file"] = file
		}
		return nodeCall(req)
	}

	// 1. The CLI appends; Node and the Worker open at v2; the Worker appends.
	cliAppendFile(m.prepare(1500))
	m.versions("cli append", 1)
	nodeCall(map[string]any{"op": "open", "name": "a"})
	if r := worker("/open?prefix=t", ""); r.Version != 2 {
		t.Fatalf("worker opened at v%d, want v2", r.Version)
	}
	worker("/append?prefix=t", m.prepare(1200))
	m.versions("worker append", 1)

	// 2. The CLI appends; Node (opened at v2) appends and rebases over both.
	cliAppendFile(m.prepare(900))
	m.versions("cli append", 1)
	if r := nodeCall(map[string]any{"op": "append", "name": "a", "file": m.prepare(800)}); r.Retries < 1 {
		t.Errorf("node append opened at v2, table at v4: %d retries, want a rebase", r.Retries)
	}
	m.versions("node append (rebased over the worker and the CLI)", 1)

	// 3. The Worker (at v3) appends after the CLI and Node: it rebases.
	if r := worker("/append?prefix=t", m.prepare(700)); r.Retries < 1 {
		t.Errorf("worker append opened at v3: %d retries, want a rebase", r.Retries)
	}
	m.versions("worker append (rebased)", 1)

	// 4. The CLI loses: it appends one file, then waits on a FIFO for the
	// second while the Worker commits; its second commit rebases.
	fifo := filepath.Join(base, "fifo.ndjson")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// --commit-every 1: a commit per batch (by default one append is one commit)
	cmd := exec.Command(tl.bin, "append", dir, m.prepare(600), fifo, "--format", "ndjson", "--json", "--commit-every", "1")
	var cliOut, cliErr strings.Builder
	cmd.Stdout, cmd.Stderr = &cliOut, &cliErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // the test failed while the CLI waited on the FIFO
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	want := len(m.models) + 1
	waitFor(t, "the CLI's first commit and its hints", func() bool {
		// head.json is the CLI's last write before it opens the FIFO
		var head struct {
			Version int `json:"metadata-version"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "head.json"))
		return err == nil && json.Unmarshal(b, &head) == nil && head.Version == want
	})
	m.versions("cli append (first file)", 1)
	worker("/append?prefix=t", m.prepare(400))
	m.versions("worker append while the CLI waits", 1)
	second := m.prepare(500)
	fifoIn, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(second)
	if err != nil {
		t.Fatal(err)
	}
	fifoIn.Write(data)
	fifoIn.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("timelake append (fifo): %v\n%s", err, cliErr.String())
	}
	var ca cliAppend
	if err := json.Unmarshal([]byte(cliOut.String()), &ca); err != nil {
		t.Fatalf("timelake append --json: %q: %v", cliOut.String(), err)
	}
	if len(ca.Results) != 2 || ca.Results[1].Conflicts < 1 {
		t.Errorf("cli append of two files with a Worker commit between: %+v, want the second to rebase", ca.Results)
	}
	m.versions("cli append (second file, rebased over the worker)", 1)

	// 5. The CLI compacts (cold days with several files each).
	var cm cliMaintain
	tl.run(&cm, "maintain", dir, "--compact", "--json")
	if cm.Merges == 0 {
		t.Fatalf("cli maintain --compact merged nothing: %+v", cm)
	}
	m.versions("cli compaction", 0)

	// 6. Node and the Worker append; the Worker compacts and loses its commit
	// to a CLI append made in the pause.
	nodeCall(map[string]any{"op": "append", "name": "a", "file": m.prepare(650)})
	m.versions("node append", 1)
	worker("/append?prefix=t", m.prepare(550))
	m.versions("worker append", 1)
	nodeCall(map[string]any{"op": "hook"})
	p := m.prepare(450)
	drv.beforeCommit = func(string) { cliAppendFile(p) }
	if r := worker("/maintain?prefix=t&hook=1&opts="+`{"compact":true}`, ""); r.Conflicts < 1 || r.Merges < 1 {
		t.Errorf("worker maintain: %+v, want merges after a conflict with the CLI append", r)
	}
	m.versions("worker compaction (rebased over a CLI append)", 1)

	// 7. The CLI and the Worker append; Node compacts and loses its commit to
	// a CLI append made in the pause.
	cliAppendFile(m.prepare(500))
	m.versions("cli append", 1)
	worker("/append?prefix=t", m.prepare(500))
	m.versions("worker append", 1)
	nodeCall(map[string]any{"op": "hook"})
	p = m.prepare(350)
	drv.beforeCommit = func(string) { cliAppendFile(p) }
	if r := nodeCall(map[string]any{"op": "maintain", "name": "a", "options": map[string]any{"compact": true}}); r.Conflicts < 1 || r.Merges < 1 {
		t.Errorf("node maintain: %+v, want merges after a conflict with the CLI append", r)
	}
	m.versions("node compaction (rebased over a CLI append)", 1)

	// 8. Node and the Worker, both behind, append in turn: each rebases over the other.
	if r := worker("/append?prefix=t", m.prepare(300)); r.Retries < 1 {
		t.Errorf("worker append behind the CLI and Node: %d retries, want a rebase", r.Retries)
	}
	m.versions("worker append (rebased)", 1)
	if r := nodeCall(map[string]any{"op": "append", "name": "a", "file": m.prepare(300)}); r.Retries < 1 {
		t.Errorf("node append behind the Worker: %d retries, want a rebase", r.Retries)
	}
	m.versions("node append (rebased over the worker)", 1)

	// 9. All maintenance steps from each (nothing is old enough to expire or delete).
	tl.run(&cm, "maintain", dir, "--json")
	m.versions("cli maintain", 0)
	worker("/maintain?prefix=t", "")
	m.versions("worker maintain", 0)
	nodeCall(map[string]any{"op": "maintain", "name": "a", "options": map[string]any{}})
	m.versions("node maintain", 0)

	var info struct {
		Version int   `json:"version"`
		Rows    int64 `json:"rows"`
	}
	tl.run(&info, "info", dir, "--json")
	if last := m.models[len(m.models)-1]; info.Version != len(m.models) || info.Rows != last.Rows {
		t.Errorf("cli info: v%d, %d rows; want v%d, %d rows", info.Version, info.Rows, len(m.models), last.Rows)
	}

	// Every version, by every reader.
	q := interoptest.Query{Time: "ts", Series: []string{"host", "shard"}, Sums: []string{"cpu", "mem"}}
	versions, paths := storedVersions(t, dir, len(m.models))
	for _, r := range readers {
		got := interoptest.SummarizeVersions(t, r, paths, q)
		for i, g := range got {
			v := versions[i]
			interoptest.ExpectSame(t, fmt.Sprintf("shared table, %s, version %d", r, v), m.models[v-1], g)
		}
	}

	// The same NDJSON files, appended by the CLI to one table (one run, one
	// commit a file: --commit-every 1) and by the Node client to another, in the same order.
	cliDir, nodeDir := filepath.Join(base, "cli-only"), filepath.Join(base, "node-only")
	create(cliDir)
	create(nodeDir)
	var ca2 cliAppend
	tl.run(&ca2, append([]string{"append", cliDir, "--format", "ndjson", "--json", "--commit-every", "1"}, m.files...)...)
	nodeCall(map[string]any{"op": "open", "name": "b", "dir": nodeDir})
	for _, f := range m.files {
		nodeCall(map[string]any{"op": "append", "name": "b", "file": f})
	}
	n := len(m.files) + 1
	if ca2.Version != n || latestVersion(t, cliDir) != n || latestVersion(t, nodeDir) != n {
		t.Fatalf("same input: cli table at v%d (%d), node table at v%d; want v%d", latestVersion(t, cliDir), ca2.Version, latestVersion(t, nodeDir), n)
	}
	seq := newVersionModel(t, "", "")
	for _, f := range m.files {
		for _, r := range readBatch(t, f) {
			seq.all[fmt.Sprintf("%s/%d/%d", r.host, r.shard, r.ts)] = r
		}
		seq.models = append(seq.models, summary(seq.all))
	}
	cliVersions, cliPaths := storedVersions(t, cliDir, n)
	nodeVersions, nodePaths := storedVersions(t, nodeDir, n)
	if !slices.Equal(cliVersions, nodeVersions) {
		t.Fatalf("versions holding metadata: cli-only %v, node-only %v", cliVersions, nodeVersions)
	}
	for _, r := range readers {
		fromCLI := interoptest.SummarizeVersions(t, r, cliPaths, q)
		fromNode := interoptest.SummarizeVersions(t, r, nodePaths, q)
		for i, v := range cliVersions {
			interoptest.ExpectSame(t, fmt.Sprintf("cli-only table, %s, version %d", r, v), seq.models[v-1], fromCLI[i])
			interoptest.ExpectSame(t, fmt.Sprintf("node-only table against cli-only, %s, version %d", r, v), fromCLI[i], fromNode[i])
		}
	}
	latestRows := func(d string) string {
		var rows []map[string]any
		tl.run(&rows, "latest", d, "--json")
		for _, r := range rows {
			delete(r, "_ingest_ts")
		}
		b, _ := json.Marshal(rows)
		return string(b)
	}
	if a, b := latestRows(cliDir), latestRows(nodeDir); a != b {
		t.Errorf("timelake latest: cli-only table\n%s\nnode-only table\n%s", a, b)
	}
}

// waitFor polls cond (every 20 ms, up to a minute).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
