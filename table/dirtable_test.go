package table_test

import (
	"context"
	"testing"

	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// dirTable creates a table of sch in a fresh directory (the location its
// file:// URI, as the CLI makes it), for tests that outside readers and
// writers (DuckDB, pyiceberg, iceberg-go) read or write as files.
func dirTable(t *testing.T, env table.Env, sch *schema.Table, props map[string]string) (string, *dirstore.Store, *table.Table) {
	t.Helper()
	dir := t.TempDir()
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Create(context.Background(), st, env, "file://"+dir, sch, props)
	if err != nil {
		t.Fatal(err)
	}
	return dir, st, tb
}
