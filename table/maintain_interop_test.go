package table_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/table"
)

// TestMaintainOutsideReaders: nine appends with duplicate keys to one cold
// day and one other day; iceberg-go, DuckDB and pyiceberg read the table
// before compaction (every stored row), after it (one row per key, the later
// append winning: exact counts and sums), after retention drops the other
// day, and after snapshot expiry and cleanup, where the version before
// compaction is still retained and still reads in full.
func TestMaintainOutsideReaders(t *testing.T) {
	if testing.Short() {
		t.Skip("outside readers: skipped with -short")
	}
	readers := interoptest.Readers(t)
	ctx := context.Background()
	dir, st, tb := dirTable(t, testenv.New(1), interopSchema(t), map[string]string{
		table.PropMaxSnapshotAgeMs: "0", table.PropMinSnapshotsKeep: "2", maintenance.PropOrphanGrace: "0",
		maintenance.PropRetention: "3d", table.PropPageRowLimit: "100", // several pages per file: windows matter
	})
	rnd := rand.New(rand.NewPCG(3, 4))
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC) // cold by the Env clock (2026-11-29)
	old := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC) // past the 3-day retention
	stored := &model{rows: map[string]modelRow{}}        // every row in the files
	latest := &model{rows: map[string]modelRow{}}        // one per key, the later append winning
	recent := &model{rows: map[string]modelRow{}}        // latest, within retention
	for k := range 9 {
		ms := []map[string]any{}
		batch := map[string]modelRow{}
		for i := range 400 {
			base := day
			if i%10 == 0 {
				base = old
			}
			ts := base.Add(time.Duration(rnd.IntN(300)) * time.Minute)
			row := modelRow{ts: ts.UnixMicro(), host: fmt.Sprintf("host-%d", rnd.IntN(6)), shard: int64(rnd.IntN(2)), mem: rnd.Int64N(1 << 40)}
			if rnd.IntN(8) > 0 {
				c := float64(rnd.IntN(1000)) / 4
				row.cpu = &c
			}
			vals := map[string]any{"ts": ts, "host": row.host, "shard": row.shard, "mem": row.mem, "note": "k" + strconv.Itoa(k)}
			if row.cpu != nil {
				vals["cpu"] = *row.cpu
			}
			ms = append(ms, vals)
			batch[fmt.Sprintf("%s/%d/%d", row.host, row.shard, row.ts)] = row
		}
		b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
		for key, r := range batch {
			stored.rows[fmt.Sprintf("%d/%s", k, key)] = r
			latest.rows[key] = r
		}
	}
	for key, r := range latest.rows {
		if r.ts >= day.UnixMicro() {
			recent.rows[key] = r
		}
	}
	q := interoptest.Query{Time: "ts", Series: []string{"host", "shard"}, Sums: []string{"cpu", "mem"}}
	path := func(v int) string { return filepath.Join(dir, commit.MetadataKey(v)) }
	check := func(what string, v int, want *model) {
		t.Helper()
		for _, r := range readers {
			interoptest.ExpectSame(t, fmt.Sprintf("%s, %s (v%d)", r, what, v), want.summary(nil), interoptest.Summarize(t, r, path(v), q))
		}
	}
	beforeV := tb.Version()
	check("before maintenance", beforeV, stored)

	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Merges != 2 || res.RowsAfter != int64(len(latest.rows)) {
		t.Fatalf("compaction = %+v, want 2 merges (two days) to %d rows", res, len(latest.rows))
	}
	compactedV := tb.Version()
	check("after compaction", compactedV, latest)

	if res, err = tb.Maintain(ctx, table.MaintainOptions{Retention: true}); err != nil || res.PartitionsDropped != 1 {
		t.Fatalf("retention = %+v, %v; want one partition dropped", res, err)
	}
	check("after retention", tb.Version(), recent)

	// The directory stamps files with the real clock: clean up an hour
	// after it, so that the grace period (0 here) has passed.
	env := testenv.New(5)
	env.Now = func() time.Time { return time.Now().Add(time.Hour) }
	if tb, err = table.Open(ctx, st, env); err != nil {
		t.Fatal(err)
	}
	if res, err = tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true}); err != nil || res.SnapshotsExpired == 0 || res.FilesDeleted == 0 {
		t.Fatalf("expiry = %+v, %v; want snapshots expired and files deleted", res, err)
	}
	check("after expiry and cleanup", tb.Version(), recent)
	// min-snapshots-to-keep 2: the compaction's snapshot is retained, and its
	// metadata version still reads in full.
	check("retained snapshot after cleanup", compactedV, latest)
	checkSnapshotsReadable(t, st, tb)
	checkDuckDBDirectory(t, dir, recent.summary(nil).Rows)
}
