package commit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
)

// change is a fake table change: its metadata is "<commit id> on <base N>",
// and it adds one fixed data file and one base-dependent file per attempt.
type change struct {
	id       string
	rebuilds []int // base versions it was rebuilt on
	dropAt   int   // rebuild on this base returns ErrDropped
}

func (c *change) fixed() []File {
	return []File{{Key: "data/" + c.id + ".parquet", Data: []byte("rows of " + c.id)}}
}

func (c *change) rebuild(_ context.Context, base Version) (Attempt, error) {
	c.rebuilds = append(c.rebuilds, base.N)
	if c.dropAt != 0 && base.N == c.dropAt {
		return Attempt{}, fmt.Errorf("inputs gone: %w", ErrDropped)
	}
	return Attempt{
		Files:    []File{{Key: fmt.Sprintf("metadata/list-%s-%d.avro", c.id, base.N), Data: []byte("list")}},
		Metadata: []byte(fmt.Sprintf("%s on %d", c.id, base.N)),
	}, nil
}

func (c *change) isOurs(v Version) bool { return strings.HasPrefix(string(v.Raw), c.id+" ") }

func put(t *testing.T, st store.Store, key, val string) {
	t.Helper()
	if err := st.Put(context.Background(), key, []byte(val)); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, st store.Store, key string) string {
	t.Helper()
	b, err := st.Get(context.Background(), key)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func TestCommitNoConflict(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	put(t, st, MetadataKey(1), "v1")
	c := &change{id: "A"}
	res, err := Commit(ctx, st, Options{}, Version{N: 1, Raw: []byte("v1")}, c.fixed(), c.rebuild, c.isOurs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Version.N != 2 || res.Attempts != 1 || res.Conflicts != 0 {
		t.Errorf("result = %+v, want version 2 after 1 attempt, no conflicts", res)
	}
	if got := get(t, st, MetadataKey(2)); got != "A on 1" {
		t.Errorf("v2 = %q, want %q", got, "A on 1")
	}
}

func TestCommitRebasesWithoutReuploading(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	fs := faultstore.New(mem)
	put(t, mem, MetadataKey(1), "v1")
	// Two other writers won v2 and v3 before we try.
	put(t, mem, MetadataKey(2), "B on 1")
	put(t, mem, MetadataKey(3), "C on 2")
	c := &change{id: "A"}
	res, err := Commit(ctx, fs, Options{}, Version{N: 1, Raw: []byte("v1")}, c.fixed(), c.rebuild, c.isOurs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Version.N != 4 || res.Conflicts != 1 {
		t.Errorf("result = %+v, want version 4 after 1 conflict", res)
	}
	if fmt.Sprint(c.rebuilds) != "[1 3]" {
		t.Errorf("rebuilt on %v, want [1 3] (the winner found by probing forward)", c.rebuilds)
	}
	if got := get(t, mem, MetadataKey(4)); got != "A on 3" {
		t.Errorf("v4 = %q, want %q", got, "A on 3")
	}
	if rep := fs.RepeatedWrites(); len(rep) != 0 {
		t.Errorf("keys written twice: %v", rep)
	}
	// The losing attempt's base-dependent file is gone; the data file stays.
	if got := get(t, mem, "metadata/list-A-1.avro"); !strings.Contains(got, "not found") {
		t.Errorf("losing attempt's file still there: %q", got)
	}
	if got := get(t, mem, "data/A.parquet"); got != "rows of A" {
		t.Errorf("data file = %q", got)
	}
}

func TestCommitLostResponseIsOurs(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	put(t, mem, MetadataKey(1), "v1")
	// The conditional write lands but its response is lost.
	fs := faultstore.New(mem, faultstore.Rule{Op: faultstore.OpPutIfAbsent, Nth: 1, Action: faultstore.LoseResponse})
	c := &change{id: "A"}
	res, err := Commit(ctx, fs, Options{}, Version{N: 1, Raw: []byte("v1")}, c.fixed(), c.rebuild, c.isOurs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Version.N != 2 || res.Conflicts != 0 {
		t.Errorf("result = %+v, want our own version 2 recognised, no conflict", res)
	}
	if _, err := mem.Get(ctx, MetadataKey(3)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("v3 exists: the change was committed twice")
	}
}

func TestCommitFailedWriteIsRetried(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	put(t, mem, MetadataKey(1), "v1")
	fs := faultstore.New(mem, faultstore.Rule{Op: faultstore.OpPutIfAbsent, Nth: 1, Action: faultstore.Fail})
	c := &change{id: "A"}
	res, err := Commit(ctx, fs, Options{}, Version{N: 1, Raw: []byte("v1")}, c.fixed(), c.rebuild, c.isOurs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Version.N != 2 || res.Attempts != 2 {
		t.Errorf("result = %+v, want version 2 after 2 attempts", res)
	}
}

func TestCommitConflictsExhausted(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	put(t, mem, MetadataKey(1), "v1")
	// Every time we look, another writer has taken the next version.
	fs := faultstore.New(mem)
	rival := &rivalStore{Store: fs}
	c := &change{id: "A"}
	_, err := Commit(ctx, rival, Options{MaxAttempts: 3}, Version{N: 1, Raw: []byte("v1")}, c.fixed(), c.rebuild, c.isOurs)
	if !errors.Is(err, ErrConflictsExhausted) {
		t.Fatalf("err = %v, want ErrConflictsExhausted", err)
	}
	objs, _ := mem.List(ctx, "")
	for _, o := range objs {
		if !strings.HasPrefix(o.Key, "metadata/v") {
			t.Errorf("left behind after a failed commit: %s", o.Key)
		}
	}
}

// rivalStore writes the key itself just before each conditional write.
type rivalStore struct{ store.Store }

func (r *rivalStore) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	_, _ = r.Store.PutIfAbsent(ctx, key, []byte("rival"))
	return r.Store.PutIfAbsent(ctx, key, data)
}

func TestCommitUnknownOutcomeKeepsFiles(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	put(t, mem, MetadataKey(1), "v1")
	fs := faultstore.New(mem,
		faultstore.Rule{Op: faultstore.OpPutIfAbsent, Action: faultstore.Fail},
		faultstore.Rule{Op: faultstore.OpGet, Action: faultstore.Fail})
	c := &change{id: "A"}
	_, err := Commit(ctx, fs, Options{MaxAttempts: 2}, Version{N: 1, Raw: []byte("v1")}, c.fixed(), c.rebuild, c.isOurs)
	if !errors.Is(err, ErrUnknownOutcome) {
		t.Fatalf("err = %v, want ErrUnknownOutcome", err)
	}
	if got := get(t, mem, "data/A.parquet"); got != "rows of A" {
		t.Errorf("data file = %q, want it kept when the outcome is unknown", got)
	}
}

func TestCommitDroppedDeletesFiles(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	put(t, mem, MetadataKey(1), "v1")
	put(t, mem, MetadataKey(2), "B on 1")
	c := &change{id: "A", dropAt: 2}
	_, err := Commit(ctx, mem, Options{}, Version{N: 1, Raw: []byte("v1")}, c.fixed(), c.rebuild, c.isOurs)
	if !errors.Is(err, ErrDropped) {
		t.Fatalf("err = %v, want ErrDropped", err)
	}
	for _, k := range []string{"data/A.parquet", "metadata/list-A-1.avro"} {
		if got := get(t, mem, k); !strings.Contains(got, "not found") {
			t.Errorf("%s still there after the change was dropped", k)
		}
	}
}

func TestLatest(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		setup map[string]string
		want  int
		err   error
	}{
		{"empty store", map[string]string{}, 0, ErrNoTable},
		{"no hint", map[string]string{MetadataKey(1): "a", MetadataKey(2): "b"}, 2, nil},
		{"hint behind", map[string]string{MetadataKey(1): "a", MetadataKey(2): "b", MetadataKey(3): "c", VersionHintKey: "1"}, 3, nil},
		{"hint to an expired version", map[string]string{MetadataKey(7): "a", MetadataKey(8): "b", VersionHintKey: "2"}, 8, nil},
		// The hint names v3, which is gone while v1 and v2 remain: the
		// newest version was deleted, and v2 would roll the table back.
		{"newest version deleted", map[string]string{MetadataKey(1): "a", MetadataKey(2): "b", VersionHintKey: "3"}, 0, ErrVersionMissing},
		{"every version deleted", map[string]string{VersionHintKey: "3"}, 0, ErrVersionMissing},
		{"garbage hint", map[string]string{MetadataKey(1): "a", VersionHintKey: "x"}, 1, nil},
		{"non-canonical names ignored", map[string]string{MetadataKey(1): "a", "metadata/v02.metadata.json": "z"}, 1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := memstore.New()
			for k, v := range tc.setup {
				put(t, st, k, v)
			}
			v, err := Latest(ctx, st)
			if !errors.Is(err, tc.err) || v.N != tc.want {
				t.Errorf("Latest = %d, %v; want %d, %v", v.N, err, tc.want, tc.err)
			}
		})
	}
}

// TestLatestNamesACatalogTable: a directory holding only a catalog's
// metadata files is no storage-only table, and the error says where to look.
func TestLatestNamesACatalogTable(t *testing.T) {
	st := memstore.New()
	ctx := context.Background()
	if err := st.Put(ctx, "metadata/00001-3f2a.metadata.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	_, err := Latest(ctx, st)
	if !errors.Is(err, ErrNoTable) || !strings.Contains(err.Error(), "00001-3f2a.metadata.json") || !strings.Contains(err.Error(), "catalog") {
		t.Fatalf("Latest = %v, want ErrNoTable naming the catalog's file", err)
	}
}
