package commit

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/store"
)

// File is an object a change uploads.
type File struct {
	Key  string
	Data []byte
}

// Attempt is what a change puts on top of one base version: the files that
// depend on the base and the bytes of the next metadata version.
type Attempt struct {
	Files    []File
	Metadata []byte
	// Base and Next are the parsed metadata of the base version and of
	// Metadata, for a Decider that sends the change rather than the bytes
	// (a REST catalog's commit request is the difference between them).
	Base, Next *iceberg.Metadata
}

// Rebuild builds the attempt for base. It is called once per attempt, with the
// newest version known; it returns ErrDropped (wrapped) when the change can no
// longer be applied on top of base.
type Rebuild func(ctx context.Context, base Version) (Attempt, error)

// IsOurs reports whether a committed version holds this change (by its commit id).
type IsOurs func(v Version) bool

// Options bound the retries. Sleep and Rand are the caller's (no clock or
// global randomness here); nil Sleep retries at once.
type Options struct {
	MaxAttempts int           // conditional writes tried, default 10
	BaseBackoff time.Duration // first backoff, default 25ms; doubles each conflict
	MaxBackoff  time.Duration // default 2s
	Parallel    int           // uploads in flight at once, default 8
	Sleep       func(ctx context.Context, d time.Duration) error
	Rand        io.Reader // jitter source; nil means no jitter
	// Decider decides each version; nil is the storage-only one
	// (PutIfAbsent of metadata/v{N+1}.metadata.json in the store).
	Decider Decider
}

func (o *Options) defaults() {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 10
	}
	if o.BaseBackoff <= 0 {
		o.BaseBackoff = 25 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 2 * time.Second
	}
	if o.Parallel <= 0 {
		o.Parallel = 8
	}
}

func (o *Options) withDecider(st store.Store) {
	if o.Decider == nil {
		o.Decider = StoreDecider{Store: st}
	}
}

// Result tells how a commit went.
type Result struct {
	Version   Version // the committed version (ours)
	Attempts  int     // conditional writes made
	Conflicts int     // versions other writers won first
	Uploads   int     // objects uploaded, metadata included
}

var (
	// ErrConflictsExhausted: every attempt lost to another writer.
	ErrConflictsExhausted = errors.New("commit conflicts exhausted")
	// ErrDropped: the change cannot be applied on top of a newer version.
	ErrDropped = errors.New("change dropped: a newer version removed its inputs")
	// ErrUnknownOutcome: the conditional write's outcome could not be learned;
	// the change may or may not be committed, so its files are kept.
	ErrUnknownOutcome = errors.New("commit outcome unknown")
)

// Commit uploads fixed once, then builds and writes attempts on top of base
// until one wins. On failure, the files this call uploaded are deleted (best
// effort) unless the outcome is unknown.
func Commit(ctx context.Context, st store.Store, opt Options, base Version, fixed []File, rebuild Rebuild, isOurs IsOurs) (Result, error) {
	opt.defaults()
	opt.withDecider(st)
	var res Result
	uploaded := []string{}
	cleanup := func() {
		if len(uploaded) > 0 {
			// Best effort: orphan cleanup catches what this misses.
			_ = st.Delete(context.WithoutCancel(ctx), uploaded)
		}
	}
	if err := putAll(ctx, st, fixed, opt.Parallel); err != nil {
		uploaded = append(uploaded, keys(fixed)...)
		cleanup()
		return res, err
	}
	uploaded = append(uploaded, keys(fixed)...)
	res.Uploads += len(fixed)

	for {
		att, err := rebuild(ctx, base)
		if err != nil {
			cleanup()
			return res, err
		}
		if err := putAll(ctx, st, att.Files, opt.Parallel); err != nil {
			uploaded = append(uploaded, keys(att.Files)...)
			cleanup()
			return res, err
		}
		res.Uploads += len(att.Files)
		won, next, err := opt.Decider.Propose(ctx, base, att, isOurs, opt.MaxAttempts-res.Attempts, &res)
		if err != nil {
			if errors.Is(err, ErrUnknownOutcome) {
				return res, err // keep every file: the change may be committed
			}
			uploaded = append(uploaded, keys(att.Files)...)
			cleanup()
			return res, err
		}
		if won {
			res.Version = next
			return res, nil
		}
		// Lost to another writer: this attempt's base-dependent files are garbage.
		res.Conflicts++
		if len(att.Files) > 0 {
			_ = st.Delete(context.WithoutCancel(ctx), keys(att.Files))
		}
		if res.Attempts >= opt.MaxAttempts {
			cleanup()
			return res, fmt.Errorf("%w: %d attempts, last lost to version %s", ErrConflictsExhausted, res.Attempts, next.Name())
		}
		base = next
		if err := backoff(ctx, opt, res.Conflicts); err != nil {
			cleanup()
			return res, err
		}
	}
}

