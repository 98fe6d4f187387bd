package maintenance

import (
	"cmp"
	"slices"
	"time"

	"github.com/timelake/timelake/schema"
)

// File is a live data file of the current snapshot.
type File struct {
	Path      string
	Partition int32 // partition value (days, hours or months since 1970)
	Size      int64 // bytes
	Rows      int64
	Seq       int64 // data sequence number
	// NullIngest: the file may hold rows without _ingest_ts (another
	// engine's; its null count of _ingest_ts is not known to be 0). Such
	// rows rank by their file's data sequence number, which a merge of
	// some of a partition's files would change: a partition with one is
	// merged whole or not at all.
	NullIngest bool
	Equality   bool // a delete file of equality deletes (else position deletes)
	// MaxTimeUS is the file's greatest time (its time column's upper
	// bound), when HasTime: retention drops a file of a partition that
	// does not follow time (PartitionRange not ok) by it.
	MaxTimeUS int64
	HasTime   bool
	// FirstRowID is the file's first_row_id in a format v3 table (nil:
	// none yet), for the row lineage a merge carries.
	FirstRowID *int64
	// DV: a deletion vector (format v3), the blob [Offset, Offset+Length)
	// of the Puffin file Path, deleting rows of the one data file
	// Referenced. A Puffin file holds the vectors of several data files:
	// Key tells them apart.
	DV             bool
	Referenced     string
	Offset, Length int64
}

// Key tells f from every other live file of a snapshot: its path, and
// for a deletion vector its path and the data file it references (the
// same key as iceberg.DataFile.EntryKey).
func (f *File) Key() string {
	if f.DV {
		return f.Path + "\x00dv:" + f.Referenced
	}
	return f.Path
}

// Snapshot is one snapshot of the table metadata.
type Snapshot struct {
	ID          int64
	Parent      int64 // 0: none
	TimestampMs int64
}

// Input is everything PlanRun looks at.
type Input struct {
	Now       time.Time // the caller's clock
	Settings  Settings
	Partition schema.Transform // gives each partition value its time range
	// PartitionRange, when set, gives each partition value its time range
	// instead (a table of another engine's spec, whose values are the
	// caller's numbering of its partition tuples); ok false for a partition
	// that does not follow time: never cold, never dropped by retention.
	PartitionRange func(v int32) (start, end int64, ok bool)
	Current        int64 // current snapshot id; 0 for an empty table
	Snapshots      []Snapshot
	RefHeads       []int64 // snapshot ids that refs (branches, tags) point at
	Files          []File  // live data files of the current snapshot, of the table's partition spec
	// Deletes are the live delete files (position or equality) of the
	// table's partition spec. Compaction applies a partition's position
	// deletes in a merge of the whole partition and leaves a partition
	// with equality deletes alone; retention drops them with their
	// partition.
	Deletes []File
	// OtherSpecFiles and OtherSpecDeletes count the live data and delete
	// files of another partition spec (another engine changed it): left
	// alone, and while there are delete files of another spec, which may
	// reach any partition, compaction merges nothing.
	OtherSpecFiles, OtherSpecDeletes int

	Compact, Retention, Expire bool // the steps to plan
}

// Merge is one group of files of a partition to merge into new files.
type Merge struct {
	Partition int32
	Files     []File // at most MaxMergeFiles, oldest sequence number first
	Bytes     int64
	Rows      int64 // before deduplication
	Cold      bool  // chosen because the partition is cold (else: too many files)
	Whole     bool  // every live file of the partition (NullIngest, deletes): not to be cut by the byte cap
	// Deletes are the partition's position delete files: the merge
	// leaves out the rows they delete, and the commit removes them.
	Deletes []File
}

// Drop is what retention removes.
type Drop struct {
	CutoffUS   int64   // rows before this time (microseconds) are past retention
	Partitions []int32 // partitions wholly before the cut-off, ascending
	Files      []File
	Deletes    []File // delete files of those partitions
	Rows       int64
	Bytes      int64 // of Files and Deletes
}

// Plan is what a run does.
type Plan struct {
	Drop       *Drop   // nil: retention off or not asked for
	Merges     []Merge // within the byte cap, in partition order
	Left       []Merge // compaction the byte cap left for the next run
	LeftBytes  int64
	Expire     []int64 // snapshot ids to expire, ascending by time
	Retain     []int64 // snapshot ids kept
	CapReached bool
	// Skipped lists the partitions compaction left alone and why, one
	// line each (e.g. delete files), for the maintenance result.
	Skipped []Skip
}

