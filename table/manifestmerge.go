package table

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/snapshot"
	"github.com/timelake/timelake/store"
)

// Manifest merging on append, so that the manifest list of a table fed by
// small appends stays short instead of gaining one manifest per commit.
// Iceberg's properties, with Iceberg's meaning of the entries a merge
// writes (MergingSnapshotProducer / ManifestMergeManager.createManifest):
//
//   - a merged manifest keeps this snapshot's added files ADDED (their
//     snapshot id and sequence numbers inherited from the list entry, as
//     in any new manifest) and lists every other live file EXISTING with
//     the snapshot id, data sequence number and file sequence number it
//     had; DELETED entries of earlier snapshots are dropped (their delete
//     was recorded by the snapshot that made it).
//
// Which manifests merge differs from Java's bin packing, deliberately: a
// manifest of one small append is mostly header (3.7 KB, of which the
// entry is ~64 bytes), so packing by manifest length from the end (Java's
// ListPacker.packEnd) puts a nearly full merged manifest in a bin with a
// few new ones, merges that bin at once (only the bin holding the newest
// manifest waits for min-count-to-merge) and gets back a manifest barely
// larger: it is rewritten on nearly every append until it fills
// (measured: an append of 1,000 rows after 10,000 cost 8× one after 10).
// Here:
//
//   - a data manifest of the table's spec of at least half of
//     commit.manifest.target-size-bytes is full and never merged again;
//   - the others (the new one first) merge once there are
//     commit.manifest.min-count-to-merge of them, all at once, into as
//     few manifests as the target size allows (each then full but the
//     last). A merge so reads at most min-count manifests, and rewrites
//     at most ~one target size of entries every min-count appends: its
//     cost per append is bounded whatever the table's size.
//
// Delete manifests and manifests of another partition spec are never
// merged (Timelake writes neither; another engine's are left as they are);
// nor is anything when a candidate holds an entry Timelake cannot write
// back (another spec's partition record, a delete file) or lies outside
// the table.

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
	var group, rest []iceberg.ManifestFile
	for _, mf := range list {
		if mf.Content == iceberg.ContentData && mf.PartitionSpecID == spec && mf.ManifestLength < s.ManifestTargetBytes/2 {
			group = append(group, mf)
		} else {
			rest = append(rest, mf)
		}
	}
	if len(group) < s.ManifestMinMerge || group[0].ManifestPath != first {
		return res, nil
	}
	entries, ok, err := tb.binEntries(ctx, group, first, firstEntries, snapID)
	if err != nil || !ok {
		return res, err
	}
	schema, pspec := *tb.meta.CurrentSchema(), *tb.meta.DefaultSpec()
	var out []iceberg.ManifestFile
	var files []commit.File
	write := func(entries []iceberg.ManifestEntry) ([]byte, iceberg.ManifestFile, error) {
		var buf bytes.Buffer
		mf, err := iceberg.WriteManifestVersion(&buf, tb.writeVersion(), schema, pspec, entries, sync)
		return buf.Bytes(), mf, err
	}
	data, mf, err := write(entries)
	if err != nil {
		return res, err
	}
	parts := [][]iceberg.ManifestEntry{entries}
	if n := int((mf.ManifestLength + s.ManifestTargetBytes - 1) / s.ManifestTargetBytes); n > 1 {
		// Past the target: the same entries, in order, in n manifests of
		// about equal size (each at least half the target: full).
		parts = parts[:0]
		for i := range n {
			parts = append(parts, entries[i*len(entries)/n:(i+1)*len(entries)/n])
		}
	}
	for i, part := range parts {
		if len(parts) > 1 {
			if data, mf, err = write(part); err != nil {
				return res, err
			}
		}
		key := snapshot.ManifestKey(prefix, k0+i)
		mf.ManifestPath = tb.location(key)
		mf.Assign(snapID, seq)
		files = append(files, commit.File{Key: key, Data: data})
		out = append(out, mf)
	}
	res.list = append(out, rest...)
	res.files = files
	res.merged = len(group)
	return res, nil
}

// binEntries reads the manifests of bin (the one at first from memory) and
// returns the merged manifest's entries; !ok when the bin cannot be merged
// (see the comment at the top).
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
