package table_test

// The harness of the crash tests (crash_test.go, crash_catchup_test.go,
// foreign_crash_test.go): faults armed at request k, clones of a store,
// and the checks every crash state must pass.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
		if _, isVersion := commit.ParseMetadataKey(k); isVersion || k == commit.VersionHintKey || k == table.HeadKey || k == maintenance.MarksKey || reached[k] {
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
