package table

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/timelake/timelake/avro"
	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/lastvalue"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/store"
)

// cleanup lists data/ and metadata/ and deletes what PlanCleanup allows.
// The files retained snapshots reach are read first; any failure to read
// them stops the cleanup before anything is deleted.
//
// stats are the statistics files of the snapshots, retained and expired.
func (tb *Table) cleanup(ctx context.Context, ms maintenance.Settings, now time.Time, opt MaintainOptions, retained, expired []iceberg.Snapshot, stats map[int64][]string, res *MaintainResult) error {
	r := &reacher{tb: tb, manifests: map[string]*manifestKeys{}, stats: stats, fetch: newPrefetcher(tb.st)}
	// The manifest lists of every snapshot, read ahead together
	// (cleanup_prefetch.go); reach reads each list's manifests ahead too.
	var lists []string
	for _, ss := range [][]iceberg.Snapshot{retained, expired} {
		for i := range ss {
			if k, err := tb.keyOf(ss[i].ManifestList); err == nil {
				lists = append(lists, k)
			}
		}
	}
	r.fetch.prefetch(ctx, lists)
	keep := reachSet{keys: map[string]bool{}, merged: map[string]bool{}}
	for i := range retained {
		if err := r.reach(ctx, &retained[i], keep); err != nil {
			return err
		}
	}
	gone := reachSet{keys: map[string]bool{}, merged: map[string]bool{}}
	for i := range expired {
		if err := r.reach(ctx, &expired[i], gone); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err // not found: an earlier run deleted part of it already
		}
	}
	var listed []maintenance.Object
	for _, prefix := range []string{"data/", "metadata/"} {
		objs, err := tb.st.List(ctx, prefix)
		if err != nil {
			return fmt.Errorf("list %s: %w", prefix, err)
		}
		for _, o := range objs {
			listed = append(listed, maintenance.Object{Key: o.Key, Size: o.Size, Modified: o.LastModified})
		}
	}
	logged := slices.Clone(tb.meta.MetadataLog)
	cur := tb.version.N
	if opt.DryRun && len(expired) > 0 {
		// The expiry would commit a version after this one, logging it.
		logged = append(logged, iceberg.MetadataLogEntry{MetadataFile: tb.location(commit.MetadataKey(cur))})
		if keep := tb.settings.PrevVersionsMax; len(logged) > keep {
			logged = logged[len(logged)-keep:]
		}
		cur++
	}
	versions := map[string]bool{}
	for _, e := range logged {
		if k, err := tb.keyOf(e.MetadataFile); err == nil {
			versions[k] = true
		}
	}
	marks, rawMarks, err := tb.readMarks(ctx, res)
	if err != nil {
		return err
	}
	in := maintenance.CleanupInput{
		Now: now, Grace: ms.OrphanGrace, MetadataGrace: ms.MetadataGrace, Marks: marks, Listed: listed, Retained: keep.keys, Expired: gone.keys,
		Current: cur, Metadata: versions, MetadataVersion: commit.ParseMetadataKey,
		Expire: opt.Expire, Orphans: opt.Orphans,
	}
	if tb.catalog != nil {
		// The catalog owns the metadata files (and names them its own way):
		// none is an orphan or an old version of ours to delete.
		in.MetadataVersion, in.KeepMetadataFiles = nil, true
	}
	c := maintenance.PlanCleanup(in)
	res.KeptYoung = c.Young
	if err := tb.deleteCleanup(ctx, c, opt, res); err != nil {
		return err
	}
	if !opt.DryRun {
		// After the deletions: should they fail, the marks stay as they
		// were (keys first seen by this run are seen again by the next).
		tb.writeMarks(ctx, c.Marks, rawMarks, res)
	}
	return nil
}

// deleteCleanup deletes what the plan c says (a dry run only reports it).
func (tb *Table) deleteCleanup(ctx context.Context, c maintenance.Cleanup, opt MaintainOptions, res *MaintainResult) error {
	keys := c.Keys()
	if len(keys) == 0 {
		return nil
	}
	verb := "delete"
	if opt.DryRun {
		verb = "would delete"
	}
	res.Plan = append(res.Plan, fmt.Sprintf("%s %d expired files, %d old metadata versions, %d orphans (%d bytes)", verb, len(c.Expired), len(c.Metadata), len(c.Orphans), c.Bytes))
	if !opt.DryRun {
		for b := 0; b < len(keys); b += 1000 {
			if err := tb.st.Delete(ctx, keys[b:min(b+1000, len(keys))]); err != nil {
				return fmt.Errorf("delete: %w", err)
			}
		}
	}
	res.FilesDeleted += len(keys)
	res.OrphansDeleted += len(c.Orphans)
	res.BytesDeleted += c.Bytes
	return nil
}

