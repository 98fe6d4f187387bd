package catalogtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// TestRegister adopts a storage-only table: after it, appends go through
// the catalog, and a storage-only writer is refused without a change.
func TestRegister(t *testing.T) {
	need(t)
	ctx := context.Background()
	var sl sleeps
	dir := filepath.Join(t.TempDir(), "metrics")
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sch := metrics(t)
	src, err := table.Create(ctx, st, sl.env(), "file://"+dir, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Append(ctx, batch(t, sch, day, 50, 5, 0)); err != nil {
		t.Fatal(err)
	}
	cat, _ := client(t, server, restcatalog.Config{}, &sl)
	id := ident(t)
	reg, err := table.Register(ctx, cat, id, src, storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	if _, err := reg.Append(ctx, batch(t, sch, day.Add(3*time.Hour), 50, 5, 100)); err != nil {
		t.Fatalf("append through the catalog: %v", err)
	}
	info, err := reg.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 100 || info.Snapshots != 2 {
		t.Errorf("registered table: rows %d snapshots %d, want 100, 2", info.Rows, info.Snapshots)
	}
	// A storage-only writer: refused, and the newest storage-only version stays.
	v, err := commit.Latest(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	old, err := table.Open(ctx, st, sl.env())
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.Append(ctx, batch(t, sch, day.Add(5*time.Hour), 5, 5, 0))
	if code(err) != "CATALOG_TABLE" {
		t.Fatalf("storage-only append to a registered table: %q (%v), want CATALOG_TABLE", code(err), err)
	}
	if _, err := old.Maintain(ctx, table.MaintainOptions{}); code(err) != "CATALOG_TABLE" {
		t.Errorf("storage-only maintain: %q (%v), want CATALOG_TABLE", code(err), err)
	}
	if v2, err := commit.Latest(ctx, st); err != nil || v2.N != v.N {
		t.Errorf("storage-only versions moved: %d → %d (%v)", v.N, v2.N, err)
	}
	// Registering again under another name is refused; under the same name the catalog says it exists.
	if _, err := table.Register(ctx, cat, restcatalog.MustIdent(id.NamespaceString()+".other"), old, storeFor(nil, os.Getenv)); code(err) != "CATALOG_TABLE" {
		t.Errorf("register under another name: %q (%v), want CATALOG_TABLE", code(err), err)
	}
	if _, err := table.Register(ctx, cat, id, old, storeFor(nil, os.Getenv)); code(err) != "TABLE_EXISTS" {
		t.Errorf("register twice: %q (%v), want TABLE_EXISTS", code(err), err)
	}
}

// TestConcurrentAppenders: 8 writers append to one catalog table at once;
// every row lands exactly once, and no data file is uploaded twice.
func TestConcurrentAppenders(t *testing.T) {
	need(t)
	ctx := context.Background()
	var sl sleeps
	cat, tr := client(t, server, restcatalog.Config{}, &sl)
	id := ident(t)
	sch := metrics(t)
	if _, err := table.CreateInCatalog(ctx, cat, id, sl.env(), sch, map[string]string{"commit.retry.num-retries": "50"}, "", storeFor(nil, os.Getenv)); err != nil {
		t.Fatal(err)
	}
	const writers, appends, n = 8, 3, 20
	var puts atomic.Int64
	var conflicts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tb, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(&puts, os.Getenv))
			if err != nil {
				errs <- err
				return
			}
			for a := range appends {
				// Writer w owns host w: keys never collide across writers.
				b := hostBatch(t, sch, fmt.Sprintf("w%d-", w), day.Add(time.Duration(a)*time.Hour), n, 1, float64(w*1000+a*100))
				res, err := tb.Append(ctx, b)
				if err != nil {
					errs <- fmt.Errorf("writer %d append %d: %w", w, a, err)
					return
				}
				conflicts.Add(int64(res.Conflicts))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tb, err := table.OpenInCatalog(ctx, cat, id, sl.env(), storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatal(err)
	}
	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The metadata keeps the newest timelake.history.max-snapshots.
	if want := min(writers*appends, tb.Settings().MaxSnapshots); info.Rows != writers*appends*n || info.Snapshots != want {
		t.Errorf("rows %d snapshots %d, want %d, %d", info.Rows, info.Snapshots, writers*appends*n, want)
	}
	if got := puts.Load(); got != writers*appends {
		t.Errorf("data files uploaded = %d, want %d (one per append, none again on a rebase)", got, writers*appends)
	}
	latest, err := tb.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if latest.Len != writers {
		t.Errorf("latest: %d series, want %d", latest.Len, writers)
	}
	t.Logf("%d appends by %d writers: %d conflicts, %d commit requests", writers*appends, writers, conflicts.Load(), tr.count("POST", "/tables/"+id.Name))
}
