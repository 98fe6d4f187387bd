package table_test

// Hostile tables: metadata that points outside the table, a manifest that
// lists a file twice, a metadata file claiming a gigabyte. Every operation
// must refuse them with a clear error, and a recording store asserts that
// nothing outside the table's prefix was read or written, and that nothing
// was written at all.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// recordingStore records every key a request names and the bytes Gets return.
type recordingStore struct {
	store.Store
	mu       sync.Mutex
	keys     []string
	writes   []string
	getBytes int64
}

func (r *recordingStore) note(write bool, keys ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, keys...)
	if write {
		r.writes = append(r.writes, keys...)
	}
}

func (r *recordingStore) Get(ctx context.Context, key string) ([]byte, error) {
	r.note(false, key)
	b, err := r.Store.Get(ctx, key)
	r.mu.Lock()
	r.getBytes += int64(len(b))
	r.mu.Unlock()
	return b, err
}

func (r *recordingStore) GetLimited(ctx context.Context, key string, limit int64) ([]byte, error) {
	r.note(false, key)
	b, err := store.GetLimited(ctx, r.Store, key, limit)
	r.mu.Lock()
	r.getBytes += int64(len(b))
	r.mu.Unlock()
	return b, err
}

func (r *recordingStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	r.note(false, key)
	return r.Store.GetRange(ctx, key, off, n)
}
func (r *recordingStore) Put(ctx context.Context, key string, data []byte) error {
	r.note(true, key)
	return r.Store.Put(ctx, key, data)
}
func (r *recordingStore) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	r.note(true, key)
	return r.Store.PutIfAbsent(ctx, key, data)
}
func (r *recordingStore) Delete(ctx context.Context, keys []string) error {
	r.note(true, keys...)
	return r.Store.Delete(ctx, keys)
}
func (r *recordingStore) List(ctx context.Context, prefix string) ([]store.Object, error) {
	if prefix != "" {
		r.note(false, strings.TrimSuffix(prefix, "/"))
	}
	return r.Store.List(ctx, prefix)
}

// hostileTable is a directory table with a sibling secret file outside it.
type hostileTable struct {
	root, dir string
	st        *dirstore.Store
	tb        *table.Table
}

func newHostileTable(t *testing.T) *hostileTable {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "table")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "secret.parquet"), []byte("not the table's"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(context.Background(), st, testenv.New(1), "file://"+dir, metricsSchema(t),
		map[string]string{maintenance.PropOrphanGrace: "0", maintenance.PropCompactMinFiles: "2"})
	if err != nil {
		t.Fatal(err)
	}
	for k := range 2 {
		if _, err := tb.Append(context.Background(), rowsOf(t, tb, fmt.Sprintf("h%d", k), day1, 20, 2)); err != nil {
			t.Fatal(err)
		}
	}
	return &hostileTable{root: root, dir: dir, st: st, tb: tb}
}

// commitHostile writes md as the next metadata version, as a hostile writer would.
func (h *hostileTable) commitHostile(t *testing.T, md *iceberg.Metadata) {
	t.Helper()
	raw, err := md.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := h.st.PutIfAbsent(context.Background(), commit.MetadataKey(h.tb.Version()+1), raw); err != nil || !ok {
		t.Fatalf("hostile commit: %v %v", ok, err)
	}
}

// withSnapshot returns a copy of the metadata whose current snapshot is changed by f.
func withSnapshot(md *iceberg.Metadata, f func(s *iceberg.Snapshot)) *iceberg.Metadata {
	c := *md
	c.Snapshots = append([]iceberg.Snapshot(nil), md.Snapshots...)
	s := &c.Snapshots[len(c.Snapshots)-1]
	sum := map[string]string{}
	for k, v := range s.Summary {
		sum[k] = v
	}
	s.Summary = sum
	f(s)
	return &c
}

