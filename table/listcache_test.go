package table_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// The manifest list an append keeps for the next one (instead of reading it
// back) must be the list it wrote, field for field, and must not stand for
// another writer's list.
func TestManifestListCache(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	fs := faultstore.New(mem)
	a := create(t, fs, 1)
	b, err := table.Open(ctx, fs, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	stored := func(tb *table.Table) (string, *iceberg.ManifestList) {
		t.Helper()
		path := tb.Metadata().CurrentSnapshot().ManifestList
		data, err := mem.Get(ctx, strings.TrimPrefix(path, loc+"/"))
		if err != nil {
			t.Fatal(err)
		}
		ml, err := iceberg.ReadManifestList(data, path)
		if err != nil {
			t.Fatal(err)
		}
		return path, ml
	}
	for i := range 6 {
		start := day1.Add(time.Duration(i) * time.Hour)
		if i%2 == 1 {
			start = start.Add(-2 * time.Hour) // some appends span two days: two manifests entries' partitions
		}
		parent := a.Metadata().CurrentSnapshot()
		before := fs.Requests(faultstore.OpGet)
		if _, err := a.Append(ctx, batch(t, a.Schema(), start, 50, 5)); err != nil {
			t.Fatal(err)
		}
		if parent != nil && i > 0 {
			if got := fs.KeyRequests(faultstore.OpGet, strings.TrimPrefix(parent.ManifestList, loc+"/")); got != 0 {
				t.Errorf("append %d read its own parent's manifest list %d times, want 0", i, got)
			}
			if got := fs.Requests(faultstore.OpGet) - before; got != 0 {
				t.Errorf("append %d made %d gets after an append of its own, want 0", i, got)
			}
		}
		path, want := stored(a)
		gotPath, got := table.CachedManifestList(a)
		if gotPath != path {
			t.Fatalf("append %d: cached list %q, want the current %q", i, gotPath, path)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("append %d: cached manifest list\n%+v\nwant (as read back)\n%+v", i, got, want)
		}
	}
	// Another writer commits: a's next append rebases onto a list it has not
	// seen and must carry that writer's manifest.
	if _, err := b.Append(ctx, batch(t, b.Schema(), day1.Add(9*time.Hour), 10, 2)); err != nil {
		t.Fatal(err)
	}
	_, theirs := stored(b)
	if _, err := a.Append(ctx, batch(t, a.Schema(), day1.Add(10*time.Hour), 10, 2)); err != nil {
		t.Fatal(err)
	}
	_, ours := stored(a)
	found := false
	for _, mf := range ours.Files {
		found = found || mf.ManifestPath == theirs.Files[0].ManifestPath
	}
	if !found {
		t.Errorf("after a rebase the list has no entry for the other writer's manifest %s", theirs.Files[0].ManifestPath)
	}
	if _, got := table.CachedManifestList(a); !reflect.DeepEqual(got, ours) {
		t.Errorf("after a rebase: cached manifest list\n%+v\nwant\n%+v", got, ours)
	}
}
