// Package faultstore wraps a store.Store to inject failures, delays and lost
// responses, and counts the requests that pass through, so tests can drive a
// commit through every failure it must survive.
//
//	s := faultstore.New(memstore.New(),
//		// The commit's conditional write happens, but its response is lost.
//		faultstore.Rule{Op: faultstore.OpPutIfAbsent, Key: "metadata/v*.metadata.json", Nth: 1, Action: faultstore.LoseResponse},
//		// The third request, of any kind, fails outright.
//		faultstore.Rule{Nth: 3, Action: faultstore.Fail},
//	)
//	... run an append against s ...
//	if keys := s.RepeatedWrites(); len(keys) > 0 { t.Errorf("written twice: %v", keys) }
//
// Each rule counts the requests it matches (kind and key); it fires on the
// Nth of them, or on every one when Nth is 0. All rules that fire on a
// request act on it: their delays add up, then the first Fail stops the
// request before it reaches the wrapped store; otherwise the request is
// performed and the first LoseResponse replaces its result with an error.
package faultstore

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/timelake/timelake/store"
)

// Op is a kind of request.
type Op string

// The kinds of request. AnyOp in a Rule or a counter means all of them.
const (
	AnyOp         Op = ""
	OpGet         Op = "get"
	OpGetRange    Op = "getRange"
	OpPut         Op = "put"
	OpPutIfAbsent Op = "putIfAbsent"
	OpDelete      Op = "delete"
	OpList        Op = "list"
)

// Action is what a rule does to a request it fires on.
type Action int

const (
	// Fail returns an error without performing the request.
	Fail Action = iota
	// Delay waits Rule.Delay, then performs the request. A canceled context
	// ends the wait and the request fails with the context's error.
	Delay
	// LoseResponse performs the request, then returns an error instead of its
	// result: the ambiguous outcome of a timeout after the server acted.
	// A lost PutIfAbsent reports false with the error, whatever it did.
	LoseResponse
)

