package table_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// latestString renders Latest as host@minute=cpu, sorted by host.
func latestString(t testing.TB, b *rows.Batch) string {
	t.Helper()
	s := b.Schema
	var out []string
	host, ts, cpu := 0, s.Time, 0
	for i, f := range s.Fields {
		switch f.Name {
		case "host":
			host = i
		case "cpu":
			cpu = i
		}
	}
	for i := 0; i < b.Len; i++ {
		out = append(out, fmt.Sprintf("%s@%d=%g", b.Cols[host].Strs[i], (b.Cols[ts].Ints[i]-day1.UnixMicro())/60e6, b.Cols[cpu].Floats[i]))
	}
	return strings.Join(out, " ")
}

// rowsAt makes one row per (host, minute, cpu) on day1, _ingest_ts ingest.
func rowsAt(t testing.TB, tb *table.Table, ingest int64, rs ...struct {
	host string
	min  int
	cpu  float64
}) *rows.Batch {
	t.Helper()
	ms := make([]map[string]any, len(rs))
	for i, r := range rs {
		ms[i] = map[string]any{"ts": day1.Add(time.Duration(r.min) * time.Minute), "host": r.host, "region": "eu", "cpu": r.cpu, "mem": int64(1)}
	}
	b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows.SetIngest(b, ingest)
	return b
}

type hr = struct {
	host string
	min  int
	cpu  float64
}

func TestIndexCatchUp(t *testing.T) {
	const before = "h000@3=3 h001@4=4 h002@5=5" // batch(…, 6, 3)
	tests := []struct {
		name        string
		dropIndex   bool // delete the Timelake snapshot's index file first
		op          table.ForeignOp
		want        string // Latest after the foreign snapshot
		wantCode    string
		afterAppend string // Latest after the next Timelake append (of h005@2=7)
	}{
		{name: "foreign append", op: table.ForeignOp{},
			want: "h000@3=3 h001@10=100 h002@5=5 h009@1=200"},
		{name: "foreign append of an unsorted file", op: table.ForeignOp{Unsorted: true},
			want: "h000@3=3 h001@10=100 h002@5=5 h009@1=200"},
		{name: "foreign overwrite: rebuilt from every file", op: table.ForeignOp{Operation: "overwrite"},
			want: "h000@3=3 h001@10=100 h002@5=5 h009@1=200"},
		{name: "index file deleted, then a foreign append", dropIndex: true, op: table.ForeignOp{},
			want: "h000@3=3 h001@10=100 h002@5=5 h009@1=200"},
		{name: "foreign rows without _ingest_ts: a later commit wins a key's tie (rows.Rank)", op: table.ForeignOp{NoIngest: true},
			want: "h000@3=333 h001@10=100 h002@5=5 h009@1=200"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := memstore.New()
			env := testenv.New(7)
			tb, err := table.Create(ctx, st, env, loc, metricsSchema(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1, 6, 3)); err != nil {
				t.Fatal(err)
			}
			if got := latest(t, tb); got != before {
				t.Fatalf("before: %q, want %q", got, before)
			}
			if tc.dropIndex {
				k := tb.IndexKey(*tb.Metadata().CurrentSnapshotID)
				if k == "" || st.Delete(ctx, []string{k}) != nil {
					t.Fatalf("no index to delete (%q)", k)
				}
			}
			op := tc.op
			if op.Rows == nil {
				// h001 gets a newer row; h009 is new; h000 gets an older one (it must not win).
				op.Rows = rowsAt(t, tb, 1, hr{"h001", 10, 100}, hr{"h009", 1, 200}, hr{"h000", 1, 300})
			}
			if op.NoIngest {
				// The same, and a row of h000's latest key (minute 3) without _ingest_ts.
				op.Rows = rowsAt(t, tb, 1, hr{"h001", 10, 100}, hr{"h009", 1, 200}, hr{"h000", 1, 300}, hr{"h000", 3, 333})
				ing := &op.Rows.Cols[op.Rows.Schema.Ingest]
				ing.Nulls = make([]bool, op.Rows.Len)
				for i := range ing.Nulls {
					ing.Nulls[i] = true
				}
			}
			if _, err := table.CommitForeign(ctx, st, env, op); err != nil {
				t.Fatal(err)
			}
			tb, err = table.Open(ctx, st, env)
			if err != nil {
				t.Fatal(err)
			}
			objs := listKeys(t, st)
			got, err := tb.Latest(ctx)
			if tc.wantCode != "" {
				if code := table.Code(err); code != tc.wantCode {
					t.Fatalf("Latest = %v (code %q), want %s", err, code, tc.wantCode)
				}
				// (An append on it goes on without an index: the foreign
				// tests of delete files, with real delete files, cover it.)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := latestString(t, got); s != tc.want {
				t.Fatalf("Latest after the foreign snapshot = %q, want %q", s, tc.want)
			}
			if after := listKeys(t, st); after != objs {
				t.Fatalf("Latest wrote to the store:\nbefore %s\nafter  %s", objs, after)
			}
			res, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(2*time.Minute), 1, 1))
			if err != nil {
				t.Fatal(err)
			}
			// The appended row is h000@2=0, older than h000@3: the index is unchanged.
			want := tc.want
			if s := latest(t, tb); s != want {
				t.Fatalf("Latest after the next append = %q, want %q", s, want)
			}
			if tb.Metadata().StatisticsFor(res.SnapshotID) == nil {
				t.Fatalf("the append's snapshot has no statistics entry")
			}
			if k := tb.IndexKey(res.SnapshotID); !strings.HasSuffix(k, ".puffin") {
				t.Fatalf("index key %q", k)
			}
			// A fresh reader finds the stored index (no catch-up needed) and agrees.
			re, err := table.Open(ctx, st, env)
			if err != nil {
				t.Fatal(err)
			}
			if s := latest(t, re); s != want {
				t.Fatalf("reopened: %q, want %q", s, want)
			}
			mo := table.MaintainOptions{}
			if tc.op.Unsorted {
				mo = table.MaintainOptions{Retention: true, Expire: true, Orphans: true} // compaction of unsorted files is not ours here
			}
			if _, err := re.Maintain(ctx, mo); err != nil {
				t.Fatalf("maintain: %v", err)
			}
			if s := latest(t, re); s != want {
				t.Fatalf("after maintain: %q, want %q", s, want)
			}
		})
	}
}

