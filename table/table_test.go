package table_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

const loc = "file:///tables/metrics"

func metricsSchema(t testing.TB) *schema.Table {
	t.Helper()
	s, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "region", Type: schema.String, Required: true},
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func create(t testing.TB, st store.Store, seed uint64) *table.Table {
	t.Helper()
	tb, err := table.Create(context.Background(), st, testenv.New(seed), loc, metricsSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// batch makes n rows: host h<i%hosts>, one row a minute from day, cpu = i.
func batch(t testing.TB, s *schema.Table, start time.Time, n, hosts int) *rows.Batch {
	t.Helper()
	ms := make([]map[string]any, n)
	for i := range ms {
		ms[i] = map[string]any{
			"ts": start.Add(time.Duration(i) * time.Minute), "host": fmt.Sprintf("h%03d", i%hosts),
			"region": "eu", "cpu": float64(i), "mem": int64(i) * 1000,
		}
	}
	b, err := rows.FromMaps(s, ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var day1 = time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)

// snapshotStore returns every key with its bytes, to assert "unchanged".
func snapshotStore(t testing.TB, st store.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, b := range storeObjects(t, st) {
		out[k] = string(b)
	}
	return out
}

// storeObjects reads every object of st, by key.
func storeObjects(t testing.TB, st store.Store) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	objs, err := st.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, o := range objs {
		if out[o.Key], err = st.Get(ctx, o.Key); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func sameStore(t *testing.T, before, after map[string]string) {
	t.Helper()
	for k, v := range after {
		if w, ok := before[k]; !ok {
			t.Errorf("new object %s after a failed operation", k)
		} else if w != v {
			t.Errorf("object %s changed after a failed operation", k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			t.Errorf("object %s removed after a failed operation", k)
		}
	}
}

func TestCreateAppendInfoLatest(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb := create(t, st, 1)
	// 2 days of rows (2,880 minutes), 10 hosts.
	res, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 2880, 10))
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != 2 || res.Rows != 2880 || res.Files != 2 || res.Conflicts != 0 {
		t.Errorf("append result = %+v, want version 2, 2880 rows, 2 files (one per day), no conflicts", res)
	}
	tb2, err := table.Open(ctx, st, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	info, err := tb2.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != 2 || info.Rows != 2880 || info.Files != 2 || len(info.Partitions) != 2 {
		t.Errorf("info = %+v, want version 2, 2880 rows in 2 files, 2 partitions", info)
	}
	if got, want := info.Partitions[0].Name, "ts_day=2026-11-28"; got != want {
		t.Errorf("first partition = %q, want %q", got, want)
	}
	if info.MinTime != "2026-11-28T00:00:00Z" || info.MaxTime != "2026-11-29T23:59:00Z" {
		t.Errorf("time range = %s .. %s", info.MinTime, info.MaxTime)
	}
	idx, err := tb2.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if idx.Len != 10 {
		t.Fatalf("latest has %d series, want 10", idx.Len)
	}
	// h000's latest is row 2870 (the last i with i%10 == 0).
	if got := idx.Cols[1].Strs[0]; got != "h000" {
		t.Errorf("first series = %q, want h000", got)
	}
	if got := idx.Cols[3].Floats[0]; got != 2870 {
		t.Errorf("h000 latest cpu = %v, want 2870", got)
	}
	// Hints were written after the commit.
	hint, _ := st.Get(ctx, commit.VersionHintKey)
	if string(hint) != "2" {
		t.Errorf("version-hint.text = %q, want 2", hint)
	}
	hb, err := st.Get(ctx, table.HeadKey)
	if err != nil {
		t.Fatal(err)
	}
	h, err := table.ParseHead(hb)
	if err != nil {
		t.Fatal(err)
	}
	if h.MetadataVersion != 2 || h.Rows != 2880 || h.Files != 2 || h.SnapshotID != info.SnapshotID || h.LastValueIndex == "" {
		t.Errorf("head = %+v", h)
	}
}

func TestCreateExistingIsRefused(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb := create(t, st, 1)
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 10, 2)); err != nil {
		t.Fatal(err)
	}
	before := snapshotStore(t, st)
	_, err := table.Create(ctx, st, testenv.New(9), loc, metricsSchema(t), nil)
	if !errors.Is(err, table.ErrTableExists) {
		t.Fatalf("second Create: err = %v, want ErrTableExists", err)
	}
	sameStore(t, before, snapshotStore(t, st))
}

func TestAppendDeduplicates(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb := create(t, st, 1)
	s := tb.Schema()
	b, err := rows.FromMaps(s, []map[string]any{
		{"ts": "2026-11-28T10:00:00Z", "host": "a", "region": "eu", "cpu": 1.0},
		{"ts": "2026-11-28T10:00:00Z", "host": "a", "region": "eu", "cpu": 2.0}, // same key: wins
		{"ts": "2026-11-28T10:00:00Z", "host": "b", "region": "eu", "cpu": 3.0},
	}, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tb.Append(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if res.InputRows != 3 || res.Rows != 2 {
		t.Errorf("rows = %d of %d, want 2 of 3", res.Rows, res.InputRows)
	}
	idx, _ := tb.Latest(ctx)
	if idx.Len != 2 || idx.Cols[3].Floats[0] != 2 {
		t.Errorf("latest of a = %v, want 2 (the last row for the key)", idx.Cols[3].Floats)
	}
}

func TestAppendEmptyIsRefused(t *testing.T) {
	st := memstore.New()
	tb := create(t, st, 1)
	before := snapshotStore(t, st)
	_, err := tb.Append(context.Background(), &rows.Batch{Schema: tb.Schema(), Cols: make([]rows.Column, 5)})
	if !errors.Is(err, table.ErrEmptyInput) || table.Code(err) != "EMPTY_INPUT" {
		t.Fatalf("err = %v (%s), want EMPTY_INPUT", err, table.Code(err))
	}
	sameStore(t, before, snapshotStore(t, st))
}

// A store failure at any request of an append leaves the table as it was:
// every committed version readable and unchanged, no snapshot added.
func TestAppendFailureAtEveryRequest(t *testing.T) {
	ctx := context.Background()
	// Count the requests of a clean append.
	probe := faultstore.New(memstore.New())
	tb := create(t, probe, 1)
	created := probe.Requests(faultstore.AnyOp)
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 100, 3)); err != nil {
		t.Fatal(err)
	}
	n := probe.Requests(faultstore.AnyOp) - created
	t.Logf("failing each of the %d store requests of an append", n)
	for _, action := range []faultstore.Action{faultstore.Fail, faultstore.LoseResponse} {
		for k := 1; k <= n; k++ {
			mem := memstore.New()
			fs := faultstore.New(mem)
			tb := create(t, fs, 1)
			fs.AddRule(faultstore.Rule{Nth: k, Action: action, Op: faultstore.AnyOp}) // the k-th request from now
			res, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 100, 3))
			fs.ClearRules()
			what := fmt.Sprintf("%v at request %d", action, k)
			tb2, oerr := table.Open(ctx, mem, testenv.New(3))
			if oerr != nil {
				t.Fatalf("%s: table unreadable: %v", what, oerr)
			}
			info, ierr := tb2.Info(ctx)
			if ierr != nil {
				t.Fatalf("%s: info: %v", what, ierr)
			}
			switch {
			case err != nil && info.Rows != 0 && table.Code(err) != "COMMIT_UNKNOWN":
				t.Errorf("%s: failed with %v, yet the table has %d rows", what, err, info.Rows)
			case err == nil && info.Rows != 100:
				// Acknowledged: present exactly once.
				t.Errorf("%s: acknowledged (%+v), but the table has %d rows, want 100", what, res, info.Rows)
			}
			if fs.Injected() != 1 {
				t.Errorf("%s: %d faults injected, want 1", what, fs.Injected())
			}
			// The next append succeeds.
			if _, err := tb2.Append(ctx, batch(t, tb2.Schema(), day1.Add(time.Hour), 10, 3)); err != nil {
				t.Errorf("%s: the next append failed: %v", what, err)
			}
		}
	}
}

