package table_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// stagedBatches are three batches whose keys overlap: the third rewrites
// the first's rows of its first hour with other values, so the later batch
// must win the tie in one commit as it would in its own.
func stagedBatches(t *testing.T, tb *table.Table) []*rows.Batch {
	b1 := batch(t, tb.Schema(), day1, 300, 3)
	b2 := batch(t, tb.Schema(), day1.Add(24*time.Hour), 300, 3)
	b3 := batch(t, tb.Schema(), day1, 60, 3)
	cpu := b3.Schema.Index("cpu")
	for i := range b3.Cols[cpu].Floats {
		b3.Cols[cpu].Floats[i] += 1000
	}
	return []*rows.Batch{b1, b2, b3}
}

// Three batches staged and committed are one snapshot, read back exactly
// as the same batches appended one commit each (scan, last-value index).
func TestStagedAppendIsOneCommit(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb := create(t, st, 1)
	app, err := tb.NewAppender(table.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range stagedBatches(t, tb) {
		if err := app.Add(ctx, nil, b); err != nil {
			t.Fatal(err)
		}
	}
	res, err := app.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != 2 || res.Batches != 3 || res.InputRows != 660 || res.Rows != 660 {
		t.Errorf("result %+v, want version 2, 3 batches, 660 rows", res)
	}
	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Snapshots != 1 || info.Rows != 660 {
		t.Errorf("info: %d snapshots, %d rows; want 1 snapshot of 660 rows", info.Snapshots, info.Rows)
	}

	control := create(t, memstore.New(), 1)
	for _, b := range stagedBatches(t, control) {
		if _, err := control.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	got, _, err := scanRows(ctx, tb, table.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := scanRows(ctx, control, table.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 600 || !slices.Equal(got, want) {
		t.Errorf("scan of the staged append (%d rows) differs from three appends' (%d rows)", len(got), len(want))
	}
	if !slices.ContainsFunc(got, func(r string) bool { return strings.Contains(r, "cpu=1000 ") }) {
		t.Errorf("the third batch's value did not win the tie with the first's")
	}
	lg, err := tb.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lw, err := control.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := noIngest(lg), noIngest(lw); a != b || lg.Len != 3 {
		t.Errorf("last-value index:\n%s\nwant\n%s", a, b)
	}
	// A Table reopened reads the same index from the store.
	re, err := table.Open(ctx, st, testenv.New(9))
	if err != nil {
		t.Fatal(err)
	}
	if lr, err := re.Latest(ctx); err != nil || noIngest(lr) != noIngest(lw) {
		t.Errorf("reopened last-value index differs (err %v)", err)
	}
}

// A staged append that fails anywhere (each store request of it failed, or
// its answer lost, in turn) leaves the table as it was, byte for byte,
// unless the outcome is unknown (COMMIT_UNKNOWN) or it landed whole.
func TestStagedAppendFailureAtEveryRequest(t *testing.T) {
	ctx := context.Background()
	run := func(fs *faultstore.Store, tb *table.Table) (*table.AppendResult, error) {
		app, err := tb.NewAppender(table.AppendOptions{})
		if err != nil {
			return nil, err
		}
		for _, b := range stagedBatches(t, tb) {
			if err := app.Add(ctx, nil, b); err != nil {
				return nil, err
			}
		}
		return app.Commit(ctx)
	}
	probe := faultstore.New(memstore.New())
	tb := create(t, probe, 1)
	created := probe.Requests(faultstore.AnyOp)
	if _, err := run(probe, tb); err != nil {
		t.Fatal(err)
	}
	n := probe.Requests(faultstore.AnyOp) - created
	t.Logf("failing each of the %d store requests of a staged append of 3 batches", n)
	for _, action := range []faultstore.Action{faultstore.Fail, faultstore.LoseResponse} {
		for k := 1; k <= n; k++ {
			mem := memstore.New()
			fs := faultstore.New(mem)
			tb := create(t, fs, 1)
			before := snapshotStore(t, mem)
			fs.AddRule(faultstore.Rule{Nth: k, Action: action})
			res, err := run(fs, tb)
			fs.ClearRules()
			what := fmt.Sprintf("%v at request %d", action, k)
			tb2, oerr := table.Open(ctx, mem, testenv.New(3))
			if oerr != nil {
				t.Fatalf("%s: table unreadable: %v", what, oerr)
			}
			info, ierr := tb2.Info(ctx)
			if ierr != nil {
				t.Fatalf("%s: info: %v", what, ierr)
			}
			switch {
			case err != nil && table.Code(err) != "COMMIT_UNKNOWN":
				if info.Rows != 0 {
					t.Errorf("%s: failed with %v, yet the table has %d rows", what, err, info.Rows)
				}
				sameStore(t, before, snapshotStore(t, mem))
			case err == nil && (info.Rows != 660 || info.Snapshots != 1):
				t.Errorf("%s: acknowledged (%+v), but the table has %d rows in %d snapshots", what, res, info.Rows, info.Snapshots)
			}
		}
	}
}

// The final commit fails (its manifest's upload, then the manifest list's:
// a definite failure, unlike a failed conditional write, whose outcome is
// unknown): nothing is committed, and the data files already uploaded are
// deleted.
func TestStagedAppendFailedCommitDeletesDataFiles(t *testing.T) {
	for _, key := range []string{"metadata/*-m0.avro", "metadata/snap-*.avro"} {
		t.Run(key, func(t *testing.T) {
			testStagedCommitFails(t, key)
		})
	}
}

func testStagedCommitFails(t *testing.T, key string) {
	ctx := context.Background()
	mem := memstore.New()
	fs := faultstore.New(mem)
	tb := create(t, fs, 1)
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(-48*time.Hour), 10, 2)); err != nil {
		t.Fatal(err)
	}
	before := snapshotStore(t, mem)
	scanBefore, _, err := scanRows(ctx, tb, table.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	app, err := tb.NewAppender(table.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range stagedBatches(t, tb) {
		if err := app.Add(ctx, nil, b); err != nil {
			t.Fatal(err)
		}
	}
	if len(snapshotStore(t, mem)) <= len(before) {
		t.Fatal("no data file uploaded before the commit")
	}
	fs.AddRule(faultstore.Rule{Op: faultstore.OpPut, Key: key, Action: faultstore.Fail})
	if _, err := app.Commit(ctx); err == nil || table.Code(err) != "STORE_ERROR" {
		t.Fatalf("commit through a failing upload of %s: %v, want STORE_ERROR", key, err)
	}
	fs.ClearRules()
	sameStore(t, before, snapshotStore(t, mem))
	re, err := table.Open(ctx, mem, testenv.New(5))
	if err != nil {
		t.Fatal(err)
	}
	scanAfter, _, err := scanRows(ctx, re, table.ScanOptions{})
	if err != nil || !slices.Equal(scanBefore, scanAfter) || re.Version() != 2 {
		t.Errorf("after the failed commit: version %d, scan equal %v (err %v)", re.Version(), slices.Equal(scanBefore, scanAfter), err)
	}
	// The Table that failed appends again.
	if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 10, 2)); err != nil {
		t.Errorf("append after the failed staged append: %v", err)
	}
}

// Abort deletes what was staged.
func TestStagedAppendAbort(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	tb := create(t, mem, 1)
	before := snapshotStore(t, mem)
	app, err := tb.NewAppender(table.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range stagedBatches(t, tb)[:2] {
		if err := app.Add(ctx, nil, b); err != nil {
			t.Fatal(err)
		}
	}
	app.Abort(ctx)
	sameStore(t, before, snapshotStore(t, mem))
	if _, err := app.Commit(ctx); err == nil {
		t.Error("Commit after Abort succeeded")
	}
}

// noIngest renders b without _ingest_ts (two tables' clocks differ).
func noIngest(b *rows.Batch) string {
	var out []string
	for _, r := range renderBatch(b) {
		out = append(out, r[:strings.Index(r, " _ingest_ts=")])
	}
	return strings.Join(out, "\n")
}
