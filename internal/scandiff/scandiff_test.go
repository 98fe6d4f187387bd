// Package scandiff is issue 13's differential test of `timelake scan`: the
// CLI's ndjson answer to hundreds of seeded random filters must equal, line
// by line, the answer DuckDB gives through interop/scanref.py (iceberg_scan,
// the data sequence numbers from the manifests, the dedup rule in SQL).
//
// The tables are written by the CLI: several appends with keys overlapping
// across appends (different values), day partitions, tiny pages, row groups
// and files; the same table compacted by `timelake maintain --compact` and
// then appended to; and a table without _ingest_ts, where the later commit
// wins. The test skips while the built CLI has no `scan` command, unless
// TIMELAKE_REQUIRE_SCAN=1. TIMELAKE_SCANDIFF_BIN=PATH runs a timelake CLI
// built elsewhere instead of building this module's.
//
//	go test -count=1 ./internal/scandiff/ [-run TestScanDiff] [-scandiff.queries N] [-scandiff.seed S]
//
// -count=1: the CLI is built by a subprocess, which go test's cache does not
// see, so a cached pass may be of an older scan.
package scandiff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
)

var (
	nQueries = flag.Int("scandiff.queries", 400, "random queries per run")
	seed     = flag.Uint64("scandiff.seed", 13, "seed of the tables and queries")
)

// build compiles the timelake CLI into dir.
func build(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "timelake")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/timelake")
	cmd.Dir = interoptest.Root()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/timelake: %v\n%s", err, b)
	}
	return out
}

// hasScan reports whether the CLI knows the scan command: an unknown command
// says so ("unknown command"); a known one without its TABLE is a usage
// mistake of its own.
func hasScan(bin string) bool {
	out, _ := exec.Command(bin, "scan").CombinedOutput()
	return !strings.Contains(string(out), "unknown command")
}

