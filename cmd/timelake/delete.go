package main

import (
	"context"
	"fmt"

	"github.com/timelake/timelake/table"
)

// cmdDelete runs `timelake delete TABLE [--series COL=V[,V…]]… [--from T]
// [--to T] [--dry-run] [--json]`.
func cmdDelete(ctx context.Context, argv []string, io *io_) error {
	a, err := parseArgs(argv, deleteFlags)
	if err != nil {
		return err
	}
	if len(a.pos) != 1 {
		return usageErr("delete takes one TABLE")
	}
	var opt table.DeleteOptions
	opt.FromNS, opt.ToNS = timeRangeNanos(a)
	if opt.FromUS, opt.ToUS, err = timeRangeFlags(a); err != nil {
		return err
	}
	tb, _, err := openAny(ctx, a, a.pos[0])
	if err != nil {
		return err
	}
	if opt.Series, err = seriesFlags(a, tb.Schema()); err != nil {
		return err
	}
	opt.DryRun, opt.Purge, opt.Now = a.bools["dry-run"], a.bools["purge"], a.bools["now"]
	if opt.Now && !opt.Purge {
		return usageErr("--now is for --purge")
	}
	res, err := tb.Delete(ctx, opt)
	if err != nil {
		return err
	}
	if res.Purge != nil {
		for _, w := range res.Purge.Warnings {
			fmt.Fprintf(io.stderr, "warning: %s\n", w)
		}
	}
	if a.bools["json"] {
		return writeJSON(io.stdout, res)
	}
	for _, line := range res.Plan {
		fmt.Fprintln(io.stdout, line)
	}
	switch {
	case res.DryRun:
		fmt.Fprintf(io.stdout, "dry run: would drop %d files (%s) and rewrite %d\n", res.FilesDropped, count(res.RowsDeleted, "row", "rows"), res.FilesRewritten)
	case !res.Changed:
		fmt.Fprintf(io.stdout, "nothing to delete: no row matches (version %d)\n", res.Version)
	default:
		fmt.Fprintf(io.stdout, "deleted %s: %d files dropped, %d rewritten into %d; table at version %d\n",
			count(res.RowsDeleted, "row", "rows"), res.FilesDropped, res.FilesRewritten, res.FilesWritten, res.Version)
	}
	if p := res.Purge; p != nil {
		fmt.Fprintf(io.stdout, "purge: %s expired; %s deleted (%d bytes)", count(len(p.SnapshotsExpired), "snapshot", "snapshots"), count(p.FilesDeleted, "file", "files"), p.BytesDeleted)
		if p.FilesPending > 0 {
			fmt.Fprintf(io.stdout, "; %s (%d bytes) unreferenced, deleted by timelake maintain after %s", count(p.FilesPending, "file", "files"), p.BytesPending, p.PendingUntil)
		}
		fmt.Fprintln(io.stdout)
	}
	return nil
}
