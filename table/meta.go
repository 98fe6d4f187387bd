package table

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/datafile"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/location"
	"github.com/timelake/timelake/snapshot"
	"github.com/timelake/timelake/store"
)

// location is the full path of key, as written into metadata.
func (tb *Table) location(key string) string { return tb.meta.Location + "/" + key }

// keyOf maps a path from the table's metadata back to a store key. A path
// outside the table's location is refused: a hostile or moved table must not
// make us read or delete anything else.
func (tb *Table) keyOf(path string) (string, error) {
	// Compared as places: other writers spell the table's own files
	// file:/p (Iceberg Java), s3a://… (Hadoop) or with doubled slashes.
	key, err := location.Within(tb.meta.Location, path)
	if err != nil {
		return "", fmt.Errorf("%w: %w", store.ErrBadKey, err)
	}
	if err := store.CheckKey(key); err != nil {
		return "", err
	}
	return key, nil
}

// MaxFileBytes bounds what reading one whole file from storage may allocate.
const MaxFileBytes = datafile.MaxFileBytes

// syncMarker reads the Env's randomness for an Avro sync marker.
func (tb *Table) syncMarker() ([16]byte, error) {
	var b [16]byte
	_, err := io.ReadFull(tb.env.Rand, b[:])
	return b, err
}

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// totals are the running table totals kept in every snapshot summary.
type totals struct {
	records, files, bytes int64
	deletes               deleteTotals
	minTime, maxTime      int64
	hasTime               bool
	unknownTime           bool // a live file has no time bounds: no range until it is rewritten
}

func totalsOf(s *iceberg.Snapshot) totals {
	n := func(k string) int64 {
		v, _ := strconv.ParseInt(s.Summary[k], 10, 64)
		return v
	}
	t := totals{records: n("total-records"), files: n("total-data-files"), bytes: n("total-files-size"),
		deletes: deleteTotals{files: n("total-delete-files"), positions: n("total-position-deletes"), equalities: n("total-equality-deletes")}}
	lo, err1 := strconv.ParseInt(s.Summary[SummaryMinTime], 10, 64)
	hi, err2 := strconv.ParseInt(s.Summary[SummaryMaxTime], 10, 64)
	if err1 == nil && err2 == nil {
		t.minTime, t.maxTime, t.hasTime = lo, hi, true
	} else if s.Summary[SummaryTimeUnknown] == "true" {
		t.unknownTime = true
	}
	return t
}

// widen extends the time range by [lo, hi], in microseconds (the
// summary's timelake.min-time-us; a nanosecond column's times floored).
func (t *totals) widen(lo, hi int64) {
	if t.unknownTime {
		return
	}
	if !t.hasTime {
		t.minTime, t.maxTime, t.hasTime = lo, hi, true
		return
	}
	t.minTime, t.maxTime = min(t.minTime, lo), max(t.maxTime, hi)
}

// put writes the totals Iceberg readers expect in every summary.
func (t totals) put(summary map[string]string) {
	summary["total-records"] = strconv.FormatInt(t.records, 10)
	summary["total-data-files"] = strconv.FormatInt(t.files, 10)
	summary["total-files-size"] = strconv.FormatInt(t.bytes, 10)
	summary["total-delete-files"] = strconv.FormatInt(t.deletes.files, 10)
	summary["total-position-deletes"] = strconv.FormatInt(t.deletes.positions, 10)
	summary["total-equality-deletes"] = strconv.FormatInt(t.deletes.equalities, 10)
	switch {
	case t.hasTime:
		summary[SummaryMinTime] = strconv.FormatInt(t.minTime, 10)
		summary[SummaryMaxTime] = strconv.FormatInt(t.maxTime, 10)
	case t.unknownTime:
		summary[SummaryTimeUnknown] = "true"
	}
}

// snapshotBase is base, whose metadata is tb.meta, as the base of a version
// built by package snapshot: the table's bounds on its logs and history.
func (tb *Table) snapshotBase(base commit.Version) snapshot.Base {
	return snapshot.Base{Meta: tb.meta, N: base.N, PrevVersionsMax: tb.settings.PrevVersionsMax, Bound: tb.boundSnapshots}
}

