package commit

import (
	"context"

	"github.com/timelake/timelake/store"
)

// A Decider decides which change becomes a table's next version. The
// storage-only decider (StoreDecider) makes one conditional write of
// metadata/v{N+1}.metadata.json; a REST catalog's (restcatalog.Decider)
// sends one commit request. Commit's loop — upload once, rebuild on the
// newest version, back off — is the same for both.
type Decider interface {
	// Propose tries to make att the version after base. It returns won and
	// the committed version, or !won and the newer version that another
	// writer committed first (the base of the next attempt). budget is how
	// many requests it may still make (retries of an unknown outcome
	// included); each is counted in res.Attempts. An outcome it cannot
	// learn is an error wrapping ErrUnknownOutcome.
	Propose(ctx context.Context, base Version, att Attempt, isOurs IsOurs, budget int, res *Result) (won bool, v Version, err error)
	// Latest loads the newest version.
	Latest(ctx context.Context) (Version, error)
}

// StoreDecider decides versions by conditional writes in the table's store
// (the storage-only, embedded default).
type StoreDecider struct{ Store store.Store }

// Propose writes v{N+1}; on a loss it returns the newest version there is.
func (d StoreDecider) Propose(ctx context.Context, base Version, att Attempt, isOurs IsOurs, budget int, res *Result) (bool, Version, error) {
	won, lost, err := writeVersion(ctx, d.Store, MetadataKey(base.N+1), base.N+1, att.Metadata, isOurs, budget, res)
	if err != nil || won {
		return won, Version{N: base.N + 1, Raw: att.Metadata}, err
	}
	newest, err := probeForward(ctx, d.Store, lost)
	return false, newest, err
}

// Latest is Latest(d.Store).
func (d StoreDecider) Latest(ctx context.Context) (Version, error) { return Latest(ctx, d.Store) }
