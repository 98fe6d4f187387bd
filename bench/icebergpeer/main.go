// Command icebergpeer appends the benchmark's rows (5 columns, 100 series,
// one row per series per second, in time order) to an Iceberg table with
// iceberg-go: a Hadoop (file system) catalog in a temporary directory,
// partitioned by day(ts), ZSTD Parquet, the whole append (Parquet, manifest,
// manifest list, metadata, commit) timed. It is its own Go module so that
// iceberg-go stays out of the main module. Prints JSON samples like
// bench/native (wall, process CPU, live-heap high-water mark, peak RSS growth).
//
//	cd bench/icebergpeer && go run . -rows 100000 -runs 5 > ../results/iceberg-go.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
)

type sample struct {
	Workload  string  `json:"workload"`
	Kind      string  `json:"kind"`
	WallMs    float64 `json:"wallMs"`
	CPUMs     float64 `json:"cpuMs"`
	PeakHeap  uint64  `json:"peakHeapBytes"`
	RSSGrowth int64   `json:"rssGrowth"`
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func status(key string) int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n * 1024
		}
	}
	return 0
}

func arrowRows(n int) arrow.Table {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "host", Type: arrow.BinaryTypes.String},
		{Name: "region", Type: arrow.BinaryTypes.String},
		{Name: "cpu", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "mem", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	start := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC).UnixMicro()
	regions := []string{"eu", "us", "ap", "sa"}
	for i := range n {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(start + int64(i/100)*1e6))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("host-%03d", i%100))
		b.Field(2).(*array.StringBuilder).Append(regions[i%4])
		b.Field(3).(*array.Float64Builder).Append(float64(i%1000) / 10)
		b.Field(4).(*array.Int64Builder).Append(int64(1<<30 + i*4096))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
}

func main() {
	n := flag.Int("rows", 100_000, "rows per append")
	runs := flag.Int("runs", 5, "fresh tables (cold append each)")
	warm := flag.Int("warm", 3, "further appends per table")
	flag.Parse()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "icebergpeer-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	cat, err := hadoop.NewCatalog("bench", dir, iceberg.Properties{})
	if err != nil {
		panic(err)
	}
	if err := cat.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
		panic(err)
	}
	sc := iceberg.NewSchemaWithIdentifiers(1, []int{2, 1},
		iceberg.NestedField{ID: 1, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz, Required: true},
		iceberg.NestedField{ID: 2, Name: "host", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 3, Name: "region", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 4, Name: "cpu", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 5, Name: "mem", Type: iceberg.PrimitiveTypes.Int64},
	)
	spec := iceberg.NewPartitionSpec(iceberg.PartitionField{SourceIDs: []int{1}, FieldID: 1000, Name: "ts_day", Transform: iceberg.DayTransform{}})
	data := arrowRows(*n)
	// iceberg-go reads required columns from a non-nullable Arrow schema.
	var out []sample
	for r := range *runs {
		tbl, err := cat.CreateTable(ctx, table.Identifier{"bench", fmt.Sprintf("t%d", r)}, sc,
			catalog.WithPartitionSpec(&spec),
			catalog.WithProperties(iceberg.Properties{"write.parquet.compression-codec": "zstd"}))
		if err != nil {
			panic(err)
		}
		for k := range 1 + *warm {
			kind := "warm"
			if k == 0 {
				kind = "cold"
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			before := ms.HeapAlloc
			var peak atomic.Uint64
			done := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				var m runtime.MemStats
				t := time.NewTicker(time.Millisecond)
				defer t.Stop()
				for {
					runtime.ReadMemStats(&m)
					if m.HeapAlloc > peak.Load() {
						peak.Store(m.HeapAlloc)
					}
					select {
					case <-done:
						return
					case <-t.C:
					}
				}
			})
			_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
			rss0 := status("VmRSS")
			c0, t0 := cpuNow(), time.Now()
			tbl, err = tbl.AppendTable(ctx, data, int64(*n), nil)
			wall, cpu := time.Since(t0), cpuNow()-c0
			close(done)
			wg.Wait()
			if err != nil {
				panic(err)
			}
			s := sample{Workload: fmt.Sprintf("iceberg-go append %d", *n), Kind: kind, WallMs: float64(wall) / 1e6, CPUMs: float64(cpu) / 1e6, RSSGrowth: status("VmHWM") - rss0}
			if p := peak.Load(); p > before {
				s.PeakHeap = p - before
			}
			fmt.Fprintf(os.Stderr, "iceberg-go: append %d %s: cpu %.1f ms, wall %.1f ms, heap +%.1f MiB, rss +%.1f MiB\n", *n, kind, s.CPUMs, s.WallMs, float64(s.PeakHeap)/(1<<20), float64(s.RSSGrowth)/(1<<20))
			out = append(out, s)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "bench", "t0", "data", "*", "*.parquet"))
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(map[string]any{"icebergGo": "v0.7.0", "go": runtime.Version(), "dataFilesFirstTable": len(files), "samples": out}); err != nil {
		panic(err)
	}
}
