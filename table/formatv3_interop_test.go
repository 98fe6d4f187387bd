package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// lineageRow is a row as duckdb-lineage prints it.
type lineageRow struct {
	key           string
	rowID, seqNum int64
}

// duckDBLineage reads every row's _row_id with DuckDB 1.5, by series@time.
func duckDBLineage(t *testing.T, metadata string) map[string]lineageRow {
	t.Helper()
	py := interoptest.PythonV3(t)
	out, err := exec.Command(py, filepath.Join(interoptest.Root(), "interop", "readers.py"), "duckdb-lineage", "ts", "host", metadata).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb-lineage: %v\n%s", err, out)
	}
	var got struct{ Rows [][]any }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("duckdb-lineage: %v\n%s", err, out)
	}
	rows := map[string]lineageRow{}
	ids := map[int64]string{}
	for _, r := range got.Rows {
		k := fmt.Sprintf("%v@%v", r[0], r[1])
		if r[2] == nil {
			t.Fatalf("row %s has no _row_id", k)
		}
		lr := lineageRow{key: k, rowID: int64(r[2].(float64)), seqNum: int64(r[3].(float64))}
		if other, dup := ids[lr.rowID]; dup {
			t.Fatalf("_row_id %d is %s and %s", lr.rowID, k, other)
		}
		ids[lr.rowID] = k
		rows[k] = lr
	}
	return rows
}

// TestFormatV3OutsideReaders: a format 3 table Timelake created, appended
// to and compacted, and a format 2 table it upgraded, read by DuckDB 1.5
// (rows, sums, series, time range; each row's _row_id and
// _last_updated_sequence_number) and pyiceberg (rows, sums). The ids DuckDB
// reads are distinct and survive compaction unchanged.
func TestFormatV3OutsideReaders(t *testing.T) {
	ctx := context.Background()
	for _, upgraded := range []bool{false, true} {
		t.Run(fmt.Sprintf("upgraded=%v", upgraded), func(t *testing.T) {
			dir := t.TempDir()
			st, err := dirstore.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			props := map[string]string{maintenance.PropCompactMinFiles: "2"}
			if !upgraded {
				props[table.PropFormatVersion] = "3"
			}
			tb, err := table.Create(ctx, st, testenv.New(1), "file://"+dir, metricsSchema(t), props)
			if err != nil {
				t.Fatal(err)
			}
			var all []interoptest.Row
			for k := range 3 {
				start := day1.Add(time.Duration(k) * 7 * time.Hour)
				b := batch(t, tb.Schema(), start, 200, 4)
				if _, err := tb.Append(ctx, b); err != nil {
					t.Fatal(err)
				}
				for i := range 200 {
					cpu, mem := float64(i), int64(i)*1000
					all = append(all, interoptest.Row{TimeUS: start.Add(time.Duration(i) * time.Minute).UnixMicro(), Series: fmt.Sprintf("h%03d", i%4), CPU: &cpu, Mem: &mem})
				}
				if upgraded && k == 0 {
					if _, err := tb.UpgradeFormat(ctx, 3); err != nil {
						t.Fatal(err)
					}
				}
			}
			want := interoptest.Expect(all, nil)
			q := interoptest.Query{Time: "ts", Series: []string{"host"}, Sums: []string{"cpu", "mem"}}
			meta := func() string { return filepath.Join(dir, filepath.FromSlash(commit.MetadataKey(tb.Version()))) }
			before := duckDBLineage(t, meta())
			if len(before) != len(all) {
				t.Fatalf("DuckDB read %d rows with lineage, want %d", len(before), len(all))
			}
			res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
			if err != nil || res.Merges == 0 {
				t.Fatalf("maintain: %+v %v; want a compaction", res, err)
			}
			for _, r := range []interoptest.Reader{interoptest.DuckDBV3, interoptest.PyIceberg} {
				got := interoptest.Summarize(t, r, meta(), q)
				got.PlannedFiles = -1
				interoptest.ExpectSame(t, string(r), want, got)
			}
			after := duckDBLineage(t, meta())
			for k, b := range before {
				if a, ok := after[k]; !ok || a != b {
					t.Errorf("row %s: %+v before compaction, %+v (present %v) after", k, b, a, ok)
				}
			}
		})
	}
}
