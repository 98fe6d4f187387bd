package table_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

func TestCheckCommitID(t *testing.T) {
	for _, c := range []struct {
		id   string
		want string // "" = accepted, else a piece of the message
	}{
		{"batch-1", ""},
		{"do:3f2a.17_x", ""},
		{strings.Repeat("a", table.MaxCommitIDLen), ""},
		{"", "want 1 to 128"},
		{strings.Repeat("a", table.MaxCommitIDLen+1), "want 1 to 128"},
		{`a"b`, `character '"' at byte 1`},
		{"a b", "character ' ' at byte 1"},
		{"é", "at byte 0"},
		{"a/b", "character '/' at byte 1"},
	} {
		err := table.CheckCommitID(c.id)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckCommitID(%q) = %v, want accepted", c.id, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || table.Code(err) != "BAD_COMMIT_ID"):
			t.Errorf("CheckCommitID(%q) = %v (code %s), want BAD_COMMIT_ID mentioning %q", c.id, err, table.Code(err), c.want)
		}
	}
}

func TestAppendWithCommitIDThenFind(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb := create(t, st, 1)
	if c, err := tb.FindCommit(ctx, "batch-1"); err != nil || c != nil {
		t.Fatalf("FindCommit on an empty table = %+v, %v; want nil, nil", c, err)
	}
	res, err := tb.AppendWithCommitID(ctx, batch(t, tb.Schema(), day1, 50, 3), "batch-1")
	if err != nil {
		t.Fatal(err)
	}
	if res.CommitID != "batch-1" {
		t.Errorf("CommitID = %q, want batch-1", res.CommitID)
	}
	// Another writer, opened fresh, finds it.
	other, err := table.Open(ctx, st, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	c, err := other.FindCommit(ctx, "batch-1")
	if err != nil || c == nil {
		t.Fatalf("FindCommit = %+v, %v; want the snapshot", c, err)
	}
	if c.SnapshotID != res.SnapshotID || c.AddedRows != 50 || c.Operation != "append" || c.Version != 2 {
		t.Errorf("FindCommit = %+v, want snapshot %d, 50 added rows, append, version 2", c, res.SnapshotID)
	}
	// Ids of appends without one are random: never the caller's.
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Hour), 5, 1)); err != nil {
		t.Fatal(err)
	}
	if c, _ := tb.FindCommit(ctx, "batch-2"); c != nil {
		t.Errorf("FindCommit(batch-2) = %+v, want nil", c)
	}

	// The same id again: refused before anything is uploaded.
	before := snapshotStore(t, st)
	_, err = other.AppendWithCommitID(ctx, batch(t, tb.Schema(), day1, 50, 3), "batch-1")
	if !errors.Is(err, table.ErrCommitExists) || table.Code(err) != "COMMIT_EXISTS" {
		t.Fatalf("second append with batch-1: %v, want COMMIT_EXISTS", err)
	}
	sameStore(t, before, snapshotStore(t, st))

	if _, err := tb.AppendWithCommitID(ctx, batch(t, tb.Schema(), day1, 1, 1), "no spaces"); table.Code(err) != "BAD_COMMIT_ID" {
		t.Errorf("append with a bad id: %v, want BAD_COMMIT_ID", err)
	}
	if _, err := tb.FindCommit(ctx, ""); table.Code(err) != "BAD_COMMIT_ID" {
		t.Errorf("FindCommit(\"\"): %v, want BAD_COMMIT_ID", err)
	}
}

// The id is carried by every attempt: an append that loses the race and
// rebases commits with it.
func TestCommitIDSurvivesRebase(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	a := create(t, st, 1)
	b, err := table.Open(ctx, st, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, batch(t, b.Schema(), day1, 10, 2)); err != nil {
		t.Fatal(err)
	}
	res, err := a.AppendWithCommitID(ctx, batch(t, a.Schema(), day1.Add(time.Hour), 20, 2), "rebased-1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Conflicts != 1 || res.Version != 3 {
		t.Errorf("append = %+v, want 1 conflict, version 3", res)
	}
	c, err := b.FindCommit(ctx, "rebased-1")
	if err != nil || c == nil {
		t.Fatalf("FindCommit after the rebase = %+v, %v", c, err)
	}
	if c.SnapshotID != res.SnapshotID || c.Version != 3 || c.AddedRows != 20 {
		t.Errorf("FindCommit = %+v, want snapshot %d at version 3 with 20 rows", c, res.SnapshotID)
	}
	info, err := b.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 30 {
		t.Errorf("rows = %d, want 30", info.Rows)
	}
}

