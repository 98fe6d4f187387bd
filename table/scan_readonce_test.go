package table_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// dataReads sums r's range reads of data files (keys under data/).
func dataReads(r *rangeLog) (requests int, bytes int64) {
	for key, rs := range r.ranges {
		if strings.HasPrefix(key, "data/") {
			requests += len(rs)
			for _, x := range rs {
				bytes += x[1]
			}
		}
	}
	return requests, bytes
}

// overlaps is the bytes of key r read more than once: the sum over its
// bytes of (times read - 1).
func overlaps(r *rangeLog, key string) int64 {
	seen := map[int64]int{}
	var over int64
	for _, x := range r.ranges[key] {
		for b := x[0]; b < x[0]+x[1]; b++ {
			if seen[b]++; seen[b] > 1 {
				over++
			}
		}
	}
	return over
}

// TestScanReadsEachPageOnce: a whole-table scan of a table of many files
// (one a day), each of two row groups of several pages per column, fetches
// each byte of each data file at most once (so no page twice, across
// windows, row groups and files) and decodes each page once, however the
// windows compare with the pages: the defaults (40 files: windows of 6,553
// rows, pages of 8,192), and windows of 1,000 rows with a read-ahead
// budget smaller than a page. Before, a window shorter than a page fetched
// and decoded the pages under it again unless the column's read-ahead had
// kept them, which a page over the column's share of the budget never was:
// the flights table of bench/flights.mjs (211 files) read 40 MB for 16.5
// MB of files, and the small-window case here read each head page once
// per window.
func TestScanReadsEachPageOnce(t *testing.T) {
	ctx := context.Background()
	st := &rangeLog{Store: memstore.New()}
	st.reset()
	defer table.SetRowGroupRows(12_000)()
	tb, err := table.Create(ctx, st, testenv.New(29), loc, metricsSchema(t), map[string]string{"timelake.auto-maintain": "false"})
	if err != nil {
		t.Fatal(err)
	}
	const days, perDay, hosts = 40, 20_000, 50
	for d := range days {
		start := day1.Add(time.Duration(d) * 24 * time.Hour)
		ms := make([]map[string]any, perDay)
		for i := range ms {
			// values that do not compress away, so each file is larger
			// than the 64 KiB tail its footer is read with
			x := uint64(d*perDay+i) * 0x9E3779B97F4A7C15
			ms[i] = map[string]any{"ts": start.Add(time.Duration(i) * 4 * time.Second), "host": fmt.Sprintf("h%03d", i%hosts),
				"region": fmt.Sprintf("r%d", x%7), "cpu": float64(x>>40) / 1e3, "mem": int64(x >> 20)}
		}
		b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	files, err := tb.DataFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var fileBytes int64
	for _, f := range files {
		fileBytes += f.FileSize
	}
	if len(files) != days {
		t.Fatalf("%d data files, want %d", len(files), days)
	}
	for _, c := range []struct {
		name string
		set  func() func()
	}{
		{"defaults", func() func() { return func() {} }},
		{"windows of 1000 rows, 8 KiB read-ahead", func() func() { return table.SetScanWindows(1000, 8<<10, 64<<10) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer c.set()()
			st.reset()
			var n int64
			stats, err := tb.Scan(ctx, table.ScanOptions{Columns: []string{"region", "cpu", "mem", "_ingest_ts"}}, func(b *rows.Batch) error { n += int64(b.Len); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if n != days*perDay {
				t.Fatalf("%d rows, want %d", n, days*perDay)
			}
			if stats.RowGroups != 2*days || stats.FilesRead != days {
				t.Fatalf("%d files, %d row groups read, want %d and %d", stats.FilesRead, stats.RowGroups, days, 2*days)
			}
			requests, bytes := dataReads(st)
			t.Logf("%d files, %d B: %d requests, %d B read (%.3f×); pages %d, decoded %d", len(files), fileBytes, requests, bytes, float64(bytes)/float64(fileBytes), stats.Pages, stats.PagesRead)
			for key := range st.ranges {
				if over := overlaps(st, key); over > 0 {
					t.Errorf("%s: %d bytes read more than once, reads %v", key, over, st.ranges[key])
				}
			}
			if bytes > fileBytes {
				t.Errorf("%d bytes read of %d bytes of data files", bytes, fileBytes)
			}
			if stats.PagesRead > stats.Pages {
				t.Errorf("%d pages decoded of %d", stats.PagesRead, stats.Pages)
			}
			if stats.BytesRead != bytes || stats.Requests != requests {
				t.Errorf("stats say %d requests, %d bytes; the store saw %d, %d", stats.Requests, stats.BytesRead, requests, bytes)
			}
		})
	}
}

// TestScanDictionaryFallback: a string column whose dictionary outgrows
// parquet.DictionaryLimit mid-chunk (the writer goes on in PLAIN), read in
// windows shorter than its pages: the dictionary pages' rows are held as
// indexes and the PLAIN page turns the rest into strings
// (datafile.decoded.materialize); every value comes back as appended.
func TestScanDictionaryFallback(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(30), loc, metricsSchema(t), map[string]string{"timelake.auto-maintain": "false"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 30_000
	ms := make([]map[string]any, n)
	region := func(i int) string { return fmt.Sprintf("region-%0120d", (i*7919)%n) }
	for i := range ms {
		ms[i] = map[string]any{"ts": day1.Add(time.Duration(i) * time.Second), "host": "h1", "region": region(i), "cpu": float64(i), "mem": int64(i)}
	}
	b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, b); err != nil {
		t.Fatal(err)
	}
	// the chunk holds dictionary-encoded pages and PLAIN ones
	objs, err := st.List(ctx, "data/")
	if err != nil || len(objs) != 1 {
		t.Fatalf("%d data files, %v", len(objs), err)
	}
	data, err := st.Get(ctx, objs[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	dictPages, plainPages := 0, 0
	for _, c := range f.Meta().RowGroups[0].Columns {
		if len(c.Meta.Path) != 1 || c.Meta.Path[0] != "region" {
			continue
		}
		for _, es := range c.Meta.EncodingStats {
			if es.PageType == 2 {
				continue // the dictionary page
			}
			switch es.Encoding {
			case parquet.EncRLEDictionary, parquet.EncPlainDictionary:
				dictPages += int(es.Count)
			case parquet.EncPlain:
				plainPages += int(es.Count)
			}
		}
	}
	if dictPages == 0 || plainPages == 0 {
		t.Fatalf("region's data pages: %d dictionary-encoded, %d PLAIN; want both", dictPages, plainPages)
	}
	defer table.SetScanWindows(1000, 8<<10, 64<<10)()
	i := 0
	if _, err := tb.Scan(ctx, table.ScanOptions{}, func(b *rows.Batch) error {
		for k := range b.Len {
			if got := b.Cols[2].Strs[k]; got != region(i) {
				return fmt.Errorf("row %d: region %q, want %q", i, got, region(i))
			}
			i++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if i != n {
		t.Fatalf("%d rows, want %d", i, n)
	}
}
