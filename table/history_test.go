package table_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// longLived is a table with the default properties and
// timelake.auto-maintain on, appended 10 rows every 10 s by its clock, with
// after each append the maintenance the WebAssembly client runs
// (AutoMaintainOptions): compaction and retention every time, expiry and
// cleanup after one append in CleanupEvery. No other maintenance runs.
type longLived struct {
	tb   *table.Table
	st   store.Store
	step func(time.Duration)
	dir  string
	want []interoptest.Row

	maxMeta   int64 // metadata/ bytes, the most after any append
	maxMetaAt int
	at        map[int]int64 // metadata/ bytes after n appends (every 500)
	cps       []checkpoint
	maxList   int
	cleanups  int
}

type checkpoint struct {
	n, snapshots, listLen, versions int
	metaJSON, metaDir               int64
}

const perAppend = 10

func runLongLived(t *testing.T, appends int) *longLived {
	t.Helper()
	ctx := context.Background()
	l := &longLived{dir: t.TempDir(), at: map[int]int64{}}
	env, mem, step := steppedEnv(1)
	st := &sizedStore{Store: mem, sizes: map[string]int64{}}
	l.st, l.step = st, step
	props := map[string]string{table.PropAutoMaintain: "true"}
	if g := os.Getenv("TIMELAKE_METADATA_GRACE"); g != "" {
		// The decision's other rows (docs/decisions/flat-append-cost.md):
		// TIMELAKE_METADATA_GRACE=1h for the 1 h row.
		props[maintenance.PropMetadataGrace] = g
	}
	tb, err := table.Create(ctx, st, env, "file://"+l.dir, metricsSchema(t), props)
	if err != nil {
		t.Fatal(err)
	}
	l.tb = tb
	for k := range appends {
		start := day1.Add(time.Duration(k) * 10 * time.Second)
		b := batch(t, tb.Schema(), start, perAppend, perAppend)
		for i := range perAppend {
			cpu, mem := b.Cols[3].Floats[i], b.Cols[4].Ints[i]
			l.want = append(l.want, interoptest.Row{TimeUS: b.Cols[0].Ints[i], Series: b.Cols[1].Strs[i], CPU: &cpu, Mem: &mem})
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatalf("append %d: %v", k, err)
		}
		opt := tb.AutoMaintainOptions()
		if opt.Orphans {
			l.cleanups++
		}
		if _, err := tb.Maintain(ctx, opt); err != nil {
			t.Fatalf("auto-maintenance after append %d: %v", k, err)
		}
		step(10 * time.Second)
		list, err := manifestListOf(ctx, st, tb)
		if err != nil {
			t.Fatal(err)
		}
		l.maxList = max(l.maxList, len(list))
		n := k + 1
		if mb := st.metadataBytes(); mb > l.maxMeta {
			l.maxMeta, l.maxMetaAt = mb, n
		}
		if n%500 == 0 {
			raw, err := st.Get(ctx, commit.MetadataKey(tb.Version()))
			if err != nil {
				t.Fatal(err)
			}
			mb, versions := metadataBytes(t, st)
			if kept := st.metadataBytes(); kept != mb {
				t.Fatalf("after %d appends: metadata/ lists %d B, the store counted %d B", n, mb, kept)
			}
			l.at[n] = mb
			l.cps = append(l.cps, checkpoint{n: n, snapshots: len(tb.Metadata().Snapshots), listLen: len(list), versions: versions, metaJSON: int64(len(raw)), metaDir: mb})
		}
	}
	return l
}

// sizedStore keeps the bytes under metadata/ as objects are written and
// deleted, so that a test can read them after every append without
// listing a store of tens of thousands of objects each time.
type sizedStore struct {
	store.Store
	mu    sync.Mutex
	sizes map[string]int64
	meta  int64
}

func (s *sizedStore) wrote(key string, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.HasPrefix(key, "metadata/") {
		s.meta += n - s.sizes[key]
	}
	s.sizes[key] = n
}

func (s *sizedStore) Put(ctx context.Context, key string, data []byte) error {
	err := s.Store.Put(ctx, key, data)
	if err == nil {
		s.wrote(key, int64(len(data)))
	}
	return err
}

func (s *sizedStore) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	ok, err := s.Store.PutIfAbsent(ctx, key, data)
	if ok && err == nil {
		s.wrote(key, int64(len(data)))
	}
	return ok, err
}

func (s *sizedStore) Delete(ctx context.Context, keys []string) error {
	err := s.Store.Delete(ctx, keys)
	if err == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, k := range keys {
			if strings.HasPrefix(k, "metadata/") {
				s.meta -= s.sizes[k]
			}
			delete(s.sizes, k)
		}
	}
	return err
}

func (s *sizedStore) metadataBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.meta
}

