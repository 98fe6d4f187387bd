package table_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/benchcpu"
	"github.com/timelake/timelake/table"
)

// BenchmarkMetadataAfterAppends drives a table as the recommended
// deployment does (a Queue consumer or Durable Object appending every few
// seconds): appends of 10 rows, one every 10 seconds by an injected clock,
// into a memory store, with the default properties and
// timelake.auto-maintain on, each append followed by what the WebAssembly
// client runs then (tb.Maintain(tb.AutoMaintainOptions()), as
// wasm/maintain.go's autoMaintain). After the last append it reports what
// metadata/ holds: bytes, objects, metadata versions (superseded markers
// not counted), and the snapshots in the current metadata; and, for
// scale, the CPU of the whole drive per append. The target is
// metadata/ ≤ 20 MB after 10,000 appends. It measures whatever the code
// does: the cleanup that bounds the folder is maintenance's, not this.
// One op is the whole drive of one table (use -benchtime=1x):
//
//	go test ./table -run '^$' -bench 'BenchmarkMetadataAfterAppends/appends=10000$' -benchtime=1x
func BenchmarkMetadataAfterAppends(b *testing.B) {
	for _, appends := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("appends=%d", appends), func(b *testing.B) {
			const perAppend = 10
			ctx := context.Background()
			var metaBytes, dataBytes int64
			var metaObjects, dataObjects, versions, snapshots, cleanups int
			var cpu int64
			for range b.N {
				b.StopTimer()
				env, st, step := steppedEnv(1)
				tb, err := table.Create(ctx, st, env, loc, metricsSchema(b), map[string]string{table.PropAutoMaintain: "true"})
				if err != nil {
					b.Fatal(err)
				}
				batches := make([]func() error, appends)
				b.StartTimer()
				c0 := benchcpu.Now()
				for k := range batches {
					b.StopTimer() // the batch is built outside the measure
					bt := batch(b, tb.Schema(), day1.Add(time.Duration(k)*10*time.Second), perAppend, perAppend)
					b.StartTimer()
					if _, err := tb.Append(ctx, bt); err != nil {
						b.Fatalf("append %d: %v", k, err)
					}
					step(10 * time.Second)
					if !tb.Settings().AutoMaintain {
						b.Fatal("timelake.auto-maintain is off")
					}
					opt := tb.AutoMaintainOptions()
					if opt.Orphans {
						cleanups++
					}
					if _, err := tb.Maintain(ctx, opt); err != nil {
						b.Fatalf("auto-maintenance after append %d: %v", k, err)
					}
				}
				cpu += benchcpu.Now() - c0
				b.StopTimer()
				metaBytes, versions = metadataBytes(b, st)
				objs, err := st.List(ctx, "")
				if err != nil {
					b.Fatal(err)
				}
				metaObjects, dataObjects, dataBytes = 0, 0, 0
				for _, o := range objs {
					switch {
					case strings.HasPrefix(o.Key, "metadata/"):
						metaObjects++
					case strings.HasPrefix(o.Key, "data/"):
						dataObjects++
						dataBytes += o.Size
					}
				}
				snapshots = len(tb.Metadata().Snapshots)
				info, err := tb.Info(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if info.Rows != int64(appends*perAppend) {
					b.Fatalf("%d rows after %d appends of %d, want %d", info.Rows, appends, perAppend, appends*perAppend)
				}
			}
			// Of the last table driven (each op drives the same appends).
			b.ReportMetric(float64(metaBytes), "metadata-bytes")
			b.ReportMetric(float64(metaObjects), "metadata-objects")
			b.ReportMetric(float64(versions), "metadata-versions")
			b.ReportMetric(float64(snapshots), "snapshots")
			b.ReportMetric(float64(dataBytes), "data-bytes")
			b.ReportMetric(float64(dataObjects), "data-objects")
			b.ReportMetric(float64(cleanups)/float64(b.N), "cleanups")
			if cpu > 0 {
				b.ReportMetric(float64(cpu)/1e6/float64(b.N*appends), "cpu-ms/append")
			}
		})
	}
}
