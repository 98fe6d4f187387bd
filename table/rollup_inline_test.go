package table_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// inlineModel is the exact hourly rollup (mem: sum, max, min) of the rows
// appended, by host and bucket; keys (host, ts) are never repeated.
type inlineModel map[string][4]int64 // "host bucket" → rows, sum, max, min

func (m inlineModel) add(host string, ts time.Time, mem int64) {
	k := host + " " + ts.Truncate(time.Hour).UTC().Format(time.RFC3339)
	a, ok := m[k]
	if !ok {
		a = [4]int64{0, 0, mem, mem}
	}
	a[0]++
	a[1] += mem
	a[2] = max(a[2], mem)
	a[3] = min(a[3], mem)
	m[k] = a
}

func (m inlineModel) String() string {
	var out []string
	for k, a := range m {
		out = append(out, fmt.Sprintf("%s rows=%d sum=%d max=%d min=%d", k, a[0], a[1], a[2], a[3]))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// inlineRollupText renders the rollup table's rows as inlineModel does.
func inlineRollupText(t *testing.T, ru *table.Table) string {
	t.Helper()
	got := inlineModel{}
	_, err := ru.Scan(context.Background(), table.ScanOptions{}, func(b *rows.Batch) error {
		s := b.Schema
		col := func(n string) *rows.Column { return &b.Cols[s.Index(n)] }
		for i := 0; i < b.Len; i++ {
			k := col("host").Strs[i] + " " + time.UnixMicro(col("bucket").Ints[i]).UTC().Format(time.RFC3339)
			got[k] = [4]int64{col("row_count").Ints[i], col("mem_sum").Ints[i], col("mem_max").Ints[i], col("mem_min").Ints[i]}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got.String()
}

// inlineTable creates a raw table with an hourly rollup (mem: sum, max,
// min) in its own store, and timelake.rollup.inline=true.
func inlineTable(t *testing.T) (raw *table.Table, rawSt, ruSt *memstore.Store, d rollup.Def) {
	t.Helper()
	ctx := context.Background()
	rawSt, ruSt = memstore.New(), memstore.New()
	raw, err := table.Create(ctx, rawSt, testenv.New(1), loc, metricsSchema(t), map[string]string{"commit.retry.num-retries": "200"})
	if err != nil {
		t.Fatal(err)
	}
	d, err = rollup.New("hourly", "1h", []string{"mem:sum,max,min"}, "")
	if err != nil {
		t.Fatal(err)
	}
	d.Location = rollup.SiblingLocation(loc, d.Name)
	if _, err := table.AddRollup(ctx, raw, ruSt, d); err != nil {
		t.Fatal(err)
	}
	if err := raw.SetProperties(ctx, map[string]string{rollup.PropInline: "true"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	return raw, rawSt, ruSt, d
}

func memRows(t *testing.T, tb *table.Table, m inlineModel, host string, from time.Time, n int, step time.Duration, mem func(i int) int64) *rows.Batch {
	t.Helper()
	ms := make([]map[string]any, n)
	for i := range ms {
		ts := from.Add(time.Duration(i) * step)
		ms[i] = map[string]any{"ts": ts, "host": host, "region": "eu", "mem": mem(i)}
		m.add(host, ts, mem(i))
	}
	b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRollupInlineRefresh: appends followed by InlineRefresh keep the
// rollup equal to the exact aggregates, late rows (an old bucket) too; a
// rollup whose table cannot be opened is an outcome with its code, and the
// next inline refresh that can open it catches up.
func TestRollupInlineRefresh(t *testing.T) {
	ctx := context.Background()
	raw, _, ruSt, _ := inlineTable(t)
	ru, err := table.Open(ctx, ruSt, testenv.New(2))
	if err != nil {
		t.Fatal(err)
	}
	open := func(rollup.Def) (*table.Table, error) { return ru, nil }
	m := inlineModel{}
	steps := []struct {
		host string
		from time.Time
		n    int
	}{
		{"a", day1, 90},                        // two buckets
		{"b", day1.Add(30 * time.Minute), 60},  // another series
		{"a", day1.Add(90 * time.Minute), 60},  // later rows, one bucket shared
		{"a", day1.Add(30*time.Second + 0), 5}, // late rows in the first bucket
	}
	for i, s := range steps {
		if _, err := raw.Append(ctx, memRows(t, raw, m, s.host, s.from, s.n, time.Minute, func(j int) int64 { return int64(100*i + j) })); err != nil {
			t.Fatal(err)
		}
		outs := table.InlineRefresh(ctx, raw, open, table.RefreshOptions{})
		if len(outs) != 1 || outs[0].Err != nil || outs[0].Result == nil || !outs[0].Result.Committed {
			t.Fatalf("step %d: outcomes %+v", i, outs)
		}
		if got, want := outs[0].Result.Source, *raw.Metadata().CurrentSnapshotID; got != want {
			t.Errorf("step %d: the rollup reflects snapshot %d, want the append's %d", i, got, want)
		}
		if got, want := inlineRollupText(t, ru), m.String(); got != want {
			t.Fatalf("step %d: rollup:\n%s\nwant:\n%s", i, got, want)
		}
	}

	// No store: an outcome with the code, the append stands.
	broken := func(d rollup.Def) (*table.Table, error) { return nil, table.NoRollupStore(d, "none given") }
	before := raw.Version()
	if _, err := raw.Append(ctx, memRows(t, raw, m, "c", day1, 3, time.Minute, func(j int) int64 { return int64(j) })); err != nil {
		t.Fatal(err)
	}
	outs := table.InlineRefresh(ctx, raw, broken, table.RefreshOptions{})
	if len(outs) != 1 || outs[0].Code() != table.CodeNoRollupStore || !strings.Contains(outs[0].Warning(), "hourly [NO_ROLLUP_STORE]") {
		t.Fatalf("outcomes without a store: %+v (warning %q)", outs, outs[0].Warning())
	}
	if raw.Version() <= before {
		t.Errorf("the append did not stand: version %d, before %d", raw.Version(), before)
	}
	// A failing store of the rollup: the error's own code.
	failing := func(d rollup.Def) (*table.Table, error) {
		_, err := table.Open(ctx, memstore.New(), testenv.New(3))
		return nil, err
	}
	outs = table.InlineRefresh(ctx, raw, failing, table.RefreshOptions{})
	if len(outs) != 1 || outs[0].Code() != "NO_TABLE" {
		t.Fatalf("outcomes with an empty store: %+v", outs)
	}
	// The next inline refresh catches up.
	outs = table.InlineRefresh(ctx, raw, open, table.RefreshOptions{})
	if res, warns := table.InlineResults(outs); len(warns) != 0 || len(res) != 1 || res[0].Buckets != 1 {
		t.Fatalf("catch-up: %+v %v", res, warns)
	}
	if got, want := inlineRollupText(t, ru), m.String(); got != want {
		t.Fatalf("after the catch-up: rollup:\n%s\nwant:\n%s", got, want)
	}

	// Not inline: nothing runs.
	if err := raw.SetProperties(ctx, map[string]string{rollup.PropInline: "false"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	called := false
	if outs := table.InlineRefresh(ctx, raw, func(rollup.Def) (*table.Table, error) { called = true; return ru, nil }, table.RefreshOptions{}); outs != nil || called {
		t.Errorf("inline=false: outcomes %+v, opened %v", outs, called)
	}
	// A bad inline property: one outcome, BAD_ROLLUP.
	if err := raw.SetProperties(ctx, map[string]string{rollup.PropInline: "yes"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if outs := table.InlineRefresh(ctx, raw, open, table.RefreshOptions{}); len(outs) != 1 || outs[0].Code() != rollup.CodeBadRollup {
		t.Errorf("inline=yes: outcomes %+v", outs)
	}
}

// TestRollupInlineConcurrent: appenders on one store, each with its own
// Tables of the raw table and of the rollup, append rows of overlapping
// buckets and refresh inline at once. No bucket update is lost: at the end
// the rollup equals the exact aggregates, with no refresh after the last
// append's own (a refresh that lost to another retries; one that gave up
// would show here as a stale bucket).
func TestRollupInlineConcurrent(t *testing.T) {
	ctx := context.Background()
	_, rawSt, ruSt, _ := inlineTable(t)
	const appenders, batches = 4, 5
	var mu sync.Mutex
	m := inlineModel{}
	var wg sync.WaitGroup
	errs := make(chan error, appenders*batches)
	conflicts := 0
	for a := range appenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, err := table.Open(ctx, rawSt, testenv.New(uint64(10+a)))
			if err != nil {
				errs <- err
				return
			}
			ru, err := table.Open(ctx, ruSt, testenv.New(uint64(20+a)))
			if err != nil {
				errs <- err
				return
			}
			for k := range batches {
				mine := inlineModel{}
				// Every appender writes every bucket of the day's first
				// three hours: host h<k%2>, its own seconds.
				b := memRows(t, raw, mine, fmt.Sprintf("h%d", k%2), day1.Add(time.Duration(a*batches+k)*time.Second), 6, 30*time.Minute, func(j int) int64 { return int64(1000*a + 10*k + j) })
				if _, err := raw.Append(ctx, b); err != nil {
					errs <- fmt.Errorf("appender %d batch %d: %w", a, k, err)
					return
				}
				mu.Lock()
				for key, v := range mine {
					if w, ok := m[key]; ok {
						v = [4]int64{v[0] + w[0], v[1] + w[1], max(v[2], w[2]), min(v[3], w[3])}
					}
					m[key] = v
				}
				mu.Unlock()
				for _, o := range table.InlineRefresh(ctx, raw, func(rollup.Def) (*table.Table, error) { return ru, nil }, table.RefreshOptions{}) {
					var re *rollup.Error
					if errors.As(o.Err, &re) && re.Code == rollup.CodeConflict {
						mu.Lock()
						conflicts++
						mu.Unlock()
						continue // the retries ran out: another writer's refresh catches up
					}
					if o.Err != nil {
						errs <- fmt.Errorf("appender %d batch %d: %s", a, k, o.Warning())
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ru, err := table.Open(ctx, ruSt, testenv.New(99))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := table.Open(ctx, rawSt, testenv.New(98))
	if err != nil {
		t.Fatal(err)
	}
	src, _, _ := table.RollupSource(ru.Metadata().CurrentSnapshot())
	if cur := *raw.Metadata().CurrentSnapshotID; src != cur {
		t.Errorf("the rollup reflects raw snapshot %d, the table is at %d (conflicts that ran out of retries: %d)", src, cur, conflicts)
	}
	if got, want := inlineRollupText(t, ru), m.String(); got != want {
		t.Fatalf("rollup after concurrent inline appends:\n%s\nwant:\n%s", got, want)
	}
}
