package faultstore_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return faultstore.New(memstore.New()) })
}

// call makes one request of kind op on key and returns its error.
func call(ctx context.Context, s store.Store, op faultstore.Op, key string) error {
	var err error
	switch op {
	case faultstore.OpGet:
		_, err = s.Get(ctx, key)
	case faultstore.OpGetRange:
		_, err = s.GetRange(ctx, key, 0, 1)
	case faultstore.OpPut:
		err = s.Put(ctx, key, []byte("x"))
	case faultstore.OpPutIfAbsent:
		_, err = s.PutIfAbsent(ctx, key, []byte("x"))
	case faultstore.OpDelete:
		err = s.Delete(ctx, []string{key})
	case faultstore.OpList:
		_, err = s.List(ctx, key)
	default:
		panic(op)
	}
	return err
}

var allOps = []faultstore.Op{faultstore.OpGet, faultstore.OpGetRange, faultstore.OpPut, faultstore.OpPutIfAbsent, faultstore.OpDelete, faultstore.OpList}

func TestFailSelection(t *testing.T) {
	type req struct {
		op  faultstore.Op
		key string
	}
	// The same sequence of requests against each rule; want lists the
	// 0-based requests that fail with ErrInjected.
	reqs := []req{
		{faultstore.OpPut, "data/a.parquet"},           // 0
		{faultstore.OpPut, "data/b.parquet"},           // 1
		{faultstore.OpGet, "data/a.parquet"},           // 2
		{faultstore.OpPutIfAbsent, "metadata/v1.json"}, // 3
		{faultstore.OpPut, "data/c.parquet"},           // 4
		{faultstore.OpList, "data/"},                   // 5
		{faultstore.OpGetRange, "data/a.parquet"},      // 6
		{faultstore.OpDelete, "data/b.parquet"},        // 7
		{faultstore.OpPutIfAbsent, "metadata/v2.json"}, // 8
	}
	tests := []struct {
		name string
		rule faultstore.Rule
		want []int
	}{
		{"every request", faultstore.Rule{}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"3rd request of any kind", faultstore.Rule{Nth: 3}, []int{2}},
		{"1st request", faultstore.Rule{Nth: 1}, []int{0}},
		{"2nd put", faultstore.Rule{Op: faultstore.OpPut, Nth: 2}, []int{1}},
		{"3rd put", faultstore.Rule{Op: faultstore.OpPut, Nth: 3}, []int{4}},
		{"4th put never happens", faultstore.Rule{Op: faultstore.OpPut, Nth: 4}, nil},
		{"every put", faultstore.Rule{Op: faultstore.OpPut}, []int{0, 1, 4}},
		{"every get", faultstore.Rule{Op: faultstore.OpGet}, []int{2}},
		{"every get range", faultstore.Rule{Op: faultstore.OpGetRange}, []int{6}},
		{"every delete", faultstore.Rule{Op: faultstore.OpDelete}, []int{7}},
		{"every list", faultstore.Rule{Op: faultstore.OpList}, []int{5}},
		{"2nd put if absent", faultstore.Rule{Op: faultstore.OpPutIfAbsent, Nth: 2}, []int{8}},
		{"key pattern", faultstore.Rule{Key: "data/*.parquet"}, []int{0, 1, 2, 4, 6, 7}},
		{"key pattern, list prefix", faultstore.Rule{Key: "data/"}, []int{5}},
		{"key pattern and kind", faultstore.Rule{Op: faultstore.OpPut, Key: "data/[bc].parquet"}, []int{1, 4}},
		{"key pattern, 2nd match", faultstore.Rule{Key: "metadata/*", Nth: 2}, []int{8}},
		{"key regexp", faultstore.Rule{KeyRegexp: regexp.MustCompile(`/v\d+\.json$`)}, []int{3, 8}},
		{"pattern and regexp both", faultstore.Rule{Key: "data/*", KeyRegexp: regexp.MustCompile(`a\.`)}, []int{0, 2, 6}},
		{"no match", faultstore.Rule{Key: "nothing/*"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := faultstore.New(memstore.New(), tc.rule)
			var got []int
			for i, r := range reqs {
				err := call(t.Context(), s, r.op, r.key)
				if errors.Is(err, faultstore.ErrInjected) {
					got = append(got, i)
					if !strings.Contains(err.Error(), fmt.Sprintf("%q", r.key)) || !strings.Contains(err.Error(), string(r.op)) {
						t.Errorf("request %d: error %q does not name the request (%s %q)", i, err, r.op, r.key)
					}
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("failed requests = %v, want %v", got, tc.want)
			}
			if s.Injected() != len(tc.want) {
				t.Errorf("Injected() = %d, want %d", s.Injected(), len(tc.want))
			}
		})
	}
}

// Fail stops the request before it reaches the wrapped store, for every kind.
func TestFailDoesNotPerform(t *testing.T) {
	ctx := t.Context()
	inner := memstore.New()
	inner.Put(ctx, "k", []byte("old"))
	s := faultstore.New(inner, faultstore.Rule{Action: faultstore.Fail})
	for _, op := range allOps {
		if err := call(ctx, s, op, "k"); !errors.Is(err, faultstore.ErrInjected) {
			t.Errorf("%s: err = %v, want ErrInjected", op, err)
		}
	}
	if got, _ := inner.Get(ctx, "k"); string(got) != "old" {
		t.Errorf("after failed requests k = %q, want %q", got, "old")
	}
	if n := s.Writes("k"); n != 0 {
		t.Errorf("Writes(k) = %d, want 0: failed writes never reached the store", n)
	}
}

func TestCustomError(t *testing.T) {
	s := faultstore.New(memstore.New(), faultstore.Rule{Op: faultstore.OpGet, Err: store.ErrNotFound})
	s.Put(t.Context(), "k", []byte("v"))
	_, err := s.Get(t.Context(), "k")
	if !errors.Is(err, store.ErrNotFound) || errors.Is(err, faultstore.ErrInjected) {
		t.Errorf("Get: err = %v, want the rule's ErrNotFound", err)
	}
}

// LoseResponse performs the request and then fails it.
func TestLoseResponse(t *testing.T) {
	ctx := t.Context()
	inner := memstore.New()
	s := faultstore.New(inner, faultstore.Rule{Op: faultstore.OpPutIfAbsent, Key: "metadata/*", Nth: 1, Action: faultstore.LoseResponse})

	created, err := s.PutIfAbsent(ctx, "metadata/v1.json", []byte("mine"))
	if !errors.Is(err, faultstore.ErrInjected) || created {
		t.Fatalf("PutIfAbsent with lost response = %v, %v; want false, ErrInjected", created, err)
	}
	if got, err := inner.Get(ctx, "metadata/v1.json"); err != nil || string(got) != "mine" {
		t.Errorf("the write behind the lost response: Get = %q, %v; want %q", got, err, "mine")
	}
	// The retry (the rule fired once) sees the object it created itself.
	created, err = s.PutIfAbsent(ctx, "metadata/v1.json", []byte("mine"))
	if err != nil || created {
		t.Errorf("retry = %v, %v; want false, nil", created, err)
	}
	if n := s.Writes("metadata/v1.json"); n != 2 {
		t.Errorf("Writes = %d, want 2 (a lost response counts as a write)", n)
	}

	// Every kind of request is performed.
	s = faultstore.New(inner, faultstore.Rule{Action: faultstore.LoseResponse})
	if err := s.Put(ctx, "p", []byte("p")); !errors.Is(err, faultstore.ErrInjected) {
		t.Errorf("Put: err = %v, want ErrInjected", err)
	}
	if _, err := inner.Get(ctx, "p"); err != nil {
		t.Errorf("lost Put not performed: %v", err)
	}
	if b, err := s.Get(ctx, "p"); !errors.Is(err, faultstore.ErrInjected) || b != nil {
		t.Errorf("Get = %q, %v; want nil, ErrInjected", b, err)
	}
	if b, err := s.GetRange(ctx, "p", 0, 1); !errors.Is(err, faultstore.ErrInjected) || b != nil {
		t.Errorf("GetRange = %q, %v; want nil, ErrInjected", b, err)
	}
	if objs, err := s.List(ctx, ""); !errors.Is(err, faultstore.ErrInjected) || objs != nil {
		t.Errorf("List = %v, %v; want nil, ErrInjected", objs, err)
	}
	if err := s.Delete(ctx, []string{"p"}); !errors.Is(err, faultstore.ErrInjected) {
		t.Errorf("Delete: err = %v, want ErrInjected", err)
	}
	if _, err := inner.Get(ctx, "p"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("lost Delete not performed: Get err = %v", err)
	}
}

func TestDelay(t *testing.T) {
	ctx := t.Context()
	var slept []time.Duration
	s := faultstore.New(memstore.New(),
		faultstore.Rule{Op: faultstore.OpPut, Action: faultstore.Delay, Delay: time.Second},
		faultstore.Rule{Op: faultstore.OpPut, Nth: 2, Action: faultstore.Delay, Delay: time.Minute},
	)
	s.SetSleep(func(ctx context.Context, d time.Duration) error {
		slept = append(slept, d)
		return nil
	})
	for i := range 3 {
		if err := s.Put(ctx, fmt.Sprintf("k%d", i), []byte("v")); err != nil {
			t.Fatalf("delayed Put: %v", err)
		}
	}
	s.Get(ctx, "k0")
	if want := []time.Duration{time.Second, time.Second + time.Minute, time.Second}; !slices.Equal(slept, want) {
		t.Errorf("slept %v, want %v", slept, want)
	}
	if got, err := s.Get(ctx, "k1"); err != nil || string(got) != "v" {
		t.Errorf("delayed Put not performed: Get = %q, %v", got, err)
	}
}

// The default sleep is a real timer that a canceled context interrupts; the
// request then fails and is not performed.
func TestDelayCanceled(t *testing.T) {
	inner := memstore.New()
	s := faultstore.New(inner, faultstore.Rule{Action: faultstore.Delay, Delay: time.Hour})
	ctx, cancel := context.WithCancel(t.Context())
	go cancel()
	if err := s.Put(ctx, "k", []byte("v")); !errors.Is(err, context.Canceled) {
		t.Errorf("Put: err = %v, want context.Canceled", err)
	}
	if _, err := inner.Get(t.Context(), "k"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("canceled delayed Put was performed: Get err = %v", err)
	}
}

func TestDefaultSleepWaits(t *testing.T) {
	s := faultstore.New(memstore.New(), faultstore.Rule{Action: faultstore.Delay, Delay: time.Millisecond})
	if err := s.Put(t.Context(), "k", []byte("v")); err != nil {
		t.Errorf("Put with a short real delay: %v", err)
	}
}

func TestRuleOrder(t *testing.T) {
	ctx := t.Context()
	errA, errB := errors.New("A"), errors.New("B")
	inner := memstore.New()
	slept := 0
	s := faultstore.New(inner,
		faultstore.Rule{Action: faultstore.Delay, Delay: time.Second},
		faultstore.Rule{Action: faultstore.LoseResponse, Err: errA},
		faultstore.Rule{Action: faultstore.Fail, Err: errB},
	)
	s.SetSleep(func(context.Context, time.Duration) error { slept++; return nil })
	// Fail wins over LoseResponse: nothing is performed. Delays still happen.
	if err := s.Put(ctx, "k", []byte("v")); !errors.Is(err, errB) {
		t.Errorf("Put: err = %v, want B", err)
	}
	if _, err := inner.Get(ctx, "k"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Put stopped by Fail was performed: Get err = %v", err)
	}
	if slept != 1 {
		t.Errorf("slept %d times, want 1", slept)
	}
	if s.Injected() != 3 {
		t.Errorf("Injected() = %d, want 3", s.Injected())
	}
	s.ClearRules()
	if err := s.Put(ctx, "k", []byte("v")); err != nil {
		t.Errorf("Put after ClearRules: %v", err)
	}
	s.AddRule(faultstore.Rule{Op: faultstore.OpGet, Nth: 2})
	if _, err := s.Get(ctx, "k"); err != nil {
		t.Errorf("first Get after AddRule: %v", err)
	}
	if _, err := s.Get(ctx, "k"); !errors.Is(err, faultstore.ErrInjected) {
		t.Errorf("second Get after AddRule: err = %v, want ErrInjected", err)
	}
}

func TestBadPatternPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New with pattern \"[\" did not panic")
		}
	}()
	faultstore.New(memstore.New(), faultstore.Rule{Key: "["})
}

