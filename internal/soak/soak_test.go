package soak_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/sysenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/s3store"
	"github.com/timelake/timelake/table"
)

// BatchesEnv sets the batches per writer (default 8; the long run is 100).
const BatchesEnv = "TIMELAKE_SOAK_BATCHES"

// RequireJSEnv=1 makes a missing Node or Worker writer a failure, not a
// logged fallback to goroutines.
const RequireJSEnv = "TIMELAKE_SOAK_JS"

const (
	writers = 16
	rowsPer = 50
)

// start is the first row's time: a cold day, so the maintainer compacts it.
var start = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// value is the v of row n of a writer: every kind of writer uses it.
func value(n int) int64 { return int64(n)*7 + 1 }

type writerKind string

const (
	native writerKind = "native" // a goroutine of this process
	cli    writerKind = "cli"    // timelake append, one process per batch
	node   writerKind = "node"   // the WebAssembly client in one Node process
	worker writerKind = "worker" // a Worker in workerd (Miniflare), one request per batch
)

// backend is where the soak's table lives and how each kind of writer
// reaches it.
type backend struct {
	name     string
	st       store.Store // the table's store, for the in-process writers and the checks
	location string      // the table location written at create
	table    string      // TABLE for the CLI and the Node writers: a directory or s3://bucket/prefix
	cliArgs  []string    // extra CLI flags (--endpoint)
	prefix   string      // the table's prefix in the bucket, for the Worker writers (S3 only)
}

// dirBackend is a table in a temporary directory.
func dirBackend(t *testing.T) backend {
	dir := t.TempDir()
	ds, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return backend{name: "directory", st: ds, location: "file://" + dir, table: dir}
}

// s3Backend is a fresh prefix on the local S3 server named by the
// environment (scripts/s3server.sh); the test skips without one.
func s3Backend(t *testing.T) backend {
	bucket, endpoint := os.Getenv("TIMELAKE_S3_BUCKET"), os.Getenv("AWS_ENDPOINT_URL")
	if bucket == "" || endpoint == "" {
		t.Skip("no S3 server: run under scripts/test.sh, or eval \"$(bash scripts/s3server.sh start)\" first")
	}
	var r [6]byte
	rand.Read(r[:])
	prefix := "soak-" + hex.EncodeToString(r[:]) + "/metrics"
	uri := "s3://" + bucket + "/" + prefix
	c, err := s3store.ConfigFromEnv(uri, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s3store.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return backend{name: "S3", st: st, location: c.Location(), table: uri, cliArgs: []string{"--endpoint", endpoint}, prefix: prefix}
}

type tally struct {
	mu        sync.Mutex
	conflicts map[writerKind]int
	commits   map[writerKind]int
	// From the JavaScript writers, which count their own writes: data
	// files one append wrote more than once, and batches that did not say.
	repeatedUploads []string
	unreported      int
}

// jsBatch is one line a JavaScript writer prints per batch.
type jsBatch struct {
	Retries             int
	RepeatedDataUploads *[]string
}

func (t *tally) addJS(k writerKind, r jsBatch) {
	t.add(k, 1, r.Retries)
	t.mu.Lock()
	defer t.mu.Unlock()
	if r.RepeatedDataUploads == nil {
		t.unreported++
		return
	}
	t.repeatedUploads = append(t.repeatedUploads, *r.RepeatedDataUploads...)
}

func (t *tally) add(k writerKind, commits, conflicts int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.commits[k] += commits
	t.conflicts[k] += conflicts
}

// TestSoak: the directory store.
func TestSoak(t *testing.T) { runSoak(t, dirBackend(t)) }

// TestSoakS3: the local S3 server; Worker writers (workerd through
// Miniflare) reach it with the client's s3Store over fetch to loopback.
func TestSoakS3(t *testing.T) { runSoak(t, s3Backend(t)) }

// batchesPerWriter is 8, 3 with -short, or TIMELAKE_SOAK_BATCHES.
func batchesPerWriter(t *testing.T) int {
	if s := os.Getenv(BatchesEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number", BatchesEnv, s)
		}
		return n
	}
	if testing.Short() {
		return 3
	}
	return 8
}

