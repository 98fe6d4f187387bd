// Command wasip1 times the same core work — a warm append of 1,000 rows and a
// compaction of 8 × 1,000 rows, on a memory store with a fixed clock and
// seeded randomness — natively, as GOOS=js GOARCH=wasm and as
// GOOS=wasip1 GOARCH=wasm, to tell how much of the WebAssembly build's cost
// is the target (the js port's runtime and its bridge) rather than the code
// generator both wasm targets share. It does no I/O but printing one JSON
// line; run.sh builds and runs every variant and report.mjs tabulates them.
//
// Shapes: "command" runs the timing loop inside Go (main); "callback" (js,
// a js.FuncOf) and "reactor" (wasip1, -buildmode=c-shared and
// //go:wasmexport) let JavaScript call one append at a time, as a driver
// would, and time each call from JavaScript.
package main

import (
	"context"
	"fmt"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/maintenance"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// day1 and the rows are table/bench_test.go's (BenchmarkAppend rows=1000):
// 5 columns, 100 series, one row per series per second, in time order.
var day1 = time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)

const loc = "file:///tables/metrics"

// appendsPerTable: as BenchmarkAppend, a fresh table every 50 appends
// (outside the timing) so the metadata does not grow without bound.
const appendsPerTable = 50

var (
	hosts = func() []string {
		h := make([]string, 100)
		for i := range h {
			h[i] = fmt.Sprintf("host-%03d", i)
		}
		return h
	}()
	regions = []string{"eu", "us", "ap", "sa"}
)

func metricsSchema() *schema.Table {
	s, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "region", Type: schema.String, Required: true},
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long},
	}, schema.Day)
	if err != nil {
		panic(err)
	}
	return s
}

// rowsAt makes n rows from first (the row number of the first), spread so
// that files*n rows cover the day at step µs per 100 rows.
func rowsAt(s *schema.Table, start int64, step int64, first, n int) *rows.Batch {
	b := &rows.Batch{Schema: s, Cols: make([]rows.Column, len(s.Fields)), Len: n}
	for i := range n {
		r := first + i
		b.Cols[0].Ints = append(b.Cols[0].Ints, start+int64(r/100)*step)
		b.Cols[1].Strs = append(b.Cols[1].Strs, hosts[r%100])
		b.Cols[2].Strs = append(b.Cols[2].Strs, regions[r%4])
		b.Cols[3].Floats = append(b.Cols[3].Floats, float64(r%1000)/10)
		b.Cols[4].Ints = append(b.Cols[4].Ints, int64(1<<30+r*4096))
		b.Cols[5].Ints = append(b.Cols[5].Ints, 0)
	}
	return b
}

// appender holds a table and the batch it appends again and again.
type appender struct {
	ctx  context.Context
	tb   *table.Table
	src  *rows.Batch
	done int
}

func newAppender() *appender {
	a := &appender{ctx: context.Background()}
	a.fresh()
	a.src = rowsAt(a.tb.Schema(), day1.Add(10*time.Hour).UnixMicro(), 1e6, 0, 1000)
	return a
}

func (a *appender) fresh() {
	tb, err := table.Create(a.ctx, memstore.New(), testenv.New(1), loc, metricsSchema(), map[string]string{table.PropFormatVersion: "2"})
	if err != nil {
		panic(err)
	}
	a.tb = tb
}

// prepare does the untimed part before the next append (a fresh table every
// appendsPerTable appends).
func (a *appender) prepare() {
	if a.done > 0 && a.done%appendsPerTable == 0 {
		a.fresh()
	}
}

// once is one timed append.
func (a *appender) once() {
	if _, err := a.tb.Append(a.ctx, a.src); err != nil {
		panic(err)
	}
	a.done++
}

// compactor compacts a copy of one table of 8 files of 1,000 rows in a cold
// day (bench/native's "compact 8 files / 8000 rows").
type compactor struct {
	ctx  context.Context
	base *memstore.Store
	tb   *table.Table
}

const compactFiles, compactRows = 8, 1000

func newCompactor() *compactor {
	c := &compactor{ctx: context.Background(), base: memstore.New()}
	sch := metricsSchema()
	tb, err := table.Create(c.ctx, c.base, testenv.New(2), "file:///bench/c", sch, map[string]string{maintenance.PropByteCap: "0"})
	if err != nil {
		panic(err)
	}
	step := int64(24*3600*1e6) / int64(compactFiles*compactRows/100+1)
	for f := range compactFiles {
		if _, err := tb.Append(c.ctx, rowsAt(sch, day1.UnixMicro(), step, f*compactRows, compactRows)); err != nil {
			panic(err)
		}
	}
	return c
}

// prepare copies the base store and opens the table (untimed).
func (c *compactor) prepare() {
	dst := memstore.New()
	objs, err := c.base.List(c.ctx, "")
	if err != nil {
		panic(err)
	}
	for _, o := range objs {
		b, err := c.base.Get(c.ctx, o.Key)
		if err != nil {
			panic(err)
		}
		if err := dst.Put(c.ctx, o.Key, b); err != nil {
			panic(err)
		}
	}
	// The clock starts on 2026-11-29 12:00, so day1 is cold.
	if c.tb, err = table.Open(c.ctx, dst, testenv.New(3)); err != nil {
		panic(err)
	}
}

func (c *compactor) once() {
	res, err := c.tb.Maintain(c.ctx, table.MaintainOptions{Compact: true})
	if err != nil {
		panic(err)
	}
	if res.FilesRead != compactFiles || res.FilesWritten != 1 {
		panic(fmt.Sprintf("compaction read %d files and wrote %d, want %d and 1", res.FilesRead, res.FilesWritten, compactFiles))
	}
}