// PlanRun plans retention, compaction and expiry. Compaction is planned over
// the files retention keeps.
func PlanRun(in Input) Plan {
	var p Plan
	files := in.Files
	if in.Retention && in.Settings.Retention > 0 {
		p.Drop = planDrop(in)
		if len(p.Drop.Files) > 0 {
			gone := map[int32]bool{}
			for _, v := range p.Drop.Partitions {
				gone[v] = true
			}
			files = slices.DeleteFunc(slices.Clone(files), func(f File) bool { return gone[f.Partition] })
		}
	}
	if in.Compact {
		var deletes map[int32][]File
		files, deletes, p.Skipped = skipForeign(in, files)
		p.Merges, p.Left = planMerges(in, files, deletes)
		p.Merges, p.Skipped = skipWholeOverCap(p.Merges, p.Skipped, in.Settings.ByteCap)
		p.Merges, p.Left, p.CapReached = applyCap(p.Merges, p.Left, in.Settings.ByteCap)
		for _, m := range p.Left {
			p.LeftBytes += m.Bytes
		}
	}
	if in.Expire {
		p.Expire, p.Retain = planExpiry(in)
	}
	return p
}

func planDrop(in Input) *Drop {
	d := &Drop{CutoffUS: in.Now.Add(-in.Settings.Retention).UnixMicro()}
	seen := map[int32]bool{}
	withDeletes := map[int32]bool{}
	for _, f := range in.Deletes {
		withDeletes[f.Partition] = true
	}
	for _, f := range in.Files {
		_, end, ok := in.rangeOf(f.Partition)
		if !ok {
			// A partition that does not follow time: its files wholly
			// before the cut-off go one by one (not while a delete file
			// of the partition may name them).
			if f.HasTime && f.MaxTimeUS < d.CutoffUS && !withDeletes[f.Partition] {
				d.Files = append(d.Files, f)
				d.Rows += f.Rows
				d.Bytes += f.Size
			}
			continue
		}
		if end > d.CutoffUS {
			continue
		}
		d.Files = append(d.Files, f)
		d.Rows += f.Rows
		d.Bytes += f.Size
		if !seen[f.Partition] {
			seen[f.Partition] = true
			d.Partitions = append(d.Partitions, f.Partition)
		}
	}
	for _, f := range in.Deletes {
		if _, end, ok := in.rangeOf(f.Partition); !ok || end > d.CutoffUS {
			continue
		}
		d.Deletes = append(d.Deletes, f)
		d.Bytes += f.Size
		if !seen[f.Partition] { // its data files are gone already
			seen[f.Partition] = true
			d.Partitions = append(d.Partitions, f.Partition)
		}
	}
	slices.Sort(d.Partitions)
	slices.SortFunc(d.Files, byPartitionSeq)
	slices.SortFunc(d.Deletes, byPartitionSeq)
	return d
}

func byPartitionSeq(a, b File) int {
	if c := cmp.Compare(a.Partition, b.Partition); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
		return c
	}
	return cmp.Compare(a.Path, b.Path)
}

// planMerges groups the small files of each partition that needs it.
func planMerges(in Input, files []File, deletes map[int32][]File) (merges, none []Merge) {
	full := in.Settings.TargetFileBytes / 4 * 3
	whole := wholePartitions(files)
	for v := range deletes {
		if whole == nil {
			whole = map[int32]bool{}
		}
		whole[v] = true
	}
	byPart := map[int32][]File{}
	for _, f := range files {
		if full > 0 && f.Size >= full && !whole[f.Partition] {
			continue
		}
		byPart[f.Partition] = append(byPart[f.Partition], f)
	}
	parts := make([]int32, 0, len(byPart))
	for v := range byPart {
		parts = append(parts, v)
	}
	slices.Sort(parts)
	now := in.Now.UnixMicro()
	minFiles := max(in.Settings.CompactMinFiles, 2)
	for _, v := range parts {
		fs := byPart[v]
		_, end, timed := in.rangeOf(v)
		cold := timed && end+in.Settings.CompactColdAfter.Microseconds() <= now
		// A cold partition with position deletes is rewritten even from one
		// file, to apply them.
		if !cold && !whole[v] {
			fs = dropDominant(fs)
		}
		if len(fs) < minFiles && !(cold && (len(fs) >= 2 || len(deletes[v]) > 0)) {
			continue
		}
		slices.SortFunc(fs, byPartitionSeq)
		if whole[v] {
			m := Merge{Partition: v, Files: fs, Cold: len(fs) < minFiles, Whole: true, Deletes: deletes[v]}
			for _, f := range m.Files {
				m.Bytes += f.Size
				m.Rows += f.Rows
			}
			merges = append(merges, m)
			continue
		}
		// Balanced groups: 25 files make 13 + 12, not 24 + 1.
		groups := (len(fs) + MaxMergeFiles - 1) / MaxMergeFiles
		for g := range groups {
			lo, hi := g*len(fs)/groups, (g+1)*len(fs)/groups
			m := Merge{Partition: v, Files: fs[lo:hi:hi], Cold: len(fs) < minFiles}
			for _, f := range m.Files {
				m.Bytes += f.Size
				m.Rows += f.Rows
			}
			merges = append(merges, m)
		}
	}
	return merges, nil
}