func cli(t *testing.T, bin, stdin string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("timelake %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// A table of the test and what the queries draw from.
type table struct {
	name     string
	dir      string
	hosts    []string // present host values (the queries add absent ones)
	times    []int64  // some stored times (µs), for ranges on exact edges
	snapshot []int64  // snapshot ids, oldest first
	snapMs   []int64  // their timestamp-ms
	ingest   bool
}

const (
	day     = int64(86_400_000_000)
	firstUs = int64(1795132800000000) // 2026-11-20T00:00:00Z
	nDays   = 6
)

func rfc(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000Z")
}

// rowsCSV is one append's input: a set of keys (host, shard, time) with
// fresh values; no key twice in one input.
func rowsCSV(r *rand.Rand, keys [][3]int64, hosts []string, ingest bool) string {
	var b strings.Builder
	b.WriteString("ts,host,shard,cpu,mem,ok,note,load\n")
	for _, k := range keys {
		cpu := fmt.Sprint(math.Round(r.NormFloat64()*1e6) / 1e3)
		special := r.IntN(40)
		if k[2] >= firstUs+(nDays-1)*day {
			// none in the last day, which holds each series' latest row:
			// `timelake latest --json` fails on NaN ("json: unsupported
			// value: NaN"), and TestScanRefLatest compares with it
			special = 40
		}
		switch special {
		case 0:
			cpu = "NaN"
		case 1:
			cpu = "Infinity"
		case 2:
			cpu = "-Infinity"
		case 3:
			cpu = fmt.Sprint(r.Float64() * 1e-9)
		case 4:
			cpu = fmt.Sprint(r.Float64() * 1e22)
		}
		mem := ""
		if r.IntN(5) > 0 {
			mem = fmt.Sprint(r.Int64() - math.MaxInt64/2)
		}
		ok := []string{"", "true", "false"}[r.IntN(3)]
		note := ""
		if r.IntN(3) > 0 {
			note = fmt.Sprintf("n%d-%s", r.IntN(1000), []string{"a", "bé", "x y", "q\"z", "<b>&c", "\u2028☃\t"}[r.IntN(6)])
		}
		load := "" // a float (32-bit) column
		switch r.IntN(4) {
		case 0:
			load = fmt.Sprint(float32(r.NormFloat64() * 100))
		case 1:
			load = fmt.Sprint(float32(r.Float64() * 1e-6))
		case 2:
			load = fmt.Sprint(float32(r.Float64() * 1e9))
		}
		fmt.Fprintf(&b, "%s,%s,%d,%s,%s,%s,%s,%s\n", rfc(k[2]), hosts[k[0]], k[1], cpu, mem, ok, csvQuote(note), load)
	}
	return b.String()
}

func csvQuote(s string) string {
	if strings.ContainsAny(s, "\",\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// makeTable writes a table with appends of overlapping keys; compact runs
// `maintain --compact` before the last append; py makes the third append
// pyiceberg's (interop/pywriter.py), whose rows have no _ingest_ts and rank
// by their file's sequence number against Timelake's.
//
// deletes commits position deletes (addPositionDeletes) before the last
// append, and again after it.
func makeTable(t *testing.T, bin, dir, name string, ingest, compact, py, deletes bool) *table {
	t.Helper()
	r := rand.New(rand.NewPCG(*seed, uint64(len(name))))
	tb := &table{name: name, dir: filepath.Join(dir, name), ingest: ingest}
	for i := range 10 {
		tb.hosts = append(tb.hosts, fmt.Sprintf("h%02d", i))
	}
	// series values whose order is by bytes: upper case, non-ASCII, a space
	tb.hosts[3], tb.hosts[6], tb.hosts[9] = "Z-3", "é6", "h09 x"
	args := []string{"create", tb.dir, "--time", "ts", "--series", "host,shard",
		"--column", "shard:long", "--column", "cpu:double", "--column", "mem:long?",
		"--column", "ok:boolean?", "--column", "note:string?", "--column", "load:float?", "--partition", "day",
		"--prop", "write.parquet.page-row-limit=37",
		"--prop", "write.parquet.row-group-size-bytes=4096",
		"--prop", "write.target-file-size-bytes=65536"}
	if !ingest {
		args = append(args, "--no-ingest-column")
	}
	cli(t, bin, "", args...)
	// The base grid: every host and shard every 20 minutes (plus a few µs
	// of jitter) over nDays days, then appends re-writing random subsets
	// and adding new keys.
	var base [][3]int64
	for h := range len(tb.hosts) - 2 { // the last two hosts come later
		for s := range 3 {
			for ts := firstUs; ts < firstUs+nDays*day; ts += 30 * 60_000_000 {
				base = append(base, [3]int64{int64(h), int64(s), ts + int64(h*1000+s)})
			}
		}
	}
	appends := [][][3]int64{base}
	for a := range 4 {
		var keys [][3]int64
		for _, k := range base {
			if r.IntN(5) == 0 {
				keys = append(keys, k)
			}
		}
		for range 300 {
			keys = append(keys, [3]int64{int64(len(tb.hosts) - 1 - a%2), int64(r.IntN(3)), firstUs + r.Int64N(nDays*day)})
		}
		slices.SortFunc(keys, func(x, y [3]int64) int { return slices.Compare(x[:], y[:]) })
		keys = slices.Compact(keys)
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		appends = append(appends, keys)
	}
	for i, keys := range appends {
		if compact && i == len(appends)-1 {
			var res struct {
				Merges       int   `json:"merges"`
				FilesRead    int   `json:"files-read"`
				FilesWritten int   `json:"files-written"`
				RowsBefore   int64 `json:"rows-before"`
				RowsAfter    int64 `json:"rows-after"`
			}
			if err := json.Unmarshal([]byte(cli(t, bin, "", "maintain", tb.dir, "--compact", "--json")), &res); err != nil || res.Merges == 0 {
				t.Fatalf("maintain --compact: %+v, %v", res, err)
			}
			t.Logf("%s: compacted %d files into %d (%d merges), %d rows into %d", name, res.FilesRead, res.FilesWritten, res.Merges, res.RowsBefore, res.RowsAfter)
		}
		if deletes && i == len(appends)-1 {
			n := addPositionDeletes(t, r, tb.dir, 12, 5)
			t.Logf("%s: %d position deletes", name, n)
		}
		if py && i == 2 {
			pyAppend(t, r, tb, keys)
		} else {
			cli(t, bin, rowsCSV(r, keys, tb.hosts, ingest), "append", tb.dir, "-", "--format", "csv")
		}
		for j := 0; j < len(keys); j += 97 {
			tb.times = append(tb.times, keys[j][2])
		}
	}
	if deletes {
		n := addPositionDeletes(t, r, tb.dir, 6, 20)
		t.Logf("%s: %d position deletes", name, n)
	}
	var md struct {
		Snapshots []struct {
			ID int64 `json:"snapshot-id"`
			Ms int64 `json:"timestamp-ms"`
		} `json:"snapshots"`
	}
	if err := json.Unmarshal([]byte(readFile(t, metadataPath(t, tb.dir))), &md); err != nil {
		t.Fatal(err)
	}
	for _, s := range md.Snapshots {
		tb.snapshot = append(tb.snapshot, s.ID)
		tb.snapMs = append(tb.snapMs, s.Ms)
	}
	return tb
}

// pyAppend appends keys with fresh values through pyiceberg (no NaN: the
// rows go as JSON).
func pyAppend(t *testing.T, r *rand.Rand, tb *table, keys [][3]int64) {
	t.Helper()
	var rows []map[string]any
	for _, k := range keys {
		m := map[string]any{"ts": rfc(k[2]), "host": tb.hosts[k[0]], "shard": k[1],
			"cpu": math.Round(r.NormFloat64()*1e6) / 1e3, "mem": nil, "ok": nil, "note": nil}
		if r.IntN(2) == 0 {
			m["mem"] = r.Int64N(1 << 40)
		}
		if r.IntN(2) == 0 {
			m["ok"] = r.IntN(2) == 0
		}
		if r.IntN(2) == 0 {
			m["note"] = fmt.Sprintf("py%d", r.IntN(100))
		}
		rows = append(rows, m)
	}
	b, _ := json.Marshal(rows)
	f := filepath.Join(filepath.Dir(tb.dir), tb.name+"-py.json")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(interoptest.Python(t), filepath.Join(interoptest.Root(), "interop", "pywriter.py"), "append", tb.dir, f)
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("pywriter.py append: %v\n%s%s", err, out, stderr.String())
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// metadataPath is the table's current metadata file (version-hint.text).
func metadataPath(t *testing.T, dir string) string {
	t.Helper()
	v := strings.TrimSpace(readFile(t, filepath.Join(dir, "metadata", "version-hint.text")))
	return filepath.Join(dir, "metadata", "v"+v+".metadata.json")
}

// A query: the flags of both the CLI and scanref.py.
type query struct {
	tb   *table
	args []string
	raw  bool
}

var columns = []string{"ts", "host", "shard", "cpu", "mem", "ok", "note", "load"}

// randomQuery draws a filter: time ranges on partition edges, on stored
// times and beside them (±1 µs), or anywhere; host and shard IN lists with
// absent values; projections, limits, raw, time travel.
func randomQuery(r *rand.Rand, tables []*table) query {
	tb := tables[r.IntN(len(tables))]
	q := query{tb: tb}
	edge := func() int64 {
		switch r.IntN(4) {
		case 0:
			return firstUs + int64(r.IntN(nDays+2)-1)*day + int64(r.IntN(3)-1)
		case 1:
			return tb.times[r.IntN(len(tb.times))] + int64(r.IntN(3)-1)
		case 2:
			return firstUs + r.Int64N(nDays*day)
		}
		return firstUs - day + r.Int64N((nDays+2)*day)
	}
	var from, to int64 = math.MinInt64, math.MinInt64
	switch r.IntN(5) {
	case 0: // none
	case 1:
		from = edge()
	case 2:
		to = edge()
	case 3: // short: crossing page and row-group edges
		from = edge()
		to = from + 1 + r.Int64N(3*3600_000_000)
	default:
		from, to = edge(), edge()
		if from > to {
			from, to = to, from
		}
		if from == to {
			to++
		}
	}
	if from != math.MinInt64 {
		q.args = append(q.args, "--from", rfc(from))
	}
	if to != math.MinInt64 {
		q.args = append(q.args, "--to", rfc(to))
	}
	if r.IntN(3) > 0 {
		var hs []string
		for range 1 + r.IntN(3) {
			if r.IntN(6) == 0 {
				hs = append(hs, "h99") // absent
			} else {
				hs = append(hs, tb.hosts[r.IntN(len(tb.hosts))])
			}
		}
		q.args = append(q.args, "--series", "host="+strings.Join(hs, ","))
	}
	if r.IntN(4) == 0 {
		var ss []string
		for range 1 + r.IntN(2) {
			ss = append(ss, fmt.Sprint(r.IntN(4))) // 3 is absent
		}
		q.args = append(q.args, "--series", "shard="+strings.Join(ss, ","))
	}
	if r.IntN(4) == 0 {
		var cs []string
		for _, c := range columns {
			if r.IntN(2) == 0 {
				cs = append(cs, c)
			}
		}
		if tb.ingest && r.IntN(4) == 0 {
			cs = append(cs, "_ingest_ts")
		}
		if len(cs) == 0 {
			cs = []string{"cpu"}
		}
		q.args = append(q.args, "--columns", strings.Join(cs, ","))
	}
	if r.IntN(8) == 0 {
		i := r.IntN(len(tb.snapshot))
		if r.IntN(2) == 0 {
			q.args = append(q.args, "--as-of", fmt.Sprint(tb.snapshot[i]))
		} else {
			// a time from the snapshot's own to just before the next one
			ms := tb.snapMs[i]
			if i+1 < len(tb.snapMs) && tb.snapMs[i+1] > ms+1 {
				ms += r.Int64N(tb.snapMs[i+1] - ms)
			}
			q.args = append(q.args, "--as-of", rfc(ms*1000+999))
		}
	}
	if r.IntN(10) == 0 {
		q.raw = true
		q.args = append(q.args, "--raw")
	} else if r.IntN(4) == 0 {
		q.args = append(q.args, "--limit", fmt.Sprint(1+r.IntN(200)))
	}
	return q
}

// reference is one scanref.py --serve process.
type reference struct {
	cmd   *exec.Cmd
	stdin io.Closer
	in    *bufio.Writer
	out   *bufio.Scanner
	mu    sync.Mutex
}

type answer struct {
	Lines []string `json:"lines"`
	Error string   `json:"error"`
}

func startReference(t *testing.T) *reference {
	t.Helper()
	py := interoptest.Python(t)
	cmd := exec.Command(py, filepath.Join(interoptest.Root(), "interop", "scanref.py"), "--serve")
	cmd.Stderr = os.Stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<30)
	return &reference{cmd: cmd, stdin: w, in: bufio.NewWriter(w), out: sc}
}

func (ref *reference) close() {
	ref.stdin.Close()
	ref.cmd.Wait()
}

func (ref *reference) ask(metadata string, args []string) (answer, error) {
	ref.mu.Lock()
	defer ref.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"metadata": metadata, "args": args})
	ref.in.Write(append(b, '\n'))
	if err := ref.in.Flush(); err != nil {
		return answer{}, err
	}
	if !ref.out.Scan() {
		return answer{}, fmt.Errorf("scanref.py ended: %v", ref.out.Err())
	}
	var a answer
	err := json.Unmarshal(ref.out.Bytes(), &a)
	return a, err
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// firstDiff describes where got and want part.
func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("line %d:\n  scan:   %s\n  duckdb: %s", i+1, got[i], want[i])
		}
	}
	if len(got) > len(want) {
		return fmt.Sprintf("scan has %d lines, duckdb %d; scan's line %d: %s", len(got), len(want), len(want)+1, got[len(want)])
	}
	return fmt.Sprintf("scan has %d lines, duckdb %d; duckdb's line %d: %s", len(got), len(want), len(got)+1, want[len(got)])
}

