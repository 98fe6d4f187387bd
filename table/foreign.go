package table

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/schema"
)

// What other engines write into a table and how maintenance treats it:
// delete files, files of another partition spec, rows without _ingest_ts
// (docs/decisions/foreign-tables.md; the rules are package maintenance's).

// checkDeleteFile refuses, for maintenance and reads, a delete file
// Timelake cannot apply or carry correctly: one neither Parquet nor a
// deletion vector (format v3, a Puffin blob of type deletion-vector-v1),
// and a deletion vector that lacks the fields that place it. info still
// counts them; expiry and cleanup keep them while reachable.
func checkDeleteFile(f *iceberg.DataFile) error {
	if f.IsDV() {
		return checkDV(f)
	}
	if f.IsDelete() && f.Format != iceberg.FormatParquet {
		return fmt.Errorf("%w: a delete file in format %q (%s)", ErrUnsupportedTable, f.Format, f.Path)
	}
	return nil
}

// deleteTotals are the summary totals of live delete files.
type deleteTotals struct {
	files      int64 // total-delete-files
	positions  int64 // total-position-deletes: rows of position delete files
	equalities int64 // total-equality-deletes: rows of equality delete files
}

func (d *deleteTotals) add(f *iceberg.DataFile) {
	d.files++
	if f.Content == iceberg.ContentEqualityDeletes {
		d.equalities += f.RecordCount
	} else {
		d.positions += f.RecordCount
	}
}

// liveDeletes counts the delete files of sf that stay live once removed
// are gone: the totals a rewrite's summary carries, counted from what is
// live rather than from the parent's summary (another engine's may lack
// them).
func liveDeletes(sf *snapshotFiles, removed map[string]bool) deleteTotals {
	var d deleteTotals
	for p, e := range sf.live {
		if e.DataFile.IsDelete() && !removed[p] {
			d.add(&e.DataFile)
		}
	}
	return d
}

// addPlanFiles fills the planner's file lists from the live entries of sf:
// data and delete files of the table's spec, counts of the others.
func (tb *Table) addPlanFiles(in *maintenance.Input, sf *snapshotFiles) {
	ingestID := int32(-1) // a table without _ingest_ts: every file's rows lack it
	if tb.schema.Ingest >= 0 {
		ingestID = int32(tb.schema.Fields[tb.schema.Ingest].ID)
	}
	for p, e := range sf.live {
		df := &e.DataFile
		if sf.otherSpec[p] {
			if df.IsDelete() {
				in.OtherSpecDeletes++
			} else {
				in.OtherSpecFiles++
			}
			continue
		}
		f := entryFile(e)
		if df.IsDelete() {
			in.Deletes = append(in.Deletes, f)
			continue
		}
		nulls, known := df.NullCounts[ingestID]
		f.NullIngest = ingestID < 0 || !known || nulls > 0
		if tb.schema.HasKey() {
			f.MaxTimeUS, f.HasTime = decodeLong(df.Upper[int32(tb.schema.TimeField().ID)])
			f.MaxTimeUS = schema.FloorMicros(f.MaxTimeUS, tb.schema.TimeField().Type.PerMicro())
		}
		in.Files = append(in.Files, f)
	}
	byPath := func(a, b maintenance.File) int { return strings.Compare(a.Key(), b.Key()) }
	slices.SortFunc(in.Files, byPath)
	slices.SortFunc(in.Deletes, byPath)
}

// skippedLines are the plan lines of what compaction left alone, one per
// reason: "skipped: 2 partitions with delete files".
func (tb *Table) skippedLines(skips []maintenance.Skip, otherSpecFiles int) []string {
	var lines []string
	if otherSpecFiles > 0 {
		lines = append(lines, otherSpecText("compaction", otherSpecFiles))
	}
	count := map[string][]string{}
	var reasons []string
	for _, s := range skips {
		if s.All {
			lines = append(lines, s.String())
			continue
		}
		if count[s.Reason] == nil {
			reasons = append(reasons, s.Reason)
		}
		count[s.Reason] = append(count[s.Reason], tb.partitionName(s.Partition))
	}
	for _, r := range reasons {
		ps := count[r]
		noun := "partitions"
		if len(ps) == 1 {
			noun = "partition"
		}
		lines = append(lines, fmt.Sprintf("skipped: %d %s with %s (%s)", len(ps), noun, r, strings.Join(ps, ", ")))
	}
	return lines
}

