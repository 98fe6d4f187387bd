package table

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/scan"
)

// A purge makes deleted rows physically gone. After a delete the current
// snapshot holds none of them, but the files it removed — and files older
// compactions removed — stay referenced by the snapshots the table keeps
// for time travel, and on storage until those expire. A purge finds every
// data file a retained snapshot references, the current one does not, and
// whose column bounds may hold a matching row; expires every snapshot that
// references one (even within the history the table keeps, and tags or
// branches on them: named in warnings); and deletes those files once no
// reader may still hold them — at once with Now, for a writer that knows no
// reader is running, else by the next maintenance past the orphan grace
// (the files are then unreferenced, and orphan cleanup takes them; an
// interrupted purge is finished the same way).

// PurgeResult is what a purge removed and what remains until when.
type PurgeResult struct {
	SnapshotsExpired []string `json:"snapshots-expired"` // ids, decimal
	FilesDeleted     int      `json:"files-deleted"`
	BytesDeleted     int64    `json:"bytes-deleted"`
	FilesPending     int      `json:"files-pending"` // unreferenced, deleted by maintenance past the grace
	BytesPending     int64    `json:"bytes-pending"`
	PendingUntil     string   `json:"pending-until,omitempty"` // RFC 3339: when maintenance may delete them
	Files            []string `json:"files"`                   // the data files purged or pending
	Warnings         []string `json:"warnings,omitempty"`
}

// purge runs after a delete by flt (which may have changed nothing).
func (tb *Table) purge(ctx context.Context, flt *scan.Filter, now bool) (*PurgeResult, error) {
	res := &PurgeResult{SnapshotsExpired: []string{}, Files: []string{}}
	cur := tb.meta.CurrentSnapshot()
	if cur == nil {
		return res, nil
	}
	// Snapshots share most of their manifests: each is read once.
	manifests := map[string]*iceberg.Manifest{}
	curFiles, err := tb.purgeDataFiles(ctx, cur, manifests)
	if err != nil {
		return nil, err
	}
	timeID := tb.schema.Fields[tb.schema.Time].ID
	tainted := map[string]iceberg.DataFile{}
	refs := map[int64]map[string]bool{} // retained snapshot → its live data files
	gone := map[int64]bool{}
	for i := range tb.meta.Snapshots {
		s := &tb.meta.Snapshots[i]
		if s.SnapshotID == cur.SnapshotID {
			continue
		}
		files, err := tb.purgeDataFiles(ctx, s, manifests)
		if err != nil {
			return nil, fmt.Errorf("purge: snapshot %d: %w", s.SnapshotID, err)
		}
		refs[s.SnapshotID] = map[string]bool{}
		for p, df := range files {
			refs[s.SnapshotID][p] = true
			if _, live := curFiles[p]; live {
				continue // the delete left no matching row in the current files
			}
			bound := func(id int) scan.Bound { return datafile.FileBound(&df, id) }
			if flt.MayMatch(bound(timeID), datafile.SeriesBounds(tb.schema, flt, bound)) {
				tainted[p] = df
				gone[s.SnapshotID] = true
			}
		}
	}
	if len(gone) == 0 {
		return res, nil
	}
	var lost []string
	for _, s := range tb.meta.Snapshots {
		if gone[s.SnapshotID] {
			res.SnapshotsExpired = append(res.SnapshotsExpired, strconv.FormatInt(s.SnapshotID, 10))
			lost = append(lost, fmt.Sprintf("%d (%s)", s.SnapshotID, time.UnixMilli(s.TimestampMs).UTC().Format(time.RFC3339)))
		}
	}
	lostWarning := fmt.Sprintf("time travel to %d snapshots is lost: they held deleted rows: %s", len(lost), joinMax(lost, 10))
	err = tb.commitMetadata(ctx, "purge", tb.loadForWrite, func(md *iceberg.Metadata) error {
		res.Warnings = []string{lostWarning} // built again on every base the commit meets
		if c := md.CurrentSnapshot(); c != nil && gone[c.SnapshotID] {
			return fmt.Errorf("the current snapshot %d holds rows to purge: delete them first", c.SnapshotID)
		}
		if err := dropSnapshots(md, gone); err != nil {
			return err
		}
		refs := maps.Clone(md.Refs)
		for name, r := range md.Refs {
			if gone[r.SnapshotID] && name != iceberg.MainBranch {
				delete(refs, name)
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s %q pointed at snapshot %d, which held deleted rows: removed", r.Type, name, r.SnapshotID))
			}
		}
		md.Refs = refs
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("purge: %w", err)
	}
	// The files no snapshot kept references: deleted now, or pending.
	kept := map[string]bool{}
	for id, files := range refs {
		if !gone[id] {
			maps.Copy(kept, files)
		}
	}
	var keys []string
	var bytes int64
	for _, p := range slices.Sorted(maps.Keys(tainted)) {
		if kept[p] {
			continue // a snapshot newer than the delete's parent still needs it: it cannot hold deleted rows
		}
		k, err := tb.keyOf(p)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
		bytes += tainted[p].FileSize
		res.Files = append(res.Files, p)
	}
	if !now {
		ms, err := tb.maintenanceSettings()
		if err != nil {
			return nil, err
		}
		res.FilesPending, res.BytesPending = len(keys), bytes
		res.PendingUntil = tb.env.Now().Add(ms.OrphanGrace).UTC().Format(time.RFC3339)
		return res, nil
	}
	if err := tb.st.Delete(ctx, keys); err != nil {
		return nil, fmt.Errorf("purge: delete %d files: %w", len(keys), err)
	}
	res.FilesDeleted, res.BytesDeleted = len(keys), bytes
	return res, nil
}

// joinMax joins at most n items, saying how many more there are.
func joinMax(items []string, n int) string {
	if len(items) <= n {
		return fmt.Sprint(items)
	}
	return fmt.Sprintf("%v and %d more", items[:n], len(items)-n)
}

// purgeDataFiles are the live data files of snapshot s by path, its
// manifests read through cache (by path: what purge reads of an entry —
// path, size, bounds — does not depend on the list that names it).
func (tb *Table) purgeDataFiles(ctx context.Context, s *iceberg.Snapshot, cache map[string]*iceberg.Manifest) (map[string]iceberg.DataFile, error) {
	ml, err := tb.readManifestList(ctx, s)
	if err != nil {
		return nil, err
	}
	out := map[string]iceberg.DataFile{}
	for _, mf := range ml.Files {
		if mf.Content != iceberg.ContentData {
			continue
		}
		m, ok := cache[mf.ManifestPath]
		if !ok {
			if m, err = tb.readManifest(ctx, mf); err != nil {
				return nil, err
			}
			cache[mf.ManifestPath] = m
		}
		for _, e := range m.Entries {
			if e.Status != iceberg.StatusDeleted && !e.DataFile.IsDelete() {
				out[e.DataFile.Path] = e.DataFile
			}
		}
	}
	return out, nil
}
