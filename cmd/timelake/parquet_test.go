package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// writeParquetInput writes a small user Parquet file (ts, host, mem, cpu as
// float32, an extra column) with the parquet package.
func writeParquetInput(t *testing.T) string {
	t.Helper()
	specs := []parquet.ColumnSpec{
		{Name: "ts", Type: schema.Timestamptz, Required: true},
		{Name: "host", Type: schema.String, Required: true},
		{Name: "mem", Type: schema.Long, Required: true},
		{Name: "cpu", Type: schema.Float},
	}
	w, err := parquet.NewWriter(specs, parquet.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := int64(1795824000000000) // 2026-11-28T00:00:00Z
	cols := []rows.Column{
		{Ints: []int64{base, base + 1e6, base + 2e6}},
		{Strs: []string{"a", "b", "a"}},
		{Ints: []int64{1, 2, 3}},
		{Floats: []float64{0.5, 0, 1.5}, Nulls: []bool{false, true, false}},
	}
	if err := w.Write(cols, 3); err != nil {
		t.Fatal(err)
	}
	data, _, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "in.parquet")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