// The package's tables and reference process, made once.
var env struct {
	once   sync.Once
	work   string
	bin    string
	tables []*table
	meta   map[*table]string
	ref    *reference
	ok     bool
	took   time.Duration
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if env.ref != nil {
		env.ref.close()
	}
	if env.work != "" {
		os.RemoveAll(env.work)
	}
	os.Exit(code)
}

// setup builds the CLI, writes the tables and starts scanref.py.
func setup(t *testing.T) {
	t.Helper()
	env.once.Do(func() {
		start := time.Now()
		work, err := os.MkdirTemp("", "timelake-scandiff-")
		if err != nil {
			t.Fatal(err)
		}
		env.work = work
		env.bin = os.Getenv("TIMELAKE_SCANDIFF_BIN") // a CLI built elsewhere
		if env.bin == "" {
			env.bin = build(t, work)
		}
		env.ref = startReference(t)
		env.tables = []*table{
			makeTable(t, env.bin, work, "native", true, false, false, false),
			makeTable(t, env.bin, work, "compacted", true, true, false, false),
			makeTable(t, env.bin, work, "noingest", false, false, false, false),
			makeTable(t, env.bin, work, "pyiceberg", true, false, true, false),
			makeTable(t, env.bin, work, "posdeletes", true, false, false, true),
		}
		env.meta = map[*table]string{}
		for _, tb := range env.tables {
			env.meta[tb] = metadataPath(t, tb.dir)
		}
		env.took = time.Since(start)
		env.ok = true
	})
	if !env.ok {
		t.Fatal("setup failed in an earlier test")
	}
}

