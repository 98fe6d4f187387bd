package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/timelake/timelake/table"
)

// cmdAdopt records the key of another engine's table (table.Adopt), or
// with --suggest proposes one from its metadata.
func cmdAdopt(ctx context.Context, argv []string, io *io_) error {
	a, err := parseArgs(argv, adoptFlags)
	if err != nil {
		return err
	}
	if len(a.pos) != 1 {
		return usageErr("adopt takes one TABLE, got %d arguments", len(a.pos))
	}
	tb, _, err := openAny(ctx, a, a.pos[0])
	if err != nil {
		return err
	}
	if a.bools["suggest"] {
		ks := tb.SuggestKey()
		if a.bools["json"] {
			return writeJSON(io.stdout, ks)
		}
		for _, w := range ks.Why {
			fmt.Fprintln(io.stdout, w)
		}
		if ks.Time != "" {
			cmd := "timelake adopt " + a.pos[0] + " --time " + ks.Time
			if len(ks.Series) > 0 {
				cmd += " --series " + strings.Join(ks.Series, ",")
			}
			fmt.Fprintf(io.stdout, "suggested: %s\n", cmd)
		}
		return nil
	}
	opt := table.AdoptOptions{Time: a.one("time", ""), DryRun: a.bools["dry-run"], Upgrade: a.bools["upgrade"]}
	if opt.Time == "" {
		return usageErr("adopt needs --time COL (or --suggest)")
	}
	for _, s := range a.flags["series"] {
		for _, c := range strings.Split(s, ",") {
			if c = strings.TrimSpace(c); c != "" {
				opt.Series = append(opt.Series, c)
			}
		}
	}
	res, err := tb.Adopt(ctx, opt)
	if err != nil {
		return err
	}
	if a.bools["json"] {
		return writeJSON(io.stdout, res)
	}
	series := "none (one series)"
	if len(res.Series) > 0 {
		series = strings.Join(res.Series, ",")
	}
	switch {
	case res.DryRun:
		fmt.Fprintf(io.stdout, "would adopt %s (version %d): time %s, series %s\n", a.pos[0], res.Version, res.Time, series)
	case res.Already:
		fmt.Fprintf(io.stdout, "%s is adopted already (version %d): time %s, series %s\n", a.pos[0], res.Version, res.Time, series)
	default:
		fmt.Fprintf(io.stdout, "adopted %s (version %d): time %s, series %s; no data file read or rewritten\n", a.pos[0], res.Version, res.Time, series)
	}
	switch {
	case res.SortOrderAdded && res.SortOrderDefault:
		fmt.Fprintf(io.stdout, "sort order %d (series, then time) added as the default: the table's was unsorted\n", res.SortOrderID)
	case res.SortOrderAdded:
		fmt.Fprintf(io.stdout, "sort order %d (series, then time) added beside the table's default, which stays; Timelake's files name %d\n", res.SortOrderID, res.SortOrderID)
	}
	if res.Upgraded {
		fmt.Fprintln(io.stdout, "upgraded from format 1 to 2: its v1 files are read as they are, new files are written in format 2")
	}
	if res.WriteRefusal != "" {
		fmt.Fprintf(io.stdout, "warning: Timelake reads the table but does not write it yet: %s\n", res.WriteRefusal)
	}
	return nil
}
