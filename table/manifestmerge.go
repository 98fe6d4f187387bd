package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/store"
)

// Manifest merging on append, as Iceberg's MergingSnapshotProducer does it
// (ManifestMergeManager), so that the manifest list of a table fed by small
// appends stays short instead of gaining one manifest per commit:
//
//   - the data manifests of the table's partition spec, the new one first,
//     are packed into bins of commit.manifest.target-size-bytes from the
//     end of the list (the oldest, full bins stay as they are; the bin
//     holding the newest manifests is the one left under-filled);
//   - a bin of one manifest is kept; the bin that holds the new manifest is
//     merged only once it holds commit.manifest.min-count-to-merge
//     manifests; any other bin of two or more is merged;
//   - a merged manifest keeps this snapshot's added files ADDED (their
//     snapshot id and sequence numbers inherited from the list entry, as
//     in any new manifest) and lists every other live file EXISTING with
//     the snapshot id, data sequence number and file sequence number it
//     had; DELETED entries of earlier snapshots are dropped (their delete
//     was recorded by the snapshot that made it).
//
// Delete manifests and manifests of another partition spec pass through
// unmerged (Timelake writes neither; another engine's are left as they
// are), as does a bin holding a manifest whose entries Timelake cannot
// write back (another spec's partition record) or that lies outside the
// table.

// manifestMerge is what mergeManifests decided.
type manifestMerge struct {
	list   []iceberg.ManifestFile // the manifest list's entries, in order
	files  []commit.File          // merged manifests to upload
	merged int                    // manifests replaced by merged ones
}

// mergeManifests merges list (its first entry the manifest this snapshot
// adds, whose entries are firstEntries) for snapshot snapID at sequence
// number seq. New manifests are written under metadata/<prefix>-m<k>.avro
// from k0 on.
func (tb *Table) mergeManifests(ctx context.Context, list []iceberg.ManifestFile, firstEntries []iceberg.ManifestEntry, snapID, seq int64, prefix string, k0 int, sync [16]byte) (manifestMerge, error) {
	res := manifestMerge{list: list}
	s := tb.settings
	if !s.ManifestMerge || len(list) < 2 {
		return res, nil
	}
	first := list[0].ManifestPath
	spec := int32(tb.meta.DefaultSpecID)
	var group, other []iceberg.ManifestFile
	for _, mf := range list {
		if mf.Content == iceberg.ContentData && mf.PartitionSpecID == spec {
			group = append(group, mf)
		} else {
			other = append(other, mf)
		}
	}
	var out []iceberg.ManifestFile
	var todo [][]iceberg.ManifestFile
	var at []int // position in out of each bin to merge
	for _, bin := range packEnd(group, s.ManifestTargetBytes) {
		hasFirst := slices.ContainsFunc(bin, func(m iceberg.ManifestFile) bool { return m.ManifestPath == first })
		if len(bin) == 1 || (hasFirst && len(bin) < s.ManifestMinMerge) {
			out = append(out, bin...)
			continue
		}
		at = append(at, len(out))
		out = append(out, iceberg.ManifestFile{}) // filled below
		todo = append(todo, bin)
	}
	if len(todo) == 0 {
		return res, nil
	}
	schema, pspec := *tb.meta.CurrentSchema(), *tb.meta.DefaultSpec()
	var files []commit.File
	var drop []int // bins left as they were
	for i, bin := range todo {
		entries, ok, err := tb.binEntries(ctx, bin, first, firstEntries, snapID)
		if err != nil {
			return res, err
		}
		if !ok {
			drop = append(drop, i)
			continue
		}
		key := fmt.Sprintf("metadata/%s-m%d.avro", prefix, k0+len(files))
		var buf bytes.Buffer
		mf, err := iceberg.WriteManifest(&buf, schema, pspec, entries, sync)
		if err != nil {
			return res, err
		}
		mf.ManifestPath = tb.location(key)
		mf.Assign(snapID, seq)
		files = append(files, commit.File{Key: key, Data: buf.Bytes()})
		out[at[i]] = mf
		res.merged += len(bin)
	}
	// Bins that could not be merged go back in their place, in order.
	for j := len(drop) - 1; j >= 0; j-- {
		i := drop[j]
		out = slices.Replace(out, at[i], at[i]+1, todo[i]...)
	}
	res.list = append(out, other...)
	res.files = files
	return res, nil
}

// packEnd packs ms, in order, into bins of at most target bytes (a larger
// manifest alone), filling them from the end: Iceberg's ListPacker.packEnd
// with a lookback of 1, so that manifests keep their order and the first
// bin, where new manifests arrive, is the under-filled one.
func packEnd(ms []iceberg.ManifestFile, target int64) [][]iceberg.ManifestFile {
	var bins [][]iceberg.ManifestFile
	end, weight := len(ms), int64(0)
	for i := len(ms) - 1; i >= 0; i-- {
		l := ms[i].ManifestLength
		if end > i+1 && weight+l > target {
			bins = append(bins, ms[i+1:end:end])
			end, weight = i+1, 0
		}
		weight += l
	}
	if end > 0 {
		bins = append(bins, ms[:end:end])
	}
	slices.Reverse(bins)
	return bins
}

// binEntries reads the manifests of bin (the one at first from memory) and
// returns the merged manifest's entries; !ok when the bin cannot be merged
// (see the package comment above).
func (tb *Table) binEntries(ctx context.Context, bin []iceberg.ManifestFile, first string, firstEntries []iceberg.ManifestEntry, snapID int64) ([]iceberg.ManifestEntry, bool, error) {
	ms := make([]*iceberg.Manifest, len(bin))
	errs := make([]error, len(bin))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8) // reads in flight: the bin's manifests are small and many
	for i, mf := range bin {
		if mf.ManifestPath == first {
			ms[i] = &iceberg.Manifest{Entries: firstEntries}
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ms[i], errs[i] = tb.readManifest(ctx, mf)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if errors.Is(err, store.ErrBadKey) {
			return nil, false, nil // outside the table: left as it is
		}
		if err != nil {
			return nil, false, err
		}
	}
	var out []iceberg.ManifestEntry
	for i, m := range ms {
		for _, e := range m.Entries {
			if e.DataFile.OtherPartition || e.DataFile.IsDelete() {
				return nil, false, nil
			}
			switch {
			case bin[i].ManifestPath == first:
				// This snapshot's files: ADDED, inheriting from the list entry.
			case e.Status == iceberg.StatusDeleted:
				if e.SnapshotID != snapID {
					continue // recorded by the snapshot that deleted it
				}
			case e.Status == iceberg.StatusAdded && e.SnapshotID == snapID:
			default:
				// Read with inheritance resolved: the snapshot id and both
				// sequence numbers are the file's own, written out now.
				e.Status = iceberg.StatusExisting
			}
			out = append(out, e)
		}
	}
	return out, true, nil
}
