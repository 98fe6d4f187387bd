package table

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Env is what the core takes from its driver instead of reading a clock or
// global randomness itself, so a test can replay an operation exactly.
type Env struct {
	Now   func() time.Time // the append's _ingest_ts, snapshot timestamps
	Rand  io.Reader        // uuids, snapshot ids, commit ids, backoff jitter
	Sleep func(ctx context.Context, d time.Duration) error
	// GraceFloor is the least orphan and metadata grace maintenance uses,
	// whatever the table's properties say: what a writer committing at the
	// same time needs between uploading a file and committing it. Below it
	// the cleanup could delete a concurrent append's manifest before its
	// commit. The drivers (CLI, client) set DefaultGraceFloor; 0 (a test's
	// single writer) is no floor.
	GraceFloor time.Duration
}

// DefaultGraceFloor is the drivers' GraceFloor: far past a commit's
// retries (10 attempts, at most 2 s apart by default) and an append's
// uploads.
const DefaultGraceFloor = 10 * time.Minute

func (e Env) check() error {
	if e.Now == nil || e.Rand == nil {
		return fmt.Errorf("table: Env needs Now and Rand")
	}
	return nil
}

// uuid returns a random (version 4) UUID in its text form.
func (e Env) uuid() (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(e.Rand, b[:]); err != nil {
		return "", fmt.Errorf("table: reading randomness: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// snapshotID returns a random positive int64 (Iceberg snapshot ids are signed
// 64-bit; positive ones print the same everywhere).
func (e Env) snapshotID() (int64, error) {
	var b [8]byte
	if _, err := io.ReadFull(e.Rand, b[:]); err != nil {
		return 0, fmt.Errorf("table: reading randomness: %w", err)
	}
	var v uint64
	for _, x := range b {
		v = v<<8 | uint64(x)
	}
	id := int64(v >> 1)
	if id == 0 {
		id = 1
	}
	return id, nil
}
