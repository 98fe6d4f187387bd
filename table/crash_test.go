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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

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