// runSoak runs the writers and the maintainer against the backend's table,
// then checks it.
func runSoak(t *testing.T, be backend) {
	batches := batchesPerWriter(t)
	ctx := context.Background()
	fs := faultstore.New(be.st) // no rules: counts the in-process requests
	sch, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "v", Type: schema.Long, Required: true}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	_, err = table.Create(ctx, fs, sysenv.Env(), be.location, sch, map[string]string{
		table.PropCommitRetries: "1000", table.PropCommitMinWaitMs: "2", table.PropCommitMaxWaitMs: "100",
		table.PropMaxSnapshotAgeMs: "5000", maintenance.PropCompactMinFiles: "4",
	})
	if err != nil {
		t.Fatal(err)
	}

	// The mix: CLI processes and Node clients when they can run, goroutines for the rest.
	kinds := make([]writerKind, writers)
	for i := range kinds {
		kinds[i] = native
	}
	bin := buildCLI(t)
	for _, i := range []int{1, 5, 9, 13} {
		kinds[i] = cli
	}
	entry, nodeBin := clientEntry(t)
	if entry != "" {
		for _, i := range []int{3, 7, 11, 15} {
			kinds[i] = node
		}
		// On S3, four Workers in one workerd isolate (concurrent requests,
		// one WebAssembly instance), in place of four goroutines.
		if be.prefix != "" {
			for _, i := range []int{2, 6, 10, 14} {
				kinds[i] = worker
			}
		}
	}
	counts := map[writerKind]int{}
	var workerHosts []string
	for w, k := range kinds {
		counts[k]++
		if k == worker {
			workerHosts = append(workerHosts, hostOf(k, w))
		}
	}
	t.Logf("%s table %s: %d writers (%d native goroutines, %d CLI processes, %d Node WASM clients, %d Workers in workerd) x %d batches of %d rows",
		be.name, be.location, writers, counts[native], counts[cli], counts[node], counts[worker], batches, rowsPer)

	tl := &tally{conflicts: map[writerKind]int{}, commits: map[writerKind]int{}}
	began := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, writers+2)
	for w, kind := range kinds {
		if kind == worker {
			continue // one process drives them all, below
		}
		host := hostOf(kind, w)
		tmp := t.TempDir()
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			switch kind {
			case native:
				err = nativeWriter(ctx, fs, host, batches, tl)
			case cli:
				err = cliWriter(bin, be, tmp, host, batches, tl)
			case node:
				err = nodeWriter(nodeBin, entry, be.table, host, batches, tl)
			}
			if err != nil {
				errs <- fmt.Errorf("writer %s: %w", host, err)
			}
		}()
	}
	if len(workerHosts) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := workerWriters(nodeBin, be.prefix, workerHosts, batches, tl); err != nil {
				errs <- fmt.Errorf("workers %v: %w", workerHosts, err)
			}
		}()
	}
	// The maintainer runs until the writers are done.
	done := make(chan struct{})
	var runs, merges, dropped, expired, deleted atomic.Int64
	var mwg sync.WaitGroup
	mwg.Add(1)
	go func() {
		defer mwg.Done()
		for {
			tb, err := table.Open(ctx, fs, sysenv.Env())
			if err != nil {
				errs <- fmt.Errorf("maintainer: %w", err)
				return
			}
			res, err := tb.Maintain(ctx, table.MaintainOptions{})
			runs.Add(1)
			if res != nil {
				merges.Add(int64(res.Merges))
				dropped.Add(int64(res.MergesDropped))
				expired.Add(int64(res.SnapshotsExpired))
				deleted.Add(int64(res.FilesDeleted))
			}
			if err != nil && !errors.Is(err, commit.ErrDropped) {
				errs <- fmt.Errorf("maintainer: %w", err)
				return
			}
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	wg.Wait()
	close(done)
	mwg.Wait()
	elapsed := time.Since(began)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	// A final compaction, then the checks.
	tb, err := table.Open(ctx, fs, sysenv.Env())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
		t.Fatal(err)
	}
	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantRows := int64(writers * batches * rowsPer)
	if info.Rows != wantRows {
		t.Errorf("rows = %d, want %d", info.Rows, wantRows)
	}
	sums, n, dups := readSums(t, be.st, tb)
	if n != wantRows || dups != 0 {
		t.Errorf("data files hold %d rows (%d keys twice), want %d", n, dups, wantRows)
	}
	var want int64
	for i := range batches * rowsPer {
		want += value(i)
	}
	for w, kind := range kinds {
		host := hostOf(kind, w)
		if sums[host] != want {
			t.Errorf("series %s: sum %d, want %d", host, sums[host], want)
		}
	}
	if len(sums) != writers {
		t.Errorf("%d series, want %d", len(sums), writers)
	}
	// History is linear: each retained snapshot's parent is the one before it
	// (or expired), sequence numbers increase.
	md := tb.Metadata()
	for i := 1; i < len(md.Snapshots); i++ {
		s, prev := md.Snapshots[i], md.Snapshots[i-1]
		if s.ParentSnapshotID == nil || (*s.ParentSnapshotID != prev.SnapshotID && snapshotKept(md.Snapshots, *s.ParentSnapshotID)) {
			t.Errorf("snapshot %d: parent is not the snapshot before it", s.SnapshotID)
		}
		if s.SequenceNumber <= prev.SequenceNumber {
			t.Errorf("snapshot %d: sequence %d after %d", s.SnapshotID, s.SequenceNumber, prev.SequenceNumber)
		}
	}
	if cur := md.CurrentSnapshot(); cur == nil || md.LastSequenceNumber != cur.SequenceNumber {
		t.Errorf("last sequence number %d is not the current snapshot's", md.LastSequenceNumber)
	}
	// No data file uploaded twice: the in-process writers and the maintainer,
	// whose requests pass through the counting store, and the Node and
	// Worker writers, which count their own writes (the CLI processes are
	// not counted). Info above refuses a file referenced twice.
	for _, k := range fs.RepeatedWrites() {
		if _, isVersion := commit.ParseMetadataKey(k); !isVersion && k != commit.VersionHintKey && k != table.HeadKey {
			t.Errorf("%s uploaded twice", k)
		}
	}
	for _, k := range tl.repeatedUploads {
		t.Errorf("%s uploaded twice by one JavaScript writer's append", k)
	}
	if tl.unreported > 0 {
		t.Errorf("%d JavaScript batches did not report their uploads", tl.unreported)
	}
	total := 0
	for _, c := range tl.conflicts {
		total += c
	}
	t.Logf("soak (%s): %d commits by writers (%v) in %.1fs, table at version %d; conflicts rebased: %d (%v); maintenance: %d runs, %d merges, %d dropped, %d snapshots expired, %d files deleted; %d rows, %d files at the end",
		be.name, sumOf(tl.commits), tl.commits, elapsed.Seconds(), tb.Version(), total, tl.conflicts, runs.Load(), merges.Load(), dropped.Load(), expired.Load(), deleted.Load(), info.Rows, info.Files)
	if sumOf(tl.commits) != writers*batches {
		t.Errorf("%d commits acknowledged, want %d", sumOf(tl.commits), writers*batches)
	}
}

