package lastvalue

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
)

// TestMergeInOrderMatchesByKey: Merge's one-pass path for batches in series
// order gives what the by-key path gives, ties and _ingest_ts included, and
// batches out of order (or a series in two runs) take the by-key path.
func TestMergeInOrderMatchesByKey(t *testing.T) {
	s := testSchema(t)
	rnd := rand.New(rand.NewPCG(1, 2))
	randomRows := func(n, hosts int, sorted bool) []row {
		rs := make([]row, n)
		for i := range rs {
			// few distinct times and ingest values: ties are common
			rs[i] = row{host: fmt.Sprintf("h%02d", rnd.IntN(hosts)), ts: rnd.Int64N(4), ingest: rnd.Int64N(3), v: float64(i)}
		}
		if sorted {
			slices.SortStableFunc(rs, func(a, b row) int { return strings.Compare(a.host, b.host) })
		}
		return rs
	}
	byKey := func(prev, app *rows.Batch) *rows.Batch {
		return mergeByKey(prev, winnersOf(prev, false), app, winnersOf(app, true))
	}
	inOrder := 0
	for k := range 2000 {
		sortedPrev, sortedApp := k%4 != 3, k%5 != 4
		var prevRows []row
		if k%7 != 0 {
			prevRows = randomRows(rnd.IntN(12), 10, sortedPrev)
		}
		app := batch(s, randomRows(1+rnd.IntN(30), 10, sortedApp)...)
		var prev = batch(s, prevRows...)
		if k%7 == 0 {
			prev = nil
		}
		// an index holds one row per series: reduce prev as an earlier Merge would
		if prev != nil && prev.Len > 0 {
			prev = byKey(nil, prev)
			if !sortedPrev && prev.Len > 1 { // and sometimes out of order
				slices.Reverse(prev.Cols[1].Strs)
			}
		}
		got, want := Merge(prev, app), byKey(prev, app)
		if dump(got) != dump(want) {
			t.Fatalf("case %d: Merge gave\n%s\nthe by-key merge\n%s", k, dump(got), dump(want))
		}
		if inSeriesOrder(prev, winnersOf(prev, false)) && inSeriesOrder(app, winnersOf(app, true)) {
			inOrder++
		}
	}
	if inOrder < 500 || inOrder > 1900 {
		t.Errorf("%d of 2000 cases took the one-pass path, want both paths exercised", inOrder)
	}
}
