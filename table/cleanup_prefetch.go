package table

import (
	"context"
	"sync"

	"github.com/timelake/timelake/store"
)

// Cleanup reads the manifest list of every snapshot it considers and every
// manifest they name: on object storage and through the WebAssembly
// bridge each read is a round trip, and one after another they were most
// of an expiry's time (1,000 snapshots: 122 gets, 51× the native CPU).
// prefetch issues such reads cleanupFetches at a time and keeps what they
// return for the one reader that asks next.

// cleanupFetches bounds the reads a cleanup has in flight.
var cleanupFetches = 16

// fetched is one prefetched object.
type fetched struct {
	data []byte
	err  error
}

// prefetcher holds the objects read ahead, each handed out once.
type prefetcher struct {
	mu   sync.Mutex
	got  map[string]fetched
	read func(ctx context.Context, key string) ([]byte, error)
}

func newPrefetcher(st store.Store) *prefetcher {
	return &prefetcher{got: map[string]fetched{}, read: func(ctx context.Context, key string) ([]byte, error) {
		return store.GetLimited(ctx, st, key, MaxFileBytes)
	}}
}

// prefetch reads keys (those not held already), cleanupFetches at a time,
// and returns when all are in.
func (p *prefetcher) prefetch(ctx context.Context, keys []string) {
	sem := make(chan struct{}, cleanupFetches)
	var wg sync.WaitGroup
	seen := map[string]bool{}
	for _, k := range keys {
		p.mu.Lock()
		_, held := p.got[k]
		p.mu.Unlock()
		if held || seen[k] {
			continue
		}
		seen[k] = true
		wg.Add(1)
		sem <- struct{}{}
		go func(k string) {
			defer wg.Done()
			data, err := p.read(ctx, k)
			<-sem
			p.mu.Lock()
			p.got[k] = fetched{data, err}
			p.mu.Unlock()
		}(k)
	}
	wg.Wait()
}

// get returns the object at key: prefetched (and let go), or read now.
func (p *prefetcher) get(ctx context.Context, key string) ([]byte, error) {
	p.mu.Lock()
	f, ok := p.got[key]
	delete(p.got, key)
	p.mu.Unlock()
	if ok {
		return f.data, f.err
	}
	return p.read(ctx, key)
}
