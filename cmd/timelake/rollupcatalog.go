package main

import (
	"context"
	"fmt"

	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/table"
)

// Rollups of catalog tables (table/rollup_catalog.go): the rollup is the
// table NS.TABLE__rollup_NAME of the same catalog, at the location the
// catalog assigns, its files reached as any catalog table's (storeFor:
// the user's S3 settings, then the vended ones).

// addRollupTo creates rollup d's table and defines it on raw: through
// raw's catalog, or beside a storage-only raw table. It returns d with its
// location (and catalog table) set.
func addRollupTo(ctx context.Context, a *args, raw *table.Table, d rollup.Def) (rollup.Def, error) {
	if cat, id := raw.Catalog(); cat != nil {
		ru, err := table.AddRollupInCatalog(ctx, raw, d, storeFor(a))
		if err != nil {
			return d, err
		}
		d.Table, d.Location = table.RollupIdent(id, d.Name).String(), ru.Metadata().Location
		return d, nil
	}
	d.Location = rollup.SiblingLocation(raw.Metadata().Location, d.Name)
	loc, err := resolveTable(d.Location, a)
	if err != nil {
		return d, err
	}
	st, err := loc.create()
	if err != nil {
		return d, err
	}
	_, err = table.AddRollup(ctx, raw, st, d)
	return d, err
}

// dropCatalogRollup drops rollup name of the catalog table raw: its table
// from the catalog without purge (the files stay), then its definition.
func dropCatalogRollup(ctx context.Context, raw *table.Table, name string, io *io_) error {
	id, loc, err := table.DropRollupInCatalog(ctx, raw, name)
	if err != nil {
		return err
	}
	if id == "" {
		fmt.Fprintf(io.stdout, "rollup %s dropped; its table stays at %s (delete it to free the space)\n", name, loc)
		return nil
	}
	fmt.Fprintf(io.stdout, "rollup %s dropped, and its table %s from the catalog without purge: its files stay at %s (delete them to free the space)\n", name, id, loc)
	return nil
}
