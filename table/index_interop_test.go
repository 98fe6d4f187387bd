package table_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/table"
)

// TestIndexPuffinReadByPyiceberg: pyiceberg's own Puffin reader reads each
// index file our table metadata lists, and pyarrow reads its blob as the
// index Parquet (one row per series, the table's columns).
func TestIndexPuffinReadByPyiceberg(t *testing.T) {
	if testing.Short() {
		t.Skip("outside readers: skipped with -short")
	}
	ctx := context.Background()
	dir, _, tb := dirTable(t, testenv.New(1), metricsSchema(t), nil)
	for i, hosts := range []int{3, 5} {
		if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(i)*time.Hour), 20, hosts)); err != nil {
			t.Fatal(err)
		}
	}
	var cols []string
	for _, f := range tb.Schema().Fields {
		cols = append(cols, f.Name)
	}
	for i, s := range tb.Metadata().Statistics {
		m := interoptest.ReadPuffinMeta(t, filepath.Join(dir, filepath.FromSlash(tb.IndexKey(s.SnapshotID))))
		if len(m.Blobs) != 1 {
			t.Fatalf("snapshot %d: %d blobs", s.SnapshotID, len(m.Blobs))
		}
		b := m.Blobs[0]
		got := []any{b.Type, b.SnapshotID, b.ParquetRows, strings.Join(b.ParquetColumns, ","), m.Properties["created-by"]}
		want := []any{table.IndexBlobType, s.SnapshotID, []int64{3, 5}[i], strings.Join(cols, ","), "timelake"}
		if !jsonEqual(got, want) {
			t.Fatalf("snapshot %d: pyiceberg read %v, want %v", s.SnapshotID, got, want)
		}
	}
}
