package table

import (
	"context"
	"errors"
	"fmt"

	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
)

// AddRollup defines rollup d on raw and creates its table in st (the
// store of d.Location, which must be set): first the table (or, after a
// failed add, the one already there when its schema is the definition's),
// then the definition in raw's properties, which is what makes the rollup
// exist. The rollup table's timelake.retention is d's retention. A name
// already defined is a ROLLUP_EXISTS error and changes nothing.
func AddRollup(ctx context.Context, raw *Table, st store.Store, d rollup.Def) (*Table, error) {
	if raw.catalog != nil {
		return nil, fmt.Errorf("%w: add rollup %s: the table is kept in a catalog: use AddRollupInCatalog", ErrUnsupportedTable, d.Name)
	}
	if d.Location == "" {
		return nil, &rollup.Error{Code: rollup.CodeBadRollup, Key: d.Name, Msg: "no location for the rollup table"}
	}
	exists := rollupUndefined(d.Name)
	sch, d, err := rollupTableFor(raw, d)
	if err != nil {
		return nil, err
	}
	ru, err := Create(ctx, st, raw.env, d.Location, sch, map[string]string{"timelake.retention": d.Retention})
	if errors.Is(err, ErrTableExists) {
		if ru, err = Open(ctx, st, raw.env); err == nil && !sameSchema(ru.schema, sch) {
			err = fmt.Errorf("%w: a table with other columns is already at %s", ErrTableExists, d.Location)
		}
	}
	if err != nil {
		return nil, rollup.Named(d.Name, err)
	}
	if err := raw.SetProperties(ctx, d.Properties(), nil, exists); err != nil {
		return nil, err
	}
	return ru, nil
}

// rollupUndefined is the check, run again on every base a commit of the
// definition meets, that no rollup of name is defined yet.
func rollupUndefined(name string) func(props map[string]string) error {
	return func(props map[string]string) error {
		defs, err := rollup.Parse(props)
		if err != nil {
			return err
		}
		if _, err := rollup.Find(defs, name); err == nil {
			return &rollup.Error{Code: rollup.CodeRollupExists, Key: name, Msg: "a rollup of this name is already defined (rollup drop it first)"}
		}
		return nil
	}
}

// rollupTableFor checks that rollup d can be added to raw and gives its
// table's schema, and d with the field ids of its columns bound: stored
// with the definition, they let the rollup follow renames
// (rollup/resolve.go).
func rollupTableFor(raw *Table, d rollup.Def) (*schema.Table, rollup.Def, error) {
	if err := rollupUndefined(d.Name)(raw.meta.Properties); err != nil {
		return nil, d, err
	}
	sch, err := rollup.Schema(raw.schema, d)
	if err != nil {
		return nil, d, err
	}
	bound, err := rollup.Bind(raw.schema, d)
	return sch, bound, err
}

// DropRollup removes rollup name's definition from raw's properties. Its
// table stays where it is (its location is returned): delete it apart.
func DropRollup(ctx context.Context, raw *Table, name string) (string, error) {
	var loc string
	keys := rollup.Keys(name)
	err := raw.SetProperties(ctx, nil, keys, func(props map[string]string) error {
		defs, err := rollup.Parse(props)
		if err != nil {
			return err
		}
		d, err := rollup.Find(defs, name)
		if err != nil {
			return err
		}
		loc = d.Location
		return nil
	})
	return loc, err
}