// hostOf is writer w's series: its kind and number.
func hostOf(k writerKind, w int) string { return fmt.Sprintf("%s-%02d", k, w) }

func sumOf(m map[writerKind]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func snapshotKept(ss []iceberg.Snapshot, id int64) bool {
	for _, s := range ss {
		if s.SnapshotID == id {
			return true
		}
	}
	return false
}

func batchOf(sch *schema.Table, host string, b int) (*rows.Batch, error) {
	ms := make([]map[string]any, rowsPer)
	for i := range ms {
		n := b*rowsPer + i
		ms[i] = map[string]any{"ts": start.Add(time.Duration(n) * time.Second), "host": host, "v": value(n)}
	}
	return rows.FromMaps(sch, ms, rows.Options{})
}

func nativeWriter(ctx context.Context, fs *faultstore.Store, host string, batches int, tl *tally) error {
	tb, err := table.Open(ctx, fs, sysenv.Env())
	if err != nil {
		return err
	}
	for b := range batches {
		bt, err := batchOf(tb.Schema(), host, b)
		if err != nil {
			return err
		}
		res, err := tb.Append(ctx, bt)
		if err != nil {
			return fmt.Errorf("batch %d: %w", b, err)
		}
		tl.add(native, 1, res.Conflicts)
	}
	return nil
}

func cliWriter(bin string, be backend, tmp, host string, batches int, tl *tally) error {
	for b := range batches {
		var buf bytes.Buffer
		for i := range rowsPer {
			n := b*rowsPer + i
			fmt.Fprintf(&buf, `{"ts":%q,"host":%q,"v":%d}`+"\n", start.Add(time.Duration(n)*time.Second).Format(time.RFC3339), host, value(n))
		}
		in := filepath.Join(tmp, fmt.Sprintf("b%d.ndjson", b))
		if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
			return err
		}
		out, err := exec.Command(bin, append([]string{"append", be.table, in, "--json"}, be.cliArgs...)...).Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return fmt.Errorf("batch %d: %v: %s", b, err, ee.Stderr)
			}
			return err
		}
		var res struct {
			Commits int `json:"commits"`
			Results []struct{ Conflicts int }
		}
		if err := json.Unmarshal(out, &res); err != nil {
			return fmt.Errorf("batch %d: %v: %s", b, err, out)
		}
		for _, r := range res.Results {
			tl.add(cli, 1, r.Conflicts)
		}
	}
	return nil
}

