package table_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// scanRow is a row of metricsSchema as the scan tests model it.
type scanRow struct {
	ts     int64
	host   string
	region string
	cpu    float64
	cpuNil bool
	mem    int64
}

// scanModel is every row appended, in order, per append.
type scanModel struct {
	appends [][]scanRow
}

// visible is the rows a reader sees: one per key, the last append's (the
// later _ingest_ts), within an append the last row.
func (m *scanModel) visible() []scanRow {
	byKey := map[string]scanRow{}
	for _, a := range m.appends {
		for _, r := range a {
			byKey[r.host+"\x00"+strconv.FormatInt(r.ts, 10)] = r
		}
	}
	out := make([]scanRow, 0, len(byKey))
	for _, r := range byKey {
		out = append(out, r)
	}
	sortScanRows(out)
	return out
}

func sortScanRows(rs []scanRow) {
	slices.SortStableFunc(rs, func(a, b scanRow) int {
		if c := strings.Compare(a.host, b.host); c != 0 {
			return c
		}
		return cmp.Compare(a.ts, b.ts)
	})
}

// filterRows is the brute-force filter of opt over rs, rendered as Scan's
// output is by renderBatch.
func filterRows(rs []scanRow, opt table.ScanOptions) []string {
	var out []string
	for _, r := range rs {
		if opt.FromUS != nil && r.ts < *opt.FromUS || opt.ToUS != nil && r.ts >= *opt.ToUS {
			continue
		}
		if vs, ok := opt.Series["host"]; ok && !slices.Contains(vs, any(r.host)) {
			continue
		}
		out = append(out, renderRow(r, opt.Columns))
		if opt.Limit > 0 && len(out) == opt.Limit {
			break
		}
	}
	return out
}

func renderRow(r scanRow, cols []string) string {
	cpu := strconv.FormatFloat(r.cpu, 'g', -1, 64)
	if r.cpuNil {
		cpu = "null"
	}
	vals := map[string]string{"ts": strconv.FormatInt(r.ts, 10), "host": r.host, "region": r.region, "cpu": cpu, "mem": strconv.FormatInt(r.mem, 10)}
	names := []string{"ts", "host", "region", "cpu", "mem"}
	var out []string
	for _, n := range names {
		if n == "ts" || n == "host" || len(cols) == 0 || slices.Contains(cols, n) {
			out = append(out, n+"="+vals[n])
		}
	}
	return strings.Join(out, " ")
}

