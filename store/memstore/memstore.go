// Package memstore is an in-memory store.Store, for tests and for tables that
// live only as long as the process.
//
// Objects are copied in and out, so a caller may reuse its buffers. The
// LastModified time comes from a clock the caller may replace; the default is
// a fake clock that starts at 2026-01-01T00:00:00Z and advances one
// millisecond per write, so runs are reproducible.
//
//	s := memstore.New()
//	created, err := s.PutIfAbsent(ctx, "metadata/v1.metadata.json", b)
//
//	s = memstore.New(memstore.WithClock(time.Now)) // real time, for orphan-age tests
package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/timelake/timelake/store"
)

// Store is an in-memory store.Store. The zero value is not usable; call New.
type Store struct {
	now func() time.Time

	mu   sync.Mutex
	objs map[string]object
}

type object struct {
	data    []byte
	modTime time.Time
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the function that stamps LastModified on each write. It is
// called with the store's lock held, so it must not call back into the store.
func WithClock(now func() time.Time) Option {
	return func(s *Store) { s.now = now }
}

// New returns an empty store.
func New(opts ...Option) *Store {
	s := &Store{objs: map[string]object{}, now: FakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Millisecond)}
	for _, o := range opts {
		o(s)
	}
	return s
}

// FakeClock returns a clock that gives start on its first call and advances by
// step on every later call. It is safe for concurrent use.
func FakeClock(start time.Time, step time.Duration) func() time.Time {
	var mu sync.Mutex
	next := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t := next
		next = next.Add(step)
		return t
	}
}

var _ store.Store = (*Store)(nil)

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	if err := check(ctx, key); err != nil {
		return nil, err
	}
	s.mu.Lock()
	o, ok := s.objs[key]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("memstore: get %q: %w", key, store.ErrNotFound)
	}
	return slices.Clone(o.data), nil
}

// GetLimited implements store.LimitedGetter.
func (s *Store) GetLimited(ctx context.Context, key string, limit int64) ([]byte, error) {
	if err := check(ctx, key); err != nil {
		return nil, err
	}
	s.mu.Lock()
	o, ok := s.objs[key]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("memstore: get %q: %w", key, store.ErrNotFound)
	}
	if int64(len(o.data)) > limit {
		return nil, fmt.Errorf("memstore: get: %w", store.TooLarge(key, int64(len(o.data)), limit))
	}
	return slices.Clone(o.data), nil
}

// GetRange implements store.Store.
func (s *Store) GetRange(ctx context.Context, key string, offset, length int64) ([]byte, error) {
	if err := check(ctx, key); err != nil {
		return nil, err
	}
	s.mu.Lock()
	o, ok := s.objs[key]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("memstore: get range of %q: %w", key, store.ErrNotFound)
	}
	size := int64(len(o.data))
	if offset < 0 || length < 0 || offset > size || length > size-offset {
		return nil, fmt.Errorf("memstore: get range of %q: offset %d length %d outside the %d-byte object: %w", key, offset, length, size, store.ErrRange)
	}
	return slices.Clone(o.data[offset : offset+length]), nil
}

// Put implements store.Store.
func (s *Store) Put(ctx context.Context, key string, data []byte) error {
	if err := check(ctx, key); err != nil {
		return err
	}
	data = cloneNonNil(data)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objs[key] = object{data: data, modTime: s.now()}
	return nil
}

// PutIfAbsent implements store.Store.
func (s *Store) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	if err := check(ctx, key); err != nil {
		return false, err
	}
	data = cloneNonNil(data)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objs[key]; ok {
		return false, nil
	}
	s.objs[key] = object{data: data, modTime: s.now()}
	return true, nil
}

// Delete implements store.Store. Every key is checked before any is removed.
func (s *Store) Delete(ctx context.Context, keys []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, k := range keys {
		if err := store.CheckKey(k); err != nil {
			return fmt.Errorf("memstore: delete: %w", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		delete(s.objs, k)
	}
	return nil
}

// List implements store.Store.
func (s *Store) List(ctx context.Context, prefix string) ([]store.Object, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := store.CheckPrefix(prefix); err != nil {
		return nil, fmt.Errorf("memstore: list: %w", err)
	}
	s.mu.Lock()
	var out []store.Object
	for k, o := range s.objs {
		if strings.HasPrefix(k, prefix) {
			out = append(out, store.Object{Key: k, Size: int64(len(o.data)), LastModified: o.modTime})
		}
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b store.Object) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func check(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("memstore: %w", err)
	}
	return nil
}

// cloneNonNil copies b; an empty object reads back as an empty, non-nil slice.
func cloneNonNil(b []byte) []byte {
	return append([]byte{}, b...)
}