func TestCounters(t *testing.T) {
	ctx := t.Context()
	s := faultstore.New(memstore.New(), faultstore.Rule{Op: faultstore.OpPut, Key: "data/b", Nth: 1})
	s.Put(ctx, "data/a", nil)
	s.Put(ctx, "data/b", nil) // fails, not performed
	s.Put(ctx, "data/b", nil) // retry
	s.PutIfAbsent(ctx, "data/a", nil)
	s.PutIfAbsent(ctx, "meta/v1", nil)
	s.Get(ctx, "data/a")
	s.GetRange(ctx, "data/a", 0, 0)
	s.Delete(ctx, []string{"data/a", "data/b"})
	s.List(ctx, "data/")
	s.List(ctx, "data/")

	for _, tc := range []struct {
		op   faultstore.Op
		want int
	}{
		{faultstore.AnyOp, 10},
		{faultstore.OpPut, 3},
		{faultstore.OpPutIfAbsent, 2},
		{faultstore.OpGet, 1},
		{faultstore.OpGetRange, 1},
		{faultstore.OpDelete, 1},
		{faultstore.OpList, 2},
	} {
		if got := s.Requests(tc.op); got != tc.want {
			t.Errorf("Requests(%q) = %d, want %d", tc.op, got, tc.want)
		}
	}
	for _, tc := range []struct {
		op   faultstore.Op
		key  string
		want int
	}{
		{faultstore.OpPut, "data/b", 2},
		{faultstore.OpPut, "data/a", 1},
		{faultstore.OpPutIfAbsent, "data/a", 1},
		{faultstore.OpDelete, "data/b", 1},
		{faultstore.OpList, "data/", 2},
		{faultstore.AnyOp, "data/a", 5},
		{faultstore.AnyOp, "nothing", 0},
	} {
		if got := s.KeyRequests(tc.op, tc.key); got != tc.want {
			t.Errorf("KeyRequests(%q, %q) = %d, want %d", tc.op, tc.key, got, tc.want)
		}
	}
	for key, want := range map[string]int{"data/a": 2, "data/b": 1, "meta/v1": 1, "nothing": 0} {
		if got := s.Writes(key); got != want {
			t.Errorf("Writes(%q) = %d, want %d", key, got, want)
		}
	}
	if got := s.RepeatedWrites(); !slices.Equal(got, []string{"data/a"}) {
		t.Errorf("RepeatedWrites() = %q, want [data/a]", got)
	}
}

func TestConcurrent(t *testing.T) {
	s := faultstore.New(memstore.New(), faultstore.Rule{Op: faultstore.OpPut, Nth: 50})
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	for i := range 100 {
		wg.Go(func() {
			err := s.Put(t.Context(), fmt.Sprintf("k%d", i%10), []byte("v"))
			if errors.Is(err, faultstore.ErrInjected) {
				mu.Lock()
				failed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if failed != 1 {
		t.Errorf("%d puts failed, want exactly the 50th", failed)
	}
	if got := s.Requests(faultstore.OpPut); got != 100 {
		t.Errorf("Requests(put) = %d, want 100", got)
	}
	total := 0
	for i := range 10 {
		total += s.Writes(fmt.Sprintf("k%d", i))
	}
	if total != 99 {
		t.Errorf("writes performed = %d, want 99", total)
	}
}
