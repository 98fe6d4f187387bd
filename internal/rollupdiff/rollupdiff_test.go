package rollupdiff

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// fixture is a raw table and one rollup of it, in directories.
type fixture struct {
	rawDir  string
	raw, ru *table.Table
	def     rollup.Def
	env     table.Env
}

func rawSchema(t testing.TB) *schema.Table {
	sch, err := schema.New("ts", []string{"host", "dc"}, []schema.Field{
		{Name: "dc", Type: schema.Long},
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long},
		{Name: "up", Type: schema.Boolean},
		{Name: "msg", Type: schema.String},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// newFixture creates the raw table and adds rollup "r" (every, aggs).
func newFixture(t testing.TB, seed uint64, every string, aggs []string) *fixture {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "raw")
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := testenv.New(seed)
	raw, err := table.Create(ctx, st, env, "file://"+dir, rawSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	def, err := rollup.New("r", every, aggs, "")
	if err != nil {
		t.Fatal(err)
	}
	def.Location = rollup.SiblingLocation("file://"+dir, "r")
	rst, err := dirstore.Open(strings.TrimPrefix(def.Location, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	ru, err := table.AddRollup(ctx, raw, rst, def)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{rawDir: dir, raw: raw, ru: ru, def: def, env: env}
}

var day0 = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).UnixMicro()

// gen makes random batches: times over three days, whole seconds (so
// duplicates of a key happen), five hosts in two data centres, nullable
// values; a share of each batch repeats keys of earlier batches with new
// values, and some rows land in old buckets.
type gen struct {
	nonFinite bool // some doubles NaN or ±Inf
	r         *rand.Rand
	keys      [][2]any // (host, ts) of earlier rows
	sch       *schema.Table
}

func (g *gen) batch(t testing.TB, n int) *rows.Batch {
	b := rows.NewBuilder(g.sch, rows.Options{TimeUnit: rows.Microseconds})
	for range n {
		host := fmt.Sprintf("h%d", g.r.IntN(5))
		ts := day0 + g.r.Int64N(3*86400)*1e6
		if len(g.keys) > 0 && g.r.IntN(5) == 0 {
			k := g.keys[g.r.IntN(len(g.keys))] // a duplicate of an earlier key
			host, ts = k[0].(string), k[1].(int64)
		}
		g.keys = append(g.keys, [2]any{host, ts})
		g.appendRow(t, b, host, ts, 60)
	}
	return b.Batch()
}

// appendRow appends the row of key (host, ts) with random values, each
// value column null one time in ten; with g.nonFinite, one double in
// nonFiniteOdds/3 is NaN, +Inf or -Inf.
func (g *gen) appendRow(t testing.TB, b *rows.Builder, host string, ts int64, nonFiniteOdds int) {
	must(t, b.AppendInt64(0, ts))
	must(t, b.AppendString(1, host))
	must(t, b.AppendInt64(2, int64(len(host)%2)))
	if g.r.IntN(10) > 0 {
		v := math.Round(g.r.Float64()*1e6) / 1e3
		if g.nonFinite {
			switch g.r.IntN(nonFiniteOdds) {
			case 0:
				v = math.NaN()
			case 1:
				v = math.Inf(1)
			case 2:
				v = math.Inf(-1)
			}
		}
		must(t, b.AppendFloat64(3, v))
	}
	if g.r.IntN(10) > 0 {
		must(t, b.AppendInt64(4, g.r.Int64N(1<<40)-1<<39))
	}
	if g.r.IntN(10) > 0 {
		must(t, b.AppendBool(5, g.r.IntN(2) == 0))
	}
	if g.r.IntN(10) > 0 {
		must(t, b.AppendString(6, fmt.Sprintf("m%03d", g.r.IntN(1000))))
	}
	must(t, b.EndRow())
}

// settle waits for the concurrent writers of a test, fails it on the first
// error they sent (errs, closed here), and refreshes f's rollup once more
// from f's own Tables, so it reflects every append.
func settle(t testing.TB, f *fixture, wg *sync.WaitGroup, errs chan error) {
	t.Helper()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if _, err := table.RefreshRollup(context.Background(), f.raw, f.ru, f.def, table.RefreshOptions{}); err != nil {
		t.Fatal(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var allAggs = []string{"cpu:count,sum,min,max,first,last", "mem:count,sum,min,max,first,last", "up:count,min,max,first,last", "msg:count,min,max,first,last"}

func TestRollupMatchesDuckDB(t *testing.T) {
	ref := StartRef(t)
	ctx := context.Background()
	widths := []string{"1h", "15m", "1d", "5m", "1m"}
	modes := map[string]int{}
	for seed := uint64(1); seed <= 5; seed++ {
		every := widths[int(seed-1)%len(widths)]
		t.Run(fmt.Sprintf("seed%d-%s", seed, every), func(t *testing.T) {
			f := newFixture(t, seed, every, allAggs)
			g := &gen{r: rand.New(rand.NewPCG(seed, 7)), sch: f.raw.Schema(), nonFinite: seed%2 == 0}
			for step := range 8 {
				if _, err := f.raw.Append(ctx, g.batch(t, 20+g.r.IntN(300))); err != nil {
					t.Fatal(err)
				}
				switch g.r.IntN(4) {
				case 0:
					if _, err := f.raw.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
						t.Fatal(err)
					}
				case 1:
					continue // another append before the refresh
				}
				// A small cap makes the refresh catch up over several runs.
				opt := table.RefreshOptions{}
				if g.r.IntN(2) == 0 {
					opt.ByteCap = 1
				}
				runs := 0
				for {
					res, err := table.RefreshRollup(ctx, f.raw, f.ru, f.def, opt)
					if err != nil {
						t.Fatalf("step %d: refresh: %v", step, err)
					}
					runs++
					modes[res.Mode]++
					if res.CapReached {
						modes["cap-reached"]++
					}
					if !res.CapReached {
						break
					}
				}
				compare(t, ref, f, fmt.Sprintf("step %d (%d runs)", step, runs))
			}
			plainReaders(t, ref, f)
		})
	}
	// The paths under test were taken: the first refresh computes every
	// bucket, the others the changed ones, some over several capped runs.
	t.Logf("refreshes: %v", modes)
	for _, m := range []string{"full", "incremental", "cap-reached"} {
		if modes[m] == 0 {
			t.Errorf("no refresh was %s (%v)", m, modes)
		}
	}
}

// compare checks the rollup table's rows (a Timelake scan: deduplicated)
// against DuckDB's answer over the raw table.
func compare(t *testing.T, ref *Ref, f *fixture, when string) {
	t.Helper()
	want := reference(t, ref, f)
	got := rollupRows(t, f.ru)
	if len(got) != len(want) {
		t.Fatalf("%s: %d rollup rows, DuckDB %d", when, len(got), len(want))
	}
	for i := range got {
		for k, w := range want[i] {
			if !Same(k, got[i][k], w) {
				t.Fatalf("%s: row %d (%v %v %v) column %s: got %v, DuckDB %v", when, i, got[i]["host"], got[i]["dc"], got[i]["bucket"], k, got[i][k], w)
			}
		}
	}
}

// reference asks the rollupref.py process for the rollup of the raw
// table's current metadata.
func reference(t *testing.T, ref *Ref, f *fixture) []map[string]any {
	t.Helper()
	md := filepath.Join(f.rawDir, "metadata", fmt.Sprintf("v%d.metadata.json", f.raw.Version()))
	raw, err := ref.Ask(md, f.def.Width, f.def.AggString())
	if err != nil {
		t.Fatal(err)
	}
	return Typed(f.ru.Schema(), raw)
}

// rollupRows reads the rollup table through a Timelake scan, as maps,
// and checks the scan's order.
func rollupRows(t *testing.T, ru *table.Table) []map[string]any {
	t.Helper()
	out := ScanRows(t, ru)
	// The reference's order: series (host, dc), bucket; the scan's too.
	if !slices.IsSortedFunc(out, func(a, b map[string]any) int {
		if c := strings.Compare(a["host"].(string), b["host"].(string)); c != 0 {
			return c
		}
		if c := a["dc"].(int64) - b["dc"].(int64); c != 0 {
			return int(c)
		}
		return int((a["bucket"].(int64) - b["bucket"].(int64)) / 1e6)
	}) {
		t.Fatal("rollup scan not sorted by (host, dc, bucket)")
	}
	return out
}

// TestRefreshAfterExpiry: the raw snapshot the rollup reflects was
// expired (with every snapshot after it but the current): the refresh
// reads the live files whose data sequence number is past the one it
// recorded, and is exact still.
func TestRefreshAfterExpiry(t *testing.T) {
	ref := StartRef(t)
	ctx := context.Background()
	f := newFixture(t, 21, "15m", allAggs)
	g := &gen{r: rand.New(rand.NewPCG(21, 1)), sch: f.raw.Schema()}
	must(t, f.raw.SetProperties(ctx, map[string]string{table.PropMaxSnapshotAgeMs: "0"}, nil, nil))
	for range 2 {
		_, err := f.raw.Append(ctx, g.batch(t, 300))
		must(t, err)
	}
	_, err := table.RefreshRollup(ctx, f.raw, f.ru, f.def, table.RefreshOptions{})
	must(t, err)
	for range 3 {
		_, err := f.raw.Append(ctx, g.batch(t, 100))
		must(t, err)
	}
	mr, err := f.raw.Maintain(ctx, table.MaintainOptions{Expire: true})
	must(t, err)
	if mr.SnapshotsExpired == 0 {
		t.Fatal("nothing expired")
	}
	res, err := table.RefreshRollup(ctx, f.raw, f.ru, f.def, table.RefreshOptions{})
	must(t, err)
	if res.Mode != "by-sequence" || res.Buckets == 0 {
		t.Fatalf("refresh: %+v, want a by-sequence refresh of some buckets", res)
	}
	compare(t, ref, f, "after expiry")
}

// plainReaders compacts the rollup table (the later commit of each key
// wins) and checks that pyiceberg and DuckDB, reading it as a plain
// table, see DuckDB's GROUP BY of the raw table.
func plainReaders(t *testing.T, ref *Ref, f *fixture) {
	t.Helper()
	// The last step may have appended without a refresh.
	_, err := table.RefreshRollup(context.Background(), f.raw, f.ru, f.def, table.RefreshOptions{})
	must(t, err)
	// Every partition with two files or more is merged (a month partition
	// of 1d buckets is not cold yet): after this each holds one file, one
	// row per key.
	must(t, f.ru.SetProperties(context.Background(), map[string]string{"timelake.compact-min-files": "2"}, nil, nil))
	_, err = f.ru.Maintain(context.Background(), table.MaintainOptions{Compact: true})
	must(t, err)
	info, err := f.ru.Info(context.Background())
	must(t, err)
	for _, p := range info.Partitions {
		if p.Files != 1 {
			t.Fatalf("rollup partition %s has %d files after compaction", p.Name, p.Files)
		}
	}
	compare(t, ref, f, "after the rollup's compaction")
	want := reference(t, ref, f)
	md := filepath.Join(strings.TrimPrefix(f.def.Location, "file://"), "metadata", fmt.Sprintf("v%d.metadata.json", f.ru.Version()))
	for _, reader := range []string{"pyiceberg", "duckdb"} {
		raw, err := ref.Plain(md, reader)
		if err != nil {
			t.Fatalf("%s: %v", reader, err)
		}
		got := Typed(f.ru.Schema(), raw)
		if len(got) != len(want) {
			t.Fatalf("%s reads %d rollup rows, DuckDB's GROUP BY has %d", reader, len(got), len(want))
		}
		for i := range got {
			for k, w := range want[i] {
				if !Same(k, got[i][k], w) {
					t.Fatalf("%s: row %d column %s: got %v (%T), want %v", reader, i, k, got[i][k], got[i][k], w)
				}
			}
		}
	}
}

// TestConcurrentAppendersInlineRefresh: four writers append and refresh
// after each append, at once, on one table; a refresh that loses a race
// fails with ROLLUP_CONFLICT (or an exhausted commit) and the rows stay
// committed; after a last refresh the rollup equals DuckDB's GROUP BY: no
// bucket update is lost.
func TestConcurrentAppendersInlineRefresh(t *testing.T) {
	ref := StartRef(t)
	ctx := context.Background()
	f := newFixture(t, 31, "1h", allAggs)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	conflicts := int64(0)
	var mu sync.Mutex
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := testenv.New(uint64(1000 + w))
			rst, err := dirstore.Open(f.rawDir)
			if err != nil {
				errs <- err
				return
			}
			ust, err := dirstore.Open(strings.TrimPrefix(f.def.Location, "file://"))
			if err != nil {
				errs <- err
				return
			}
			raw, err := table.Open(ctx, rst, env)
			if err != nil {
				errs <- err
				return
			}
			ru, err := table.Open(ctx, ust, env)
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			g := &gen{r: rand.New(rand.NewPCG(uint64(w), 99)), sch: raw.Schema()}
			mu.Unlock()
			for range 5 {
				mu.Lock()
				b := g.batch(t, 50)
				mu.Unlock()
				if _, err := raw.Append(ctx, b); err != nil {
					errs <- err
					return
				}
				if _, err := table.RefreshRollup(ctx, raw, ru, f.def, table.RefreshOptions{}); err != nil {
					if code := table.Code(err); code != rollup.CodeConflict && code != "COMMIT_CONFLICT_EXHAUSTED" {
						errs <- err
						return
					}
					mu.Lock()
					conflicts++
					mu.Unlock()
				}
			}
		}()
	}
	settle(t, f, &wg, errs)
	t.Logf("%d refreshes lost a race", conflicts)
	compare(t, ref, f, "after concurrent appenders")
}
