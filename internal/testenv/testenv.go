// Package testenv gives tests a deterministic table.Env: a clock that starts
// at a fixed time and ticks one millisecond per reading, seeded randomness,
// and a sleep that returns at once. Two runs with the same seed build the
// same bytes.
package testenv

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/timelake/timelake/table"
)

// Start is the clock's first reading.
var Start = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// New returns a deterministic Env, safe for concurrent use.
func New(seed uint64) table.Env {
	var mu sync.Mutex
	now := Start
	var s [32]byte
	for i := range 8 {
		s[i] = byte(seed >> (8 * i))
	}
	src := rand.NewChaCha8(s)
	return table.Env{
		Now: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			now = now.Add(time.Millisecond)
			return now
		},
		Rand: readerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return src.Read(p)
		}),
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	}
}

type readerFunc func(p []byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
