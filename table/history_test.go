package table_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// steppedEnv is a testenv Env whose clock the test also moves on (step),
// and a memory store stamping objects with the same clock, so that the
// orphan grace is judged on the table's own time line.
func steppedEnv(seed uint64) (table.Env, *memstore.Store, func(time.Duration)) {
	env := testenv.New(seed)
	var mu sync.Mutex
	now := testenv.Start
	tick := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Millisecond)
		return now
	}
	env.Now = tick
	step := func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(d)
	}
	return env, memstore.New(memstore.WithClock(tick)), step
}

// metadataBytes sums the sizes of the objects under metadata/, and counts
// the metadata versions among them that still hold metadata (not the
// superseded markers of commit.Superseded).
func metadataBytes(t testing.TB, st store.Store) (bytes int64, versions int) {
	t.Helper()
	ctx := context.Background()
	objs, err := st.List(ctx, "metadata/")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		bytes += o.Size
		if _, ok := commit.ParseMetadataKey(o.Key); ok {
			raw, err := st.Get(ctx, o.Key)
			if err != nil {
				t.Fatal(err)
			}
			if !commit.IsSuperseded(raw) {
				versions++
			}
		}
	}
	return bytes, versions
}

// TestLongLivedTableStaysBounded appends 2,000 batches of 10 rows, one every
// 10 seconds, to a table with the default properties, and checks at
// checkpoints that what a commit reads and writes stays bounded: the
// snapshots in the metadata, the manifest list's length, the size of a
// metadata version, the number of versions kept. After a maintenance run
// past the orphan grace, metadata/ holds only what the retained snapshots
// reach; DuckDB, pyiceberg and iceberg-go then read every row.
func TestLongLivedTableStaysBounded(t *testing.T) {
	const appends, perAppend = 2000, 10
	ctx := context.Background()
	dir := t.TempDir()
	env, st, step := steppedEnv(1)
	tb, err := table.Create(ctx, st, env, "file://"+dir, metricsSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	set := tb.Settings()
	var want []interoptest.Row
	type checkpoint struct {
		n, snapshots, listLen, versions int
		metaJSON, metaDir               int64
	}
	var cps []checkpoint
	var maxList int
	for k := range appends {
		start := day1.Add(time.Duration(k) * 10 * time.Second)
		b := batch(t, tb.Schema(), start, perAppend, perAppend)
		for i := range perAppend {
			cpu, mem := b.Cols[3].Floats[i], b.Cols[4].Ints[i]
			want = append(want, interoptest.Row{TimeUS: b.Cols[0].Ints[i], Series: b.Cols[1].Strs[i], CPU: &cpu, Mem: &mem})
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatalf("append %d: %v", k, err)
		}
		step(10 * time.Second)
		list, err := manifestListOf(ctx, st, tb)
		if err != nil {
			t.Fatal(err)
		}
		maxList = max(maxList, len(list))
		if n := k + 1; n%500 == 0 {
			raw, err := st.Get(ctx, commit.MetadataKey(tb.Version()))
			if err != nil {
				t.Fatal(err)
			}
			mb, versions := metadataBytes(t, st)
			cps = append(cps, checkpoint{n: n, snapshots: len(tb.Metadata().Snapshots), listLen: len(list), versions: versions, metaJSON: int64(len(raw)), metaDir: mb})
		}
	}
	for _, c := range cps {
		t.Logf("after %d appends: %d snapshots, manifest list of %d, %d metadata versions, vN.metadata.json %d B, metadata/ %d B (before maintenance)",
			c.n, c.snapshots, c.listLen, c.versions, c.metaJSON, c.metaDir)
		if c.snapshots > set.MaxSnapshots {
			t.Errorf("after %d appends: %d snapshots, want at most timelake.history.max-snapshots = %d", c.n, c.snapshots, set.MaxSnapshots)
		}
		if c.versions > set.PrevVersionsMax+1 {
			t.Errorf("after %d appends: %d metadata versions stored, want at most previous-versions-max + 1 = %d", c.n, c.versions, set.PrevVersionsMax+1)
		}
	}
	if maxList > set.ManifestMinMerge {
		t.Errorf("a manifest list of %d manifests, want at most commit.manifest.min-count-to-merge = %d", maxList, set.ManifestMinMerge)
	}
	// A version's size is flat in the table's age: the last checkpoint's
	// within 10% of the second's (the first may not have reached the bound).
	if first, last := cps[1].metaJSON, cps[len(cps)-1].metaJSON; float64(last) > 1.1*float64(first) {
		t.Errorf("vN.metadata.json grew from %d B after %d appends to %d B after %d", first, cps[1].n, last, cps[len(cps)-1].n)
	}
	if got := tb.Metadata().CurrentSnapshot().Summary["total-records"]; got != fmt.Sprint(appends*perAppend) {
		t.Errorf("total-records = %s, want %d", got, appends*perAppend)
	}

	// Past the grace, maintenance deletes what no retained snapshot reaches.
	step(25 * time.Hour)
	res, err := tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true})
	if err != nil {
		t.Fatal(err)
	}
	mb, versions := metadataBytes(t, st)
	t.Logf("maintenance past the grace deleted %d files (%d B): metadata/ %d B, %d versions", res.FilesDeleted, res.BytesDeleted, mb, versions)
	// What the retained snapshots reach: 10 manifest lists and indexes,
	// under 100 small manifests and the full ones (64 B a file), 21
	// versions of 10 snapshots each (~17 KB): under 1 MiB here (0.6 MiB
	// measured), whatever the number of appends but for the full manifests.
	if mb > 1<<20 {
		t.Errorf("metadata/ holds %d B after maintenance, want at most 1 MiB", mb)
	}

	// Outside readers read the bounded, merged table: every row.
	if testing.Short() {
		return
	}
	copyStore(t, st, dir)
	path := filepath.Join(dir, commit.MetadataKey(tb.Version()))
	q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu", "mem"}}
	wantSum := interoptest.Expect(want, nil)
	for _, r := range interoptest.Readers(t) {
		interoptest.ExpectSame(t, fmt.Sprintf("%s after %d appends", r, appends), wantSum, interoptest.Summarize(t, r, path, q))
	}
	checkDuckDBDirectory(t, dir, int64(appends*perAppend))
}