// writeVersion makes the conditional write of version n and resolves its
// outcome: won, or lost to the returned version. Errors from PutIfAbsent are
// retried (the same bytes) while attempts remain; each retry first reads
// version n, since the write may have happened.
func writeVersion(ctx context.Context, st store.Store, key string, n int, data []byte, isOurs IsOurs, budget int, res *Result) (bool, Version, error) {
	var lastErr error
tries:
	for range max(budget, 1) {
		res.Attempts++
		ok, err := st.PutIfAbsent(ctx, key, data)
		if err == nil && ok {
			res.Uploads++
			return true, Version{}, nil
		}
		if err != nil {
			lastErr = err
			if ctx.Err() != nil {
				break tries
			}
		}
		// Lost, or unknown: read what is there.
		raw, gerr := store.GetLimited(ctx, st, key, MaxMetadataBytes)
		switch {
		case gerr == nil:
			v := Version{N: n, Raw: raw}
			if isOurs(v) {
				res.Uploads++
				return true, Version{}, nil // our earlier write landed
			}
			return false, v, nil
		case errors.Is(gerr, store.ErrNotFound):
			if err == nil {
				// PutIfAbsent said "exists" yet nothing is there: a store bug or a
				// concurrent delete. Try again.
				lastErr = fmt.Errorf("%s: conditional write refused but the object is missing", key)
			}
			continue // nothing landed: write again
		default:
			lastErr = gerr
			if ctx.Err() != nil {
				break tries
			}
		}
	}
	return false, Version{}, fmt.Errorf("%w: writing %s: %v", ErrUnknownOutcome, key, lastErr)
}

func backoff(ctx context.Context, opt Options, conflicts int) error {
	if opt.Sleep == nil {
		return ctx.Err()
	}
	d := opt.BaseBackoff << min(conflicts-1, 20)
	if d > opt.MaxBackoff || d <= 0 {
		d = opt.MaxBackoff
	}
	if opt.Rand != nil {
		// Full jitter: a uniform wait in [d/2, d).
		var b [8]byte
		if _, err := io.ReadFull(opt.Rand, b[:]); err == nil {
			f := float64(binary.LittleEndian.Uint64(b[:])>>11) / (1 << 53)
			d = d/2 + time.Duration(f*float64(d/2))
		}
	}
	return opt.Sleep(ctx, d)
}

func keys(fs []File) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Key
	}
	return out
}

// putAll uploads files with at most parallel requests in flight and returns
// the first error, naming the key.
func putAll(ctx context.Context, st store.Store, files []File, parallel int) error {
	if len(files) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, parallel)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for _, f := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := st.Put(ctx, f.Key, f.Data); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("upload %s: %w", f.Key, err)
					cancel()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// Upload puts files in parallel (at most parallel at once, 8 for 0), for a
// change that uploads its files before its commit (a staged append, whose
// data files go up batch by batch); the first error ends it.
func Upload(ctx context.Context, st store.Store, files []File, parallel int) error {
	if parallel <= 0 {
		parallel = 8
	}
	return putAll(ctx, st, files, parallel)
}