func nodeWriter(nodeBin, entry, tableArg, host string, batches int, tl *tally) error {
	script := filepath.Join(interoptest.Root(), "internal", "soak", "nodewriter.mjs")
	cmd := exec.Command(nodeBin, script, entry, tableArg, host, strconv.Itoa(batches), strconv.Itoa(rowsPer), strconv.FormatInt(start.UnixMilli(), 10))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r jsBatch
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			tl.addJS(node, r)
		}
	}
	if err != nil {
		return fmt.Errorf("%v: %s", err, stderr.String())
	}
	return nil
}

// workerWriters runs workerwriter.mjs: one Miniflare (workerd) with the
// client's S3 test Worker, and one writer per host, each appending its
// batches through requests to the Worker, which writes to the S3 server with
// s3Store (the S3 variables of the environment).
func workerWriters(nodeBin, prefix string, hosts []string, batches int, tl *tally) error {
	root := interoptest.Root()
	script := filepath.Join(root, "internal", "soak", "workerwriter.mjs")
	args := []string{script, filepath.Join(root, "client", "dist"), prefix, strconv.Itoa(batches), strconv.Itoa(rowsPer), strconv.FormatInt(start.UnixMilli(), 10)}
	cmd := exec.Command(nodeBin, append(args, hosts...)...)
	cmd.Dir = filepath.Join(root, "client") // miniflare from client/node_modules
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r jsBatch
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			tl.addJS(worker, r)
		}
	}
	if err != nil {
		return fmt.Errorf("%v: %s", err, stderr.String())
	}
	return nil
}

// buildCLI builds cmd/timelake into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "timelake")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/timelake")
	cmd.Dir = interoptest.Root()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	return bin
}

// clientEntry returns the built client's Node entry and the node binary, or
// "" (logged) when either is missing: scripts/build-client.sh builds it. With
// TIMELAKE_SOAK_JS=1 (scripts/test.sh sets it) a missing client fails the
// test instead, so that CI never soaks without its JS writers.
func clientEntry(t *testing.T) (string, string) {
	t.Helper()
	missing := func(why string) (string, string) {
		if os.Getenv(RequireJSEnv) == "1" {
			t.Fatalf("soak: %s=1 but %s", RequireJSEnv, why)
		}
		t.Logf("soak: no Node or Worker writers: %s", why)
		return "", ""
	}
	dist := filepath.Join(interoptest.Root(), "client", "dist")
	entry := filepath.Join(dist, "src", "node.js")
	for _, f := range []string{entry, filepath.Join(dist, "test", "s3mf.js"), filepath.Join(dist, "test", "s3worker", "worker.js")} {
		if _, err := os.Stat(f); err != nil {
			return missing(f + " is missing (bash scripts/build-client.sh builds it)")
		}
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return missing("node is not on PATH")
	}
	return "file://" + entry, nodeBin
}

// readSums reads every live data file and sums v by series; it also counts
// rows and keys (series, time) stored twice.
func readSums(t *testing.T, st store.Store, tb *table.Table) (map[string]int64, int64, int) {
	t.Helper()
	ctx := context.Background()
	files, err := tb.DataFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sch := tb.Schema()
	col := map[string]int{}
	for i, f := range sch.Fields {
		col[f.Name] = i
	}
	sums := map[string]int64{}
	seen := map[string]bool{}
	var n int64
	dups := 0
	for _, df := range files {
		key := strings.TrimPrefix(df.Path, tb.Metadata().Location+"/")
		data, err := st.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquet.Open(data)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		for rg := range f.NumRowGroups() {
			hosts, err := f.ReadColumn(rg, col["host"])
			if err != nil {
				t.Fatal(err)
			}
			vs, err := f.ReadColumn(rg, col["v"])
			if err != nil {
				t.Fatal(err)
			}
			ts, err := f.ReadColumn(rg, sch.Time)
			if err != nil {
				t.Fatal(err)
			}
			for r, h := range hosts.Strs {
				sums[h] += vs.Ints[r]
				n++
				k := h + "/" + strconv.FormatInt(ts.Ints[r], 10)
				if seen[k] {
					dups++
				}
				seen[k] = true
			}
		}
	}
	return sums, n, dups
}
