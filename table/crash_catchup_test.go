package table_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/faultstore"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// catchUpSetup creates a table with a Timelake append ("base") and then a
// foreign one ("F"), whose snapshot has no index; dropIndex also deletes
// the base snapshot's index file, so the catch-up rebuilds from every file;
// withDelete then has another engine delete rows of the base file by
// position (deletedBase says which: base-0's latest row, all of base-3).
func catchUpSetup(t *testing.T, dropIndex, withDelete bool) *memstore.Store {
	t.Helper()
	ctx := context.Background()
	mem := memstore.New(memstore.WithClock(oldClock()))
	env := testenv.New(1)
	tb, err := table.Create(ctx, mem, env, "file:///tables/crash-catchup", metricsSchema(t), crashProps)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, rowsOf(t, tb, "base", day1, 120, 4)); err != nil {
		t.Fatal(err)
	}
	if dropIndex {
		if err := mem.Delete(ctx, []string{tb.IndexKey(*tb.Metadata().CurrentSnapshotID)}); err != nil {
			t.Fatal(err)
		}
	}
	f := rowsOf(t, tb, "F", day1.Add(3*time.Hour), 60, 3)
	rows.SetIngest(f, 1)
	if _, err := table.CommitForeign(ctx, mem, env, table.ForeignOp{Rows: f}); err != nil {
		t.Fatal(err)
	}
	if withDelete {
		files, err := tb.DataFiles(ctx) // the base file alone: tb is as of the base append
		if err != nil || len(files) != 1 {
			t.Fatalf("base files %v, %v", files, err)
		}
		if tb, err = table.Open(ctx, mem, env); err != nil {
			t.Fatal(err)
		}
		// rows sorted by host then time: base-k holds rows 30k … 30k+29
		fw := &foreignWriter{t: t, ctx: ctx, st: mem, tb: tb}
		pos := []int64{29}
		for i := int64(90); i < 120; i++ {
			pos = append(pos, i)
		}
		d := fw.positionDeletes(files[0].Partition, files[0].Path, pos)
		fw.commit(foreignCommit{op: "delete", manifests: []foreignManifest{{spec: *tb.Metadata().DefaultSpec(),
			entries: []iceberg.ManifestEntry{{Status: iceberg.StatusAdded, DataFile: d}}}},
			addedDeletes: 1, addedPositionDeletes: int64(len(pos))})
	}
	return mem
}

// deletedBase says whether catchUpSetup's position delete removed r: the
// latest row of base-0 (row 116 of the append) and every row of base-3.
func deletedBase(r liveRow) bool {
	return r.host == "base-3" || (r.host == "base-0" && r.ts == day1.Add(116*time.Second).UnixMicro())
}

// checkLatest asserts that Latest holds every stored series with its
// greatest time.
func checkLatest(t *testing.T, what string, tb *table.Table, live []liveRow) {
	t.Helper()
	want := map[string]int64{}
	for _, r := range live {
		if ts, ok := want[r.host]; !ok || r.ts > ts {
			want[r.host] = r.ts
		}
	}
	b, err := tb.Latest(context.Background())
	if err != nil {
		t.Fatalf("%s: latest: %v", what, err)
	}
	got := map[string]int64{}
	host := slices.IndexFunc(b.Schema.Fields, func(f schema.Field) bool { return f.Name == "host" })
	for i := 0; i < b.Len; i++ {
		got[b.Cols[host].Strs[i]] = b.Cols[b.Schema.Time].Ints[i]
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: latest has %d series %v, the data %d %v", what, len(got), got, len(want), want)
	}
}

// TestCatchUpCrashAtEveryRequest: the first Timelake commit after a foreign
// snapshot (an append, or a maintenance run) catches the index up and
// stores it; a fault at each of its requests leaves the table readable,
// nothing lost, and Latest right.
func TestCatchUpCrashAtEveryRequest(t *testing.T) {
	cases := []struct {
		name       string
		dropIndex  bool
		maintain   bool
		withDelete bool
	}{
		{"append after a foreign append", false, false, false},
		{"append after a foreign append, base index deleted", true, false, false},
		{"maintain after a foreign append", false, true, false},
		{"append after a foreign position delete", false, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := catchUpSetup(t, tc.dropIndex, tc.withDelete)
			baseRows := 120
			if tc.withDelete {
				baseRows -= 31
			}
			// visible are the rows a reader sees: liveRows without those
			// the position delete removed (a compaction may have applied it)
			visible := func(st *memstore.Store, tb *table.Table) []liveRow {
				rs := liveRows(t, st, tb)
				if tc.withDelete {
					rs = slices.DeleteFunc(rs, deletedBase)
				}
				return rs
			}
			run := func(st *memstore.Store, action crashAction, k int) (*faultstore.Store, error) {
				fs := faultstore.New(st)
				tb, err := table.Open(context.Background(), fs, testenv.New(10))
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				if k > 0 {
					ctx = arm(fs, action, k)
				}
				if tc.maintain {
					_, err = tb.Maintain(ctx, table.MaintainOptions{Compact: true})
				} else {
					_, err = tb.Append(ctx, rowsOf(t, tb, "A", day1.Add(12*time.Hour), 90, 5))
				}
				return fs, err
			}
			probe, err := run(cloneAt(t, base), actFail, 0)
			if err != nil {
				t.Fatalf("clean run: %v", err)
			}
			openOnly := faultstore.New(cloneAt(t, base))
			if _, err := table.Open(context.Background(), openOnly, testenv.New(10)); err != nil {
				t.Fatal(err)
			}
			n := probe.Requests(faultstore.AnyOp) - openOnly.Requests(faultstore.AnyOp)
			points := 0
			for _, action := range crashActions {
				for k := 1; k <= n; k++ {
					what := fmt.Sprintf("%s at request %d", action, k)
					st := cloneAt(t, base)
					fs, err := run(st, action, k)
					fs.ClearRules()
					points++
					ctx := context.Background()
					after, oerr := table.Open(ctx, st, testenv.New(20))
					if oerr != nil {
						t.Fatalf("%s: the table does not open: %v", what, oerr)
					}
					if !tc.dropIndex { // else the base snapshot's index is gone, as set up
						checkSnapshotsReadable(t, st, after)
					}
					checkHistory(t, what, after)
					live := visible(st, after)
					count, dup := countBy(live)
					if len(dup) > 0 || count["base"] != baseRows || count["F"] != 60 {
						t.Errorf("%s: %v rows by writer, %d keys twice", what, count, len(dup))
					}
					if a := count["A"]; (err == nil && !tc.maintain && a != 90) || (a != 0 && a != 90) {
						t.Errorf("%s: A has %d rows (append error %v)", what, a, err)
					}
					checkLatest(t, what, after, live)
					if _, err := after.Append(ctx, rowsOf(t, after, "C", day1.Add(18*time.Hour), 30, 2)); err != nil {
						t.Fatalf("%s: the next append: %v", what, err)
					}
					if _, err := after.Maintain(ctx, table.MaintainOptions{}); err != nil {
						t.Fatalf("%s: the next maintenance: %v", what, err)
					}
					live = visible(st, after)
					checkLatest(t, what+", then an append and maintenance", after, live)
					checkClean(t, what, st, after)
					checkSnapshotsReadable(t, st, after)
				}
			}
			t.Logf("%s: %d requests, %d crash points", tc.name, n, points)
			crashPointsCovered.add("catch-up "+tc.name, points)
		})
	}
}
