package main

import (
	"context"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// The counter's classes add up to what faultstore counted of the same
// requests, over the real table's appends and a maintenance run; paused
// requests are left out.
func TestCounterMatchesFaultstore(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Producers: 3, RowsPerSec: 2, BatchSeconds: 5, Start: testenv.Start}
	fs := faultstore.New(memstore.New())
	c := newCounter(fs)
	env := testenv.New(7)
	tb, err := table.Create(ctx, c, env, "file:///sim/t", metricsSchema(schema.Day), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		b, err := makeBatch(tb.Schema(), cfg, i*5, i*5+5)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tb.Maintain(ctx, table.MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	byClass, _, _ := c.snapshot()
	want := map[string]int64{
		classA: int64(fs.Requests(faultstore.OpPut) + fs.Requests(faultstore.OpPutIfAbsent) + fs.Requests(faultstore.OpList)),
		classB: int64(fs.Requests(faultstore.OpGet) + fs.Requests(faultstore.OpGetRange)),
		free:   int64(fs.Requests(faultstore.OpDelete)),
	}
	for k, w := range want {
		if byClass[k] != w {
			t.Errorf("class %s: counted %d, faultstore %d", k, byClass[k], w)
		}
	}
	if byClass[classA] == 0 || byClass[classB] == 0 {
		t.Errorf("counted %v: want class A and B requests", byClass)
	}
	c.pause(true)
	before := fs.Requests(faultstore.AnyOp)
	if _, err := tb.DataFiles(ctx); err != nil {
		t.Fatal(err)
	}
	c.pause(false)
	after, _, _ := c.snapshot()
	if fs.Requests(faultstore.AnyOp) == before {
		t.Fatal("DataFiles made no request: the pause is not exercised")
	}
	for k := range want {
		if after[k] != byClass[k] {
			t.Errorf("class %s: paused requests counted (%d → %d)", k, byClass[k], after[k])
		}
	}
}

// A run appends every row the producers sent, one batch per interval, and
// the same seed gives the same requests and bytes.
func TestRunAccounting(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Producers: 4, RowsPerSec: 3, BatchSeconds: 10, Duration: 5 * time.Minute,
		MaintainEvery: 2 * time.Minute, Start: time.Date(2026, 11, 29, 23, 58, 0, 0, time.UTC), Seed: 3}
	a, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Rows, int64(4*3*300); got != want {
		t.Errorf("rows: got %d, want %d", got, want)
	}
	if got, want := a.Appends, 30; got != want {
		t.Errorf("appends: got %d, want %d", got, want)
	}
	if a.MaintainRuns != 2 {
		t.Errorf("maintenance runs: got %d, want 2", a.MaintainRuns)
	}
	if len(a.FinalFiles) != 2 {
		t.Errorf("partitions at the end: got %v, want two days (the run crosses midnight)", a.FinalFiles)
	}
	if a.MaxFilesAfter > a.MaxFilesBefore {
		t.Errorf("files per partition: %d after maintenance > %d before", a.MaxFilesAfter, a.MaxFilesBefore)
	}
	b, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{classA, classB, free} {
		if a.ByClass[k] != b.ByClass[k] {
			t.Errorf("class %s: %d then %d with the same seed", k, a.ByClass[k], b.ByClass[k])
		}
	}
	if a.DataBytes != b.DataBytes || a.MetaByte != b.MetaByte || a.Version != b.Version {
		t.Errorf("bytes/version differ with the same seed: %d/%d/v%d vs %d/%d/v%d",
			a.DataBytes, a.MetaByte, a.Version, b.DataBytes, b.MetaByte, b.Version)
	}
}