func latest(t testing.TB, tb *table.Table) string {
	t.Helper()
	b, err := tb.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return latestString(t, b)
}

func listKeys(t testing.TB, st store.Store) string {
	t.Helper()
	objs, err := st.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for _, o := range objs {
		ks = append(ks, fmt.Sprintf("%s:%d", o.Key, o.Size))
	}
	return strings.Join(ks, ",")
}

// TestCatchUpMatchesStoredIndex: the index caught up after another engine
// appended a batch (pages of several thousand rows, nulls, sorted or not)
// is the index Timelake stores when it appends the same batch itself —
// every column of every series.
func TestCatchUpMatchesStoredIndex(t *testing.T) {
	for _, unsorted := range []bool{false, true} {
		t.Run(fmt.Sprintf("unsorted=%v", unsorted), func(t *testing.T) {
			ctx := context.Background()
			mk := func() (*memstore.Store, *table.Table) {
				st := memstore.New()
				tb, err := table.Create(ctx, st, testenv.New(9), loc, metricsSchema(t), map[string]string{"write.parquet.page-row-limit": "1000"})
				if err != nil {
					t.Fatal(err)
				}
				return st, tb
			}
			rowsOf := func(tb *table.Table) *rows.Batch {
				ms := make([]map[string]any, 12_000)
				for i := range ms {
					m := map[string]any{"ts": day1.Add(time.Duration(i/37) * time.Second), "host": fmt.Sprintf("h%02d", i%37),
						"region": []string{"eu", "us", "ap"}[i%3], "cpu": float64(i) / 8, "mem": int64(i)}
					if i%5 == 0 {
						m["cpu"] = nil
					}
					if i%7 == 0 {
						m["mem"] = nil
					}
					ms[i] = m
				}
				b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
				if err != nil {
					t.Fatal(err)
				}
				rows.SetIngest(b, 42)
				return b
			}
			_, own := mk()
			if _, err := own.Append(ctx, rowsOf(own)); err != nil {
				t.Fatal(err)
			}
			st, tb := mk()
			if _, err := table.CommitForeign(ctx, st, testenv.New(9), table.ForeignOp{Rows: rowsOf(tb), Unsorted: unsorted}); err != nil {
				t.Fatal(err)
			}
			tb, err := table.Open(ctx, st, testenv.New(9))
			if err != nil {
				t.Fatal(err)
			}
			want, err := own.Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tb.Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got.Len != 37 {
				t.Fatalf("%d series, want 37", got.Len)
			}
			// _ingest_ts differs (the append sets its own): compare the rest.
			if g, w := dumpRows(got), dumpRows(want); g != w {
				t.Fatalf("caught up:\n%s\nstored:\n%s", g, w)
			}
		})
	}
}

// dumpRows renders every column but _ingest_ts of every row (value).
func dumpRows(b *rows.Batch) string {
	var sb strings.Builder
	for i := 0; i < b.Len; i++ {
		for c := range b.Schema.Fields {
			if c == b.Schema.Ingest {
				continue
			}
			fmt.Fprint(&sb, value(b.Schema, b.Cols, c, i))
			sb.WriteByte(' ')
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}