// mergeStillValid says whether a merge planned earlier can still commit on
// sf (a newer base): its inputs and the delete files it applies are all
// still live, no other delete file has reached its partition since, and a
// whole-partition merge still holds every live file of its partition.
func mergeStillValid(sf *snapshotFiles, m maintenance.Merge) bool {
	inputs := map[string]bool{}
	for _, f := range append(slices.Clone(m.Files), m.Deletes...) {
		if _, ok := sf.live[f.Key()]; !ok {
			return false
		}
		inputs[f.Key()] = true
	}
	for p, e := range sf.live {
		if sf.otherSpec[p] {
			if e.DataFile.IsDelete() {
				return false
			}
			continue
		}
		if e.DataFile.Partition != m.Partition || inputs[p] {
			continue
		}
		if e.DataFile.IsDelete() || m.Whole {
			return false
		}
	}
	return true
}

// OtherSpecPartition is the name info gives the files of another partition
// spec than the table's, counted together.
const OtherSpecPartition = "(another partition spec)"

// liveFiles lists the live files of the current snapshot: data files,
// delete files, and the paths of either kind of another partition spec.
func (tb *Table) liveFiles(ctx context.Context) (data, deletes []iceberg.DataFile, other map[string]bool, err error) {
	data, deletes, other, _, err = tb.liveFilesSeq(ctx)
	return data, deletes, other, err
}

// liveFilesSeq is liveFiles with each live file's data sequence number, by path.
func (tb *Table) liveFilesSeq(ctx context.Context) (data, deletes []iceberg.DataFile, other map[string]bool, seq map[string]int64, err error) {
	s := tb.meta.CurrentSnapshot()
	if s == nil {
		return nil, nil, nil, nil, nil
	}
	ml, err := tb.readManifestList(ctx, s)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	other, seq = map[string]bool{}, map[string]int64{}
	seen := map[string]string{} // live path → the manifest listing it
	for _, mf := range ml.Files {
		m, err := tb.readManifest(ctx, mf)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		for _, e := range m.Entries {
			if e.Status == iceberg.StatusDeleted {
				continue
			}
			// A Puffin file of deletion vectors (format 3) holds one per
			// data file, each an entry of its own: listed once per vector.
			if err := listedOnce(seen, e.DataFile.EntryKey(), mf.ManifestPath); err != nil {
				return nil, nil, nil, nil, err
			}
			seq[e.DataFile.Path] = e.SequenceNumber
			if int(mf.PartitionSpecID) != tb.meta.DefaultSpecID || e.DataFile.OtherPartition {
				other[e.DataFile.Path] = true
			}
			if e.DataFile.IsDelete() {
				deletes = append(deletes, e.DataFile)
			} else {
				data = append(data, e.DataFile)
			}
		}
	}
	return data, deletes, other, seq, nil
}

func (info *Info) countDeletes(deletes []iceberg.DataFile) {
	var d deleteTotals
	for i := range deletes {
		d.add(&deletes[i])
	}
	info.DeleteFiles, info.PositionDeletes, info.EqualityDeletes = d.files, d.positions, d.equalities
}

// otherSpecLine is the plan line saying step leaves the data files of
// another partition spec alone (none when there are none).
func otherSpecLine(step string, sf *snapshotFiles) []string {
	n := 0
	for p := range sf.otherSpec {
		if e := sf.live[p]; !e.DataFile.IsDelete() {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return []string{otherSpecText(step, n)}
}

func otherSpecText(step string, n int) string {
	return fmt.Sprintf("%s leaves alone: %d data files of another partition spec", step, n)
}
