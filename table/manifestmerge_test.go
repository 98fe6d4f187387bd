package table_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// fileOrigin is which append added a data file: its snapshot and sequence number.
type fileOrigin struct {
	snap, seq int64
}

// currentEntries reads every entry of the current snapshot's manifests,
// with each manifest's list entry.
func currentEntries(t *testing.T, st store.Store, tb *table.Table) ([]iceberg.ManifestFile, map[string][]iceberg.ManifestEntry) {
	t.Helper()
	ctx := context.Background()
	list, err := manifestListOf(ctx, st, tb)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]iceberg.ManifestEntry{}
	for _, mf := range list {
		data, err := st.Get(ctx, strings.TrimPrefix(mf.ManifestPath, tb.Metadata().Location+"/"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := iceberg.ReadManifest(data, mf)
		if err != nil {
			t.Fatal(err)
		}
		out[mf.ManifestPath] = m.Entries
	}
	return list, out
}

// TestManifestMergeKeepsEntries appends past commit.manifest.min-count-to-merge
// and checks the merged manifest entry by entry: the files of earlier
// appends EXISTING with the snapshot id and both sequence numbers of the
// append that added them, this append's ADDED, inheriting its own; the
// list entry's counts and minimum sequence number; the append's own
// manifest, merged away, deleted.
func TestManifestMergeKeepsEntries(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb := createWith(t, st, 1, map[string]string{table.PropManifestMinMerge: "4"})
	origin := map[string]fileOrigin{}
	for k := range 7 {
		res, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(k)*time.Hour), 10, 5))
		if err != nil {
			t.Fatal(err)
		}
		seq := tb.Metadata().CurrentSnapshot().SequenceNumber
		list, entries := currentEntries(t, st, tb)
		for _, es := range entries {
			for _, e := range es {
				if _, ok := origin[e.DataFile.Path]; !ok {
					origin[e.DataFile.Path] = fileOrigin{snap: res.SnapshotID, seq: seq}
				}
			}
		}
		// Appends 1–3 add a manifest each; the 4th merges the 4 into one;
		// 5–6 add again; the 7th (4 candidates) merges.
		want := map[int]int{0: 1, 1: 2, 2: 3, 3: 1, 4: 2, 5: 3, 6: 1}[k]
		if len(list) != want {
			t.Fatalf("after append %d: a manifest list of %d, want %d", k+1, len(list), want)
		}
		// The append's own manifest: kept unless a merge took its entries.
		_, err = st.Get(ctx, "metadata/"+res.CommitID+"-m0.avro")
		if merged := len(list) == 1 && k > 0; merged != errors.Is(err, store.ErrNotFound) {
			t.Errorf("append %d: its own manifest: %v (merged: %v)", k+1, err, merged)
		}
		if len(list) != 1 || k == 0 {
			continue
		}
		mf := list[0]
		if mf.AddedSnapshotID != res.SnapshotID || mf.SequenceNumber != seq {
			t.Errorf("append %d: merged manifest added by %d at %d, want %d at %d", k+1, mf.AddedSnapshotID, mf.SequenceNumber, res.SnapshotID, seq)
		}
		var minSeq int64 = seq
		for _, e := range entries[mf.ManifestPath] {
			o := origin[e.DataFile.Path]
			minSeq = min(minSeq, o.seq)
			wantStatus := iceberg.StatusExisting
			if o.snap == res.SnapshotID {
				wantStatus = iceberg.StatusAdded
			}
			if e.Status != wantStatus || e.SnapshotID != o.snap || e.SequenceNumber != o.seq || e.FileSequenceNumber != o.seq {
				t.Errorf("append %d: %s is %v snapshot %d seq %d/%d, want %v snapshot %d seq %d/%d", k+1, e.DataFile.Path,
					e.Status, e.SnapshotID, e.SequenceNumber, e.FileSequenceNumber, wantStatus, o.snap, o.seq, o.seq)
			}
		}
		if n := len(entries[mf.ManifestPath]); n != len(origin) || int(mf.AddedFilesCount+mf.ExistingFilesCount) != n || mf.MinSequenceNumber != minSeq {
			t.Errorf("append %d: merged manifest of %d entries (list says %d added, %d existing, min seq %d); want %d files, min seq %d",
				k+1, n, mf.AddedFilesCount, mf.ExistingFilesCount, mf.MinSequenceNumber, len(origin), minSeq)
		}
	}
	if got := len(manifestPaths(t, tb)); got != 7 {
		t.Errorf("%d live data files, want 7", got)
	}
}

// TestManifestMergeFullManifestsStay: with a small target size, merged
// manifests of at least half of it are full and never rewritten again;
// the list stays short and every file stays listed once.
func TestManifestMergeFullManifestsStay(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(1), loc, metricsSchema(t), map[string]string{
		table.PropManifestMinMerge: "5", table.PropManifestTargetBytes: "8192",
	})
	if err != nil {
		t.Fatal(err)
	}
	full := map[string]int64{} // path → length, once seen full
	for k := range 120 {
		if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(k)*time.Minute*10), 10, 5)); err != nil {
			t.Fatal(err)
		}
		list, _ := currentEntries(t, st, tb)
		listed := map[string]bool{}
		small := 0
		for _, mf := range list {
			listed[mf.ManifestPath] = true
			if mf.ManifestLength >= 4096 {
				full[mf.ManifestPath] = mf.ManifestLength
			} else {
				small++
			}
		}
		for p := range full {
			if !listed[p] {
				t.Fatalf("append %d: full manifest %s was merged away", k+1, p)
			}
		}
		if small >= 5 {
			t.Fatalf("append %d: %d manifests under half the target, want fewer than min-count-to-merge (5)", k+1, small)
		}
	}
	if len(full) < 2 {
		t.Errorf("%d full manifests after 120 appends, want several", len(full))
	}
	for p, n := range full {
		if n > 8192*2 {
			t.Errorf("full manifest %s is %d bytes, want about the target (8192)", p, n)
		}
	}
	paths := manifestPaths(t, tb)
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			t.Errorf("%s listed twice", p)
		}
		seen[p] = true
	}
	if len(paths) != 120 {
		t.Errorf("%d live data files, want 120", len(paths))
	}
}