// metadataByKind sums metadata/ by kind of file, for the log.
func metadataByKind(t testing.TB, st store.Store) string {
	t.Helper()
	objs, err := st.List(context.Background(), "metadata/")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string][2]int64{}
	for _, o := range objs {
		name := strings.TrimPrefix(o.Key, "metadata/")
		kind := "other"
		switch {
		case strings.HasPrefix(name, "snap-"):
			kind = "manifest lists"
		case strings.HasPrefix(name, "lastvalue-"):
			kind = "indexes"
		case strings.HasSuffix(name, ".avro"):
			kind = "manifests"
		case o.Key == maintenance.MarksKey:
			kind = "marks"
		case strings.HasSuffix(name, ".metadata.json") && o.Size < 64:
			kind = "superseded markers"
		case strings.HasSuffix(name, ".metadata.json"):
			kind = "versions"
		}
		c := kinds[kind]
		kinds[kind] = [2]int64{c[0] + 1, c[1] + o.Size}
	}
	var out []string
	for k, c := range kinds {
		out = append(out, fmt.Sprintf("%s %d (%d B)", k, c[0], c[1]))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// metadataCap is the bound on metadata/ (≤ 20 MB after 10,000
// appends of 10 rows), held here at every append.
const metadataCap = 20_000_000

// check asserts what stays bounded whatever the table's age.
func (l *longLived) check(t *testing.T, appends int) {
	t.Helper()
	set := l.tb.Settings()
	for _, c := range l.cps {
		t.Logf("after %d appends: %d snapshots, manifest list of %d, %d metadata versions, vN.metadata.json %d B, metadata/ %d B",
			c.n, c.snapshots, c.listLen, c.versions, c.metaJSON, c.metaDir)
		if c.snapshots > set.MaxSnapshots {
			t.Errorf("after %d appends: %d snapshots, want at most timelake.history.max-snapshots = %d", c.n, c.snapshots, set.MaxSnapshots)
		}
		if c.versions > set.PrevVersionsMax+1 {
			t.Errorf("after %d appends: %d metadata versions stored, want at most previous-versions-max + 1 = %d", c.n, c.versions, set.PrevVersionsMax+1)
		}
	}
	t.Logf("metadata/ at most %d B (after append %d), %d cleanups; at the end: %s", l.maxMeta, l.maxMetaAt, l.cleanups, metadataByKind(t, l.st))
	if l.maxMeta > metadataCap {
		t.Errorf("metadata/ reached %d B after %d appends, want at most %d at every point", l.maxMeta, l.maxMetaAt, metadataCap)
	}
	if l.maxList > set.ManifestMinMerge {
		t.Errorf("a manifest list of %d manifests, want at most commit.manifest.min-count-to-merge = %d", l.maxList, set.ManifestMinMerge)
	}
	// A version's size is flat in the table's age: the last checkpoint's
	// within 10% of the second's (the first may not have reached the bound).
	if first, last := l.cps[1].metaJSON, l.cps[len(l.cps)-1].metaJSON; float64(last) > 1.1*float64(first) {
		t.Errorf("vN.metadata.json grew from %d B after %d appends to %d B after %d", first, l.cps[1].n, last, l.cps[len(l.cps)-1].n)
	}
	info, err := l.tb.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != int64(appends*perAppend) {
		t.Errorf("%d rows, want %d", info.Rows, appends*perAppend)
	}
}

// TestLongLivedTableStaysBounded appends 2,000 batches of 10 rows, one every
// 10 seconds, to a table with the default properties and
// timelake.auto-maintain (and no other maintenance), and checks that what a
// commit reads and writes stays bounded (the snapshots in the metadata, the
// manifest list's length, the size of a metadata version, the versions
// kept) and so does metadata/: ≤ 20 MB after every append (with the orphan
// grace alone, before timelake.metadata-grace, these appends left 25.4 MB;
// 114 MB at most over 10,000). The rows are of the day before the clock's,
// so their partition is cold and compacted after every append: two commits
// an append, the most metadata/ a commit rate leaves. Then, with no append
// for two days (two cleanups), only what the retained snapshots reach is
// left; DuckDB, pyiceberg and iceberg-go read every row.
// TestLongLivedTable10000 runs the same 10,000 appends (~28 h).
func TestLongLivedTableStaysBounded(t *testing.T) {
	const appends = 2000
	ctx := context.Background()
	l := runLongLived(t, appends)
	l.check(t, appends)

	// With no append for two days, two cleanups (the first marks, the
	// second deletes) leave what the retained snapshots reach.
	for range 2 {
		l.step(25 * time.Hour)
		if _, err := l.tb.Maintain(ctx, table.MaintainOptions{Expire: true, Orphans: true}); err != nil {
			t.Fatal(err)
		}
	}
	mb, versions := metadataBytes(t, l.st)
	t.Logf("after two cleanups two days later: metadata/ %d B, %d versions: %s", mb, versions, metadataByKind(t, l.st))
	// What the retained snapshots reach: 10 manifest lists and indexes,
	// under 100 small manifests and the full ones (64 B a file), 21
	// versions of 10 snapshots each (~17 KB): under 1 MiB here (0.6 MiB
	// measured), whatever the number of appends but for the full manifests.
	if mb > 1<<20 {
		t.Errorf("metadata/ holds %d B after the cleanups, want at most 1 MiB", mb)
	}

	// Outside readers read the bounded, merged, compacted table: every row.
	if testing.Short() {
		return
	}
	copyStore(t, l.st, l.dir)
	path := filepath.Join(l.dir, commit.MetadataKey(l.tb.Version()))
	q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu", "mem"}}
	wantSum := interoptest.Expect(l.want, nil)
	for _, r := range interoptest.Readers(t) {
		interoptest.ExpectSame(t, fmt.Sprintf("%s after %d appends", r, appends), wantSum, interoptest.Summarize(t, r, path, q))
	}
	checkDuckDBDirectory(t, l.dir, int64(appends*perAppend))
}

// TestLongLivedTable10000 is TestLongLivedTableStaysBounded's table over
// 10,000 appends (27.8 hours by its clock, past the 24 h orphan grace),
// the target: metadata/ ≤ 20 MB at every point. Minutes on a loaded
// machine, so only when asked:
//
//	TIMELAKE_LONG_TEST=1 go test ./table -run TestLongLivedTable10000 -v -timeout 30m
func TestLongLivedTable10000(t *testing.T) {
	if os.Getenv("TIMELAKE_LONG_TEST") == "" {
		t.Skip("10,000 appends with maintenance take minutes: set TIMELAKE_LONG_TEST=1")
	}
	const appends = 10_000
	l := runLongLived(t, appends)
	l.check(t, appends)
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