// dropDominant leaves out of a hot partition's merge every file at least as
// large as all the smaller ones together: merging it would mostly rewrite
// it. Without this, the busy partition's compacted file was merged again
// with each run's new small files, and a day written every 10 s and
// maintained hourly rewrote ~23× its bytes (docs/SCALE.md). With it, files
// merge by size tiers (each byte is rewritten about log2(runs) times), and
// the partition becomes one file once cold. Reads stay exact: the scan
// deduplicates across files.
func dropDominant(fs []File) []File {
	bySize := slices.Clone(fs)
	slices.SortFunc(bySize, func(a, b File) int { return cmp.Compare(b.Size, a.Size) })
	var rest int64
	for _, f := range bySize {
		rest += f.Size
	}
	for len(bySize) > 1 {
		rest -= bySize[0].Size
		if bySize[0].Size < rest {
			break
		}
		bySize = bySize[1:]
	}
	if len(bySize) == len(fs) {
		return fs
	}
	return bySize
}

// applyCap keeps merges while their input bytes fit the cap; the first is
// cut down to fit (two files at least) so that every run makes progress.
func applyCap(merges, left []Merge, byteCap int64) ([]Merge, []Merge, bool) {
	if byteCap <= 0 {
		return merges, left, false
	}
	var took []Merge
	var used int64
	for i, m := range merges {
		if used+m.Bytes <= byteCap {
			took = append(took, m)
			used += m.Bytes
			continue
		}
		if len(took) == 0 && m.Whole {
			// A whole partition cannot be cut: it goes first, over the cap.
			return []Merge{m}, append(left, merges[i+1:]...), true
		}
		if len(took) == 0 {
			cut := Merge{Partition: m.Partition, Cold: m.Cold}
			for _, f := range m.Files {
				if len(cut.Files) >= 2 && cut.Bytes+f.Size > byteCap {
					break
				}
				cut.Files = append(cut.Files, f)
				cut.Bytes += f.Size
				cut.Rows += f.Rows
			}
			took = append(took, cut)
			if rest := m.Files[len(cut.Files):]; len(rest) > 0 {
				r := Merge{Partition: m.Partition, Files: rest, Cold: m.Cold}
				for _, f := range rest {
					r.Bytes += f.Size
					r.Rows += f.Rows
				}
				left = append(left, r)
			}
			left = append(left, merges[i+1:]...)
		} else {
			left = append(left, merges[i:]...)
		}
		return took, left, true
	}
	return took, left, false
}

// planExpiry follows Iceberg's ExpireSnapshots: a snapshot older than the
// maximum age expires unless it is the current one, a ref head, or among
// the newest min-snapshots-to-keep ancestors of the current snapshot. With
// Settings.MaxSnapshots, a snapshot beyond the newest MaxSnapshots (by
// time) expires too, whatever its age, under the same exceptions.
func planExpiry(in Input) (expire, retain []int64) {
	keep := map[int64]bool{}
	for _, id := range in.RefHeads {
		keep[id] = true
	}
	byID := map[int64]Snapshot{}
	for _, s := range in.Snapshots {
		byID[s.ID] = s
	}
	id, n := in.Current, 0
	for id != 0 && n < max(in.Settings.MinSnapshotsKeep, 1) {
		s, ok := byID[id]
		if !ok {
			break
		}
		keep[id] = true
		n++
		id = s.Parent
	}
	oldest := in.Now.Add(-in.Settings.MaxSnapshotAge).UnixMilli()
	snaps := slices.Clone(in.Snapshots)
	slices.SortStableFunc(snaps, func(a, b Snapshot) int { return cmp.Compare(a.TimestampMs, b.TimestampMs) })
	// The newest MaxSnapshots are the last ones of snaps; before them, by count, all go.
	byCount := 0
	if m := in.Settings.MaxSnapshots; m > 0 && len(snaps) > m {
		byCount = len(snaps) - m
	}
	for i, s := range snaps {
		if keep[s.ID] || (s.TimestampMs >= oldest && i >= byCount) {
			retain = append(retain, s.ID)
		} else {
			expire = append(expire, s.ID)
		}
	}
	return expire, retain
}

// rangeOf is partition v's time range [start, end); ok false when it has none.
func (in Input) rangeOf(v int32) (start, end int64, ok bool) {
	if in.PartitionRange != nil {
		return in.PartitionRange(v)
	}
	start, end = in.Partition.Range(v)
	return start, end, true
}
