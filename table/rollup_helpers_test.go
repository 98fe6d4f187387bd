package table_test

import (
	"context"
	"testing"

	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// addRollupOf adds rollup name of tb, hourly with aggs, its table at
// <base>__rollup_<name> in a memstore of its own.
func addRollupOf(t *testing.T, tb *table.Table, name, base string, aggs ...string) (*table.Table, rollup.Def) {
	t.Helper()
	d, err := rollup.New(name, "1h", aggs, "")
	if err != nil {
		t.Fatal(err)
	}
	d.Location = base + "__rollup_" + name
	ru, err := table.AddRollup(context.Background(), tb, memstore.New(), d)
	if err != nil {
		t.Fatal(err)
	}
	return ru, d
}

// addRefreshed is addRollupOf, then one refresh (whole: the rollup is new).
func addRefreshed(t *testing.T, tb *table.Table, name, base string, aggs ...string) (*table.Table, rollup.Def) {
	t.Helper()
	ru, d := addRollupOf(t, tb, name, base, aggs...)
	if _, err := table.RefreshRollup(context.Background(), tb, ru, d, table.RefreshOptions{}); err != nil {
		t.Fatal(err)
	}
	return ru, d
}
