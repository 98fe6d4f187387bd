package table

import (
	"context"
	"fmt"

	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/schema/evolve"
)

// followSchema readies a refresh of rollup d (package rollup, resolve.go:
// a rollup follows its raw table's schema). A d without field ids takes
// those of the stored definition of its name, when that is the same
// definition (a caller holding the Def it added, before AddRollup recorded
// the ids). The rollup table's schema is then checked against d over the
// raw schema as it is now, and the aggregate columns of a widened raw
// column are widened first, by a schema change of the rollup table.
func followSchema(ctx context.Context, raw, ru *Table, d rollup.Def) (rollup.Def, error) {
	if !d.HasFieldIDs() {
		if defs, err := rollup.Parse(raw.meta.Properties); err == nil {
			if s, err := rollup.Find(defs, d.Name); err == nil && s.Every == d.Every && s.AggString() == d.AggString() {
				d = s
			}
		}
	}
	widen, err := rollup.Conform(ru.schema, raw.schema, d)
	if err != nil {
		if _, ok := err.(*rollup.Error); ok {
			return d, err
		}
		return d, fmt.Errorf("%w: the rollup table %s does not have the columns of rollup %s (%s): %v", ErrSchemaMismatch, ru.meta.Location, d.Name, d.AggString(), err)
	}
	if len(widen) == 0 {
		return d, nil
	}
	var changes []evolve.Change
	for _, w := range widen {
		changes = append(changes, evolve.Change{Op: evolve.Widen, Column: w.Column, Type: w.Type})
	}
	if _, err := ru.Alter(ctx, changes); err != nil {
		return d, fmt.Errorf("rollup %s: widening its columns as the table's were: %w", d.Name, err)
	}
	if _, err := rollup.Conform(ru.schema, raw.schema, d); err != nil {
		return d, fmt.Errorf("%w: rollup %s after widening: %v", ErrSchemaMismatch, d.Name, err)
	}
	return d, nil
}
