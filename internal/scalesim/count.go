package main

import (
	"context"
	"strings"
	"sync"

	"github.com/timelake/timelake/store"
)

// Kinds of request as R2 bills them: class A (writes and lists), class B
// (reads), and deletes (free on R2, counted per request).
const (
	classA = "A"
	classB = "B"
	free   = "delete"
)

// counter wraps a store and counts its requests by R2 class and by the kind
// of object they name, so the report can tell what a REST catalog would
// take over (the metadata pointer: vN.metadata.json, version-hint.text,
// head.json). Requests made while paused (the simulation's own
// observations) are not counted.
type counter struct {
	store.Store
	mu      sync.Mutex
	paused  bool
	byClass map[string]int64 // class → requests
	pointer map[string]int64 // class → requests naming the metadata pointer
	deleted int64            // objects named by Delete requests
}

func newCounter(s store.Store) *counter {
	return &counter{Store: s, byClass: map[string]int64{}, pointer: map[string]int64{}}
}

// isPointer: the objects a catalog commit replaces. A catalog writes the
// metadata JSON itself and keeps the pointer in its database; the data
// files, manifests, manifest lists and index stay the writer's.
func isPointer(key string) bool {
	return key == "head.json" || key == "metadata/version-hint.text" ||
		(strings.HasPrefix(key, "metadata/v") && strings.HasSuffix(key, ".metadata.json"))
}

func (c *counter) add(class, key string, objs int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused {
		return
	}
	c.byClass[class]++
	if isPointer(key) {
		c.pointer[class]++
	}
	if class == free {
		c.deleted += int64(objs)
	}
}

func (c *counter) pause(p bool) {
	c.mu.Lock()
	c.paused = p
	c.mu.Unlock()
}

func (c *counter) snapshot() (byClass, pointer map[string]int64, deleted int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	byClass, pointer = map[string]int64{}, map[string]int64{}
	for k, v := range c.byClass {
		byClass[k] = v
	}
	for k, v := range c.pointer {
		pointer[k] = v
	}
	return byClass, pointer, c.deleted
}

func (c *counter) Get(ctx context.Context, key string) ([]byte, error) {
	c.add(classB, key, 1)
	return c.Store.Get(ctx, key)
}

// GetLimited keeps the wrapped store's size check (memstore has one).
func (c *counter) GetLimited(ctx context.Context, key string, limit int64) ([]byte, error) {
	c.add(classB, key, 1)
	return store.GetLimited(ctx, c.Store, key, limit)
}

func (c *counter) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	c.add(classB, key, 1)
	return c.Store.GetRange(ctx, key, off, n)
}

func (c *counter) Put(ctx context.Context, key string, data []byte) error {
	c.add(classA, key, 1)
	return c.Store.Put(ctx, key, data)
}

func (c *counter) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	c.add(classA, key, 1)
	return c.Store.PutIfAbsent(ctx, key, data)
}

func (c *counter) Delete(ctx context.Context, keys []string) error {
	k := ""
	if len(keys) == 1 {
		k = keys[0]
	}
	c.add(free, k, len(keys))
	return c.Store.Delete(ctx, keys)
}

func (c *counter) List(ctx context.Context, prefix string) ([]store.Object, error) {
	c.add(classA, prefix, 1)
	return c.Store.List(ctx, prefix)
}
