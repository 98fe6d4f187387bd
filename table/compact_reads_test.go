package table_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// rangeLog records every read of a data file: whole gets and ranges.
type rangeLog struct {
	store.Store
	mu     sync.Mutex
	gets   map[string]int
	ranges map[string][][2]int64 // key → (offset, length) in order
}

func (r *rangeLog) Get(ctx context.Context, key string) ([]byte, error) {
	r.mu.Lock()
	r.gets[key]++
	r.mu.Unlock()
	return r.Store.Get(ctx, key)
}

func (r *rangeLog) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	r.mu.Lock()
	r.ranges[key] = append(r.ranges[key], [2]int64{off, n})
	r.mu.Unlock()
	return r.Store.GetRange(ctx, key, off, n)
}

func (r *rangeLog) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gets, r.ranges = map[string]int{}, map[string][][2]int64{}
}

// readsTable makes files files of rowsEach rows each of one day, keys
// interleaved across the files, pages of 1,000 rows and a cpu column of
// random doubles (incompressible, 8 bytes a row: the files outgrow the
// 64 KiB tail the reader fetches first).
func readsTable(t *testing.T, files, rowsEach int) (*table.Table, *rangeLog, map[string]int64) {
	t.Helper()
	ctx := context.Background()
	st := &rangeLog{Store: memstore.New()}
	st.reset()
	props := map[string]string{table.PropPageRowLimit: "1000", maintenance.PropCompactMinFiles: "2", maintenance.PropByteCap: "0"}
	tb, err := table.Create(ctx, st, testenv.New(7), loc, metricsSchema(t), props)
	if err != nil {
		t.Fatal(err)
	}
	for f := range files {
		rnd := rand.New(rand.NewPCG(uint64(f), 1))
		ms := make([]map[string]any, rowsEach)
		for i := range ms {
			ms[i] = map[string]any{
				"ts": day1.Add(time.Duration(i*files+f) * time.Second / 2), "host": fmt.Sprintf("h%02d", i%10),
				"region": "eu", "cpu": rnd.Float64(), "mem": int64(i),
			}
		}
		b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	sizes := map[string]int64{}
	objs, err := st.List(ctx, "data/")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if strings.HasSuffix(o.Key, ".parquet") {
			sizes[o.Key] = o.Size
		}
	}
	if len(sizes) != files {
		t.Fatalf("%d data files, want %d", len(sizes), files)
	}
	st.reset()
	return tb, st, sizes
}

// compactReads compacts the table and checks its rows are the same; it
// returns the range reads of each input file.
func compactReads(t *testing.T, tb *table.Table, st *rangeLog, sizes map[string]int64) map[string][][2]int64 {
	t.Helper()
	before := scan(t, st, tb)
	st.reset()
	res, err := tb.Maintain(context.Background(), table.MaintainOptions{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Merges != 1 || res.FilesRead != len(sizes) {
		t.Fatalf("result = %+v, want one merge of the %d files", res, len(sizes))
	}
	reads := st.ranges
	for k := range sizes {
		if st.gets[k] > 0 {
			t.Errorf("compaction read %s whole (%d gets)", k, st.gets[k])
		}
	}
	sameRows(t, "after compaction", before, scan(t, st, tb))
	return reads
}

// A file no larger than the tail fetched for its footer costs one request.
func TestCompactionReadsSmallFileOnce(t *testing.T) {
	tb, st, sizes := readsTable(t, 3, 2_000)
	for k, size := range sizes {
		if size > 64<<10 {
			t.Fatalf("%s is %d bytes; the test needs files within the 64 KiB tail", k, size)
		}
	}
	for k, rs := range compactReads(t, tb, st, sizes) {
		if _, ok := sizes[k]; ok && len(rs) != 1 {
			t.Errorf("%s (%d bytes): %d range reads %v, want 1 (its tail holds it all)", k, sizes[k], len(rs), rs)
		}
	}
}

// A file larger than the tail whose row group fits in the merge's read
// budget costs two: the tail (footer, indexes) and the row group.
func TestCompactionReadsRowGroupWhole(t *testing.T) {
	tb, st, sizes := readsTable(t, 3, 30_000)
	for k, size := range sizes {
		if size <= 128<<10 {
			t.Fatalf("%s is %d bytes; the test needs files well past the 64 KiB tail", k, size)
		}
	}
	for k, rs := range compactReads(t, tb, st, sizes) {
		if _, ok := sizes[k]; ok && len(rs) != 2 {
			t.Errorf("%s (%d bytes): %d range reads %v, want 2", k, sizes[k], len(rs), rs)
		}
	}
}

// Under a budget smaller than the files, the merge streams them: no request
// is more than the window's pages or a share of the budget, and no byte is
// fetched twice (besides what the tail held).
func TestCompactionReadsStreamUnderBudget(t *testing.T) {
	for _, budget := range []int64{3 << 10, 3 * 96 << 10} {
		t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
			defer table.SetMergeReadBudget(budget)()
			tb, st, sizes := readsTable(t, 3, 30_000)
			for k, rs := range compactReads(t, tb, st, sizes) {
				size, ok := sizes[k]
				if !ok {
					continue
				}
				if len(rs) < 4 {
					t.Errorf("%s (%d bytes): %d range reads %v; a budget of %d should take more", k, size, len(rs), rs, budget)
				}
				var total int64
				for i, r := range rs {
					// The window of 8,192 rows of random doubles is about 66 KB.
					if i > 0 && r[1] > max(budget/3, 80<<10) {
						t.Errorf("%s (%d bytes): read %d of %d bytes, more than a window or the budget's share", k, size, i, r[1])
					}
					total += r[1]
				}
				if total > size+64<<10 {
					t.Errorf("%s (%d bytes): %d bytes fetched in %d reads, more than the file and its tail", k, size, total, len(rs))
				}
				t.Logf("%s (%d bytes): %d range reads, %d bytes", k, size, len(rs), total)
			}
		})
	}
}
