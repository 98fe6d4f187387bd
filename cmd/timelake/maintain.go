package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/timelake/timelake/table"
)

// cmdMaintain runs `timelake maintain TABLE [--compact] [--retention]
// [--expire] [--orphans] [--dry-run] [--json]`: the steps named, or all of
// them when none is.
func cmdMaintain(ctx context.Context, argv []string, io *io_) error {
	a, err := parseArgs(argv, maintainFlags)
	if err != nil {
		return err
	}
	if len(a.pos) != 1 {
		return usageErr("maintain takes one TABLE")
	}
	tb, _, err := openAny(ctx, a, a.pos[0])
	if err != nil {
		return err
	}
	opt := table.MaintainOptions{
		Compact: a.bools["compact"], Retention: a.bools["retention"], Expire: a.bools["expire"],
		Orphans: a.bools["orphans"], DryRun: a.bools["dry-run"],
	}
	// Rollups first: the raw table's retention waits until they reflect
	// what it would drop (rollupmaintain.go).
	rm, rawOpt := maintainRollups(ctx, a, tb, opt)
	res, err := tb.Maintain(ctx, rawOpt)
	if res != nil {
		res.Warnings = append(rm.warnings, res.Warnings...)
	}
	if err == nil {
		err = rm.maintainTables(ctx, a, opt)
	}
	if err != nil {
		if res != nil && len(res.Plan) > 0 {
			for _, l := range res.Plan {
				fmt.Fprintf(io.stderr, "  done before the error: %s\n", l)
			}
		}
		return err
	}
	if a.bools["json"] {
		return writeJSON(io.stdout, maintainJSON{res, rm.refreshes, rm.results})
	}
	printRefreshes(io, rm.refreshes)
	if res.DryRun {
		fmt.Fprintln(io.stdout, "dry run: nothing was changed")
	}
	for _, l := range res.Plan {
		fmt.Fprintf(io.stdout, "%s\n", l)
	}
	if len(res.Plan) == 0 {
		fmt.Fprintln(io.stdout, "nothing to do")
	}
	w := tabwriter.NewWriter(io.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintf(w, "version\t%d\n", res.Version)
	if res.Merges > 0 {
		fmt.Fprintf(w, "compaction\t%d merges: %d files (%d rows) into %d files (%d rows); %d bytes read, %d written\n",
			res.Merges, res.FilesRead, res.RowsBefore, res.FilesWritten, res.RowsAfter, res.BytesRead, res.BytesWritten)
	}
	if res.DeleteFilesApplied > 0 {
		fmt.Fprintf(w, "deletes\t%d position delete files applied: %d rows left out, the delete files removed\n", res.DeleteFilesApplied, res.RowsDeleted)
	}
	if res.MergesDropped > 0 {
		fmt.Fprintf(w, "dropped\t%d merges lost to a concurrent writer\n", res.MergesDropped)
	}
	if res.PartitionsDropped > 0 {
		fmt.Fprintf(w, "retention\t%d partitions, %d files, %d rows, %d series dropped\n", res.PartitionsDropped, res.FilesDropped, res.RowsDropped, res.SeriesDropped)
	}
	if res.DeleteFilesDropped > 0 {
		fmt.Fprintf(w, "retention\t%d delete files dropped with their partitions\n", res.DeleteFilesDropped)
	}
	if res.PartitionsSkipped > 0 {
		fmt.Fprintf(w, "skipped\t%d partitions left alone by compaction (see the plan)\n", res.PartitionsSkipped)
	}
	if res.SnapshotsExpired > 0 || res.FilesDeleted > 0 {
		fmt.Fprintf(w, "cleanup\t%d snapshots expired, %d files deleted (%d orphans, %d bytes), %d young files kept\n",
			res.SnapshotsExpired, res.FilesDeleted, res.OrphansDeleted, res.BytesDeleted, res.KeptYoung)
	}
	if res.CapReached {
		fmt.Fprintf(w, "byte cap\treached: %d merges (%d bytes) left for the next run\n", res.LeftMerges, res.LeftBytes)
	}
	fmt.Fprintf(w, "time\t%d ms\n", res.DurationMs)
	w.Flush()
	for _, r := range rm.results {
		fmt.Fprintf(io.stdout, "rollup %s table: version %d, %d merges, %d partitions dropped, %d snapshots expired\n", r.name, r.res.Version, r.res.Merges, r.res.PartitionsDropped, r.res.SnapshotsExpired)
	}
	for _, warn := range res.Warnings {
		fmt.Fprintf(io.stderr, "warning: %s\n", warn)
	}
	return nil
}
