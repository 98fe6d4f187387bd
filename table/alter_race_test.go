package table_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/schema/evolve"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestAlterRaceAppenders: 8 appenders and one schema changer commit to one
// table at once. The appenders build each batch under the schema they know
// (by field id: cpu is field 4, whatever its name); an append that raced a
// schema change rebases. Every acknowledged row is there exactly once,
// with the value appended, under the final schema's names.
func TestAlterRaceAppenders(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	// The whole history is kept (no bound by count): the check below
	// looks for the alters' interleaving among all the snapshots.
	if _, err := table.Create(ctx, st, testenv.New(1), loc, metricsSchema(t), map[string]string{"commit.retry.num-retries": "200", table.PropMaxSnapshots: "0"}); err != nil {
		t.Fatal(err)
	}
	const appenders, batches, per = 8, 6, 10
	type key struct {
		host string
		ts   int64
	}
	var mu sync.Mutex
	acked := map[key]float64{}
	var wg sync.WaitGroup
	errs := make(chan error, appenders*batches+10)
	for a := range appenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tb, err := table.Open(ctx, st, testenv.New(uint64(10+a)))
			if err != nil {
				errs <- err
				return
			}
			for k := range batches {
				sch := tb.Schema()
				name := func(id int) string {
					for _, f := range sch.Fields {
						if f.ID == id {
							return f.Name
						}
					}
					return ""
				}
				ms := make([]map[string]any, per)
				vals := map[key]float64{}
				for i := range ms {
					ts := day1.Add(time.Duration(k*per+i) * time.Second)
					host := fmt.Sprintf("a%d", a)
					v := float64(a*1000 + k*per + i)
					ms[i] = map[string]any{name(1): ts, name(2): host, name(3): "eu", name(4): v}
					vals[key{host, ts.UnixMicro()}] = v
				}
				b, err := rows.FromMaps(sch, ms, rows.Options{})
				if err != nil {
					errs <- err
					return
				}
				if _, err := tb.Append(ctx, b); err != nil {
					errs <- fmt.Errorf("appender %d batch %d: %w", a, k, err)
					continue // not acknowledged
				}
				mu.Lock()
				for kk, v := range vals {
					acked[kk] = v
				}
				mu.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tb, err := table.Open(ctx, st, testenv.New(99))
		if err != nil {
			errs <- err
			return
		}
		for i, c := range [][]evolve.Change{
			{{Op: evolve.Add, Column: "x1", Type: schema.Long}},
			{{Op: evolve.Rename, Column: "cpu", To: "load"}},
			{{Op: evolve.Add, Column: "x2", Type: schema.String}, {Op: evolve.Optional, Column: "region"}},
			{{Op: evolve.Rename, Column: "host", To: "node"}},
		} {
			// Each alter after some more appends, so that they interleave.
			for {
				mu.Lock()
				n := len(acked)
				mu.Unlock()
				if n >= (i+1)*appenders*per || n == appenders*batches*per {
					break
				}
				time.Sleep(time.Millisecond)
			}
			if _, err := tb.Alter(ctx, c); err != nil {
				errs <- fmt.Errorf("alter %v: %w", c, err)
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tb, err := table.Open(ctx, st, testenv.New(100))
	if err != nil {
		t.Fatal(err)
	}
	got := map[key]float64{}
	seen := 0
	if _, err := tb.Scan(ctx, table.ScanOptions{Raw: true}, func(b *rows.Batch) error {
		ts, host, load := b.Schema.Time, b.Schema.Series[0], b.Schema.Index("load")
		if load < 0 || b.Schema.Fields[host].Name != "node" {
			return fmt.Errorf("scan columns %v: want node and load", b.Schema.Fields)
		}
		for i := 0; i < b.Len; i++ {
			got[key{b.Cols[host].Strs[i], b.Cols[ts].Ints[i]}] = b.Cols[load].Floats[i]
			seen++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if seen != len(acked) || len(got) != len(acked) {
		t.Errorf("%d rows stored (%d keys), %d acknowledged", seen, len(got), len(acked))
	}
	for k, v := range acked {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("row %v: load %v (present %v), want %v", k, g, ok, v)
		}
	}
	if n := len(tb.Metadata().Schemas); n != 5 {
		t.Errorf("%d schemas, want 5", n)
	}
	// The appends interleaved with the alters: snapshots under several schemas.
	under := map[int]int{}
	for _, s := range tb.Metadata().Snapshots {
		if s.SchemaID != nil {
			under[*s.SchemaID]++
		}
	}
	if len(under) < 2 {
		t.Errorf("snapshots by schema id %v: the alters did not race the appends", under)
	}
	t.Logf("%d rows acknowledged by %d appenders racing 4 alters; snapshots by schema id %v", len(acked), appenders, under)
}
