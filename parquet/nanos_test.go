package parquet

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// nanosCols: a required timestamptz_ns time column and an optional
// timestamp_ns value column.
var nanosCols = []ColumnSpec{
	{Name: "ts", FieldID: 1, Type: schema.TimestamptzNs, Required: true},
	{Name: "at", FieldID: 2, Type: schema.TimestampNs},
}

// nanosRows: n times 1 ns apart from just before the epoch, and (when
// extremes) the int64 extremes, with a null.
func nanosRows(n int, extremes bool) []rows.Column {
	ts := rows.Column{}
	at := rows.Column{Nulls: make([]bool, n)}
	for i := range n {
		v := int64(1_700_000_000_123_456_789) + int64(i)
		if i < 3 {
			v = int64(i) - 1 // -1, 0, 1 ns
		}
		ts.Ints = append(ts.Ints, v)
		w := v
		switch {
		case i == 3 && extremes:
			w = math.MinInt64
		case i == 4 && extremes:
			w = math.MaxInt64
		case i == 3: // 1677-09-22 and 2262-04-10: DuckDB's TIMESTAMP_NS
			// keeps the int64 extremes for infinities
			w = math.MinInt64 + 86_400_000_000_000
		case i == 4:
			w = math.MaxInt64 - 86_400_000_000_000
		case i == 5:
			w, at.Nulls[i] = 0, true
		}
		at.Ints = append(at.Ints, w)
	}
	return []rows.Column{ts, at}
}

func writeNanos(t *testing.T, n int, extremes bool) ([]byte, *FileStats, []rows.Column) {
	t.Helper()
	data := nanosRows(n, extremes)
	w, err := NewWriter(nanosCols, Options{PageRowLimit: 100, CreatedBy: "timelake test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(data, n); err != nil {
		t.Fatal(err)
	}
	file, st, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return file, st, data
}

// TestNanosRoundTrip: ns columns are written as INT64 TIMESTAMP(NANOS)
// (isAdjustedToUTC for timestamptz_ns only), read back as the same types
// and values, with bounds and page indexes in nanoseconds.
func TestNanosRoundTrip(t *testing.T) {
	const n = 1000
	file, st, data := writeNanos(t, n, true)
	f, err := Open(file)
	if err != nil {
		t.Fatal(err)
	}
	for c, spec := range nanosCols {
		if got := f.Schema()[c].Type; got != spec.Type {
			t.Errorf("column %s read as %v, want %v", spec.Name, got, spec.Type)
		}
		col, err := f.ReadColumn(0, c)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if data[c].IsNull(i) != col.IsNull(i) || !col.IsNull(i) && col.Ints[i] != data[c].Ints[i] {
				t.Fatalf("column %s row %d: %d, want %d", spec.Name, i, col.Ints[i], data[c].Ints[i])
			}
		}
	}
	el := f.Meta().schema
	for _, e := range el[1:] {
		if e.Logical.Kind != logicalTimestamp || e.Logical.Unit != unitNanos || e.Logical.UTC != (e.Name == "ts") || e.HasConverted {
			t.Errorf("column %s: logical type %+v (converted %v), want TIMESTAMP(NANOS, UTC=%v) and no converted type", e.Name, e.Logical, e.HasConverted, e.Name == "ts")
		}
	}
	// file statistics in nanoseconds
	wantLo := []int64{-1, math.MinInt64}
	wantHi := []int64{1_700_000_000_123_456_789 + n - 1, math.MaxInt64}
	for c := range nanosCols {
		cs := st.Columns[c]
		if !cs.HasBounds || cs.MinInt != wantLo[c] || cs.MaxInt != wantHi[c] {
			t.Errorf("column %d stats: %+v, want [%d, %d]", c, cs, wantLo[c], wantHi[c])
		}
		cc := f.Meta().RowGroups[0].Columns[c].Meta.Stats
		lo, hi := cc.Min, cc.Max
		if len(lo) != 8 || int64(binary.LittleEndian.Uint64(lo)) != wantLo[c] || int64(binary.LittleEndian.Uint64(hi)) != wantHi[c] {
			t.Errorf("column %d chunk statistics [%x, %x], want [%d, %d]", c, lo, hi, wantLo[c], wantHi[c])
		}
	}
	// the page index: 10 pages of the time column, each bound the ns of its rows
	ci, err := f.ColumnIndex(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ci.MinValues) != n/100 {
		t.Fatalf("%d pages in the column index, want %d", len(ci.MinValues), n/100)
	}
	for p := range ci.MinValues {
		lo, hi := data[0].Ints[p*100], data[0].Ints[p*100+99]
		if !bytes.Equal(ci.MinValues[p], binary.LittleEndian.AppendUint64(nil, uint64(lo))) || !bytes.Equal(ci.MaxValues[p], binary.LittleEndian.AppendUint64(nil, uint64(hi))) {
			t.Errorf("page %d bounds [%x, %x], want [%d, %d]", p, ci.MinValues[p], ci.MaxValues[p], lo, hi)
		}
	}
}

// TestOutsideReadersReadOurNanos: pyarrow reads both ns columns exactly
// (timestamp[ns, tz=UTC] and timestamp[ns]); DuckDB's read_parquet reads
// the timestamp_ns column exactly as TIMESTAMP_NS. DuckDB has no zoned
// nanosecond type: it reads TIMESTAMP(NANOS, isAdjustedToUTC) as a
// TIMESTAMP WITH TIME ZONE of microseconds, truncated toward zero.
func TestOutsideReadersReadOurNanos(t *testing.T) {
	python(t)
	const n = 1000
	file, _, data := writeNanos(t, n, false)
	path := filepath.Join(t.TempDir(), "ns.parquet")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	var got inspected
	decodeJSON(t, runPython(t, "testdata/inspect_file.py", path), &got)
	if got.Types["ts"] != "timestamp[ns, tz=UTC]" || got.Types["at"] != "timestamp[ns]" {
		t.Errorf("pyarrow types %v, want timestamp[ns, tz=UTC] and timestamp[ns]", got.Types)
	}
	if !strings.Contains(got.LogicalTypes[0], "timeUnit=nanoseconds") || !strings.Contains(got.LogicalTypes[0], "isAdjustedToUTC=true") ||
		!strings.Contains(got.LogicalTypes[1], "isAdjustedToUTC=false") {
		t.Errorf("logical types %v", got.LogicalTypes)
	}
	for c, spec := range nanosCols {
		checkValues(t, "pyarrow", spec.Name, spec.Type, data[c], got.Columns[spec.Name])
	}
	if typ := got.DuckDB.Types["at"]; typ != "TIMESTAMP_NS" {
		t.Errorf("DuckDB reads at as %s, want TIMESTAMP_NS", typ)
	}
	checkValues(t, "duckdb", "at", schema.TimestampNs, data[1], got.DuckDB.Columns["at"])
	trunc := rows.Column{}
	for _, v := range data[0].Ints {
		trunc.Ints = append(trunc.Ints, v/1000)
	}
	checkValues(t, "duckdb", "ts", schema.Timestamptz, trunc, got.DuckDB.Columns["ts"])
}