// boundSnapshots is boundHistory as snapshot.Base.Bound.
func (tb *Table) boundSnapshots(md *iceberg.Metadata) error {
	_, err := tb.boundHistory(md)
	return err
}

// nextMetadata returns the bytes of the version after base (tb.meta) with
// snap, whose manifest list the caller wrote, as its current snapshot
// (snapshot.Base.WithSnapshot). stat is its statistics entry, or nil.
func (tb *Table) nextMetadata(base commit.Version, snap iceberg.Snapshot, stat *iceberg.StatisticsFile) ([]byte, *iceberg.Metadata, error) {
	md, fellOff, err := tb.snapshotBase(base).WithSnapshot(snap, stat)
	if err != nil {
		return nil, nil, err
	}
	tb.fellOff = fellOff
	raw, err := md.Marshal()
	return raw, md, err
}

// buildVersion builds the version of c on b (snapshot.Build) and remembers
// the metadata files it trimmed from the log (fellOff), for
// deleteOldVersions once it commits.
func (tb *Table) buildVersion(b snapshot.Base, c snapshot.Change) (*snapshot.Version, error) {
	v, err := snapshot.Build(b, c)
	if err != nil {
		return nil, err
	}
	tb.fellOff = v.FellOff
	return v, nil
}

func (tb *Table) readManifestList(ctx context.Context, s *iceberg.Snapshot) (*iceberg.ManifestList, error) {
	if s.ManifestList == "" {
		return v1List(s, tb.meta.DefaultSpecID), nil
	}
	if c := tb.lastList; c != nil && c.path == s.ManifestList {
		// A manifest list is never rewritten (its name is unique to one
		// commit attempt), so the one this Table wrote or read last stands
		// for the file: a warm append skips a store read and the decode.
		return c.copy(), nil
	}
	key, err := tb.keyOf(s.ManifestList)
	if err != nil {
		return nil, err
	}
	data, err := store.GetLimited(ctx, tb.st, key, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("read manifest list of snapshot %d: %w", s.SnapshotID, err)
	}
	ml, err := iceberg.ReadManifestList(data, s.ManifestList)
	if err != nil {
		return nil, datafile.FileErr(key, err)
	}
	tb.lastList = &listCache{path: s.ManifestList, ml: ml}
	return tb.lastList.copy(), nil
}

// listCache is the last manifest list this Table read or committed, by its
// path (Table.lastList).
type listCache struct {
	path string
	ml   *iceberg.ManifestList
}

// copy gives a caller its own list: callers build new lists from Files.
func (c *listCache) copy() *iceberg.ManifestList {
	ml := *c.ml
	ml.Files = slices.Clone(ml.Files)
	return &ml
}

func (tb *Table) readManifest(ctx context.Context, mf iceberg.ManifestFile) (*iceberg.Manifest, error) {
	key, err := tb.keyOf(mf.ManifestPath)
	if err != nil {
		return nil, err
	}
	data, err := store.GetLimited(ctx, tb.st, key, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	m, err := iceberg.ReadManifest(data, mf)
	if err != nil {
		return nil, datafile.FileErr(key, err)
	}
	return m, nil
}

// v1List is the manifest list of a format v1 snapshot written without one:
// its manifests (the snapshot's "manifests" member), each as added by the
// snapshot, of the default spec, with sequence number 0 (v1 has none).
// Readers take every entry's status and partition from the manifest itself.
func v1List(s *iceberg.Snapshot, specID int) *iceberg.ManifestList {
	ml := &iceberg.ManifestList{SnapshotID: s.SnapshotID, ParentSnapshotID: s.ParentSnapshotID}
	for _, p := range s.V1Manifests() {
		ml.Files = append(ml.Files, iceberg.ManifestFile{ManifestPath: p, PartitionSpecID: int32(specID), AddedSnapshotID: s.SnapshotID})
	}
	return ml
}

// writeVersion is the format version of the manifests this Table writes:
// the table's (2 or 3).
func (tb *Table) writeVersion() int { return max(tb.meta.FormatVersion, iceberg.FormatVersion) }