// A writer holding a stale version appends a batch another writer already
// committed under the same id: its first attempt loses, the rebase sees
// the id, and nothing of the second try stays in the store.
func TestCommitIDFoundOnRebase(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	stale := create(t, st, 1)
	first, err := table.Open(ctx, st, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.AppendWithCommitID(ctx, batch(t, first.Schema(), day1, 10, 2), "dup-1"); err != nil {
		t.Fatal(err)
	}
	before := snapshotStore(t, st)
	_, err = stale.AppendWithCommitID(ctx, batch(t, stale.Schema(), day1, 10, 2), "dup-1")
	if !errors.Is(err, table.ErrCommitExists) {
		t.Fatalf("stale append of dup-1: %v, want ErrCommitExists", err)
	}
	sameStore(t, before, snapshotStore(t, st))
}

// The conditional write lands but its answer is lost: the writer reads the
// version back and recognises its caller-chosen id (not a random UUID), so
// the batch is acknowledged once and a retry with the id is refused.
func TestCommitIDLostResponse(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	fs := faultstore.New(mem)
	tb := create(t, fs, 1)
	fs.AddRule(faultstore.Rule{Op: faultstore.OpPutIfAbsent, Key: "metadata/v*.metadata.json", Nth: 1, Action: faultstore.LoseResponse})
	res, err := tb.AppendWithCommitID(ctx, batch(t, tb.Schema(), day1, 10, 2), "lost-1")
	fs.ClearRules()
	if err != nil {
		t.Fatalf("append with a lost response: %v, want it recognised as landed", err)
	}
	if res.Version != 2 || fs.Injected() != 1 {
		t.Errorf("append = %+v with %d faults, want version 2 after 1 fault", res, fs.Injected())
	}
	if _, err := tb.AppendWithCommitID(ctx, batch(t, tb.Schema(), day1, 10, 2), "lost-1"); !errors.Is(err, table.ErrCommitExists) {
		t.Errorf("retry of lost-1: %v, want ErrCommitExists", err)
	}
	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 10 || info.Snapshots != 1 {
		t.Errorf("rows = %d in %d snapshots, want 10 in 1", info.Rows, info.Snapshots)
	}
}

// The id stays findable while its snapshot is retained, and is forgotten
// when expiry removes it (the documented limit of FindCommit).
func TestFindCommitAfterExpiry(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(1), loc, metricsSchema(t), map[string]string{
		"history.expire.max-snapshot-age-ms": "1", "history.expire.min-snapshots-to-keep": "1",
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.AppendWithCommitID(ctx, batch(t, tb.Schema(), day1, 10, 2), "old-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Hour), 10, 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Expire: true}); err != nil {
		t.Fatal(err)
	}
	c, err := tb.FindCommit(ctx, "old-1")
	if err != nil || c != nil {
		t.Errorf("FindCommit after its snapshot expired = %+v, %v; want nil, nil", c, err)
	}
}

// An accepted id is its own JSON text (holdsCommit looks for its bytes in
// the metadata before parsing) and within the bound; a refused one says why.
func FuzzCheckCommitID(f *testing.F) {
	for _, s := range []string{"batch-1", "", "a b", `"`, "\\", "<", "é", strings.Repeat("x", 129)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		err := table.CheckCommitID(id)
		if err != nil {
			if table.Code(err) != "BAD_COMMIT_ID" {
				t.Fatalf("CheckCommitID(%q) = %v, code %s; want BAD_COMMIT_ID", id, err, table.Code(err))
			}
			return
		}
		b, _ := json.Marshal(id)
		if string(b) != `"`+id+`"` || len(id) == 0 || len(id) > table.MaxCommitIDLen {
			t.Fatalf("CheckCommitID accepted %q, whose JSON is %s", id, b)
		}
	})
}
