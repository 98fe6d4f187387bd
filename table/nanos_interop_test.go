package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// nsValues runs `readers.py ns-values ENGINE METADATA` with python py.
func nsValues(t *testing.T, py, engine, metadata string) (types map[string]string, got [][]any) {
	t.Helper()
	cmd := exec.Command(py, filepath.Join(interoptest.Root(), "interop", "readers.py"), "ns-values", engine, metadata)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("readers.py ns-values %s: %v\n%s", engine, err, stderr.String())
	}
	var res struct {
		Types map[string]string
		Rows  [][]any
	}
	d := json.NewDecoder(strings.NewReader(string(out)))
	d.UseNumber()
	if err := d.Decode(&res); err != nil {
		t.Fatalf("ns-values %s: %v\n%s", engine, err, out)
	}
	return res.Types, res.Rows
}

// TestNanosOutsideReaders: format 3 tables Timelake wrote with nanosecond
// columns, rows 1 ns apart across the epoch, read exactly by pyiceberg
// (timestamptz_ns and timestamp_ns) and by DuckDB 1.5's iceberg_scan
// (timestamp_ns: its extension does not know timestamptz_ns yet).
func TestNanosOutsideReaders(t *testing.T) {
	ctx := context.Background()
	for _, timeType := range []schema.Type{schema.TimestampNs, schema.TimestamptzNs} {
		t.Run(timeType.String(), func(t *testing.T) {
			dir := t.TempDir()
			st, err := dirstore.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			sch, err := schema.New("ts", []string{"host"}, []schema.Field{
				{Name: "ts", Type: timeType},
				{Name: "seen", Type: schema.TimestampNs},
			}, schema.Hour)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := table.Create(ctx, st, testenv.New(1), "file://"+dir, sch, map[string]string{table.PropFormatVersion: "3"})
			if err != nil {
				t.Fatal(err)
			}
			const n = 50
			b := rows.NewBuilder(tb.Schema(), rows.Options{TimeUnit: rows.Nanoseconds})
			var want [][2]int64
			for i := range n {
				ns := int64(i - n/2) // -25 ns .. 24 ns
				seen := time.Date(2262, 4, 11, 23, 47, 16, 854775807-i, time.UTC).UnixNano()
				for c, v := range []string{fmt.Sprint(ns), "h", fmt.Sprint(seen)} {
					if err := b.AppendString(c, v); err != nil {
						t.Fatal(err)
					}
				}
				if err := b.EndRow(); err != nil {
					t.Fatal(err)
				}
				want = append(want, [2]int64{ns, seen})
			}
			if _, err := tb.Append(ctx, b.Batch()); err != nil {
				t.Fatal(err)
			}
			metadata := filepath.Join(dir, "metadata", fmt.Sprintf("v%d.metadata.json", tb.Version()))
			check := func(reader string, types map[string]string, got [][]any, wantTypes [2]string) {
				t.Helper()
				if types["ts"] != wantTypes[0] || types["seen"] != wantTypes[1] {
					t.Errorf("%s reads ts as %s and seen as %s, want %s and %s", reader, types["ts"], types["seen"], wantTypes[0], wantTypes[1])
				}
				if len(got) != n {
					t.Fatalf("%s reads %d rows, want %d", reader, len(got), n)
				}
				for i, r := range got {
					if fmt.Sprint(r[0]) != fmt.Sprint(want[i][0]) || fmt.Sprint(r[2]) != fmt.Sprint(want[i][1]) {
						t.Fatalf("%s row %d: ts %v seen %v, want %d and %d", reader, i, r[0], r[2], want[i][0], want[i][1])
					}
				}
			}
			zone := map[schema.Type]string{schema.TimestampNs: "timestamp[ns]", schema.TimestamptzNs: "timestamp[ns, tz=UTC]"}[timeType]
			types, got := nsValues(t, interoptest.Python(t), "pyiceberg", metadata)
			check("pyiceberg", types, got, [2]string{zone, "timestamp[ns]"})
			if timeType == schema.TimestampNs {
				types, got = nsValues(t, interoptest.PythonV3(t), "duckdb", metadata)
				check("DuckDB 1.5", types, got, [2]string{"TIMESTAMP_NS", "TIMESTAMP_NS"})
			}
		})
	}
}
