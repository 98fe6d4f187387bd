package maintenance

import (
	"fmt"
	"slices"
)

// Files other engines write that compaction must not merge as it would its
// own (docs/decisions/foreign-tables.md):
//   - a partition with live position delete files is merged whole (every
//     live data file, at most MaxMergeFiles): the merge leaves out the rows
//     they delete and the commit removes them, as no file they can name is
//     left;
//   - a partition with a live equality delete file is left alone: its
//     values delete rows of files of lower sequence numbers, which a merge
//     would give a new one;
//   - while any delete file of another partition spec is live, nothing is
//     merged: such a file (e.g. of an unpartitioned spec) can reach any
//     partition;
//   - a partition holding rows without _ingest_ts (NullIngest) is merged
//     whole, in one merge of at most MaxMergeFiles files, or not at all.
//
// A whole-partition merge is never cut by the byte cap; one larger than
// the cap is skipped (it would read past the cap on every run).

// Skip is a partition compaction left alone, or the whole table (All).
type Skip struct {
	Partition int32
	All       bool
	Reason    string
}

func (s Skip) String() string {
	if s.All {
		return "skipped: every partition (" + s.Reason + ")"
	}
	return fmt.Sprintf("skipped: partition %d (%s)", s.Partition, s.Reason)
}

// Reasons compaction skips a partition.
const (
	SkipEqualityDeletes = "equality delete files"
	SkipOtherDeletes    = "delete files of another partition spec"
	SkipWholeTooLarge   = "rows without _ingest_ts or position deletes in more than 24 files"
	SkipWholeOverCap    = "rows without _ingest_ts or position deletes in more bytes than timelake.maintain-byte-cap"
)

// skipWholeOverCap moves the whole-partition merges larger than the byte
// cap (a merge that cannot be cut, and would read past the cap every run)
// to the skipped partitions.
func skipWholeOverCap(merges []Merge, skips []Skip, byteCap int64) ([]Merge, []Skip) {
	if byteCap <= 0 {
		return merges, skips
	}
	out := merges[:0:0]
	for _, m := range merges {
		if m.Whole && m.Bytes > byteCap {
			skips = append(skips, Skip{Partition: m.Partition, Reason: SkipWholeOverCap})
			continue
		}
		out = append(out, m)
	}
	slices.SortFunc(skips, func(a, b Skip) int { return int(a.Partition) - int(b.Partition) })
	return out, skips
}

// skipForeign removes from files those compaction must leave alone, and
// says why; deletes are the position delete files of the partitions left
// in, to merge whole.
func skipForeign(in Input, files []File) ([]File, map[int32][]File, []Skip) {
	if in.OtherSpecDeletes > 0 {
		if len(files) == 0 {
			return nil, nil, nil
		}
		return nil, nil, []Skip{{All: true, Reason: SkipOtherDeletes}}
	}
	why := map[int32]string{}
	var deletes map[int32][]File
	for _, f := range in.Deletes {
		if f.Equality {
			why[f.Partition] = SkipEqualityDeletes
			continue
		}
		if deletes == nil {
			deletes = map[int32][]File{}
		}
		deletes[f.Partition] = append(deletes[f.Partition], f)
	}
	count := map[int32]int{}
	for _, f := range files {
		count[f.Partition]++
	}
	whole := wholePartitions(files)
	for v := range deletes {
		if why[v] != "" {
			delete(deletes, v)
			continue
		}
		if whole == nil {
			whole = map[int32]bool{}
		}
		whole[v] = true
	}
	for v := range whole {
		if count[v] > MaxMergeFiles && why[v] == "" {
			why[v] = SkipWholeTooLarge
			delete(deletes, v)
		}
	}
	var skips []Skip
	for v, r := range why {
		if count[v] > 0 {
			skips = append(skips, Skip{Partition: v, Reason: r})
		}
	}
	slices.SortFunc(skips, func(a, b Skip) int { return int(a.Partition) - int(b.Partition) })
	for _, ds := range deletes {
		slices.SortFunc(ds, byPartitionSeq)
	}
	if len(skips) == 0 {
		return files, deletes, nil
	}
	return slices.DeleteFunc(slices.Clone(files), func(f File) bool { return why[f.Partition] != "" }), deletes, skips
}

// wholePartitions are the partitions with a file that may hold rows
// without _ingest_ts.
func wholePartitions(files []File) map[int32]bool {
	var out map[int32]bool
	for _, f := range files {
		if f.NullIngest {
			if out == nil {
				out = map[int32]bool{}
			}
			out[f.Partition] = true
		}
	}
	return out
}
