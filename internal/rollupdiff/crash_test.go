package rollupdiff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// memPair is a raw table and its rollup in two memory stores.
type memPair struct {
	raw, ru *memstore.Store
	def     rollup.Def
}

// crashFixture: a raw table refreshed once, then changed again (late
// rows, duplicates, a compaction), so the refresh under test walks
// snapshots incrementally.
func crashFixture(t *testing.T) memPair {
	ctx := context.Background()
	p := memPair{raw: memstore.New(), ru: memstore.New()}
	env := testenv.New(3)
	raw, err := table.Create(ctx, p.raw, env, "file:///t/raw", rawSchema(t), nil)
	must(t, err)
	p.def, err = rollup.New("r", "1h", allAggs, "")
	must(t, err)
	p.def.Location = rollup.SiblingLocation("file:///t/raw", "r")
	ru, err := table.AddRollup(ctx, raw, p.ru, p.def)
	must(t, err)
	g := &gen{r: rand.New(rand.NewPCG(3, 3)), sch: raw.Schema()}
	for i := range 5 {
		if _, err := raw.Append(ctx, g.batch(t, 200)); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			if _, err := table.RefreshRollup(ctx, raw, ru, p.def, table.RefreshOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if i == 3 {
			if _, err := raw.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return p
}

func clone(t *testing.T, src *memstore.Store) *memstore.Store {
	ctx := context.Background()
	dst := memstore.New()
	objs, err := src.List(ctx, "")
	must(t, err)
	for _, o := range objs {
		b, err := src.Get(ctx, o.Key)
		must(t, err)
		must(t, dst.Put(ctx, o.Key, b))
	}
	return dst
}

func open(t *testing.T, st store.Store) *table.Table {
	tb, err := table.Open(context.Background(), st, testenv.New(9))
	must(t, err)
	return tb
}

// seeds makes each refresh's Env differ: two refreshes with the same
// randomness would write the same commit id, and each take the other's
// commit for its own.
var seeds uint64 = 100

// refreshOn refreshes the rollup of raw/ru stores (fresh Tables).
func refreshOn(ctx context.Context, t *testing.T, raw, ru store.Store, def rollup.Def) (*table.RefreshResult, error) {
	seeds += 2
	rt, err := table.Open(ctx, raw, testenv.New(seeds))
	if err != nil {
		return nil, err
	}
	ut, err := table.Open(ctx, ru, testenv.New(seeds+1))
	if err != nil {
		return nil, err
	}
	return table.RefreshRollup(ctx, rt, ut, def, table.RefreshOptions{})
}

// TestRefreshCrashAtEveryRequest fails, times out or loses the answer of
// each request of a refresh in turn (of the raw table's store, then of the
// rollup's); after each, the rollup table holds either the rows before the
// refresh or those after, and a rerun gives exactly the rows of a refresh
// that met no fault.
func TestRefreshCrashAtEveryRequest(t *testing.T) {
	base := crashFixture(t)
	before := rollupRows(t, open(t, base.ru))
	clean := memPair{raw: clone(t, base.raw), ru: clone(t, base.ru), def: base.def}
	res, err := refreshOn(context.Background(), t, clean.raw, clean.ru, base.def)
	must(t, err)
	if res.Mode != "incremental" || res.Rows == 0 {
		t.Fatalf("the clean refresh: %+v, want an incremental one writing rows", res)
	}
	after := rollupRows(t, open(t, clean.ru))
	if reflect.DeepEqual(before, after) {
		t.Fatal("the refresh changed nothing: the test would prove nothing")
	}
	points := 0
	for _, which := range []string{"raw", "rollup"} {
		for _, action := range crashActions {
			for k := 1; ; k++ {
				p := memPair{raw: clone(t, base.raw), ru: clone(t, base.ru), def: base.def}
				var fs *faultstore.Store
				rawSt, ruSt := store.Store(p.raw), store.Store(p.ru)
				if which == "raw" {
					fs = faultstore.New(p.raw)
					rawSt = fs
				} else {
					fs = faultstore.New(p.ru)
					ruSt = fs
				}
				ctx := arm(fs, action, k)
				_, err := refreshOn(ctx, t, rawSt, ruSt, base.def)
				if fs.Injected() == 0 {
					if err != nil {
						t.Fatalf("%s %s %d: no fault, yet: %v", which, action, k, err)
					}
					break // past the last request
				}
				points++
				what := fmt.Sprintf("%s store, request %d %s", which, k, action)
				now := rollupRows(t, open(t, p.ru))
				if !reflect.DeepEqual(now, before) && !reflect.DeepEqual(now, after) {
					t.Fatalf("%s: the rollup holds neither the rows before nor after the refresh", what)
				}
				if _, err := refreshOn(context.Background(), t, p.raw, p.ru, base.def); err != nil {
					t.Fatalf("%s: the rerun: %v", what, err)
				}
				if got := rollupRows(t, open(t, p.ru)); !reflect.DeepEqual(got, after) {
					t.Fatalf("%s: after the rerun the rollup differs from a clean refresh's", what)
				}
			}
		}
	}
	t.Logf("%d crash points", points)
}

type crashAction string

const (
	actFail    crashAction = "fail"
	actTimeout crashAction = "timeout"
	actLose    crashAction = "lose-response"
)

var crashActions = []crashAction{actFail, actTimeout, actLose}

// arm adds the fault of action at the k-th request of fs (as
// table/crash_harness_test.go does) and returns the context to run under.
func arm(fs *faultstore.Store, action crashAction, k int) context.Context {
	switch action {
	case actFail:
		fs.AddRule(faultstore.Rule{Nth: k, Action: faultstore.Fail})
	case actLose:
		fs.AddRule(faultstore.Rule{Nth: k, Action: faultstore.LoseResponse})
	case actTimeout:
		ctx, cancel := context.WithCancel(context.Background())
		fs.SetSleep(func(c context.Context, _ time.Duration) error {
			cancel() // the request waited past the deadline
			<-c.Done()
			return c.Err()
		})
		fs.AddRule(faultstore.Rule{Nth: k, Action: faultstore.Delay, Delay: time.Hour})
		return ctx
	}
	return context.Background()
}

// TestConcurrentRefresh: refresh B is about to commit when refresh A, of
// the same changes, commits first; B's rebase finds A's snapshot, fails
// with ROLLUP_CONFLICT and commits nothing; the rollup is exact.
func TestConcurrentRefresh(t *testing.T) {
	ctx := context.Background()
	p := crashFixture(t)
	want := memPair{raw: clone(t, p.raw), ru: clone(t, p.ru), def: p.def}
	if _, err := refreshOn(ctx, t, want.raw, want.ru, p.def); err != nil {
		t.Fatal(err)
	}
	fs := faultstore.New(p.ru)
	var aErr error
	ran := false
	fs.SetSleep(func(context.Context, time.Duration) error {
		if !ran { // A runs while B's conditional write waits
			ran = true
			_, aErr = refreshOn(ctx, t, p.raw, p.ru, p.def)
		}
		return nil
	})
	fs.AddRule(faultstore.Rule{Op: faultstore.OpPutIfAbsent, Key: "metadata/v*.metadata.json", Nth: 1, Action: faultstore.Delay, Delay: time.Second})
	_, err := refreshOn(ctx, t, p.raw, fs, p.def)
	if aErr != nil || !ran {
		t.Fatalf("refresh A: ran %v, %v", ran, aErr)
	}
	if table.Code(err) != rollup.CodeConflict {
		t.Fatalf("refresh B: %v (%s), want ROLLUP_CONFLICT", err, table.Code(err))
	}
	if got, want := rollupRows(t, open(t, p.ru)), rollupRows(t, open(t, want.ru)); !reflect.DeepEqual(got, want) {
		t.Fatal("after the race the rollup differs from one refresh's")
	}
	res, err := refreshOn(ctx, t, p.raw, p.ru, p.def)
	if err != nil || res.Mode != "up-to-date" {
		t.Fatalf("a refresh after the race: %+v, %v", res, err)
	}
}