// manifestListOf reads the current snapshot's manifest list.
func manifestListOf(ctx context.Context, st store.Store, tb *table.Table) ([]iceberg.ManifestFile, error) {
	s := tb.Metadata().CurrentSnapshot()
	key := strings.TrimPrefix(s.ManifestList, tb.Metadata().Location+"/")
	data, err := st.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	ml, err := iceberg.ReadManifestList(data, s.ManifestList)
	if err != nil {
		return nil, err
	}
	return ml.Files, nil
}

// copyStore writes every object of st under dir, for outside readers.
func copyStore(t *testing.T, st store.Store, dir string) {
	t.Helper()
	ctx := context.Background()
	for _, k := range keysOf(t, st, "") {
		b, err := st.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAutoMaintainKeepsMetadataBounded runs what the WebAssembly client
// runs after each append with timelake.auto-maintain (AutoMaintainOptions)
// on a table appended every 10 s with an orphan grace of 1 h: past the
// first hour, metadata/ stops growing (the garbage of one grace, then
// deleted), and every row is there.
func TestAutoMaintainKeepsMetadataBounded(t *testing.T) {
	const appends, perAppend = 800, 10
	ctx := context.Background()
	env, st, step := steppedEnv(1)
	tb, err := table.Create(ctx, st, env, loc, metricsSchema(t), map[string]string{
		table.PropAutoMaintain: "true", maintenance.PropOrphanGrace: "1h",
	})
	if err != nil {
		t.Fatal(err)
	}
	at := map[int]int64{}
	cleanups := 0
	for k := range appends {
		if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(k)*10*time.Second), perAppend, perAppend)); err != nil {
			t.Fatalf("append %d: %v", k, err)
		}
		step(10 * time.Second)
		opt := tb.AutoMaintainOptions()
		if opt.Orphans {
			cleanups++
		}
		if _, err := tb.Maintain(ctx, opt); err != nil {
			t.Fatalf("auto-maintenance after append %d: %v", k, err)
		}
		if n := k + 1; n == 500 || n == appends {
			at[n], _ = metadataBytes(t, st)
		}
	}
	t.Logf("metadata/ after 500 appends %d B, after %d %d B; %d cleanups", at[500], appends, at[appends], cleanups)
	if cleanups < 2 {
		t.Errorf("%d cleanups in %d appends, want about one in %d", cleanups, appends, table.CleanupEvery)
	}
	// The garbage of the grace (360 appends of ~10 KB) and of the appends
	// since the last cleanup (~100), and what is reachable (~0.6 MB).
	if at[appends] > 8<<20 || float64(at[appends]) > 1.3*float64(at[500]) {
		t.Errorf("metadata/ grew from %d B after 500 appends to %d B after %d, want it flat under 8 MiB", at[500], at[appends], appends)
	}
	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != appends*perAppend {
		t.Errorf("%d rows, want %d", info.Rows, appends*perAppend)
	}
}

// TestMaintainExpiresByCount: a table whose history was not bounded (15
// snapshots under timelake.history.max-snapshots=0) gets a bound of 4;
// maintenance expires the snapshots beyond the newest 4, young as they
// are, and deletes their manifest lists once past the grace; every row
// stays.
func TestMaintainExpiresByCount(t *testing.T) {
	ctx := context.Background()
	env, st, step := steppedEnv(1)
	tb, err := table.Create(ctx, st, env, loc, metricsSchema(t), map[string]string{table.PropMaxSnapshots: "0"})
	if err != nil {
		t.Fatal(err)
	}
	for k := range 15 {
		if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(k)*time.Hour), 10, 5)); err != nil {
			t.Fatal(err)
		}
		step(10 * time.Second)
	}
	if n := len(tb.Metadata().Snapshots); n != 15 {
		t.Fatalf("%d snapshots with no bound, want 15", n)
	}
	if err := tb.SetProperties(ctx, map[string]string{table.PropMaxSnapshots: "4"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	lists := func() int { return len(keysWithPrefix(t, st, "metadata/snap-")) }
	before := lists()
	step(25 * time.Hour)
	res, err := tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.SnapshotsExpired != 11 || len(tb.Metadata().Snapshots) != 4 {
		t.Errorf("expired %d, kept %d snapshots; want 11 expired, 4 kept", res.SnapshotsExpired, len(tb.Metadata().Snapshots))
	}
	// A reader that loaded the version before the expiry may still open
	// the expired lists: they go once unreferenced for the metadata grace.
	expired := lists()
	step(time.Hour + time.Minute)
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true}); err != nil {
		t.Fatal(err)
	}
	if after := lists(); before != 15 || expired != 15 || after != 4 {
		t.Errorf("manifest lists: %d before, %d right after the expiry, %d an hour later; want 15, 15, then 4", before, expired, after)
	}
	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 150 {
		t.Errorf("%d rows, want 150", info.Rows)
	}
}

// keysWithPrefix lists the keys under prefix.
func keysWithPrefix(t *testing.T, st store.Store, prefix string) []string {
	t.Helper()
	var out []string
	for _, k := range keysOf(t, st, "metadata/") {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out
}