func renderBatch(b *rows.Batch) []string {
	var out []string
	for i := 0; i < b.Len; i++ {
		var parts []string
		for c, f := range b.Schema.Fields {
			col := &b.Cols[c]
			v := "null"
			if !col.IsNull(i) {
				switch {
				case f.Type.IsInteger():
					v = strconv.FormatInt(col.Ints[i], 10)
				case f.Type.IsFloat():
					v = strconv.FormatFloat(col.Floats[i], 'g', -1, 64)
				case f.Type == schema.Boolean:
					v = strconv.FormatBool(col.Bools[i])
				default:
					v = col.Strs[i]
				}
			}
			parts = append(parts, f.Name+"="+v)
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

func scanRows(ctx context.Context, tb *table.Table, opt table.ScanOptions) ([]string, *table.ScanStats, error) {
	var out []string
	st, err := tb.Scan(ctx, opt, func(b *rows.Batch) error {
		out = append(out, renderBatch(b)...)
		return nil
	})
	return out, st, err
}

func toBatch(t testing.TB, s *schema.Table, rs []scanRow) *rows.Batch {
	t.Helper()
	ms := make([]map[string]any, len(rs))
	for i, r := range rs {
		m := map[string]any{"ts": time.UnixMicro(r.ts).UTC(), "host": r.host, "region": r.region, "mem": r.mem}
		if !r.cpuNil {
			m["cpu"] = r.cpu
		}
		ms[i] = m
	}
	b, err := rows.FromMaps(s, ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// smallPages are table properties forcing many pages and row groups.
var smallPages = map[string]string{"write.parquet.page-row-limit": "16", "write.parquet.row-group-size-bytes": "2048", "timelake.auto-maintain": "false"}

// scanTable writes appends of random rows over 3 days and 6 hosts, many of
// them rewriting keys of earlier appends.
func scanTable(t testing.TB, st store.Store, seed uint64, appends, perAppend int) (*table.Table, *scanModel) {
	t.Helper()
	return scanTableOf(t, st, seed, appends, perAppend, metricsSchema(t), smallPages)
}

// scanTableOf is scanTable with a schema and properties of its own.
func scanTableOf(t testing.TB, st store.Store, seed uint64, appends, perAppend int, sch *schema.Table, props map[string]string) (*table.Table, *scanModel) {
	t.Helper()
	ctx := context.Background()
	tb, err := table.Create(ctx, st, testenv.New(seed), loc, sch, props)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	m := &scanModel{}
	step, steps := time.Minute, 3*24*60
	if perAppend > 10000 { // large appends: times a second apart, few duplicates
		step, steps = time.Second, 3*24*3600
	}
	for a := 0; a < appends; a++ {
		var rs []scanRow
		for i := 0; i < perAppend; i++ {
			r := scanRow{
				ts:     day1.Add(time.Duration(rng.IntN(steps)) * step).UnixMicro(),
				host:   fmt.Sprintf("h%d", rng.IntN(6)),
				region: []string{"eu", "us", "ap"}[rng.IntN(3)],
				cpu:    float64(rng.IntN(1000)) / 10,
				cpuNil: rng.IntN(7) == 0,
				mem:    int64(a*100000 + i),
			}
			rs = append(rs, r)
		}
		if _, err := tb.Append(ctx, toBatch(t, tb.Schema(), rs)); err != nil {
			t.Fatal(err)
		}
		m.appends = append(m.appends, rs)
	}
	return tb, m
}

func us(t time.Time) *int64 { v := t.UnixMicro(); return &v }

// scanCases are filters crossing partitions, row groups and pages.
func scanCases() []struct {
	name string
	opt  table.ScanOptions
} {
	return []struct {
		name string
		opt  table.ScanOptions
	}{
		{"all", table.ScanOptions{}},
		{"one day", table.ScanOptions{FromUS: us(day1.Add(24 * time.Hour)), ToUS: us(day1.Add(48 * time.Hour))}},
		{"across a partition edge", table.ScanOptions{FromUS: us(day1.Add(23 * time.Hour)), ToUS: us(day1.Add(26 * time.Hour))}},
		{"from only", table.ScanOptions{FromUS: us(day1.Add(50 * time.Hour))}},
		{"to only", table.ScanOptions{ToUS: us(day1.Add(3 * time.Hour))}},
		{"one series", table.ScanOptions{Series: map[string][]any{"host": {"h2"}}}},
		{"one series one hour", table.ScanOptions{Series: map[string][]any{"host": {"h3"}}, FromUS: us(day1.Add(30 * time.Hour)), ToUS: us(day1.Add(31 * time.Hour))}},
		{"two series", table.ScanOptions{Series: map[string][]any{"host": {"h0", "h5"}}, FromUS: us(day1.Add(10 * time.Hour))}},
		{"absent series", table.ScanOptions{Series: map[string][]any{"host": {"nope"}}}},
		{"empty range", table.ScanOptions{FromUS: us(day1.Add(-48 * time.Hour)), ToUS: us(day1.Add(-24 * time.Hour))}},
		{"projection", table.ScanOptions{Columns: []string{"mem"}, Series: map[string][]any{"host": {"h1"}}}},
		{"limit", table.ScanOptions{Limit: 37, FromUS: us(day1.Add(5 * time.Hour))}},
		{"small batches", table.ScanOptions{BatchRows: 7, Series: map[string][]any{"host": {"h4"}}}},
	}
}

func TestScanMatchesBruteForce(t *testing.T) {
	noIngest, err := schema.NewWithoutIngest("ts", []string{"host"}, metricsSchema(t).Fields[2:4+1], schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	with := func(kv ...string) map[string]string {
		p := map[string]string{}
		for k, v := range smallPages {
			p[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			p[kv[i]] = kv[i+1]
		}
		return p
	}
	hourly := metricsSchema(t)
	hourly.Partition = schema.Hour
	tables := []struct {
		name  string
		sch   *schema.Table
		props map[string]string
	}{
		{"small pages", metricsSchema(t), smallPages},
		{"default pages", metricsSchema(t), map[string]string{"timelake.auto-maintain": "false"}},
		{"compat mode", metricsSchema(t), with("timelake.parquet-compat", "true")},
		{"hour partitions", hourly, smallPages},
		{"without _ingest_ts", noIngest, smallPages},
	}
	for k, tt := range tables {
		t.Run(tt.name, func(t *testing.T) {
			tb, m := scanTableOf(t, memstore.New(), uint64(11+k), 6, 400, tt.sch, tt.props)
			bruteForce(t, tb, m)
		})
	}
	// windows of a few rows (splitting pages), no read-ahead, no coalescing
	t.Run("tiny windows", func(t *testing.T) {
		defer table.SetScanWindows(5, 1, 0)()
		tb, m := scanTable(t, memstore.New(), 19, 6, 400)
		bruteForce(t, tb, m)
	})
	// files past the 64 KiB tail kept from opening them: pages fetched by range
	for _, w := range []struct {
		name              string
		rows, budget, gap int64
	}{{"large files", 8192, 2 << 20, 64 << 10}, {"large files, small windows", 100, 4000, 0}} {
		t.Run(w.name, func(t *testing.T) {
			defer table.SetScanWindows(w.rows, w.budget, w.gap)()
			tb, m := scanTableOf(t, memstore.New(), 21, 2, 40000, metricsSchema(t), with("write.parquet.page-row-limit", "500"))
			files, err := tb.DataFiles(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.FileSize <= 64<<10 {
					t.Fatalf("a file of %d bytes: want each past 64 KiB", f.FileSize)
				}
			}
			bruteForce(t, tb, m)
		})
	}
	t.Run("tiny read-ahead", func(t *testing.T) {
		defer table.SetScanWindows(3, 200, 10)()
		tb, m := scanTableOf(t, memstore.New(), 20, 6, 400, metricsSchema(t), with("write.parquet.page-row-limit", "7"))
		bruteForce(t, tb, m)
	})
}

func bruteForce(t *testing.T, tb *table.Table, m *scanModel) {
	ctx := context.Background()
	vis := m.visible()
	for _, tc := range scanCases() {
		t.Run(tc.name, func(t *testing.T) {
			got, st, err := scanRows(ctx, tb, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			want := filterRows(vis, tc.opt)
			if !slices.Equal(got, want) {
				t.Fatalf("got %d rows, want %d\nfirst diff: %s", len(got), len(want), firstDiff(got, want))
			}
			if st.Rows != int64(len(want)) {
				t.Errorf("stats rows %d, want %d", st.Rows, len(want))
			}
		})
	}
}

func firstDiff(got, want []string) string {
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("row %d: got %q, want %q", i, g, w)
		}
	}
	return ""
}