// TestScanRefLatest checks the reference against Timelake's own dedup: the
// last row of each series in scanref.py's answer is the row `timelake
// latest` gives (rows.Winner), and every random query has an answer.
func TestScanRefLatest(t *testing.T) {
	setup(t)
	for _, tb := range env.tables {
		cols := "host,shard,ts,cpu,mem,ok,note"
		a, err := env.ref.ask(env.meta[tb], []string{"--columns", cols})
		if err != nil || a.Error != "" {
			t.Fatalf("%s: scanref: %v %s", tb.name, err, a.Error)
		}
		last := map[string]map[string]any{}
		for _, l := range a.Lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			last[fmt.Sprint(m["host"], "/", m["shard"])] = m
		}
		if tb.ingest {
			// how many winners lack _ingest_ts (pyiceberg's rows), and how
			// many rows the dedup dropped
			ing, err := env.ref.ask(env.meta[tb], []string{"--columns", "_ingest_ts"})
			raw, err2 := env.ref.ask(env.meta[tb], []string{"--columns", "ts", "--raw"})
			if err != nil || err2 != nil {
				t.Fatal(err, err2)
			}
			t.Logf("%s: %d rows, %d after dedup, %d winners without _ingest_ts", tb.name, len(raw.Lines), len(ing.Lines),
				strings.Count(strings.Join(ing.Lines, "\n"), "null"))
		}
		var latest []map[string]any
		if err := json.Unmarshal([]byte(cli(t, env.bin, "", "latest", tb.dir, "--json")), &latest); err != nil {
			t.Fatal(err)
		}
		if len(latest) != len(last) {
			t.Errorf("%s: latest has %d series, the reference %d", tb.name, len(latest), len(last))
		}
		for _, l := range latest {
			k := fmt.Sprint(l["host"], "/", l["shard"])
			w := last[k]
			lt, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(l["ts"]))
			wt, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(w["ts"]))
			same := w != nil && lt.Equal(wt)
			for _, c := range []string{"cpu", "mem", "ok", "note"} {
				same = same && fmt.Sprint(l[c]) == fmt.Sprint(w[c])
			}
			if !same {
				t.Errorf("%s: series %s: latest %v, the reference's last row %v", tb.name, k, l, w)
			}
		}
	}
	r := rand.New(rand.NewPCG(*seed, 0x5ca9))
	n := 0
	for range min(*nQueries, 20) {
		q := randomQuery(r, env.tables)
		a, err := env.ref.ask(env.meta[q.tb], q.args)
		if err != nil {
			t.Fatal(err)
		}
		if a.Error != "" {
			t.Errorf("scanref %s %s: %s", q.tb.name, strings.Join(q.args, " "), a.Error)
		}
		n += len(a.Lines)
	}
	t.Logf("the reference answered %d queries (%d rows)", min(*nQueries, 20), n)
}