func (a Action) String() string {
	switch a {
	case Fail:
		return "fail"
	case Delay:
		return "delay"
	case LoseResponse:
		return "lose response"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// ErrInjected is the error a firing rule returns when its Err is nil.
var ErrInjected = errors.New("injected fault")

// Rule selects requests and says what to do with them. The zero Rule fails
// every request.
type Rule struct {
	// Op is the kind of request the rule matches; AnyOp matches all.
	Op Op
	// Key is a path.Match pattern the key must match ("data/*/*.parquet");
	// empty matches every key. A Delete matches if any of its keys does; a
	// List matches on its prefix.
	Key string
	// KeyRegexp, if set, must match the key too.
	KeyRegexp *regexp.Regexp
	// Nth makes the rule fire only on the Nth request it matches (1-based);
	// 0 fires on every match.
	Nth int
	// Action is what the rule does when it fires.
	Action Action
	// Err is returned by Fail and LoseResponse, wrapped with the request; nil
	// means ErrInjected.
	Err error
	// Delay is how long Delay waits.
	Delay time.Duration
}

type rule struct {
	Rule
	matched int // requests matched so far
}

// matches reports whether the rule selects a request of kind op on keys.
func (r *rule) matches(op Op, keys []string) bool {
	if r.Op != AnyOp && r.Op != op {
		return false
	}
	if r.Key == "" && r.KeyRegexp == nil {
		return true
	}
	for _, k := range keys {
		if ok, _ := path.Match(r.Key, k); (r.Key == "" || ok) && (r.KeyRegexp == nil || r.KeyRegexp.MatchString(k)) {
			return true
		}
	}
	return false
}

// Store wraps a store.Store. It is safe for concurrent use.
type Store struct {
	inner store.Store

	mu       sync.Mutex
	rules    []*rule
	sleep    func(context.Context, time.Duration) error
	requests map[Op]int
	byKey    map[opKey]int
	writes   map[string]int
	injected int
}

type opKey struct {
	op  Op
	key string
}

var _ store.Store = (*Store)(nil)

// New wraps inner with the given rules. It panics if a rule's Key is not a
// valid path.Match pattern.
func New(inner store.Store, rules ...Rule) *Store {
	s := &Store{
		inner:    inner,
		sleep:    sleepContext,
		requests: map[Op]int{},
		byKey:    map[opKey]int{},
		writes:   map[string]int{},
	}
	for _, r := range rules {
		s.AddRule(r)
	}
	return s
}

// AddRule adds a rule after the existing ones. Its count of matched requests
// starts at zero. It panics if r.Key is not a valid path.Match pattern.
func (s *Store) AddRule(r Rule) {
	if _, err := path.Match(r.Key, ""); err != nil {
		panic(fmt.Sprintf("faultstore: rule key pattern %q: %v", r.Key, err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, &rule{Rule: r})
}

// ClearRules removes every rule; counters are kept.
func (s *Store) ClearRules() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = nil
}

// SetSleep replaces the function Delay waits with (by default a timer that a
// canceled context interrupts), so tests need not wait in real time.
func (s *Store) SetSleep(sleep func(ctx context.Context, d time.Duration) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sleep = sleep
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Requests returns how many requests of kind op (AnyOp: of any kind) the
// store has received, including failed ones.
func (s *Store) Requests(op Op) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if op == AnyOp {
		n := 0
		for _, c := range s.requests {
			n += c
		}
		return n
	}
	return s.requests[op]
}

// KeyRequests returns how many requests of kind op (AnyOp: of any kind) named
// key, including failed ones. A Delete names each of its keys; a List names
// its prefix.
func (s *Store) KeyRequests(op Op, key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if op == AnyOp {
		n := 0
		for k, c := range s.byKey {
			if k.key == key {
				n += c
			}
		}
		return n
	}
	return s.byKey[opKey{op, key}]
}

// Writes returns how many Put and PutIfAbsent requests for key reached the
// wrapped store: those a Fail rule stopped are not counted, those whose
// response was lost are.
func (s *Store) Writes(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes[key]
}

// RepeatedWrites returns, sorted, the keys that Put or PutIfAbsent sent to
// the wrapped store more than once.
func (s *Store) RepeatedWrites() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k, n := range s.writes {
		if n > 1 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// Injected returns how many faults (failures, delays, lost responses) the
// rules have injected.
func (s *Store) Injected() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.injected
}

// fault is the decision for one request.
type fault struct {
	delay time.Duration
	fail  error // stop before performing
	lose  error // perform, then return this
	sleep func(context.Context, time.Duration) error
}

// begin counts a request and decides what the rules do to it.
func (s *Store) begin(op Op, keys ...string) fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[op]++
	for _, k := range keys {
		s.byKey[opKey{op, k}]++
	}
	f := fault{sleep: s.sleep}
	for _, r := range s.rules {
		if !r.matches(op, keys) {
			continue
		}
		r.matched++
		if r.Nth != 0 && r.matched != r.Nth {
			continue
		}
		s.injected++
		switch r.Action {
		case Delay:
			f.delay += r.Delay
		case Fail:
			if f.fail == nil {
				f.fail = injectedError(op, keys, r.Err)
			}
		case LoseResponse:
			if f.lose == nil {
				f.lose = injectedError(op, keys, r.Err)
			}
		}
	}
	if f.fail == nil && (op == OpPut || op == OpPutIfAbsent) {
		s.writes[keys[0]]++
	}
	return f
}

// wait applies the delay and reports an error that stops the request.
func (f fault) wait(ctx context.Context) error {
	if f.delay > 0 {
		if err := f.sleep(ctx, f.delay); err != nil {
			return err
		}
	}
	return f.fail
}

func injectedError(op Op, keys []string, err error) error {
	if err == nil {
		err = ErrInjected
	}
	if len(keys) == 1 {
		return fmt.Errorf("faultstore: %s %q: %w", op, keys[0], err)
	}
	return fmt.Errorf("faultstore: %s %q: %w", op, keys, err)
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	f := s.begin(OpGet, key)
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	b, err := s.inner.Get(ctx, key)
	if f.lose != nil {
		return nil, f.lose
	}
	return b, err
}

// GetLimited implements store.LimitedGetter; it counts and fails as a Get.
func (s *Store) GetLimited(ctx context.Context, key string, limit int64) ([]byte, error) {
	f := s.begin(OpGet, key)
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	b, err := store.GetLimited(ctx, s.inner, key, limit)
	if f.lose != nil {
		return nil, f.lose
	}
	return b, err
}

// GetRange implements store.Store.
func (s *Store) GetRange(ctx context.Context, key string, offset, length int64) ([]byte, error) {
	f := s.begin(OpGetRange, key)
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	b, err := s.inner.GetRange(ctx, key, offset, length)
	if f.lose != nil {
		return nil, f.lose
	}
	return b, err
}

// Put implements store.Store.
func (s *Store) Put(ctx context.Context, key string, data []byte) error {
	f := s.begin(OpPut, key)
	if err := f.wait(ctx); err != nil {
		return err
	}
	err := s.inner.Put(ctx, key, data)
	if f.lose != nil {
		return f.lose
	}
	return err
}

// PutIfAbsent implements store.Store.
func (s *Store) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	f := s.begin(OpPutIfAbsent, key)
	if err := f.wait(ctx); err != nil {
		return false, err
	}
	created, err := s.inner.PutIfAbsent(ctx, key, data)
	if f.lose != nil {
		return false, f.lose
	}
	return created, err
}

// Delete implements store.Store.
func (s *Store) Delete(ctx context.Context, keys []string) error {
	f := s.begin(OpDelete, keys...)
	if err := f.wait(ctx); err != nil {
		return err
	}
	err := s.inner.Delete(ctx, keys)
	if f.lose != nil {
		return f.lose
	}
	return err
}

// List implements store.Store.
func (s *Store) List(ctx context.Context, prefix string) ([]store.Object, error) {
	f := s.begin(OpList, prefix)
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	objs, err := s.inner.List(ctx, prefix)
	if f.lose != nil {
		return nil, f.lose
	}
	return objs, err
}
