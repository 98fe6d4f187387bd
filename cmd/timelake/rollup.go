package main

import (
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/table"
)

// cmdRollup runs `timelake rollup add|list|drop|refresh TABLE …`: rollups
// (package rollup) of a table, each an Iceberg table of its own: beside a
// storage-only table (TABLE__rollup_NAME), or in a catalog table's
// namespace (NS.TABLE__rollup_NAME, rollupcatalog.go).
func cmdRollup(ctx context.Context, argv []string, io *io_) error {
	if len(argv) == 0 {
		return usageErr("rollup takes add, list, drop or refresh")
	}
	sub, argv := argv[0], argv[1:]
	switch sub {
	case "add":
		return rollupAdd(ctx, argv, io)
	case "list":
		return rollupList(ctx, argv, io)
	case "drop":
		return rollupDrop(ctx, argv, io)
	case "refresh":
		return rollupRefresh(ctx, argv, io)
	}
	return usageErr("unknown rollup command %q (want add, list, drop or refresh)", sub)
}

// openRaw opens TABLE, storage-only or through the catalog.
func openRaw(ctx context.Context, a *args) (*table.Table, error) {
	tb, _, err := openAny(ctx, a, a.pos[0])
	return tb, err
}

// openRollup opens the table of rollup d of raw: through raw's catalog, or
// at d.Location through the same S3 settings as TABLE.
func openRollup(ctx context.Context, a *args, raw *table.Table, d rollup.Def) (*table.Table, error) {
	if cat, _ := raw.Catalog(); cat != nil {
		return table.OpenRollupInCatalog(ctx, raw, d, storeFor(a))
	}
	loc, err := resolveTable(d.Location, a)
	if err != nil {
		return nil, err
	}
	st, err := loc.open()
	if err != nil {
		return nil, rollup.Named(d.Name, err)
	}
	tb, err := table.Open(ctx, st, env())
	if err != nil {
		return nil, fmt.Errorf("rollup %s at %s: %w", d.Name, d.Location, err)
	}
	return tb, nil
}

func rollupAdd(ctx context.Context, argv []string, io *io_) error {
	a, err := parseArgs(argv, rollupAddFlags)
	if err != nil {
		return err
	}
	if len(a.pos) != 2 {
		return usageErr("rollup add takes TABLE NAME --every W --agg COL:FUNC[,FUNC…] …")
	}
	if a.one("every", "") == "" || len(a.flags["agg"]) == 0 {
		return usageErr("rollup add needs --every (1m, 5m, 15m, 1h or 1d) and at least one --agg COL:FUNC[,FUNC…]")
	}
	raw, err := openRaw(ctx, a)
	if err != nil {
		return err
	}
	d, err := rollup.New(a.pos[1], a.one("every", ""), a.flags["agg"], a.one("retention", ""))
	if err != nil {
		return err
	}
	if d, err = addRollupTo(ctx, a, raw, d); err != nil {
		return err
	}
	if a.bools["inline"] {
		// Table-wide: every append refreshes every rollup after its commit.
		if err := raw.SetProperties(ctx, map[string]string{rollup.PropInline: "true"}, nil, nil); err != nil {
			return fmt.Errorf("rollup %s is added; setting %s failed: %w", d.Name, rollup.PropInline, err)
		}
	}
	if a.bools["json"] {
		return writeJSON(io.stdout, rollupJSON(d, nil))
	}
	if d.Table != "" {
		fmt.Fprintf(io.stdout, "rollup %s added: every %s, %s, as table %s at %s (rollup refresh fills it)\n", d.Name, d.Every, d.AggString(), d.Table, d.Location)
		return nil
	}
	fmt.Fprintf(io.stdout, "rollup %s added: every %s, %s, at %s (rollup refresh fills it)\n", d.Name, d.Every, d.AggString(), d.Location)
	return nil
}

// rollupItem is one rollup in `rollup list --json`.
type rollupItem struct {
	Name       string  `json:"name"`
	Location   string  `json:"location"`
	Table      string  `json:"table,omitempty"` // with a catalog: NS.TABLE__rollup_NAME
	Every      string  `json:"every"`
	Aggregates string  `json:"aggregates"`
	Retention  string  `json:"retention"`
	Source     *string `json:"source-snapshot"` // null: never refreshed
	Error      string  `json:"error,omitempty"` // its table could not be read
}

func rollupJSON(d rollup.Def, ru *table.Table) rollupItem {
	it := rollupItem{Name: d.Name, Location: d.Location, Table: d.Table, Every: d.Every, Aggregates: d.AggString(), Retention: d.Retention}
	if ru != nil {
		if id, _, ok := table.RollupSource(ru.Metadata().CurrentSnapshot()); ok {
			s := strconv.FormatInt(id, 10)
			it.Source = &s
		}
	}
	return it
}

func definitions(raw *table.Table) ([]rollup.Def, error) {
	return rollup.Parse(raw.Metadata().Properties)
}

