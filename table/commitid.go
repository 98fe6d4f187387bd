package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/rows"
)

// Commit ids chosen by the caller make an append idempotent across a
// crash: a writer that keeps its batches somewhere durable (a Durable
// Object's storage) names each batch, appends it with that name, and after
// a restart asks FindCommit whether the batch landed before appending it
// again. The id is kept in the snapshot summary under SummaryCommitID
// ("timelake.commit-id", persisted: must not change), the key every append
// already writes with a random id.
//
//	if c, err := tb.FindCommit(ctx, id); err == nil && c == nil {
//		_, err = tb.AppendWithCommitID(ctx, batch, id)
//	}
//
// Only retained snapshots are searched: once snapshot expiry (by age or by
// count) removes the snapshot, the id is forgotten. A caller must settle a
// batch (delete it on success, or look it up after a restart) within the
// table's snapshot retention, counted in commits as well as in time.

var (
	// ErrBadCommitID: a caller-chosen commit id that is empty, too long or
	// holds characters other than letters, digits and . _ : -.
	ErrBadCommitID = errors.New("bad commit id")
	// ErrCommitExists: the table's retained snapshots already hold this
	// commit id; nothing was appended (the batch landed before).
	ErrCommitExists = errors.New("commit id already in the table")
)

// MaxCommitIDLen bounds a caller-chosen commit id.
const MaxCommitIDLen = 128

// CheckCommitID reports whether id may name a commit. The characters are
// limited so that the id is its own JSON text (holdsCommit looks for its
// bytes before parsing) and fits a file name.
func CheckCommitID(id string) error {
	if id == "" || len(id) > MaxCommitIDLen {
		return fmt.Errorf("%w: %q: want 1 to %d characters", ErrBadCommitID, cut(id), MaxCommitIDLen)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
		if !ok {
			return fmt.Errorf("%w: %q: character %q at byte %d (allowed: letters, digits, . _ : -)", ErrBadCommitID, cut(id), c, i)
		}
	}
	return nil
}

func cut(s string) string {
	if len(s) > MaxCommitIDLen {
		return s[:MaxCommitIDLen] + "…"
	}
	return s
}

// AppendWithCommitID is Append with the commit id chosen by the caller
// (CheckCommitID's rules). If a retained snapshot of the newest version
// this writer learns of — at the start, or on each rebase after a
// conflict — already holds the id, nothing is committed and the error
// wraps ErrCommitExists. The id survives rebases: every attempt carries it.
func (tb *Table) AppendWithCommitID(ctx context.Context, b *rows.Batch, commitID string) (*AppendResult, error) {
	if err := CheckCommitID(commitID); err != nil {
		return nil, err
	}
	return tb.AppendWith(ctx, b, AppendOptions{CommitID: commitID})
}

// FoundCommit is the snapshot that holds a commit id.
type FoundCommit struct {
	SnapshotID     int64
	SequenceNumber int64
	TimestampMs    int64
	Operation      string // "append" for an append
	AddedRows      int64  // the summary's added-records
	Version        int    // the metadata version searched (the newest)
}

// FindCommit loads the newest version and returns the retained snapshot
// whose summary holds commitID, or nil when none does (never committed, or
// its snapshot expired).
func (tb *Table) FindCommit(ctx context.Context, commitID string) (*FoundCommit, error) {
	if err := CheckCommitID(commitID); err != nil {
		return nil, err
	}
	v, err := tb.latest(ctx)
	if err != nil {
		return nil, err
	}
	if !v.Same(tb.version) {
		if err := tb.load(v); err != nil {
			return nil, err
		}
	}
	s := snapshotWithCommit(tb.meta, commitID)
	if s == nil {
		return nil, nil
	}
	added, _ := strconv.ParseInt(s.Summary["added-records"], 10, 64)
	return &FoundCommit{
		SnapshotID: s.SnapshotID, SequenceNumber: s.SequenceNumber, TimestampMs: s.TimestampMs,
		Operation: s.Summary["operation"], AddedRows: added, Version: tb.version.N,
	}, nil
}

// refuseKnownCommit fails with ErrCommitExists when the version this writer
// holds already has the commit id.
func (tb *Table) refuseKnownCommit(id string) error {
	if s := snapshotWithCommit(tb.meta, id); s != nil {
		return fmt.Errorf("%w: %s is snapshot %d of %s", ErrCommitExists, id, s.SnapshotID, tb.version.Name())
	}
	return nil
}

func snapshotWithCommit(md *iceberg.Metadata, id string) *iceberg.Snapshot {
	for i := range md.Snapshots {
		if md.Snapshots[i].Summary[SummaryCommitID] == id {
			return &md.Snapshots[i]
		}
	}
	return nil
}

// holdsCommit recognises the version holding this append: its commit id
// and its snapshot id. The id alone is not enough: a caller-chosen id may
// have been committed by another writer (the same batch sent twice), whose
// version must be rebased over and refused, not taken for ours; and unlike
// a random UUID it may appear elsewhere in the metadata, so a version whose
// bytes contain it is parsed to be sure.
func holdsCommit(id string, snapID int64) commit.IsOurs {
	needle := []byte(`"` + id + `"`)
	return func(v commit.Version) bool {
		if !bytes.Contains(v.Raw, needle) {
			return false
		}
		md, err := iceberg.ParseMetadata(v.Raw)
		if err != nil {
			return false
		}
		s := snapshotWithCommit(md, id)
		return s != nil && s.SnapshotID == snapID
	}
}
