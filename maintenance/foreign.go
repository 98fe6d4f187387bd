package maintenance

import (
	"fmt"
	"slices"
)

// Files other engines write that compaction must not merge as it would its
// own (docs/decisions/foreign-tables.md):
//   - a partition with a live delete file is left alone: its rows are
//     deleted by the delete file's (file_path, pos) or equality values,
//     which a merge would carry over to new files the deletes do not name;
//   - while any delete file of another partition spec is live, nothing is
//     merged: such a file (e.g. of an unpartitioned spec) can reach any
//     partition;
//   - a partition holding rows without _ingest_ts (NullIngest) is merged
//     whole, in one merge of at most MaxMergeFiles files, or not at all.

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
	SkipDeletes       = "delete files"
	SkipOtherDeletes  = "delete files of another partition spec"
	SkipWholeTooLarge = "rows without _ingest_ts in more than 24 files"
)

// skipForeign removes from files those compaction must leave alone, and
// says why.
func skipForeign(in Input, files []File) ([]File, []Skip) {
	if in.OtherSpecDeletes > 0 {
		if len(files) == 0 {
			return nil, nil
		}
		return nil, []Skip{{All: true, Reason: SkipOtherDeletes}}
	}
	why := map[int32]string{}
	for _, f := range in.Deletes {
		why[f.Partition] = SkipDeletes
	}
	count := map[int32]int{}
	for _, f := range files {
		count[f.Partition]++
	}
	for v := range wholePartitions(files) {
		if count[v] > MaxMergeFiles && why[v] == "" {
			why[v] = SkipWholeTooLarge
		}
	}
	var skips []Skip
	for v, r := range why {
		if count[v] > 0 {
			skips = append(skips, Skip{Partition: v, Reason: r})
		}
	}
	slices.SortFunc(skips, func(a, b Skip) int { return int(a.Partition) - int(b.Partition) })
	if len(skips) == 0 {
		return files, nil
	}
	return slices.DeleteFunc(slices.Clone(files), func(f File) bool { return why[f.Partition] != "" }), skips
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
