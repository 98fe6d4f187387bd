package table_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/sysenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// TestZeroGracesUnderConcurrentWriters: a table whose properties set both
// graces to 0, appended to by three writers while a fourth runs every
// maintenance step in a loop. With the drivers' grace floor the cleanup
// leaves the files in flight alone: every append commits and every row
// reads back (with graces of 0, appends failed with a manifest "not found"
// within a hundred), and maintain says the floor was used.
func TestZeroGracesUnderConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := sysenv.Env() // the real clock: the cleanup ages files by their stamps
	if env.GraceFloor != table.DefaultGraceFloor {
		t.Fatalf("the drivers' floor is %v", env.GraceFloor)
	}
	props := map[string]string{maintenance.PropOrphanGrace: "0", maintenance.PropMetadataGrace: "0", maintenance.PropCompactMinFiles: "2"}
	if _, err := table.Create(ctx, st, env, "file://"+dir, metricsSchema(t), props); err != nil {
		t.Fatal(err)
	}
	const writers, appends = 3, 12
	var wg sync.WaitGroup
	errs := make(chan error, writers*appends+100)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tb, err := table.Open(ctx, st, env)
			if err != nil {
				errs <- err
				return
			}
			for k := range appends {
				if _, err := tb.Append(ctx, rowsOf(t, tb, fmt.Sprintf("w%d", w), day1.Add(time.Duration(k)*time.Minute), 10, 2)); err != nil {
					errs <- fmt.Errorf("writer %d append %d: %w", w, k, err)
				}
			}
		}()
	}
	done := make(chan struct{})
	var warnings []string
	var mwg sync.WaitGroup
	mwg.Add(1)
	go func() {
		defer mwg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			tb, err := table.Open(ctx, st, env)
			if err != nil {
				errs <- err
				return
			}
			res, err := tb.Maintain(ctx, table.MaintainOptions{})
			if err != nil && table.Code(err) != "COMMIT_CONFLICT_EXHAUSTED" && table.Code(err) != "COMMIT_DROPPED" {
				errs <- fmt.Errorf("maintain: %w", err)
			}
			if res != nil && len(warnings) == 0 {
				warnings = res.Warnings
			}
		}
	}()
	wg.Wait()
	close(done)
	mwg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "timelake.orphan-grace=0s is below the 10m0s") {
		t.Errorf("maintain's warnings %q: want the floor named", warnings)
	}
	tb, err := table.Open(ctx, st, env)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if _, err := tb.Scan(ctx, table.ScanOptions{}, func(b *rows.Batch) error { n += b.Len; return nil }); err != nil || n != writers*appends*10 {
		t.Errorf("scan: %d rows, %v; want %d", n, err, writers*appends*10)
	}
}
