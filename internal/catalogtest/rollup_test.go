package catalogtest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/interoptest"
	"github.com/timelake/timelake/restcatalog"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/table"
)

// Rollups of catalog tables: the rollup is table NS.T__rollup_NAME of the
// same catalog. The rollup's rows are checked against a model of the raw
// table's deduplicated rows aggregated here (count, sum, min, max, last of
// cpu; max of mem, by host and hour), and read by pyiceberg and DuckDB
// through the catalog as a plain table.

const rollupAggs = "cpu:min,max,avg,last"

func hourlyDef(t *testing.T) rollup.Def {
	t.Helper()
	d, err := rollup.New("hourly", "1h", []string{rollupAggs, "mem:max"}, "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// rawRow is one row of the raw table; model is its deduplicated rows by
// (host, time): a later append of a key replaces it.
type rawRow struct {
	ts   int64
	host string
	cpu  *float64
	mem  int64
}

type model map[string]rawRow

// rowsAt are n rows from start, one a minute, hosts h00..h<hosts-1> in
// turn, cpu = base + i/4 (sums exact) and null for every 7th row.
func rowsAt(start time.Time, n, hosts int, base float64) []rawRow {
	out := make([]rawRow, n)
	for i := range out {
		out[i] = rawRow{ts: start.Add(time.Duration(i) * time.Minute).UnixMicro(), host: fmt.Sprintf("h%02d", i%hosts), mem: int64(i) + int64(base)}
		if i%7 != 3 {
			v := base + float64(i)/4
			out[i].cpu = &v
		}
	}
	return out
}

// append appends rs to tb and to the model.
func (m model) append(t *testing.T, ctx context.Context, tb *table.Table, rs []rawRow) {
	t.Helper()
	ms := make([]map[string]any, len(rs))
	for i, r := range rs {
		ms[i] = map[string]any{"ts": time.UnixMicro(r.ts).UTC(), "host": r.host, "mem": r.mem}
		if r.cpu != nil {
			ms[i]["cpu"] = *r.cpu
		}
		m[r.host+"|"+strconv.FormatInt(r.ts, 10)] = r
	}
	b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, b); err != nil {
		t.Fatalf("append: %v", err)
	}
}

// want is the hourly rollup of the model: "bucket host" → its columns as
// rollupRows prints them.
func (m model) want() map[string]string {
	type acc struct {
		n, cpuN         int64
		sum, min, max   float64
		last            *float64
		lastTS, mem     int64
		hasMin, hasLast bool
	}
	by := map[string]*acc{}
	for _, r := range m {
		k := fmt.Sprintf("%d %s", r.ts-r.ts%time.Hour.Microseconds(), r.host)
		a := by[k]
		if a == nil {
			a = &acc{mem: r.mem}
			by[k] = a
		}
		a.n++
		a.mem = max(a.mem, r.mem)
		if !a.hasLast || r.ts > a.lastTS {
			a.last, a.lastTS, a.hasLast = r.cpu, r.ts, true
		}
		if r.cpu == nil {
			continue
		}
		v := *r.cpu
		a.cpuN++
		a.sum += v
		if !a.hasMin {
			a.min, a.max, a.hasMin = v, v, true
		}
		a.min, a.max = min(a.min, v), max(a.max, v)
	}
	out := map[string]string{}
	for k, a := range by {
		f := func(v float64, ok bool) string {
			if !ok {
				return "null"
			}
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
		last := "null"
		if a.last != nil {
			last = f(*a.last, true)
		}
		out[k] = fmt.Sprintf("row_count=%d cpu_count=%d cpu_sum=%s cpu_min=%s cpu_max=%s cpu_last=%s mem_max=%d",
			a.n, a.cpuN, f(a.sum, a.cpuN > 0), f(a.min, a.hasMin), f(a.max, a.hasMin), last, a.mem)
	}
	return out
}

// rollupRows scans the rollup table (deduplicated: the later commit of a
// key wins) as want prints it.
func rollupRows(t *testing.T, ctx context.Context, ru *table.Table) map[string]string {
	t.Helper()
	out := map[string]string{}
	cols := []string{"row_count", "cpu_count", "cpu_sum", "cpu_min", "cpu_max", "cpu_last", "mem_max"}
	_, err := ru.Scan(ctx, table.ScanOptions{}, func(b *rows.Batch) error {
		idx := map[string]int{}
		for i, f := range b.Schema.Fields {
			idx[f.Name] = i
		}
		for i := 0; i < b.Len; i++ {
			k := fmt.Sprintf("%d %s", b.Cols[idx["bucket"]].Ints[i], b.Cols[idx["host"]].Strs[i])
			var parts []string
			for _, c := range cols {
				col, f := &b.Cols[idx[c]], b.Schema.Fields[idx[c]]
				v := "null"
				switch {
				case col.IsNull(i):
				case f.Type == schema.Double:
					v = strconv.FormatFloat(col.Floats[i], 'g', -1, 64)
				default:
					v = strconv.FormatInt(col.Ints[i], 10)
				}
				parts = append(parts, c+"="+v)
			}
			out[k] = strings.Join(parts, " ")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scan the rollup: %v", err)
	}
	// A bucket left with no rows is a row_count 0 row: absent from the model.
	for k, v := range out {
		if strings.HasPrefix(v, "row_count=0 ") {
			delete(out, k)
		}
	}
	return out
}

func sameRollup(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	var diffs []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		seen := map[string]bool{}
		for k := range want {
			seen[k] = true
		}
		for k := range got {
			seen[k] = true
		}
		for k := range seen {
			if !yield(k) {
				return
			}
		}
	}) {
		if want[k] != got[k] {
			diffs = append(diffs, fmt.Sprintf("  %s: got %q, want %q", k, got[k], want[k]))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("%s: %d of %d buckets differ:\n%s", what, len(diffs), len(want), strings.Join(diffs[:min(len(diffs), 10)], "\n"))
	}
}

// rollupSetup is a raw catalog table with three appends and its hourly
// rollup (not refreshed yet).
func rollupSetup(t *testing.T, ctx context.Context, cat *restcatalog.Client, sl *sleeps) (raw, ru *table.Table, m model) {
	return rollupSetupIn(t, ctx, cat, sl, storeFor(nil, os.Getenv))
}

func rollupSetupIn(t *testing.T, ctx context.Context, cat *restcatalog.Client, sl *sleeps, sf table.StoreFor) (raw, ru *table.Table, m model) {
	t.Helper()
	id := ident(t)
	raw, err := table.CreateInCatalog(ctx, cat, id, sl.env(), metrics(t), nil, "", sf)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	m = model{}
	m.append(t, ctx, raw, rowsAt(day, 180, 4, 0))
	ru, err = table.AddRollupInCatalog(ctx, raw, hourlyDef(t), sf)
	if err != nil {
		t.Fatalf("add rollup: %v", err)
	}
	m.append(t, ctx, raw, rowsAt(day.Add(3*time.Hour), 120, 4, 100))
	m.append(t, ctx, raw, rowsAt(day.Add(time.Hour+30*time.Minute), 20, 4, 500)) // late rows and duplicates
	return raw, ru, m
}

func refresh(t *testing.T, ctx context.Context, raw, ru *table.Table) *table.RefreshResult {
	t.Helper()
	d, err := rollup.Find(mustDefs(t, raw), "hourly")
	if err != nil {
		t.Fatal(err)
	}
	res, err := table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{})
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	return res
}

func mustDefs(t *testing.T, raw *table.Table) []rollup.Def {
	t.Helper()
	defs, err := rollup.Parse(raw.Metadata().Properties)
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// TestRollupInCatalog: add (the table in the catalog, the definition in
// the raw table's properties), refresh, appends with late rows and
// duplicates, incremental refreshes, reopen through the catalog, maintain;
// the rows equal the model's, and pyiceberg and DuckDB read the rollup
// table from the catalog as a plain table. Drop removes it from the catalog.
func TestRollupInCatalog(t *testing.T) {
	need(t)
	ctx := context.Background()
	var sl sleeps
	cat, tr := client(t, server, restcatalog.Config{}, &sl)
	raw, ru, m := rollupSetup(t, ctx, cat, &sl)
	_, rawID := raw.Catalog()
	ruID := table.RollupIdent(rawID, "hourly")
	if c, id := ru.Catalog(); c != cat || id.String() != ruID.String() || id.Name != rawID.Name+"__rollup_hourly" {
		t.Fatalf("the rollup table is %v, want %s in the same catalog", id, ruID)
	}
	d, err := rollup.Find(mustDefs(t, raw), "hourly")
	if err != nil {
		t.Fatal(err)
	}
	if d.Table != ruID.String() || d.Location != ru.Metadata().Location || !strings.HasPrefix(d.Location, server.Warehouse) {
		t.Errorf("definition: table %q location %q; want %s at %s, under the warehouse %s", d.Table, d.Location, ruID, ru.Metadata().Location, server.Warehouse)
	}
	_, err = table.AddRollupInCatalog(ctx, raw, hourlyDef(t), storeFor(nil, os.Getenv))
	if code(err) != "ROLLUP_EXISTS" {
		t.Errorf("add twice: %q (%v), want ROLLUP_EXISTS", code(err), err)
	}

	tr.reset()
	res := refresh(t, ctx, raw, ru)
	if res.Mode != "full" || !res.Committed {
		t.Errorf("first refresh: %+v", res)
	}
	// The rollup's commit went through the catalog.
	if got := tr.count("POST", "/tables/"+ruID.Name); got != 1 {
		t.Errorf("commit requests to the rollup table = %d, want 1 (%v)", got, tr.sent)
	}
	sameRollup(t, "full refresh", m.want(), rollupRows(t, ctx, ru))

	// More appends, one a rewrite of an old hour; incremental refreshes.
	m.append(t, ctx, raw, rowsAt(day.Add(5*time.Hour), 60, 4, 900))
	m.append(t, ctx, raw, rowsAt(day.Add(10*time.Minute), 30, 4, 1000))
	res = refresh(t, ctx, raw, ru)
	if res.Mode != "incremental" || res.Snapshots != 2 {
		t.Errorf("incremental refresh: %+v", res)
	}
	if res.Source != raw.Metadata().CurrentSnapshot().SnapshotID {
		t.Errorf("the rollup reflects %d, want the raw table's current %d", res.Source, raw.Metadata().CurrentSnapshot().SnapshotID)
	}
	// Reopened through the catalog, as another process would.
	re, err := table.OpenInCatalog(ctx, cat, rawID, sl.env(), storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatal(err)
	}
	reRU, err := table.OpenRollupInCatalog(ctx, re, d, storeFor(nil, os.Getenv))
	if err != nil {
		t.Fatalf("open rollup: %v", err)
	}
	sameRollup(t, "incremental refresh", m.want(), rollupRows(t, ctx, reRU))
	if res := refresh(t, ctx, re, reRU); res.Mode != "up-to-date" {
		t.Errorf("refresh with nothing new: %+v", res)
	}

	// Compact the rollup table (its later rows of a key replace the older):
	// then readers without Timelake's rule see one row per key too.
	if err := reRU.SetProperties(ctx, map[string]string{"timelake.compact-min-files": "2", "timelake.compact-cold-after": "0s"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := reRU.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
		t.Fatalf("maintain the rollup table: %v", err)
	}
	want := m.want()
	sameRollup(t, "after compaction", want, rollupRows(t, ctx, reRU))
	var wantRows, wantCount int64
	var wantSum float64
	for _, v := range want {
		var n, c int64
		var s string
		fmt.Sscanf(v, "row_count=%d cpu_count=%d cpu_sum=%s", &n, &c, &s)
		wantRows++
		wantCount += n
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			wantSum += f
		}
	}
	q := interoptest.Query{Time: "bucket", Series: []string{"host"}, Sums: []string{"row_count", "cpu_sum"}}
	for _, r := range []interoptest.Reader{interoptest.PyIceberg, interoptest.DuckDB} {
		s, err := interoptest.CatalogSummary(server, interoptest.CatalogAuth{Token: testToken}, r, ruID.String(), q)
		if err != nil {
			t.Errorf("%s reads %s: %v", r, ruID, err)
			continue
		}
		if s.Rows != wantRows || s.Sums["row_count"].Int().Int64() != wantCount || s.Sums["cpu_sum"].Float() != wantSum || s.DistinctSeries != 4 {
			t.Errorf("%s reads %s: %d rows, row_count sum %v, cpu_sum %v, %d series; want %d, %d, %v, 4",
				r, ruID, s.Rows, s.Sums["row_count"], s.Sums["cpu_sum"], s.DistinctSeries, wantRows, wantCount, wantSum)
		}
	}

	// Drop: the catalog forgets the table (its files stay), then the definition.
	gotID, loc, err := table.DropRollupInCatalog(ctx, re, "hourly")
	if err != nil || gotID != ruID.String() || loc != d.Location {
		t.Fatalf("drop = %q, %q, %v; want %s at %s", gotID, loc, err, ruID, d.Location)
	}
	if _, err := table.OpenInCatalog(ctx, cat, ruID, sl.env(), storeFor(nil, os.Getenv)); code(err) != "NO_TABLE" {
		t.Errorf("the dropped rollup table opens: %q (%v), want NO_TABLE", code(err), err)
	}
	if metadataFiles(t, loc) == 0 {
		t.Errorf("the dropped rollup table's files are gone from %s (a drop without purge keeps them)", loc)
	}
	if defs := mustDefs(t, re); len(defs) != 0 {
		t.Errorf("definitions after drop: %+v", defs)
	}
	if _, _, err := table.DropRollupInCatalog(ctx, re, "hourly"); code(err) != "NO_ROLLUP" {
		t.Errorf("drop twice: %q (%v), want NO_ROLLUP", code(err), err)
	}
}

// TestRollupInCatalogFaults fails one catalog request of a refresh, before
// the server sees it or after (its answer lost), for each request the
// refresh sends; a rerun then leaves the rollup exact and reflecting the
// raw table's current snapshot, its rows committed once.
func TestRollupInCatalogFaults(t *testing.T) {
	need(t)
	ctx := context.Background()
	// The requests of a clean refresh, counted once.
	var sl sleeps
	cat, tr := client(t, server, restcatalog.Config{}, &sl)
	raw, ru, _ := rollupSetup(t, ctx, cat, &sl)
	tr.reset()
	refresh(t, ctx, raw, ru)
	n := len(tr.sent)
	if n < 3 {
		t.Fatalf("a refresh sent %d catalog requests (%v): want the loads and the commit at least", n, tr.sent)
	}
	for i := 1; i <= n; i++ {
		for _, after := range []bool{false, true} {
			t.Run(fmt.Sprintf("request %d after=%v", i, after), func(t *testing.T) {
				var sl sleeps
				cat, tr := client(t, server, restcatalog.Config{}, &sl)
				raw, ru, m := rollupSetup(t, ctx, cat, &sl)
				var mu sync.Mutex
				seen := 0
				var failed string
				tr.setFault(func(req *restcatalog.Request, forward func() (*restcatalog.Response, error)) (*restcatalog.Response, error) {
					mu.Lock()
					seen++
					hit := seen == i
					if hit {
						failed = req.Method + " " + req.URL
					}
					mu.Unlock()
					if !hit {
						return forward()
					}
					if after {
						forward()
					}
					return nil, errForced
				})
				d, _ := rollup.Find(mustDefs(t, raw), "hourly")
				_, ferr := table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{})
				tr.setFault(nil)
				t.Logf("failed %s: refresh %v", failed, ferr)
				// The rerun, as a new process would.
				ru2 := rerun(t, ctx, cat, raw, d, sl.env(), storeFor(nil, os.Getenv))
				sameRollup(t, "after a fault and a rerun", m.want(), rollupRows(t, ctx, ru2))
				// One full refresh committed (a resent commit must not land twice).
				if info, err := ru2.Info(ctx); err != nil || info.Snapshots != 1 {
					t.Errorf("rollup snapshots = %+v (%v), want 1", info, err)
				}
			})
		}
	}
}

// rerun opens raw and its rollup d anew from the catalog, as a new process
// would after a failed refresh, and refreshes the rollup: it must reflect
// the raw table's current snapshot. It returns the rollup table.
func rerun(t *testing.T, ctx context.Context, cat *restcatalog.Client, raw *table.Table, d rollup.Def, env table.Env, sf table.StoreFor) *table.Table {
	t.Helper()
	_, rawID := raw.Catalog()
	raw2, err := table.OpenInCatalog(ctx, cat, rawID, env, sf)
	if err != nil {
		t.Fatal(err)
	}
	ru2, err := table.OpenRollupInCatalog(ctx, raw2, d, sf)
	if err != nil {
		t.Fatal(err)
	}
	res := refresh(t, ctx, raw2, ru2)
	if cur := raw2.Metadata().CurrentSnapshot().SnapshotID; res.Source != cur {
		t.Errorf("after the rerun the rollup reflects %d, want %d", res.Source, cur)
	}
	return ru2
}

// faultStore fails its stores' n-th request from when it is armed (the
// raw table's and the rollup's count together); after it, every request
// goes through again.
type faultStore struct {
	store.Store
	f *faults
}

type faults struct {
	armed atomic.Bool
	seen  atomic.Int64
	at    int64
	hit   atomic.Value // the request failed
}

func (f *faults) fail(op, key string) error {
	if !f.armed.Load() {
		return nil
	}
	if f.seen.Add(1) == f.at {
		f.hit.Store(op + " " + key)
		return errForced
	}
	return nil
}

func (s faultStore) Get(ctx context.Context, key string) ([]byte, error) {
	if err := s.f.fail("get", key); err != nil {
		return nil, err
	}
	return s.Store.Get(ctx, key)
}

func (s faultStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if err := s.f.fail("get-range", key); err != nil {
		return nil, err
	}
	return s.Store.GetRange(ctx, key, off, n)
}

func (s faultStore) Put(ctx context.Context, key string, data []byte) error {
	if err := s.f.fail("put", key); err != nil {
		return err
	}
	return s.Store.Put(ctx, key, data)
}

func (s faultStore) PutIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	if err := s.f.fail("put-if-absent", key); err != nil {
		return false, err
	}
	return s.Store.PutIfAbsent(ctx, key, data)
}

func (s faultStore) List(ctx context.Context, prefix string) ([]store.Object, error) {
	if err := s.f.fail("list", prefix); err != nil {
		return nil, err
	}
	return s.Store.List(ctx, prefix)
}

// TestRollupInCatalogStoreFaults fails each store request of a refresh in
// turn (reads of the raw table's files, the rollup's data file and
// manifests): the refresh fails or not, and a rerun leaves the rollup exact.
func TestRollupInCatalogStoreFaults(t *testing.T) {
	need(t)
	ctx := context.Background()
	run := func(t *testing.T, at int64) (int64, *faults) {
		var sl sleeps
		cat, _ := client(t, server, restcatalog.Config{}, &sl)
		f := &faults{at: at}
		sf := func(loc string, vended map[string]string) (store.Store, error) {
			st, err := storeFor(nil, os.Getenv)(loc, vended)
			return faultStore{st, f}, err
		}
		raw, ru, m := rollupSetupIn(t, ctx, cat, &sl, sf)
		d, _ := rollup.Find(mustDefs(t, raw), "hourly")
		f.armed.Store(true)
		_, ferr := table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{})
		f.armed.Store(false)
		if at > 0 {
			t.Logf("failed %v: refresh %v", f.hit.Load(), ferr)
		}
		n := f.seen.Load()
		ru2 := rerun(t, ctx, cat, raw, d, sl.env(), sf)
		sameRollup(t, "after a store fault and a rerun", m.want(), rollupRows(t, ctx, ru2))
		return n, f
	}
	n, _ := run(t, 0)
	if n < 3 {
		t.Fatalf("a refresh made %d store requests; want the raw reads and the rollup's writes", n)
	}
	for at := int64(1); at <= n; at++ {
		t.Run(fmt.Sprintf("request %d of %d", at, n), func(t *testing.T) { run(t, at) })
	}
}
