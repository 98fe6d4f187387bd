package table_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/table"
)

// TestDeleteWritesVersionHint: a delete (format 2 rewriting, format 3
// writing a deletion vector) and a purge leave version-hint.text naming
// the version they committed, as an append does: readers that follow the
// hint (DuckDB on a directory, Hadoop catalogs, iceberg-go and pyiceberg
// given the hinted metadata) must not read the table from before it.
func TestDeleteWritesVersionHint(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{"2", "3"} {
		t.Run("format "+version, func(t *testing.T) {
			dir, _, tb := dirTable(t, testenv.New(5), metricsSchema(t), map[string]string{table.PropFormatVersion: version})
			if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 100, 5)); err != nil {
				t.Fatal(err)
			}
			hint := func(step string) {
				t.Helper()
				b, err := os.ReadFile(filepath.Join(dir, "metadata", "version-hint.text"))
				if err != nil {
					t.Fatal(err)
				}
				if string(b) != strconv.Itoa(tb.Version()) {
					t.Errorf("%s: version-hint.text says %s, the table is at version %d", step, b, tb.Version())
				}
			}
			hint("append")
			if _, err := tb.Delete(ctx, table.DeleteOptions{Series: map[string][]any{"host": {"h003"}}}); err != nil {
				t.Fatal(err)
			}
			hint("delete")
			if _, err := tb.Delete(ctx, table.DeleteOptions{Series: map[string][]any{"host": {"h001"}}, Purge: true, Now: true}); err != nil {
				t.Fatal(err)
			}
			hint("delete --purge")
		})
	}
}
