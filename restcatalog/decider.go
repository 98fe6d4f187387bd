package restcatalog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
)

// MaxRetryAfter caps a 429's Retry-After: a longer wait is the catalog's
// error to report, not one to sit through inside an append.
const MaxRetryAfter = 2 * time.Minute

// MaxUnknownResends bounds the requests sent again after a 5xx or no
// response whose commit the reload did not find, and MaxBackoff the wait
// before each: a catalog that is down is reported within seconds
// (COMMIT_UNKNOWN), not after the whole retry budget of doubling waits.
const (
	MaxUnknownResends = 3
	MaxBackoff        = 2 * time.Second
)

// Decider decides a table's versions through the catalog: one commit
// request per attempt.
//
//   - 200: ours is the new version (the response's metadata).
//   - 409: another writer won; the table is reloaded (the base of the
//     rebuild) unless the reload shows our commit id (an earlier request
//     of ours landed).
//   - 429: wait Retry-After (or the backoff) and send the same request.
//   - 5xx or no response: the outcome is unknown. Reload and look for our
//     commit id before anything else: found, it is ours; main unchanged,
//     send again; main moved, rebuild on it. Never an append twice.
//   - other 4xx: the commit is refused; nothing was applied.
type Decider struct {
	Client *Client
	Table  Ident
	// Backoff is the wait before resending after a 429 without
	// Retry-After or an unknown outcome; default 100ms, doubling.
	Backoff time.Duration
}

// Latest loads the table.
func (d *Decider) Latest(ctx context.Context) (commit.Version, error) {
	r, err := d.Client.LoadTable(ctx, d.Table)
	if err != nil {
		return commit.Version{}, err
	}
	return r.Version(), nil
}

// Propose sends the difference between base and att as one commit.
func (d *Decider) Propose(ctx context.Context, base commit.Version, att commit.Attempt, isOurs commit.IsOurs, budget int, res *commit.Result) (bool, commit.Version, error) {
	baseMD, nextMD := att.Base, att.Next
	var err error
	if baseMD == nil {
		if baseMD, err = iceberg.ParseMetadata(base.Raw); err != nil {
			return false, commit.Version{}, fmt.Errorf("restcatalog: base metadata: %w", err)
		}
	}
	if nextMD == nil {
		if nextMD, err = iceberg.ParseMetadata(att.Metadata); err != nil {
			return false, commit.Version{}, fmt.Errorf("restcatalog: next metadata: %w", err)
		}
	}
	ups, reqs, err := Diff(baseMD, nextMD)
	if err != nil {
		return false, commit.Version{}, err
	}
	req := &CommitRequest{Identifier: d.Table, Requirements: reqs, Updates: ups}
	wantMain := mainSnapshot(baseMD)
	wait := d.Backoff
	if wait <= 0 {
		wait = 100 * time.Millisecond
	}
	var lastErr error
	unknowns := 0
	grow := func() { wait = min(wait*2, MaxBackoff) }
	tries := max(budget, 1)
	for try := 0; try < tries; try++ {
		last := try+1 == tries
		res.Attempts++
		out, err := d.Client.commitTable(ctx, d.Table, req)
		if err == nil {
			res.Uploads++ // the catalog wrote the metadata file
			return true, out.Version(), nil
		}
		lastErr = err
		var ce *Error
		if !errors.As(err, &ce) {
			return false, commit.Version{}, err
		}
		switch {
		case errors.Is(err, ErrCommitFailed):
			v, lerr := d.Latest(ctx)
			if lerr != nil {
				return false, commit.Version{}, fmt.Errorf("after a refused commit: %w", lerr)
			}
			return isOurs(v), v, nil // ours: an earlier request landed after all
		case errors.Is(err, ErrRateLimited):
			pause := ce.RetryAfter
			if pause <= 0 {
				pause = wait
				grow()
			}
			if pause > MaxRetryAfter {
				return false, commit.Version{}, fmt.Errorf("%w (Retry-After %s exceeds %s)", err, ce.RetryAfter, MaxRetryAfter)
			}
			if last {
				break
			}
			if err := d.sleep(ctx, pause); err != nil {
				return false, commit.Version{}, err
			}
			continue
		case errors.Is(err, ErrServer), errors.Is(err, ErrUnavailable):
			unknowns++
			if ctx.Err() != nil {
				break
			}
			last = last || unknowns > MaxUnknownResends
			v, lerr := d.Latest(ctx)
			if lerr != nil {
				lastErr = fmt.Errorf("%w; reloading to learn the outcome: %w", err, lerr)
				if last {
					break
				}
				if err := d.sleep(ctx, wait); err != nil {
					return false, commit.Version{}, unknown(lastErr)
				}
				grow()
				continue
			}
			if isOurs(v) {
				return true, v, nil
			}
			if !sameMain(v, wantMain) {
				return false, v, nil // another writer moved main: rebuild on it
			}
			if last {
				break
			}
			if err := d.sleep(ctx, wait); err != nil {
				return false, commit.Version{}, unknown(lastErr)
			}
			grow()
			continue // not applied: send it again
		default:
			return false, commit.Version{}, err
		}
		break
	}
	if errors.Is(lastErr, ErrRateLimited) {
		return false, commit.Version{}, lastErr
	}
	return false, commit.Version{}, unknown(lastErr)
}

func unknown(err error) error { return fmt.Errorf("%w: %w", commit.ErrUnknownOutcome, err) }

func (d *Decider) sleep(ctx context.Context, t time.Duration) error {
	if d.Client.cfg.Sleep == nil {
		return ctx.Err()
	}
	return d.Client.cfg.Sleep(ctx, t)
}

// sameMain reports whether v's main ref is want (a snapshot id or nil).
func sameMain(v commit.Version, want any) bool {
	md, err := iceberg.ParseMetadata(v.Raw)
	if err != nil {
		return false
	}
	return mainSnapshot(md) == want
}
