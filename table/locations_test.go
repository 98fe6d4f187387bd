package table_test

import (
	"context"
	"strings"
	"testing"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/table"
)

// TestForeignLocationForms: a version whose manifest list, manifests and data
// files spell the table's own places as other writers do (Iceberg Java's
// file:/p, redundant slashes, file://localhost/p) is the same table: every
// operation works, and maintenance rewrites it without losing a row.
func TestForeignLocationForms(t *testing.T) {
	forms := []struct {
		name    string
		respell func(loc string) string // loc is file:///dir
	}{
		{"java file:/p", func(loc string) string { return "file:" + strings.TrimPrefix(loc, "file://") }},
		{"redundant slashes", func(loc string) string { return strings.Replace(loc, "file:///", "file:////", 1) + "/" }},
		{"localhost", func(loc string) string { return "file://localhost" + strings.TrimPrefix(loc, "file://") }},
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			ctx := context.Background()
			h := newHostileTable(t)
			loc := h.tb.Metadata().Location
			other := f.respell(loc)
			files, entries := h.manifests(t)
			for i := range entries {
				entries[i].DataFile.Path = other + strings.TrimPrefix(entries[i].DataFile.Path, loc)
			}
			files[0] = h.writeManifest(t, "metadata/respelled-m0.avro", entries, files[0])
			for i := range files {
				files[i].ManifestPath = other + strings.TrimPrefix(files[i].ManifestPath, loc)
			}
			list := h.writeList(t, "metadata/snap-respelled.avro", files)
			h.commitHostile(t, withSnapshot(h.tb.Metadata(), func(s *iceberg.Snapshot) {
				s.ManifestList = other + strings.TrimPrefix(list, loc)
			}))

			tb, err := table.Open(ctx, h.st, testenv.New(5))
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			info, err := tb.Info(ctx)
			if err != nil {
				t.Fatalf("Info: %v", err)
			}
			if info.Rows != 40 {
				t.Errorf("Info rows = %d, want 40", info.Rows)
			}
			if _, err := tb.Append(ctx, rowsOf(t, tb, "new", day1, 5, 1)); err != nil {
				t.Fatalf("Append: %v", err)
			}
			if _, err := tb.Maintain(ctx, table.MaintainOptions{}); err != nil {
				t.Fatalf("Maintain: %v", err)
			}
			latest, err := tb.Latest(ctx)
			if err != nil {
				t.Fatalf("Latest: %v", err)
			}
			if got := latest.Len; got != 5 { // 2 series per append in newHostileTable, 1 here
				t.Errorf("Latest holds %d series, want 5", got)
			}
			info, err = tb.Info(ctx)
			if err != nil || info.Rows != 45 {
				t.Errorf("Info after append and maintain: rows %d, %v; want 45", info.Rows, err)
			}
		})
	}
}
