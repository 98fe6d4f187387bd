package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/table"
)

// rollupMaintenance is what `maintain` did to a table's rollups.
type rollupMaintenance struct {
	raw       *table.Table
	defs      []rollup.Def
	refreshes []*table.RefreshResult
	results   []rollupTableResult
	warnings  []string
}

type rollupTableResult struct {
	name string
	res  *table.MaintainResult
}

func (r rollupTableResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name string `json:"name"`
		*table.MaintainResult
	}{r.name, r.res})
}

// maintainJSON is `maintain --json`: the raw table's result, and with
// rollups their refreshes and their tables' maintenance.
type maintainJSON struct {
	*table.MaintainResult
	Refreshes []*table.RefreshResult `json:"rollup-refreshes,omitempty"`
	Rollups   []rollupTableResult    `json:"rollup-tables,omitempty"`
}

// maintainRollups refreshes every rollup of tb before its maintenance
// (not in a dry run). The raw table's retention runs only when every
// rollup reflects the current snapshot: otherwise it could drop rows no
// rollup has seen, and it waits for the next run (a warning says so).
func maintainRollups(ctx context.Context, a *args, tb *table.Table, opt table.MaintainOptions) (*rollupMaintenance, table.MaintainOptions) {
	rm := &rollupMaintenance{raw: tb}
	defs, err := rollup.Parse(tb.Metadata().Properties)
	if err != nil {
		rm.warnings = append(rm.warnings, err.Error())
	}
	if len(defs) == 0 || opt.DryRun {
		return rm, opt
	}
	rm.defs = defs
	all := !opt.Compact && !opt.Retention && !opt.Expire && !opt.Orphans
	res, err := refreshAll(ctx, a, tb, defs, table.RefreshOptions{ByteCap: byteCap(tb)})
	rm.refreshes = res
	behind := err != nil
	for _, r := range res {
		behind = behind || r.CapReached
	}
	if err != nil {
		rm.warnings = append(rm.warnings, "rollup refresh: "+err.Error())
	}
	if behind && (all || opt.Retention) {
		rm.warnings = append(rm.warnings, "retention skipped: a rollup does not reflect the current snapshot yet (the next maintain runs it)")
		if all {
			opt.Compact, opt.Expire, opt.Orphans = true, true, true
		}
		opt.Retention = false
	}
	return rm, opt
}

// byteCap is the raw table's timelake.maintain-byte-cap, for the refresh.
func byteCap(tb *table.Table) int64 {
	ms, err := maintenance.ParseSettings(tb.Metadata().Properties)
	if err != nil {
		return 0
	}
	return ms.ByteCap
}

// maintainTables runs the steps asked (opt as given, before the raw
// table's retention was held back) on each rollup's table: its own
// timelake.retention is the rollup's retention.
func (rm *rollupMaintenance) maintainTables(ctx context.Context, a *args, opt table.MaintainOptions) error {
	for _, d := range rm.defs {
		ru, err := openRollup(ctx, a, rm.raw, d)
		if err != nil {
			return err
		}
		res, err := ru.Maintain(ctx, opt)
		if err != nil {
			return fmt.Errorf("rollup %s table: %w", d.Name, err)
		}
		rm.results = append(rm.results, rollupTableResult{d.Name, res})
	}
	return nil
}

// inlineRefresh refreshes every rollup of tb when its properties say
// timelake.rollup.inline=true (table.InlineRefresh, as the JavaScript
// client's append does); a failure comes back as a warning naming the
// rollup and its error code.
func inlineRefresh(ctx context.Context, a *args, tb *table.Table) ([]*table.RefreshResult, []string) {
	outs := table.InlineRefresh(ctx, tb, func(d rollup.Def) (*table.Table, error) { return openRollup(ctx, a, tb, d) }, table.RefreshOptions{ByteCap: byteCap(tb)})
	if outs == nil {
		return nil, nil
	}
	res, warns := table.InlineResults(outs)
	if res == nil {
		res = []*table.RefreshResult{}
	}
	return res, warns
}
