package rollupdiff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// forward makes a batch whose rows are, host by host, later than every
// earlier row of the host (the usual time-series append: what a refresh
// folds), some in the bucket of the host's last row, some in later ones;
// a few rows repeat a key of the same batch (deduplicated by the append).
func (g *gen) forward(t testing.TB, n int, last map[string]int64) *rows.Batch {
	b := rows.NewBuilder(g.sch, rows.Options{TimeUnit: rows.Microseconds})
	var prev [2]any
	for i := range n {
		host := fmt.Sprintf("h%d", g.r.IntN(5))
		ts := last[host] + (1+g.r.Int64N(900))*1e6
		if last[host] == 0 {
			ts = day0 + g.r.Int64N(3600)*1e6
		}
		if i > 0 && g.r.IntN(10) == 0 {
			host, ts = prev[0].(string), prev[1].(int64) // a duplicate within the batch
		}
		last[host] = max(last[host], ts)
		prev = [2]any{host, ts}
		g.keys = append(g.keys, [2]any{host, ts})
		g.appendRow(t, b, host, ts, 40)
	}
	return b.Batch()
}

// TestFoldMatchesDuckDB: appends of rows later than their series' rows,
// each refreshed right after by the appending Table, are folded into the
// stored rollup rows (mode "fold", no raw data read); a batch of late rows
// and duplicates of old keys then falls back to the recompute, and the
// folds after it go on. After every refresh the rollup equals DuckDB's
// GROUP BY over the raw table.
func TestFoldMatchesDuckDB(t *testing.T) {
	ref := StartRef(t)
	ctx := context.Background()
	modes := map[string]int{}
	for i, every := range []string{"1h", "5m", "1d", "1m"} {
		seed := uint64(40 + i)
		t.Run(fmt.Sprintf("seed%d-%s", seed, every), func(t *testing.T) {
			f := newFixture(t, seed, every, allAggs)
			g := &gen{r: rand.New(rand.NewPCG(seed, 11)), sch: f.raw.Schema(), nonFinite: i%2 == 1}
			last := map[string]int64{}
			for step := range 12 {
				b, want := g.forward(t, 1+g.r.IntN(200), last), "fold"
				switch {
				case step == 0:
					want = "full" // the rollup's first refresh
				case step == 6:
					b, want = g.batch(t, 100), "incremental" // late rows, duplicates of old keys
					for k := range g.keys {
						host, ts := g.keys[k][0].(string), g.keys[k][1].(int64)
						last[host] = max(last[host], ts)
					}
				}
				if _, err := f.raw.Append(ctx, b); err != nil {
					t.Fatal(err)
				}
				res, err := table.RefreshRollup(ctx, f.raw, f.ru, f.def, table.RefreshOptions{})
				if err != nil {
					t.Fatalf("step %d: refresh: %v", step, err)
				}
				modes[res.Mode]++
				if res.Mode != want {
					t.Fatalf("step %d: mode %s, want %s (%+v)", step, res.Mode, want, res)
				}
				if res.Mode == "fold" && res.BytesRead != 0 {
					t.Fatalf("step %d: a fold read %d bytes of raw data", step, res.BytesRead)
				}
				compare(t, ref, f, fmt.Sprintf("step %d (%s)", step, res.Mode))
			}
		})
	}
	t.Logf("refreshes: %v", modes)
}

// TestConcurrentFolds: four writers append later rows and refresh after
// each append, at once, each with its own Tables: folds from the versions
// a writer holds race with the others' refreshes and appends (a lost race
// runs again from the newest versions, or fails with ROLLUP_CONFLICT);
// after a last refresh the rollup equals DuckDB's GROUP BY.
func TestConcurrentFolds(t *testing.T) {
	ref := StartRef(t)
	ctx := context.Background()
	f := newFixture(t, 51, "1h", allAggs)
	var mu sync.Mutex
	g := &gen{r: rand.New(rand.NewPCG(51, 5)), sch: f.raw.Schema()}
	last := map[string]int64{}
	modes := map[string]int{}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, ru, err := openPair(ctx, f, uint64(2000+w))
			if err != nil {
				errs <- err
				return
			}
			for range 6 {
				mu.Lock()
				b := g.forward(t, 30, last)
				mu.Unlock()
				if _, err := raw.Append(ctx, b); err != nil {
					errs <- err
					return
				}
				res, err := table.RefreshRollup(ctx, raw, ru, f.def, table.RefreshOptions{})
				mode := "lost a race"
				if err == nil {
					mode = res.Mode
				} else if code := table.Code(err); code != rollup.CodeConflict && code != "COMMIT_CONFLICT_EXHAUSTED" {
					errs <- err
					return
				}
				mu.Lock()
				modes[mode]++
				mu.Unlock()
			}
		}()
	}
	settle(t, f, &wg, errs)
	t.Logf("refreshes: %v", modes)
	if modes["fold"] == 0 {
		t.Errorf("no refresh folded (%v)", modes)
	}
	compare(t, ref, f, "after concurrent folds")
}

// openPair opens the fixture's raw and rollup tables with their own Env.
func openPair(ctx context.Context, f *fixture, seed uint64) (raw, ru *table.Table, err error) {
	env := testenv.New(seed)
	rst, err := dirstore.Open(f.rawDir)
	if err != nil {
		return nil, nil, err
	}
	ust, err := dirstore.Open(strings.TrimPrefix(f.def.Location, "file://"))
	if err != nil {
		return nil, nil, err
	}
	if raw, err = table.Open(ctx, rst, env); err != nil {
		return nil, nil, err
	}
	ru, err = table.Open(ctx, ust, env)
	return raw, ru, err
}