func TestScanDiff(t *testing.T) {
	setup(t)
	start := time.Now()
	bin, ref, tables, meta := env.bin, env.ref, env.tables, env.meta
	if !hasScan(bin) {
		if os.Getenv("TIMELAKE_REQUIRE_SCAN") == "1" {
			t.Fatal("the timelake CLI has no scan command (TIMELAKE_REQUIRE_SCAN=1)")
		}
		t.Skip("the timelake CLI has no scan command yet (issue 13); TIMELAKE_REQUIRE_SCAN=1 makes this a failure")
	}
	t.Logf("tables written in %v", env.took.Round(time.Millisecond))
	r := rand.New(rand.NewPCG(*seed, 0x5ca9))
	qs := make([]query, *nQueries)
	for i := range qs {
		qs[i] = randomQuery(r, tables)
	}
	// The reference answers in one process while the CLI runs in parallel.
	wants := make([]answer, len(qs))
	refErr := make(chan error, 1)
	go func() {
		for i, q := range qs {
			a, err := ref.ask(meta[q.tb], q.args)
			if err != nil {
				refErr <- err
				return
			}
			wants[i] = a
		}
		refErr <- nil
	}()
	type result struct {
		out, stderr string
		err         error
	}
	gots := make([]result, len(qs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var stdout, stderr bytes.Buffer
				cmd := exec.Command(bin, append([]string{"scan", qs[i].tb.dir, "--format", "ndjson"}, qs[i].args...)...)
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				gots[i] = result{stdout.String(), stderr.String(), err}
			}
		}()
	}
	for i := range qs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := <-refErr; err != nil {
		t.Fatal(err)
	}

	failed, rows, empty := 0, 0, 0
	for i, q := range qs {
		what := fmt.Sprintf("query %d: timelake scan %s %s", i, q.tb.name, strings.Join(q.args, " "))
		want, got := wants[i], gots[i]
		if want.Error != "" {
			t.Errorf("%s: the reference failed: %s", what, want.Error)
			failed++
			continue
		}
		if got.err != nil {
			t.Errorf("%s: %v\n%s", what, got.err, got.stderr)
			failed++
			continue
		}
		g := lines(got.out)
		w := want.Lines
		if q.raw {
			// a key's raw rows may come in any order
			g, w = slices.Clone(g), slices.Clone(w)
			slices.Sort(g)
			slices.Sort(w)
		}
		if !slices.Equal(g, w) {
			failed++
			if failed <= 20 {
				t.Errorf("%s\n%s", what, firstDiff(g, w))
			}
		}
		rows += len(w)
		if len(w) == 0 {
			empty++
		}
	}
	t.Logf("%d queries (%d empty, %d rows in all), %d differ; %v", len(qs), empty, rows, failed, time.Since(start).Round(time.Millisecond))
}
