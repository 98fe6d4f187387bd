package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/table"
)

func cmdCreate(ctx context.Context, argv []string, io *io_) error {
	a, err := parseArgs(argv, createFlags)
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
	var cols []schema.Field
	for _, c := range a.flags["column"] {
		f, err := parseColumn(c)
		if err != nil {
			return err
		}
		cols = append(cols, f)
	}
	partText := a.one("partition", "day")
	part, err := schema.ParseTransform(partText)
	if err != nil {
		part = schema.Day // a spec of more than the time: ParseSpec below
	}
	props := map[string]string{}
	for _, p := range a.flags["prop"] {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return usageErr("--prop %q: want KEY=VALUE", p)
		}
		props[k] = v
	}
	if v := a.one("format-version", ""); v != "" {
		if _, ok := props[table.PropFormatVersion]; ok {
			return usageErr("give the format version once: --format-version or --prop %s", table.PropFormatVersion)
		}
		props[table.PropFormatVersion] = v
	}
	newSchema := schema.New
	if a.bools["no-ingest-column"] {
		newSchema = schema.NewWithoutIngest
	}
	sch, err := newSchema(timeCol, series, cols, part)
	if err != nil {
		return fmt.Errorf("%w: %v", table.ErrBadSchema, err)
	}
	_, fields, err := table.ParseSpec(sch, partText)
	if err != nil {
		return usageErr("--partition: %v (want day, hour, month, none, or fields such as 'day, bucket(16, host)')", err)
	}
	cat, id, err := openCatalog(a, a.pos[0])
	if err != nil {
		return err
	}
	if cat != nil {
		if fields != nil {
			return usageErr("--partition %q: a catalog table is created partitioned by day, hour or month; another engine or a later version changes its spec", partText)
		}
		return createInCatalog(ctx, a, io, cat, id, sch, props)
	}
	if a.one("location", "") != "" {
		return usageErr("--location needs a catalog (--catalog URI or %s); a storage-only table is where TABLE says", envCatalogURI)
	}
	loc, err := resolveTable(a.pos[0], a)
	if err != nil {
		return err
	}
	st, err := loc.create()
	if err != nil {
		return err
	}
	tb, err := table.CreateWithSpec(ctx, st, env(), loc.location, sch, props, fields)
	if err != nil {
		return fmt.Errorf("%s: %w", loc.location, err) // which table: TABLE_EXISTS names none
	}
	if a.bools["json"] {
		return writeJSON(io.stdout, map[string]any{"table": loc.location, "version": tb.Version(), "columns": len(sch.Fields)})
	}
	fmt.Fprintf(io.stdout, "created %s (version %d, %d columns, partitioned by %s)\n", loc.location, tb.Version(), len(sch.Fields), tb.PartitionFields())
	return nil
}

// createInCatalog creates id in the catalog, at --location or where the
// catalog chooses (under its warehouse).
func createInCatalog(ctx context.Context, a *args, io *io_, cat *restcatalog.Client, id restcatalog.Ident, sch *schema.Table, props map[string]string) error {
	where := a.one("location", "")
	if where != "" && !strings.Contains(where, "://") {
		abs, err := filepath.Abs(where)
		if err != nil {
			return fmt.Errorf("--location %q: %w", where, err)
		}
		where = fileLocation(abs)
	} else if where != "" && !strings.HasPrefix(where, "file://") && !strings.HasPrefix(where, "s3://") {
		return usageErr("--location %q: want a directory, a file:// or s3:// URI", where)
	}
	tb, err := table.CreateInCatalog(ctx, cat, id, env(), sch, props, where, storeFor(a))
	if err != nil {
		return fmt.Errorf("create %s in %s: %w", id, cat.URI(), err)
	}
	if a.bools["json"] {
		return writeJSON(io.stdout, map[string]any{"catalog": cat.URI(), "table": id.String(), "location": tb.Metadata().Location,
			"metadata-location": tb.MetadataLocation(), "version": tb.Version(), "columns": len(sch.Fields)})
	}
	fmt.Fprintf(io.stdout, "created %s in %s at %s (version %d, %d columns, partitioned by %s)\n",
		id, cat.URI(), tb.Metadata().Location, tb.Version(), len(sch.Fields), sch.PartitionName())
	return nil
}

// parseColumn reads NAME:TYPE or NAME:TYPE? (optional).
func parseColumn(s string) (schema.Field, error) {
	name, typ, ok := strings.Cut(s, ":")
	if !ok || name == "" {
		return schema.Field{}, usageErr("--column %q: want NAME:TYPE or NAME:TYPE?", s)
	}
	required := !strings.HasSuffix(typ, "?")
	t, nt, err := schema.ParseTypeText(strings.TrimSuffix(typ, "?"))
	if err != nil {
		return schema.Field{}, usageErr("--column %q: %v", s, err)
	}
	return schema.Field{Name: name, Type: t, Nested: nt, Required: required}, nil
}
