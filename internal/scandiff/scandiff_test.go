// Package scandiff is the differential test of `timelake scan`: the
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
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
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
		t.Skip("the timelake CLI has no scan command yet; TIMELAKE_REQUIRE_SCAN=1 makes this a failure")
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