func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	fs := faultstore.New(mem)
	// Eight writers appending in a tight loop is far more contention than the
	// default 10 attempts are for (one writer per table is the recommended
	// deployment); the bound is raised, not removed.
	if _, err := table.Create(ctx, fs, testenv.New(1), loc, metricsSchema(t), map[string]string{table.PropCommitRetries: "200"}); err != nil {
		t.Fatal(err)
	}
	const writers, batches, perBatch = 8, 50, 20
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	conflicts := make([]int, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tb, err := table.Open(ctx, fs, testenv.New(uint64(100+w)))
			if err != nil {
				errs <- err
				return
			}
			for i := range batches {
				// Distinct series per writer and batch: every row is unique.
				ms := make([]map[string]any, perBatch)
				for r := range ms {
					ms[r] = map[string]any{"ts": day1.Add(time.Duration(r) * time.Second), "host": fmt.Sprintf("w%d-b%d", w, i),
						"region": "eu", "cpu": 1.0, "mem": int64(w*1000 + i)}
				}
				b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
				if err != nil {
					errs <- err
					return
				}
				res, err := tb.Append(ctx, b)
				if err != nil {
					errs <- fmt.Errorf("writer %d batch %d: %w", w, i, err)
					return
				}
				conflicts[w] += res.Conflicts
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	tb, err := table.Open(ctx, mem, testenv.New(7))
	if err != nil {
		t.Fatal(err)
	}
	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(writers * batches * perBatch); info.Rows != want {
		t.Errorf("rows = %d, want %d", info.Rows, want)
	}
	if info.Version != 1+writers*batches {
		t.Errorf("version = %d, want %d", info.Version, 1+writers*batches)
	}
	// History is linear: each snapshot's parent is the one before it. The
	// metadata holds the newest timelake.history.max-snapshots of them.
	md := tb.Metadata()
	if got, want := len(md.Snapshots), min(writers*batches, tb.Settings().MaxSnapshots); got != want {
		t.Errorf("%d snapshots in the metadata, want %d", got, want)
	}
	first := int64(writers*batches - len(md.Snapshots) + 1)
	for i, s := range md.Snapshots {
		if s.SequenceNumber != first+int64(i) {
			t.Fatalf("snapshot %d has sequence number %d, want %d", i, s.SequenceNumber, first+int64(i))
		}
		if i == 0 {
			continue
		}
		if s.ParentSnapshotID == nil || *s.ParentSnapshotID != md.Snapshots[i-1].SnapshotID {
			t.Fatalf("snapshot %d's parent is not snapshot %d", i, i-1)
		}
	}
	// Files are uploaded once; only the conditional metadata writes (one
	// winner each) and the hints are written more than once.
	for _, k := range fs.RepeatedWrites() {
		if _, isVersion := commit.ParseMetadataKey(k); !isVersion && k != commit.VersionHintKey && k != table.HeadKey {
			t.Errorf("object uploaded twice: %s", k)
		}
	}
	// Every data file is referenced once.
	seen := map[string]int{}
	ml := manifestPaths(t, tb)
	for _, p := range ml {
		seen[p]++
	}
	for p, n := range seen {
		if n > 1 {
			t.Errorf("data file %s referenced %d times", p, n)
		}
	}
	total := 0
	for _, c := range conflicts {
		total += c
	}
	t.Logf("%d writers x %d batches: %d conflicts rebased", writers, batches, total)
	if total == 0 {
		t.Errorf("no conflicts: the test did not exercise rebasing")
	}
	// The last-value index holds every series once.
	idx, err := tb.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if idx.Len != writers*batches {
		t.Errorf("latest has %d series, want %d", idx.Len, writers*batches)
	}
}

// manifestPaths lists the data file paths of the current snapshot.
func manifestPaths(t *testing.T, tb *table.Table) []string {
	t.Helper()
	files, err := tb.DataFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	sort.Strings(out)
	return out
}

func TestDeterministicBytes(t *testing.T) {
	build := func() map[string]string {
		st := memstore.New()
		tb := create(t, st, 42)
		if _, err := tb.Append(context.Background(), batch(t, tb.Schema(), day1, 500, 7)); err != nil {
			t.Fatal(err)
		}
		return snapshotStore(t, st)
	}
	a, b := build(), build()
	if len(a) != len(b) {
		t.Fatalf("%d objects vs %d", len(a), len(b))
	}
	for k, v := range a {
		if b[k] != v {
			t.Errorf("object %s differs between two runs with the same seed", k)
		}
	}
}

func TestOpenCorruptMetadata(t *testing.T) {
	ctx := context.Background()
	for name, corrupt := range map[string]string{
		"truncated": `{"format-version":2,"table-uuid":"`,
		"not json":  "\x00\x01garbage",
		"wrong":     `{"format-version":7}`,
	} {
		t.Run(name, func(t *testing.T) {
			st := memstore.New()
			tb := create(t, st, 1)
			if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 10, 2)); err != nil {
				t.Fatal(err)
			}
			if err := st.Put(ctx, commit.MetadataKey(3), []byte(corrupt)); err != nil {
				t.Fatal(err)
			}
			before := snapshotStore(t, st)
			_, err := table.Open(ctx, st, testenv.New(2))
			if table.Code(err) != "CORRUPT_TABLE" {
				t.Fatalf("Open: err = %v (%s), want CORRUPT_TABLE", err, table.Code(err))
			}
			if want := "metadata/v3.metadata.json"; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %s", err, want)
			}
			sameStore(t, before, snapshotStore(t, st))
		})
	}
}

var _ = iceberg.FormatVersion
