package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/table"
)

func cmdCreate(ctx context.Context, argv []string, io *io_) error {
	a, err := parseArgs(argv, flagSpec{"time": true, "series": true, "column": true, "partition": true, "prop": true, "json": false, "no-ingest-column": false})
	if err != nil {
		return err
	}
	if len(a.pos) != 1 {
		return usageErr("create takes one TABLE, got %d arguments", len(a.pos))
	}
	timeCol := a.one("time", "")
	if timeCol == "" {
		return usageErr("create needs --time COL")
	}
	var series []string
	for _, s := range a.flags["series"] {
		for _, c := range strings.Split(s, ",") {
			if c = strings.TrimSpace(c); c != "" {
				series = append(series, c)
			}
		}
	}
	if len(series) == 0 {
		return usageErr("create needs --series COL[,COL…]")
	}
	var cols []schema.Field
	for _, c := range a.flags["column"] {
		f, err := parseColumn(c)
		if err != nil {
			return err
		}
		cols = append(cols, f)
	}
	part, err := schema.ParseTransform(a.one("partition", "day"))
	if err != nil {
		return usageErr("--partition: %v", err)
	}
	props := map[string]string{}
	for _, p := range a.flags["prop"] {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return usageErr("--prop %q: want KEY=VALUE", p)
		}
		props[k] = v
	}
	newSchema := schema.New
	if a.bools["no-ingest-column"] {
		newSchema = schema.NewWithoutIngest
	}
	sch, err := newSchema(timeCol, series, cols, part)
	if err != nil {
		return err
	}
	loc, err := resolveTable(a.pos[0], a)
	if err != nil {
		return err
	}
	st, err := loc.create()
	if err != nil {
		return err
	}
	tb, err := table.Create(ctx, st, env(), loc.location, sch, props)
	if err != nil {
		return err
	}
	if a.bools["json"] {
		return writeJSON(io.stdout, map[string]any{"table": loc.location, "version": tb.Version(), "columns": len(sch.Fields)})
	}
	fmt.Fprintf(io.stdout, "created %s (version %d, %d columns, partitioned by %s)\n", loc.location, tb.Version(), len(sch.Fields), sch.PartitionName())
	return nil
}

// parseColumn reads NAME:TYPE or NAME:TYPE? (optional).
func parseColumn(s string) (schema.Field, error) {
	name, typ, ok := strings.Cut(s, ":")
	if !ok || name == "" {
		return schema.Field{}, usageErr("--column %q: want NAME:TYPE or NAME:TYPE?", s)
	}
	required := !strings.HasSuffix(typ, "?")
	t, err := schema.ParseType(strings.TrimSuffix(typ, "?"))
	if err != nil {
		return schema.Field{}, usageErr("--column %q: %v", s, err)
	}
	return schema.Field{Name: name, Type: t, Required: required}, nil
}