func rollupList(ctx context.Context, argv []string, io *io_) error {
	a, err := parseArgs(argv, rollupListFlags)
	if err != nil {
		return err
	}
	if len(a.pos) != 1 {
		return usageErr("rollup list takes one TABLE")
	}
	raw, err := openRaw(ctx, a)
	if err != nil {
		return err
	}
	defs, err := definitions(raw)
	if err != nil {
		return err
	}
	items := []rollupItem{}
	for _, d := range defs {
		ru, err := openRollup(ctx, a, raw, d)
		it := rollupJSON(d, ru)
		if err != nil {
			it.Error = err.Error()
		}
		items = append(items, it)
	}
	if a.bools["json"] {
		return writeJSON(io.stdout, items)
	}
	if len(items) == 0 {
		fmt.Fprintln(io.stdout, "no rollups")
		return nil
	}
	w := tabwriter.NewWriter(io.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(w, "name\tevery\taggregates\tretention\tsource snapshot\tlocation")
	for _, it := range items {
		src := "(never refreshed)"
		if it.Source != nil {
			src = *it.Source
		}
		if it.Error != "" {
			src = "(unreadable: " + it.Error + ")"
		}
		ret := it.Retention
		if ret == "" {
			ret = "forever"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", it.Name, it.Every, it.Aggregates, ret, src, it.Location)
	}
	return w.Flush()
}

func rollupDrop(ctx context.Context, argv []string, io *io_) error {
	a, err := parseArgs(argv, rollupDropFlags)
	if err != nil {
		return err
	}
	if len(a.pos) != 2 {
		return usageErr("rollup drop takes TABLE NAME")
	}
	raw, err := openRaw(ctx, a)
	if err != nil {
		return err
	}
	if cat, _ := raw.Catalog(); cat != nil {
		return dropCatalogRollup(ctx, raw, a.pos[1], io)
	}
	loc, err := table.DropRollup(ctx, raw, a.pos[1])
	if err != nil {
		return err
	}
	fmt.Fprintf(io.stdout, "rollup %s dropped; its table stays at %s (delete it to free the space)\n", a.pos[1], loc)
	return nil
}

func rollupRefresh(ctx context.Context, argv []string, io *io_) error {
	a, err := parseArgs(argv, rollupRefreshFlags)
	if err != nil {
		return err
	}
	if len(a.pos) != 1 && len(a.pos) != 2 {
		return usageErr("rollup refresh takes TABLE [NAME]")
	}
	var opt table.RefreshOptions
	if v := a.one("byte-cap", ""); v != "" {
		if opt.ByteCap, err = maintenance.ParseBytes(v); err != nil {
			return usageErr("--byte-cap %q: %v", v, err)
		}
	}
	raw, err := openRaw(ctx, a)
	if err != nil {
		return err
	}
	defs, err := definitions(raw)
	if err != nil {
		return err
	}
	if len(a.pos) == 2 {
		d, err := rollup.Find(defs, a.pos[1])
		if err != nil {
			return err
		}
		defs = []rollup.Def{d}
	}
	results, err := refreshAll(ctx, a, raw, defs, opt)
	if a.bools["json"] {
		if jerr := writeJSON(io.stdout, results); jerr != nil {
			return jerr
		}
	} else {
		printRefreshes(io, results)
	}
	return err
}

// refreshAll refreshes each rollup in turn; the first error ends it.
func refreshAll(ctx context.Context, a *args, raw *table.Table, defs []rollup.Def, opt table.RefreshOptions) ([]*table.RefreshResult, error) {
	out := []*table.RefreshResult{}
	for _, d := range defs {
		ru, err := openRollup(ctx, a, raw, d)
		if err != nil {
			return out, err
		}
		res, err := table.RefreshRollup(ctx, raw, ru, d, opt)
		if err != nil {
			return out, rollup.Named(d.Name, err)
		}
		out = append(out, res)
	}
	return out, nil
}

func printRefreshes(io *io_, results []*table.RefreshResult) {
	for _, r := range results {
		switch r.Mode {
		case "up-to-date":
			fmt.Fprintf(io.stdout, "rollup %s: up to date (raw snapshot %d)\n", r.Rollup, r.Source)
			continue
		}
		done := "recomputed"
		if r.Mode == "fold" { // the appended rows folded into the stored aggregates
			done = "folded"
		}
		fmt.Fprintf(io.stdout, "rollup %s: %s refresh to raw snapshot %d: %d buckets %s, %d rows written, %d bytes read, version %d\n",
			r.Rollup, r.Mode, r.Source, r.Buckets, done, r.Rows, r.BytesRead, r.Version)
		if r.CapReached {
			fmt.Fprintf(io.stdout, "rollup %s: byte cap reached: %d raw snapshots left for the next refresh\n", r.Rollup, r.Left)
		}
	}
}