// writeList writes a manifest list holding files to key and returns its path.
func (h *hostileTable) writeList(t *testing.T, key string, files []iceberg.ManifestFile) string {
	t.Helper()
	s := h.tb.Metadata().CurrentSnapshot()
	var buf bytes.Buffer
	if err := iceberg.WriteManifestList(&buf, s.SnapshotID, s.ParentSnapshotID, s.SequenceNumber, files, [16]byte{1}); err != nil {
		t.Fatal(err)
	}
	if err := h.st.Put(context.Background(), key, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	return h.tb.Metadata().Location + "/" + key
}

// manifests returns the current snapshot's manifest files and the entries of the first.
func (h *hostileTable) manifests(t *testing.T) ([]iceberg.ManifestFile, []iceberg.ManifestEntry) {
	t.Helper()
	ctx := context.Background()
	loc := h.tb.Metadata().Location + "/"
	s := h.tb.Metadata().CurrentSnapshot()
	raw, err := h.st.Get(ctx, strings.TrimPrefix(s.ManifestList, loc))
	if err != nil {
		t.Fatal(err)
	}
	ml, err := iceberg.ReadManifestList(raw, s.ManifestList)
	if err != nil {
		t.Fatal(err)
	}
	raw, err = h.st.Get(ctx, strings.TrimPrefix(ml.Files[0].ManifestPath, loc))
	if err != nil {
		t.Fatal(err)
	}
	m, err := iceberg.ReadManifest(raw, ml.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	return ml.Files, m.Entries
}

// writeManifest writes a manifest of entries to key and returns it as a list entry.
func (h *hostileTable) writeManifest(t *testing.T, key string, entries []iceberg.ManifestEntry, template iceberg.ManifestFile) iceberg.ManifestFile {
	t.Helper()
	md := h.tb.Metadata()
	var buf bytes.Buffer
	for i := range entries {
		entries[i].Status = iceberg.StatusAdded
		entries[i].SnapshotID, entries[i].SequenceNumber, entries[i].FileSequenceNumber = 0, 0, 0
	}
	mf, err := iceberg.WriteManifest(&buf, *md.CurrentSchema(), *md.DefaultSpec(), entries, [16]byte{2})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.st.Put(context.Background(), key, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	mf.ManifestPath = md.Location + "/" + key
	mf.Assign(template.AddedSnapshotID, template.SequenceNumber)
	return mf
}

var outsidePaths = []struct{ name, path string }{
	{"absolute elsewhere", "file:///etc/passwd"},
	{"dot-dot", "{loc}/../secret.parquet"},
	{"dot-dot inside", "{loc}/data/../../secret.parquet"},
	{"other scheme", "s3://bucket/table/metadata/x.avro"},
	{"sibling prefix", "{loc}-other/metadata/x.avro"},
	{"backslash", "{loc}/metadata\\..\\..\\secret.parquet"},
	{"NUL", "{loc}/metadata/x\x00.avro"},
	{"very long", "{loc}/metadata/" + strings.Repeat("a", 2000) + ".avro"},
	{"remote host", "file://otherhost{path}/metadata/x.avro"},
	{"dot segment then dot-dot", "{loc}/./../secret.parquet"},
	// {loc}//metadata/x.avro is no longer here: redundant slashes name the
	// same place (location.Within), tested in TestForeignLocationForms.
}

// expand puts the table's location ({loc}) or its path alone ({path}) into p.
func expand(p, loc string) string {
	return strings.NewReplacer("{loc}", loc, "{path}", strings.TrimPrefix(loc, "file://")).Replace(p)
}

// TestHostileTables: each hostile version is refused by Open/Info, Latest,
// Append and Maintain with BAD_KEY or CORRUPT_TABLE and an error naming the
// path; the store is unchanged and no request named a key outside the table.
func TestHostileTables(t *testing.T) {
	type hostile struct {
		name  string
		build func(t *testing.T, h *hostileTable) *iceberg.Metadata
		// ops that must fail, by name; the others may succeed
		fails []string
	}
	var cases []hostile
	for _, p := range outsidePaths {
		cases = append(cases,
			hostile{"manifest list " + p.name, func(t *testing.T, h *hostileTable) *iceberg.Metadata {
				return withSnapshot(h.tb.Metadata(), func(s *iceberg.Snapshot) {
					s.ManifestList = expand(p.path, h.tb.Metadata().Location)
				})
			}, []string{"info", "append", "maintain"}},
			hostile{"last-value index " + p.name, func(t *testing.T, h *hostileTable) *iceberg.Metadata {
				return withSnapshot(h.tb.Metadata(), func(s *iceberg.Snapshot) {
					s.Summary[lastvalue.SummaryKey] = expand(p.path, h.tb.Metadata().Location)
				})
			}, []string{"info", "latest", "append", "maintain"}},
			hostile{"manifest " + p.name, func(t *testing.T, h *hostileTable) *iceberg.Metadata {
				files, _ := h.manifests(t)
				files[0].ManifestPath = expand(p.path, h.tb.Metadata().Location)
				list := h.writeList(t, "metadata/snap-hostile-manifest.avro", files)
				return withSnapshot(h.tb.Metadata(), func(s *iceberg.Snapshot) { s.ManifestList = list })
			}, []string{"info", "maintain"}}, // an append stacks on the manifest without reading it
			hostile{"data file " + p.name, func(t *testing.T, h *hostileTable) *iceberg.Metadata {
				files, entries := h.manifests(t)
				entries[0].DataFile.Path = expand(p.path, h.tb.Metadata().Location)
				files[0] = h.writeManifest(t, "metadata/hostile-data-m0.avro", entries, files[0])
				list := h.writeList(t, "metadata/snap-hostile-data.avro", files)
				return withSnapshot(h.tb.Metadata(), func(s *iceberg.Snapshot) { s.ManifestList = list })
			}, []string{"maintain"}},
		)
	}
	cases = append(cases, hostile{"manifest lists a file twice", func(t *testing.T, h *hostileTable) *iceberg.Metadata {
		files, entries := h.manifests(t)
		entries = append(entries, entries[0])
		files[0] = h.writeManifest(t, "metadata/hostile-twice-m0.avro", entries, files[0])
		list := h.writeList(t, "metadata/snap-hostile-twice.avro", files)
		return withSnapshot(h.tb.Metadata(), func(s *iceberg.Snapshot) { s.ManifestList = list })
	}, []string{"info", "maintain"}},
		hostile{"two manifests list one file", func(t *testing.T, h *hostileTable) *iceberg.Metadata {
			files, _ := h.manifests(t)
			files = append(files, files[0])
			list := h.writeList(t, "metadata/snap-hostile-twice2.avro", files)
			return withSnapshot(h.tb.Metadata(), func(s *iceberg.Snapshot) { s.ManifestList = list })
		}, []string{"info", "maintain"}},
		hostile{"table location changed", func(t *testing.T, h *hostileTable) *iceberg.Metadata {
			c := *h.tb.Metadata()
			c.Location = "file:///etc"
			return &c
		}, []string{"info", "latest", "append", "maintain"}},
	)

	ops := []struct {
		name string
		run  func(ctx context.Context, st store.Store) error
	}{
		{"info", func(ctx context.Context, st store.Store) error {
			tb, err := table.Open(ctx, st, testenv.New(5))
			if err == nil {
				_, err = tb.Info(ctx)
			}
			return err
		}},
		{"latest", func(ctx context.Context, st store.Store) error {
			tb, err := table.Open(ctx, st, testenv.New(5))
			if err == nil {
				_, err = tb.Latest(ctx)
			}
			return err
		}},
		{"append", func(ctx context.Context, st store.Store) error {
			tb, err := table.Open(ctx, st, testenv.New(5))
			if err == nil {
				_, err = tb.Append(ctx, rowsOf(t, tb, "new", day1, 5, 1))
			}
			return err
		}},
		{"maintain", func(ctx context.Context, st store.Store) error {
			tb, err := table.Open(ctx, st, testenv.New(5))
			if err == nil {
				_, err = tb.Maintain(ctx, table.MaintainOptions{})
			}
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHostileTable(t)
			h.commitHostile(t, c.build(t, h))
			for _, op := range ops {
				before := snapshotStore(t, h.st)
				rec := &recordingStore{Store: h.st}
				err := op.run(context.Background(), rec)
				mustFail := false
				for _, f := range c.fails {
					mustFail = mustFail || f == op.name
				}
				switch {
				case mustFail && err == nil:
					t.Errorf("%s: succeeded on a hostile table", op.name)
				case err != nil && table.Code(err) != "BAD_KEY" && table.Code(err) != "CORRUPT_TABLE":
					t.Errorf("%s: err = %v (%s), want BAD_KEY or CORRUPT_TABLE", op.name, err, table.Code(err))
				}
				if err != nil && !strings.Contains(err.Error(), "outside") && !strings.Contains(err.Error(), "twice") &&
					!strings.Contains(err.Error(), "key not allowed") && !strings.Contains(err.Error(), "location") {
					t.Errorf("%s: error %q does not say what is wrong", op.name, err)
				}
				for _, k := range rec.keys {
					if store.CheckKey(k) != nil || strings.Contains(k, "secret") {
						t.Errorf("%s: a request named %q", op.name, k)
					}
				}
				if err != nil {
					sameStore(t, before, snapshotStore(t, h.st))
				}
				if b, _ := os.ReadFile(filepath.Join(h.root, "secret.parquet")); string(b) != "not the table's" {
					t.Fatalf("%s: the file outside the table changed", op.name)
				}
			}
		})
	}
}

// TestHugeMetadataIsRefused: a metadata version whose object is 1 GiB (a
// sparse file here; a store reporting that length in general) is refused by
// its size before it is read.
func TestHugeMetadataIsRefused(t *testing.T) {
	h := newHostileTable(t)
	huge := filepath.Join(h.dir, filepath.FromSlash(commit.MetadataKey(h.tb.Version()+1)))
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rec := &recordingStore{Store: h.st}
	_, err = table.Open(context.Background(), rec, testenv.New(5))
	if table.Code(err) != "CORRUPT_TABLE" || !errors.Is(err, store.ErrTooLarge) || !strings.Contains(err.Error(), commit.MetadataKey(h.tb.Version()+1)) {
		t.Errorf("Open: err = %v (%s), want CORRUPT_TABLE, too large, naming the key", err, table.Code(err))
	}
	if rec.getBytes > 1<<20 {
		t.Errorf("Open read %d bytes, want the huge object refused before reading it", rec.getBytes)
	}
}
