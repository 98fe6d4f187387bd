package table_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/table"
)

// TestMaintainValidatesEveryInputFirst: a data file outside the table in one
// partition must stop maintain before it commits anything, even when
// another partition it would compact first is sound. Before, maintain
// committed the sound partition's compaction and then failed on the other.
func TestMaintainValidatesEveryInputFirst(t *testing.T) {
	for _, bad := range []int{0, 3} { // the first file of the first day, the last of the second
		t.Run(fmt.Sprintf("entry %d", bad), func(t *testing.T) {
			ctx := context.Background()
			h := newHostileTable(t) // two files on day1
			for k := range 2 {
				if _, err := h.tb.Append(ctx, rowsOf(t, h.tb, fmt.Sprintf("d2h%d", k), day1.AddDate(0, 0, 1), 20, 2)); err != nil {
					t.Fatal(err)
				}
			}
			files, _ := h.manifests(t)
			// Gather every entry into one manifest so that one of them can be made hostile.
			var all []iceberg.ManifestEntry
			for i := range files {
				all = append(all, manifestEntries(t, h, files[i])...)
			}
			if len(all) != 4 {
				t.Fatalf("%d entries, want 4", len(all))
			}
			all[bad].DataFile.Path = h.tb.Metadata().Location + "/../secret.parquet"
			mf := h.writeManifest(t, "metadata/hostile-all-m0.avro", all, files[0])
			list := h.writeList(t, "metadata/snap-hostile-all.avro", []iceberg.ManifestFile{mf})
			h.commitHostile(t, withSnapshot(h.tb.Metadata(), func(s *iceberg.Snapshot) { s.ManifestList = list }))

			before := snapshotStore(t, h.st)
			tb, err := table.Open(ctx, h.st, testenv.New(5))
			if err == nil {
				_, err = tb.Maintain(ctx, table.MaintainOptions{Compact: true})
			}
			if table.Code(err) != "BAD_KEY" || !strings.Contains(err.Error(), "secret.parquet") {
				t.Fatalf("maintain: err = %v (%s), want BAD_KEY naming the file", err, table.Code(err))
			}
			sameStore(t, before, snapshotStore(t, h.st))
		})
	}
}

// manifestEntries reads the entries of one manifest of the hostile table.
func manifestEntries(t *testing.T, h *hostileTable, mf iceberg.ManifestFile) []iceberg.ManifestEntry {
	t.Helper()
	raw, err := h.st.Get(context.Background(), strings.TrimPrefix(mf.ManifestPath, h.tb.Metadata().Location+"/"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := iceberg.ReadManifest(raw, mf)
	if err != nil {
		t.Fatal(err)
	}
	return m.Entries
}

// TestNewestVersionDeleted: deleting the newest vN.metadata.json by hand is
// CORRUPT_TABLE naming the missing file, not a silent roll-back to v(N-1).
func TestNewestVersionDeleted(t *testing.T) {
	ctx := context.Background()
	h := newHostileTable(t)
	newest := commit.MetadataKey(h.tb.Version())
	if err := h.st.Delete(ctx, []string{newest}); err != nil {
		t.Fatal(err)
	}
	before := snapshotStore(t, h.st)
	_, err := table.Open(ctx, h.st, testenv.New(5))
	if table.Code(err) != "CORRUPT_TABLE" || !strings.Contains(err.Error(), newest) {
		t.Fatalf("Open: err = %v (%s), want CORRUPT_TABLE naming %s", err, table.Code(err), newest)
	}
	sameStore(t, before, snapshotStore(t, h.st))
}

// TestTruncatedDataFile: a data file cut short (a partial upload, a
// damaged disk) is CORRUPT_TABLE naming it, for a scan and for maintain,
// which then commits nothing.
func TestTruncatedDataFile(t *testing.T) {
	ctx := context.Background()
	h := newHostileTable(t)
	_, entries := h.manifests(t)
	key := strings.TrimPrefix(entries[0].DataFile.Path, h.tb.Metadata().Location+"/")
	raw, err := h.st.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{len(raw) - 1, len(raw) / 2, 100, 8} {
		if err := h.st.Put(ctx, key, raw[:n]); err != nil {
			t.Fatal(err)
		}
		before := snapshotStore(t, h.st)
		tb, err := table.Open(ctx, h.st, testenv.New(5))
		if err != nil {
			t.Fatal(err)
		}
		_, err = tb.Maintain(ctx, table.MaintainOptions{Compact: true})
		if table.Code(err) != "CORRUPT_TABLE" || !strings.Contains(err.Error(), key) {
			t.Errorf("%d of %d bytes: maintain: err = %v (%s), want CORRUPT_TABLE naming %s", n, len(raw), err, table.Code(err), key)
		}
		sameStore(t, before, snapshotStore(t, h.st))
	}
}

// TestImplausibleRecordCounts: record_count of 2^62 or above 2^48 in a manifest is
// named in info's warnings and left out of its counts.
func TestImplausibleRecordCounts(t *testing.T) {
	ctx := context.Background()
	h := newHostileTable(t)
	files, _ := h.manifests(t)
	var entries []iceberg.ManifestEntry
	for _, f := range files {
		entries = append(entries, manifestEntries(t, h, f)...)
	}
	if len(entries) != 2 {
		t.Fatalf("%d entries, want 2", len(entries))
	}
	entries[0].DataFile.RecordCount = 1 << 62
	entries[1].DataFile.RecordCount = 1<<48 + 1 // (a negative count cannot be written by WriteManifest)
	mf := h.writeManifest(t, "metadata/hostile-counts-m0.avro", entries, files[0])
	list := h.writeList(t, "metadata/snap-hostile-counts.avro", []iceberg.ManifestFile{mf})
	h.commitHostile(t, withSnapshot(h.tb.Metadata(), func(s *iceberg.Snapshot) { s.ManifestList = list }))
	tb, err := table.Open(ctx, h.st, testenv.New(5))
	if err != nil {
		t.Fatal(err)
	}
	info, err := tb.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 0 {
		t.Errorf("rows = %d, want 0 (the implausible counts left out)", info.Rows)
	}
	joined := strings.Join(info.Warnings, "\n")
	if len(info.Warnings) != 2 || !strings.Contains(joined, "4611686018427387904") || !strings.Contains(joined, "281474976710657") {
		t.Errorf("warnings = %q, want both counts named", info.Warnings)
	}
}
