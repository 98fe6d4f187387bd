package table_test

// Crash at every step: a rebased append and each maintenance step alone are
// run once per store request k, with request k failing, timing out (the
// context's deadline passes while the request waits) or losing its response
// after the store acted. After each crash the table must open, every
// snapshot must be readable, the acknowledged rows must be there exactly
// once and the unacknowledged ones once or not at all; the next append and
// a full maintenance run must succeed and leave nothing behind. A sample of
// the crash states is read by the outside readers (iceberg-go, DuckDB,
// pyiceberg), all in one run of each reader.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// crashAction is one way request k goes wrong.
type crashAction string

const (
	actFail    crashAction = "fail"          // the request errs before reaching the store
	actTimeout crashAction = "timeout"       // the request waits; the context's deadline passes
	actLose    crashAction = "lose-response" // the store acts, the answer is lost
)

var crashActions = []crashAction{actFail, actTimeout, actLose}

// deadlineCtx is a context whose deadline passes when expire is called, so a
// test can time an operation out at an exact request instead of a wall-clock
// moment.
type deadlineCtx struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newDeadlineCtx() *deadlineCtx {
	return &deadlineCtx{Context: context.Background(), done: make(chan struct{})}
}

func (c *deadlineCtx) Done() <-chan struct{} { return c.done }
func (c *deadlineCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
func (c *deadlineCtx) expire() { c.once.Do(func() { close(c.done) }) }

// arm adds the fault of action at the k-th request from now to fs and
// returns the context the operation must run under.
func arm(fs *faultstore.Store, action crashAction, k int) context.Context {
	switch action {
	case actFail:
		fs.AddRule(faultstore.Rule{Nth: k, Action: faultstore.Fail})
	case actLose:
		fs.AddRule(faultstore.Rule{Nth: k, Action: faultstore.LoseResponse})
	case actTimeout:
		ctx := newDeadlineCtx()
		fs.SetSleep(func(c context.Context, d time.Duration) error {
			ctx.expire() // the request waited past the deadline
			if c.Done() == nil {
				return nil // a request made without the deadline (context.WithoutCancel): slow, not failed
			}
			<-c.Done()
			return c.Err()
		})
		fs.AddRule(faultstore.Rule{Nth: k, Action: faultstore.Delay, Delay: time.Hour})
		return ctx
	}
	return context.Background()
}

// oldClock stamps objects two days before the Env clock, so that the orphan
// grace period (0 in these tables) has passed for everything a crash left.
func oldClock() func() time.Time {
	return memstore.FakeClock(testenv.Start.Add(-48*time.Hour), time.Millisecond)
}

// cloneAt copies src into a new memstore with the old clock.
func cloneAt(t testing.TB, src store.Store) *memstore.Store {
	t.Helper()
	ctx := context.Background()
	dst := memstore.New(memstore.WithClock(oldClock()))
	for _, k := range keysOf(t, src, "") {
		b, err := src.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if err := dst.Put(ctx, k, b); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// liveRow is one stored row of the metrics schema.
type liveRow struct {
	host string
	ts   int64
	cpu  *float64
	mem  *int64
}

// liveRows reads every row of the current snapshot's data files, duplicates
// included.
func liveRows(t testing.TB, st store.Store, tb *table.Table) []liveRow {
	t.Helper()
	ctx := context.Background()
	files, err := tb.DataFiles(ctx)
	if err != nil {
		t.Fatalf("data files: %v", err)
	}
	sch := tb.Schema()
	col := map[string]int{}
	for i, f := range sch.Fields {
		col[f.Name] = i
	}
	var out []liveRow
	for _, df := range files {
		key := strings.TrimPrefix(df.Path, tb.Metadata().Location+"/")
		data, err := st.Get(ctx, key)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		f, err := parquet.Open(data)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		for rg := range f.NumRowGroups() {
			cols := make([]rows.Column, len(sch.Fields))
			for c := range cols {
				if cols[c], err = f.ReadColumn(rg, c); err != nil {
					t.Fatalf("%s: %v", key, err)
				}
			}
			for r := range len(cols[sch.Time].Ints) {
				row := liveRow{host: cols[col["host"]].Strs[r], ts: cols[sch.Time].Ints[r]}
				if c := &cols[col["cpu"]]; !c.IsNull(r) {
					v := c.Floats[r]
					row.cpu = &v
				}
				if c := &cols[col["mem"]]; !c.IsNull(r) {
					v := c.Ints[r]
					row.mem = &v
				}
				out = append(out, row)
			}
		}
	}
	return out
}

// summaryOf is what an outside reader must report for these rows.
func summaryOf(rs []liveRow) interoptest.Summary {
	out := make([]interoptest.Row, len(rs))
	for i, r := range rs {
		out[i] = interoptest.Row{TimeUS: r.ts, Series: r.host, CPU: r.cpu, Mem: r.mem}
	}
	return interoptest.Expect(out, nil)
}

// rowsOf makes n rows for series prefix p: hosts p-0 … p-(hosts-1), one row
// a second from start, distinct keys.
func rowsOf(t testing.TB, tb *table.Table, p string, start time.Time, n, hosts int) *rows.Batch {
	t.Helper()
	ms := make([]map[string]any, n)
	for i := range ms {
		ms[i] = map[string]any{"ts": start.Add(time.Duration(i) * time.Second), "host": fmt.Sprintf("%s-%d", p, i%hosts),
			"region": "eu", "cpu": float64(i) / 4, "mem": int64(i) * 1000}
	}
	b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// countBy counts the stored rows of each series prefix (the host up to '-')
// and reports keys stored twice.
func countBy(rs []liveRow) (map[string]int, []string) {
	n := map[string]int{}
	seen := map[string]bool{}
	var dup []string
	for _, r := range rs {
		p, _, _ := strings.Cut(r.host, "-")
		n[p]++
		k := r.host + "/" + strconv.FormatInt(r.ts, 10)
		if seen[k] {
			dup = append(dup, k)
		}
		seen[k] = true
	}
	return n, dup
}

// checkClean asserts that every object under data/ and metadata/ is reached
// by a retained snapshot, or is a metadata version or the hint.
func checkClean(t *testing.T, what string, st store.Store, tb *table.Table) {
	t.Helper()
	ctx := context.Background()
	loc := tb.Metadata().Location + "/"
	reached := map[string]bool{}
	for _, s := range tb.Metadata().Statistics {
		reached[strings.TrimPrefix(s.StatisticsPath, loc)] = true
	}
	for _, s := range tb.Metadata().Snapshots {
		reached[strings.TrimPrefix(s.ManifestList, loc)] = true
		if p := s.Summary[lastvalue.SummaryKey]; p != "" {
			reached[strings.TrimPrefix(p, loc)] = true
		}
		raw, err := st.Get(ctx, strings.TrimPrefix(s.ManifestList, loc))
		if err != nil {
			t.Errorf("%s: snapshot %d: %v", what, s.SnapshotID, err)
			continue
		}
		ml, err := iceberg.ReadManifestList(raw, s.ManifestList)
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range ml.Files {
			reached[strings.TrimPrefix(mf.ManifestPath, loc)] = true
			raw, err := st.Get(ctx, strings.TrimPrefix(mf.ManifestPath, loc))
			if err != nil {
				t.Errorf("%s: %v", what, err)
				continue
			}
			m, err := iceberg.ReadManifest(raw, mf)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range m.Entries {
				reached[strings.TrimPrefix(e.DataFile.Path, loc)] = true
			}
		}
	}
	var left []string
	for _, k := range keysOf(t, st, "") {
		if _, isVersion := commit.ParseMetadataKey(k); isVersion || k == commit.VersionHintKey || k == table.HeadKey || reached[k] {
			continue
		}
		left = append(left, k)
	}
	if len(left) > 0 {
		t.Errorf("%s: maintenance left %d unreferenced objects: %v", what, len(left), left)
	}
}

// checkHistory asserts a linear history and that no data file is referenced
// twice by the current snapshot.
func checkHistory(t *testing.T, what string, tb *table.Table) {
	t.Helper()
	md := tb.Metadata()
	ids := map[int64]bool{}
	for _, s := range md.Snapshots {
		ids[s.SnapshotID] = true
	}
	for i, s := range md.Snapshots {
		if i > 0 && (s.ParentSnapshotID == nil || *s.ParentSnapshotID != md.Snapshots[i-1].SnapshotID) && !(s.ParentSnapshotID != nil && !ids[*s.ParentSnapshotID]) {
			t.Errorf("%s: snapshot %d's parent is not the snapshot before it", what, s.SnapshotID)
		}
		if i > 0 && s.SequenceNumber <= md.Snapshots[i-1].SequenceNumber {
			t.Errorf("%s: sequence numbers not increasing at snapshot %d", what, s.SnapshotID)
		}
	}
	files, err := tb.DataFiles(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.Path] {
			t.Errorf("%s: data file %s referenced twice", what, f.Path)
		}
		seen[f.Path] = true
	}
}

// checkUploadedOnce asserts no object other than metadata versions and hints
// was written twice through fs.
func checkUploadedOnce(t *testing.T, what string, fs *faultstore.Store) {
	t.Helper()
	for _, k := range fs.RepeatedWrites() {
		if _, isVersion := commit.ParseMetadataKey(k); !isVersion && k != commit.VersionHintKey && k != table.HeadKey {
			t.Errorf("%s: %s uploaded twice", what, k)
		}
	}
}

// readerSample collects crash states dumped to directories, for one run of
// each outside reader at the end.
type readerSample struct {
	root  string
	paths []string
	want  []interoptest.Summary
	what  []string
}

// dump writes every object of st under dir and records the version to read.
func (rs *readerSample) dump(t *testing.T, what, dir string, st store.Store, version int, want interoptest.Summary) {
	t.Helper()
	ctx := context.Background()
	for _, k := range keysOf(t, st, "") {
		b, err := st.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rs.paths = append(rs.paths, filepath.Join(dir, commit.MetadataKey(version)))
	rs.want = append(rs.want, want)
	rs.what = append(rs.what, what)
}

func (rs *readerSample) check(t *testing.T) {
	t.Helper()
	if len(rs.paths) == 0 {
		return
	}
	q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu", "mem"}}
	for _, r := range interoptest.Readers(t) {
		got := interoptest.SummarizeVersions(t, r, rs.paths, q)
		for i := range got {
			interoptest.ExpectSame(t, fmt.Sprintf("%s, %s", r, rs.what[i]), rs.want[i], got[i])
		}
	}
	t.Logf("outside readers read %d sampled crash states", len(rs.paths))
}

// sampleEvery is how often a crash point's state goes to the outside readers.
const sampleEvery = 9

var crashProps = map[string]string{
	table.PropMaxSnapshotAgeMs: "0", maintenance.PropOrphanGrace: "0", maintenance.PropRetention: "3d",
}

// rebaseSetup creates a table at location with one append ("base") and
// returns its store.
func rebaseSetup(t *testing.T, location string) *memstore.Store {
	t.Helper()
	mem := memstore.New(memstore.WithClock(oldClock()))
	tb, err := table.Create(context.Background(), mem, testenv.New(1), location, metricsSchema(t), crashProps)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(context.Background(), rowsOf(t, tb, "base", day1, 120, 4)); err != nil {
		t.Fatal(err)
	}
	return mem
}

// TestRebasedAppendCrashAtEveryRequest: writer A opens the table, writer B
// commits first, then A's append — which loses the conditional write,
// loads B's version and rebuilds on it — meets a fault at each of its
// requests in turn.
func TestRebasedAppendCrashAtEveryRequest(t *testing.T) {
	const nBase, nA, nB, nC = 120, 90, 60, 30
	fakeLoc := "file:///tables/crash-rebase"
	base := rebaseSetup(t, fakeLoc)
	// run plays the scenario on st; the rule is armed before A's append.
	run := func(st *memstore.Store, action crashAction, k int) (*faultstore.Store, *table.AppendResult, error) {
		fs := faultstore.New(st)
		a, err := table.Open(context.Background(), fs, testenv.New(10))
		if err != nil {
			t.Fatal(err)
		}
		b, err := table.Open(context.Background(), st, testenv.New(11))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Append(context.Background(), rowsOf(t, b, "B", day1.Add(6*time.Hour), nB, 3)); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if k > 0 {
			ctx = arm(fs, action, k)
		}
		res, err := a.Append(ctx, rowsOf(t, a, "A", day1.Add(12*time.Hour), nA, 5))
		return fs, res, err
	}
	probe, res, err := run(cloneAt(t, base), actFail, 0)
	if err != nil || res.Conflicts != 1 {
		t.Fatalf("clean run: %+v, %v; want one conflict", res, err)
	}
	n := probe.Requests(faultstore.AnyOp)
	t.Logf("a rebased append makes %d store requests", n)

	samples := &readerSample{root: t.TempDir()}
	points, fired, acked, unknown := 0, 0, 0, 0
	for _, action := range crashActions {
		for k := 1; k <= n; k++ {
			what := fmt.Sprintf("%s at request %d", action, k)
			sampled := !testing.Short() && (k-1)%sampleEvery == 0
			var st *memstore.Store
			dir := filepath.Join(samples.root, fmt.Sprintf("rebase-%s-%d", action, k))
			if sampled {
				st = rebaseSetup(t, "file://"+dir)
			} else {
				st = cloneAt(t, base)
			}
			fs, res, err := run(st, action, k)
			fs.ClearRules()
			points++
			if fs.Injected() > 0 {
				fired++
			}
			ctx := context.Background()
			after, oerr := table.Open(ctx, st, testenv.New(20))
			if oerr != nil {
				t.Fatalf("%s: the table does not open: %v", what, oerr)
			}
			checkSnapshotsReadable(t, st, after)
			checkHistory(t, what, after)
			checkUploadedOnce(t, what, fs)
			live := liveRows(t, st, after)
			count, dup := countBy(live)
			if len(dup) > 0 {
				t.Errorf("%s: keys stored twice: %v", what, dup[:min(3, len(dup))])
			}
			if count["base"] != nBase || count["B"] != nB {
				t.Errorf("%s: base %d rows, B %d rows; want %d and %d", what, count["base"], count["B"], nBase, nB)
			}
			switch {
			case err == nil:
				acked++
				if count["A"] != nA {
					t.Errorf("%s: acknowledged (version %d), but A has %d rows, want %d", what, res.Version, count["A"], nA)
				}
				if res.Version != after.Version() {
					t.Errorf("%s: acknowledged version %d, the table is at %d", what, res.Version, after.Version())
				}
			case table.Code(err) == "COMMIT_UNKNOWN":
				unknown++
				if count["A"] != 0 && count["A"] != nA {
					t.Errorf("%s: outcome unknown; A has %d rows, want 0 or %d", what, count["A"], nA)
				}
			default:
				if count["A"] != 0 {
					t.Errorf("%s: failed (%v), yet A has %d rows", what, err, count["A"])
				}
			}
			if sampled {
				samples.dump(t, what, dir, st, after.Version(), summaryOf(live))
			}
			// The next append and a full maintenance run succeed and clean up.
			if _, err := after.Append(ctx, rowsOf(t, after, "C", day1.Add(18*time.Hour), nC, 2)); err != nil {
				t.Fatalf("%s: the next append: %v", what, err)
			}
			if _, err := after.Maintain(ctx, table.MaintainOptions{}); err != nil {
				t.Fatalf("%s: the next maintenance: %v", what, err)
			}
			count, dup = countBy(liveRows(t, st, after))
			if len(dup) > 0 || count["C"] != nC || count["base"] != nBase || count["B"] != nB || (count["A"] != 0 && count["A"] != nA) {
				t.Errorf("%s: after the next append and maintenance: %v rows by writer, %d keys twice", what, count, len(dup))
			}
			checkClean(t, what, st, after)
			checkSnapshotsReadable(t, st, after)
		}
	}
	samples.check(t)
	t.Logf("rebased append: %d crash points (%d requests x %d actions), %d faults fired, %d acknowledged, %d unknown outcomes",
		points, n, len(crashActions), fired, acked, unknown)
	crashPointsCovered.add("rebased append", points)
}

// crashPointsCovered totals the crash points of this file's tests for the log.
var crashPointsCovered = &pointCounter{by: map[string]int{}}

type pointCounter struct {
	mu sync.Mutex
	by map[string]int
}

func (c *pointCounter) add(what string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.by[what] += n
}

// maintainSetup creates a table with work for every step: an old partition
// past retention, five small files in a cold day, snapshots old enough to
// expire, and two orphans of a crashed writer.
func maintainSetup(t *testing.T, location string) *memstore.Store {
	t.Helper()
	ctx := context.Background()
	mem := memstore.New(memstore.WithClock(oldClock()))
	tb, err := table.Create(ctx, mem, testenv.New(1), location, metricsSchema(t), crashProps)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	if _, err := tb.Append(ctx, rowsOf(t, tb, "old", old, 50, 2)); err != nil {
		t.Fatal(err)
	}
	for k := range 5 {
		if _, err := tb.Append(ctx, rowsOf(t, tb, fmt.Sprintf("w%d", k), day1.Add(time.Duration(k)*time.Hour), 80, 3)); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"data/ts_day=2026-11-28/crashed.parquet", "metadata/crashed-m0.avro"} {
		if err := mem.Put(ctx, k, []byte("left by a crashed writer")); err != nil {
			t.Fatal(err)
		}
	}
	return mem
}

// TestMaintainStepCrashAtEveryRequest runs each maintenance step alone with
// a fault at each of its requests.
func TestMaintainStepCrashAtEveryRequest(t *testing.T) {
	fakeLoc := "file:///tables/crash-maintain"
	base := maintainSetup(t, fakeLoc)
	steps := []struct {
		name string
		opt  table.MaintainOptions
	}{
		{"compact", table.MaintainOptions{Compact: true}},
		{"retention", table.MaintainOptions{Retention: true}},
		{"expire", table.MaintainOptions{Expire: true}},
		{"orphans", table.MaintainOptions{Orphans: true}},
	}
	samples := &readerSample{root: t.TempDir()}
	total := 0
	var perStep []string
	for _, step := range steps {
		run := func(st *memstore.Store, action crashAction, k int) (*faultstore.Store, *table.Table, error) {
			fs := faultstore.New(st)
			tb, err := table.Open(context.Background(), fs, testenv.New(30))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if k > 0 {
				ctx = arm(fs, action, k)
			}
			_, err = tb.Maintain(ctx, step.opt)
			return fs, tb, err
		}
		probe, _, err := run(cloneAt(t, base), actFail, 0)
		if err != nil {
			t.Fatalf("%s: clean run: %v", step.name, err)
		}
		openOnly := faultstore.New(cloneAt(t, base))
		if _, err := table.Open(context.Background(), openOnly, testenv.New(30)); err != nil {
			t.Fatal(err)
		}
		n := probe.Requests(faultstore.AnyOp) - openOnly.Requests(faultstore.AnyOp)
		points, failed := 0, 0
		for _, action := range crashActions {
			for k := 1; k <= n; k++ {
				what := fmt.Sprintf("%s: %s at request %d", step.name, action, k)
				sampled := !testing.Short() && (k-1)%sampleEvery == 0
				dir := filepath.Join(samples.root, fmt.Sprintf("maintain-%s-%s-%d", step.name, action, k))
				var st *memstore.Store
				if sampled {
					st = maintainSetup(t, "file://"+dir)
				} else {
					st = cloneAt(t, base)
				}
				fs, _, err := run(st, action, k)
				fs.ClearRules()
				points++
				if err != nil {
					failed++
				}
				ctx := context.Background()
				after, oerr := table.Open(ctx, st, testenv.New(40))
				if oerr != nil {
					t.Fatalf("%s: the table does not open: %v", what, oerr)
				}
				checkSnapshotsReadable(t, st, after)
				checkHistory(t, what, after)
				checkUploadedOnce(t, what, fs)
				live := liveRows(t, st, after)
				count, dup := countBy(live)
				if len(dup) > 0 {
					t.Errorf("%s: keys stored twice: %v", what, dup[:min(3, len(dup))])
				}
				// Every row is there, but for the old partition, which retention
				// drops whole or not at all.
				for k := range 5 {
					if c := count[fmt.Sprintf("w%d", k)]; c != 80 {
						t.Errorf("%s: w%d has %d rows, want 80", what, k, c)
					}
				}
				if c := count["old"]; c != 50 && !(step.name == "retention" && c == 0) {
					t.Errorf("%s: old has %d rows, want 50", what, c)
				}
				if sampled {
					samples.dump(t, what, dir, st, after.Version(), summaryOf(live))
				}
				if _, err := after.Append(ctx, rowsOf(t, after, "C", day1.Add(20*time.Hour), 30, 2)); err != nil {
					t.Fatalf("%s: the next append: %v", what, err)
				}
				if _, err := after.Maintain(ctx, table.MaintainOptions{}); err != nil {
					t.Fatalf("%s: the next maintenance: %v", what, err)
				}
				count, dup = countBy(liveRows(t, st, after))
				want := map[string]int{"C": 30, "w0": 80, "w1": 80, "w2": 80, "w3": 80, "w4": 80}
				if len(dup) > 0 || fmt.Sprint(count) != fmt.Sprint(want) {
					t.Errorf("%s: after the next append and maintenance: %v, %d keys twice; want %v", what, count, len(dup), want)
				}
				if files, _ := after.DataFiles(ctx); len(files) != 1 {
					t.Errorf("%s: %d data files after the next maintenance, want 1 (all of day 1 compacted)", what, len(files))
				}
				checkClean(t, what, st, after)
				checkSnapshotsReadable(t, st, after)
			}
		}
		if failed == 0 {
			t.Errorf("%s: no injected fault failed the step", step.name)
		}
		total += points
		perStep = append(perStep, fmt.Sprintf("%s %d requests (%d failed runs)", step.name, n, failed))
		crashPointsCovered.add("maintenance "+step.name, points)
	}
	samples.check(t)
	t.Logf("maintenance steps: %d crash points (%s) x %d actions", total, strings.Join(perStep, ", "), len(crashActions))
}

func TestMain(m *testing.M) {
	code := m.Run()
	if len(crashPointsCovered.by) > 0 {
		var names []string
		for n := range crashPointsCovered.by {
			names = append(names, n)
		}
		sort.Strings(names)
		sum := 0
		for _, n := range names {
			fmt.Printf("crash points: %-24s %d\n", n, crashPointsCovered.by[n])
			sum += crashPointsCovered.by[n]
		}
		fmt.Printf("crash points: %-24s %d\n", "total", sum)
	}
	os.Exit(code)
}
