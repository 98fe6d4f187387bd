package table

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/rollup"
)

// Rollups of a table kept in an Iceberg REST catalog. The rollup is a
// table of the same catalog, in the raw table's namespace, named
// <TABLE>__rollup_<NAME> (RollupIdent), at the location the catalog
// assigns, its files in the store storeFor opens for that location (with
// the credentials the catalog vends, as for any catalog table); every
// commit of its refreshes and maintenance goes through the catalog. The
// definition stays in the raw table's properties (committed through the
// catalog too), with the rollup table's name (rollup.SuffixTable) and
// location. A refresh is RefreshRollup, as for storage-only rollups.

// RollupIdent is the catalog name of rollup name of the catalog table raw:
// NS.<TABLE>__rollup_<NAME>, in raw's namespace. persisted: must not change.
func RollupIdent(raw restcatalog.Ident, name string) restcatalog.Ident {
	return restcatalog.Ident{Namespace: slices.Clone(raw.Namespace), Name: raw.Name + "__rollup_" + name}
}

// errNotCatalog refuses a storage-only raw table to the catalog variants.
func errNotCatalog(op string) error {
	return fmt.Errorf("%w: %s: the table is storage-only, not kept in a catalog (use the storage-only variant)", ErrUnsupportedTable, op)
}

// AddRollupInCatalog defines rollup d on the catalog table raw and creates
// its table in the same catalog as RollupIdent names it (at d.Location
// when set, else where the catalog chooses): first the table (or, after a
// failed add, the one already there when its schema is the definition's),
// then the definition in raw's properties, with the table's name and
// location, which is what makes the rollup exist. A name already defined
// is a ROLLUP_EXISTS error and changes nothing.
func AddRollupInCatalog(ctx context.Context, raw *Table, d rollup.Def, storeFor StoreFor) (*Table, error) {
	if raw.catalog == nil {
		return nil, errNotCatalog("add rollup " + d.Name)
	}
	exists := rollupUndefined(d.Name)
	sch, d, err := rollupTableFor(raw, d)
	if err != nil {
		return nil, err
	}
	cat, id := raw.catalog.client, RollupIdent(raw.catalog.ident, d.Name)
	ru, err := CreateInCatalog(ctx, cat, id, raw.env, sch, map[string]string{"timelake.retention": d.Retention}, d.Location, storeFor)
	if errors.Is(err, ErrTableExists) {
		if ru, err = OpenInCatalog(ctx, cat, id, raw.env, storeFor); err == nil && !sameSchema(ru.schema, sch) {
			err = fmt.Errorf("%w: %s is in the catalog already, with other columns", ErrTableExists, id)
		}
	}
	if err != nil {
		return nil, rollup.Named(d.Name, err)
	}
	d.Table, d.Location = id.String(), ru.meta.Location
	if err := raw.SetProperties(ctx, d.Properties(), nil, exists); err != nil {
		return nil, err
	}
	return ru, nil
}

// OpenRollupInCatalog opens the table of rollup d of the catalog table raw
// through raw's catalog. A rollup defined before raw was registered in the
// catalog (no table name in its definition) is the storage-only table at
// its location, opened through storeFor without vended credentials.
func OpenRollupInCatalog(ctx context.Context, raw *Table, d rollup.Def, storeFor StoreFor) (*Table, error) {
	if raw.catalog == nil {
		return nil, errNotCatalog("open rollup " + d.Name)
	}
	if d.Table == "" {
		if d.Location == "" {
			return nil, &rollup.Error{Code: rollup.CodeBadRollup, Key: rollup.Key(d.Name, rollup.SuffixTable), Msg: "missing: the rollup names neither its catalog table nor its location"}
		}
		st, err := storeFor(d.Location, nil)
		if err != nil {
			return nil, fmt.Errorf("rollup %s at %s: %w", d.Name, d.Location, err)
		}
		ru, err := Open(ctx, st, raw.env)
		if err != nil {
			return nil, fmt.Errorf("rollup %s at %s: %w", d.Name, d.Location, err)
		}
		return ru, nil
	}
	id, err := restcatalog.ParseIdent(d.Table)
	if err != nil {
		return nil, &rollup.Error{Code: rollup.CodeBadRollup, Key: rollup.Key(d.Name, rollup.SuffixTable), Msg: err.Error()}
	}
	ru, err := OpenInCatalog(ctx, raw.catalog.client, id, raw.env, storeFor)
	if err != nil {
		return nil, fmt.Errorf("rollup %s (%s in %s): %w", d.Name, id, raw.catalog.client.URI(), err)
	}
	return ru, nil
}

// DropRollupInCatalog drops rollup name of the catalog table raw: first
// its table from the catalog, without purge (Iceberg's drop with
// purgeRequested=false: the catalog forgets the table, its files stay at
// its location), then its definition. Run again after a failure between
// the two, it finds the table gone and removes the definition. It returns
// the dropped table's name (empty for a rollup without one, whose
// storage-only table is left as it is) and location.
func DropRollupInCatalog(ctx context.Context, raw *Table, name string) (ident, location string, err error) {
	if raw.catalog == nil {
		return "", "", errNotCatalog("drop rollup " + name)
	}
	v, err := raw.latest(ctx)
	if err != nil {
		return "", "", err
	}
	if !v.Same(raw.version) {
		if err := raw.load(v); err != nil {
			return "", "", err
		}
	}
	defs, err := rollup.Parse(raw.meta.Properties)
	if err != nil {
		return "", "", err
	}
	d, err := rollup.Find(defs, name)
	if err != nil {
		return "", "", err
	}
	if d.Table != "" {
		id, err := restcatalog.ParseIdent(d.Table)
		if err != nil {
			return "", "", &rollup.Error{Code: rollup.CodeBadRollup, Key: rollup.Key(name, rollup.SuffixTable), Msg: err.Error()}
		}
		if err := raw.catalog.client.DropTable(ctx, id); err != nil && !errors.Is(err, restcatalog.ErrNoSuchTable) {
			return "", "", fmt.Errorf("rollup %s: drop %s: %w", name, id, err)
		}
	}
	loc, err := DropRollup(ctx, raw, name)
	if err != nil {
		return d.Table, d.Location, err
	}
	if loc == "" {
		loc = d.Location
	}
	return d.Table, loc, nil
}
