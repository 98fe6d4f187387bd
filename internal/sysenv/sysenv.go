// Package sysenv gives the drivers (CLI, WASM bridge) the real clock and
// randomness that the core takes as inputs.
package sysenv

import (
	"context"
	"time"

	"github.com/timelake/timelake/table"
)

// Env returns the wall clock, crypto/rand (read through a buffer, see
// bufferedRand) and a context-aware sleep.
func Env() table.Env {
	return table.Env{
		Now:        time.Now,
		GraceFloor: table.DefaultGraceFloor,
		Rand:       sharedRand,
		Sleep: func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
				return nil
			}
		},
	}
}
