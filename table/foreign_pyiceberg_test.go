package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/table"
)

// TestPyicebergAppendWithoutIngest: pyiceberg appends only the user's
// columns (no _ingest_ts) to a Timelake table, over keys Timelake wrote;
// then Timelake appends and compacts. Every outside reader and Timelake
// agree on the rows at each step: after compaction one row per key, the
// later commit's (pyiceberg's over the first append, the last append's
// over pyiceberg's).
func TestPyicebergAppendWithoutIngest(t *testing.T) {
	if testing.Short() {
		t.Skip("pyiceberg: skipped with -short")
	}
	py := interoptest.Python(t)
	ctx := context.Background()
	dir, st, tb := dirTable(t, testenv.New(51), interopSchema(t), nil)
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	key := func(h, m int) modelRow {
		return modelRow{ts: day.Add(time.Duration(m) * time.Minute).UnixMicro(), host: fmt.Sprintf("host-%d", h)}
	}
	latest := map[string]modelRow{} // key → the row that must win
	stored := map[string]modelRow{} // every row stored, by writer/key
	timelake := func(env table.Env, tag string, mem int64, keys []modelRow) {
		t.Helper()
		var ms []map[string]any
		for i, r := range keys {
			cpu := float64(mem + int64(i))
			r.cpu, r.mem = &cpu, mem+int64(i)
			ms = append(ms, map[string]any{"ts": time.UnixMicro(r.ts), "host": r.host, "shard": r.shard, "cpu": cpu, "mem": r.mem})
			k := fmt.Sprintf("%s/%d", r.host, r.ts)
			latest[k], stored[tag+k] = r, r
		}
		tb, err := table.Open(ctx, st, env)
		if err != nil {
			t.Fatal(err)
		}
		b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	var first []modelRow
	for h := range 3 {
		for m := range 20 {
			first = append(first, key(h, m))
		}
	}
	timelake(testenv.New(52), "a1/", 1000, first)

	// pyiceberg: host-0 and host-1, minutes 10–29 (half over the first
	// append's keys).
	var pyRows []map[string]any
	for h := range 2 {
		for m := 10; m < 30; m++ {
			r := key(h, m)
			cpu := float64(5000 + h*100 + m)
			r.cpu, r.mem = &cpu, int64(5000+h*100+m)
			pyRows = append(pyRows, map[string]any{"ts": r.ts, "host": r.host, "shard": 0, "cpu": cpu, "mem": r.mem})
			k := fmt.Sprintf("%s/%d", r.host, r.ts)
			latest[k], stored["py/"+k] = r, r
		}
	}
	rowsJSON, _ := json.Marshal(pyRows)
	work := t.TempDir()
	rowsPath := filepath.Join(work, "rows.json")
	if err := os.WriteFile(rowsPath, rowsJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := commit.Latest(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	// pyiceberg turns ts micros (ints) into timestamps itself.
	script := filepath.Join(interoptest.Root(), "table", "testdata", "pyiceberg_append.py")
	out, err := exec.Command(py, script, filepath.Join(dir, commit.MetadataKey(v.N)), rowsPath, work).CombinedOutput()
	if err != nil {
		t.Fatalf("pyiceberg append: %v\n%s", err, out)
	}
	written := strings.TrimPrefix(strings.TrimSpace(string(out)[strings.LastIndex(strings.TrimSpace(string(out)), "\n")+1:]), "file://")
	raw, err := os.ReadFile(written)
	if err != nil {
		t.Fatal(err)
	}
	// The table is storage-only: pyiceberg's metadata becomes the next version.
	if ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(v.N+1), raw); err != nil || !ok {
		t.Fatalf("copy pyiceberg's metadata to v%d: %v %v", v.N+1, ok, err)
	}
	_ = st.Put(ctx, "metadata/version-hint.text", []byte(strconv.Itoa(v.N+1)))

	// Timelake again, an hour later by its clock: host-0 minutes 25–34.
	later := testenv.New(53)
	now := later.Now
	later.Now = func() time.Time { return now().Add(time.Hour) }
	var third []modelRow
	for m := 25; m < 35; m++ {
		third = append(third, key(0, m))
	}
	timelake(later, "a3/", 9000, third)

	readers := interoptest.Readers(t)
	q := interoptest.Query{Time: "ts", Series: []string{"host", "shard"}, Sums: []string{"cpu", "mem"}}
	check := func(what string, want map[string]modelRow) {
		t.Helper()
		v, err := commit.Latest(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		m := &model{rows: want}
		for _, r := range readers {
			interoptest.ExpectSame(t, fmt.Sprintf("%s, %s (v%d)", r, what, v.N), m.summary(nil), interoptest.Summarize(t, r, filepath.Join(dir, commit.MetadataKey(v.N)), q))
		}
		tb, err := table.Open(ctx, st, testenv.New(54))
		if err != nil {
			t.Fatal(err)
		}
		info, err := tb.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.Rows != int64(len(want)) {
			t.Errorf("%s: info rows %d, want %d", what, info.Rows, len(want))
		}
	}
	check("after pyiceberg's and Timelake's appends", stored)

	tb, err = table.Open(ctx, st, later)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
	if err != nil { // pyarrow writes no page index: pages are found from their headers
		t.Fatal(err)
	}
	if res.Merges != 1 || res.RowsAfter != int64(len(latest)) {
		t.Errorf("maintain = %+v, want one merge to %d rows", res, len(latest))
	}
	check("after compaction", latest)
}