// readMarks reads when earlier cleanups first saw each unreferenced key
// (maintenance.MarksKey). Missing or garbled, it is empty: every key counts
// as first seen now, so no deletion comes early (a warning says the marks
// were garbled). Any other failure to read it stops the cleanup before
// anything is deleted: reading on without them would restart every key's
// wait. raw is the bytes read, to skip rewriting the same.
func (tb *Table) readMarks(ctx context.Context, res *MaintainResult) (marks maintenance.Marks, raw []byte, err error) {
	raw, err = store.GetLimited(ctx, tb.st, maintenance.MarksKey, MaxFileBytes)
	if errors.Is(err, store.ErrNotFound) {
		return maintenance.Marks{}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", maintenance.MarksKey, err)
	}
	marks, perr := maintenance.ParseMarks(raw)
	if perr != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("unreadable marks, every unreferenced file counts as first seen now: %v", perr))
		return maintenance.Marks{}, raw, nil
	}
	return marks, raw, nil
}

// writeMarks stores the marks PlanCleanup returned. Best effort: a failure
// only makes the next run see this run's new keys as new (a warning).
func (tb *Table) writeMarks(ctx context.Context, marks maintenance.Marks, old []byte, res *MaintainResult) {
	raw := marks.Encode()
	if old != nil && bytes.Equal(raw, old) {
		return
	}
	if old == nil && len(marks) == 0 {
		return // nothing to remember, no file to empty
	}
	if err := tb.st.Put(context.WithoutCancel(ctx), maintenance.MarksKey, raw); err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("write %s: %v", maintenance.MarksKey, err))
	}
}

// reacher collects the keys snapshots reach. Manifest lists grow with the
// table (snapshot k of a table fed by appends lists about k manifests), so
// a list is decoded with the typed reader and one block buffer, and each
// entry costs a map lookup on the path's bytes; each distinct manifest is
// read once, keeping only the keys of the files it lists.
type reacher struct {
	tb        *Table
	cache     avro.Cache
	manifests map[string]*manifestKeys // by manifest path
	stats     map[int64][]string       // statistics files by snapshot id
	fetch     *prefetcher
}

// manifestKeys are the store keys of a manifest and of its live data files.
type manifestKeys struct {
	key   string
	files []string
}

// reachSet is the keys some snapshots reach, and the manifest paths whose
// keys it already holds (a manifest shared by many lists is merged once).
type reachSet struct {
	keys   map[string]bool
	merged map[string]bool
}

// reach adds the keys snapshot s reaches to set: its manifest list,
// manifests, live data files, statistics files (the last-value index among
// them) and the index its summary key names.
func (r *reacher) reach(ctx context.Context, s *iceberg.Snapshot, set reachSet) error {
	tb := r.tb
	paths := r.stats[s.SnapshotID]
	if p := s.Summary[lastvalue.SummaryKey]; p != "" {
		paths = append(slices.Clip(paths), p)
	}
	for _, p := range paths {
		k, err := tb.keyOf(p)
		if err != nil {
			return err
		}
		set.keys[k] = true
	}
	listKey, err := tb.keyOf(s.ManifestList)
	if err != nil {
		return err
	}
	data, err := r.fetch.get(ctx, listKey)
	if err != nil {
		return fmt.Errorf("read manifest list of snapshot %d: %w", s.SnapshotID, err)
	}
	set.keys[listKey] = true
	var fresh []string // manifests this set does not hold yet
	err = iceberg.ManifestListPaths(&r.cache, data, s.ManifestList, func(p []byte) error {
		if !set.merged[string(p)] {
			fresh = append(fresh, string(p))
		}
		return nil
	})
	if err != nil {
		return datafile.FileErr(listKey, err)
	}
	var ahead []string
	for _, path := range fresh {
		if _, ok := r.manifests[path]; !ok {
			if k, err := tb.keyOf(path); err == nil {
				ahead = append(ahead, k)
			}
		}
	}
	r.fetch.prefetch(ctx, ahead)
	for _, path := range fresh {
		if set.merged[path] {
			continue // listed twice
		}
		m, err := r.manifest(ctx, path)
		if err != nil {
			return err
		}
		set.merged[path] = true
		set.keys[m.key] = true
		for _, k := range m.files {
			set.keys[k] = true
		}
	}
	return nil
}

// manifest reads the manifest at path once.
func (r *reacher) manifest(ctx context.Context, path string) (*manifestKeys, error) {
	if m, ok := r.manifests[path]; ok {
		return m, nil
	}
	tb := r.tb
	key, err := tb.keyOf(path)
	if err != nil {
		return nil, err
	}
	data, err := r.fetch.get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	m := &manifestKeys{key: key}
	err = iceberg.ManifestDataFiles(&r.cache, data, iceberg.ManifestFile{ManifestPath: path}, func(st iceberg.EntryStatus, p string) error {
		if st == iceberg.StatusDeleted {
			return nil
		}
		k, err := tb.keyOf(p)
		if err != nil {
			return err
		}
		m.files = append(m.files, k)
		return nil
	})
	if errors.Is(err, store.ErrBadKey) {
		return nil, err
	}
	if err != nil {
		return nil, datafile.FileErr(key, err)
	}
	r.manifests[path] = m
	return m, nil
}
