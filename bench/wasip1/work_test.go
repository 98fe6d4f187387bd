package main

import "testing"

// TestWorkloads runs each timed operation once natively: the append commits,
// and the compaction finds the day cold and merges its 8 files into 1 (once
// panics otherwise), so the timings measure the work they name.
func TestWorkloads(t *testing.T) {
	a := newAppender()
	for range appendsPerTable + 1 { // across a fresh table
		a.prepare()
		a.once()
	}
	if a.done != appendsPerTable+1 {
		t.Fatalf("%d appends done", a.done)
	}
	c := newCompactor()
	c.prepare()
	c.once()
}
