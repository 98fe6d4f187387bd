package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/timelake/timelake/internal/benchcpu"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// Config is one scenario: Producers each sending RowsPerSec rows a second
// to one batcher, which appends when it holds BatchRows rows or its oldest
// row is BatchSeconds old, for Duration of simulated time; the one writer
// runs a maintenance (every step, the table's defaults) every MaintainEvery.
type Config struct {
	Producers     int
	RowsPerSec    int // per producer
	BatchSeconds  int
	BatchRows     int // 0: no bound by count
	Duration      time.Duration
	MaintainEvery time.Duration // 0: never
	Start         time.Time
	Seed          uint64
	Partition     schema.Transform // 0: day
}

// Report is what a run measured. CPU is the process's (user + system),
// native, of the table calls only: row generation is outside it.
type Report struct {
	Config
	Rows                int64
	Appends             int
	MaintainRuns        int
	MaintainCommits     int
	Merges              int
	MaintainRead        int64 // bytes compaction read
	MaintainWritten     int64 // … and wrote
	LiveDataBytes       int64 // data files the current snapshot lists
	AppendCPU           time.Duration
	MaintainCPU         time.Duration
	MaxFilesBefore      int // most live data files in one partition before a maintenance run
	MaxFilesAfter       int // … and after it
	FinalFiles          map[string]int
	ByClass, Pointer    map[string]int64
	ObjectsDeleted      int64
	DataBytes, MetaByte int64
	Objects             int
	Snapshots           int
	Version             int
}

// metricsSchema is the simulated table: series host, readings region, cpu,
// mem, partitioned by part (day by default).
func metricsSchema(part schema.Transform) *schema.Table {
	s, err := schema.New("ts", []string{"host"}, []schema.Field{
		{Name: "region", Type: schema.String, Required: true},
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long},
	}, part)
	if err != nil {
		panic(err) // a fixed schema: only a bad Transform, which Config's users choose from schema's
	}
	return s
}

// clock is the simulation's time: set by the loop, and ticking 1 ms per
// reading between steps so that the table's timestamps stay increasing.
type clock struct{ now, sim time.Time }

func (c *clock) Now() time.Time {
	c.now = c.now.Add(time.Millisecond)
	if c.now.Before(c.sim) {
		c.now = c.sim
	}
	return c.now
}

// Run simulates cfg against the real table code over a memory store.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Producers <= 0 || cfg.RowsPerSec <= 0 || cfg.BatchSeconds <= 0 {
		return nil, fmt.Errorf("scalesim: producers, rows/s and batch seconds must be positive")
	}
	if cfg.Partition == 0 {
		cfg.Partition = schema.Day
	}
	sch := metricsSchema(cfg.Partition)
	clk := &clock{now: cfg.Start, sim: cfg.Start}
	env := testenv.New(cfg.Seed)
	env.Now = clk.Now
	mem := memstore.New(memstore.WithClock(clk.Now))
	st := newCounter(mem)
	tb, err := table.Create(ctx, st, env, "file:///sim/metrics", sch, nil)
	if err != nil {
		return nil, err
	}
	rep := &Report{Config: cfg}
	perSec := cfg.Producers * cfg.RowsPerSec
	secs := int(cfg.Duration / time.Second)
	bufFrom, bufRows := 0, 0 // the buffer holds the rows of seconds [bufFrom, s)
	flush := func(upTo int) error {
		if bufRows == 0 {
			return nil
		}
		b, err := makeBatch(sch, cfg, bufFrom, upTo)
		if err != nil {
			return err
		}
		c0 := benchcpu.Now()
		_, err = tb.Append(ctx, b)
		rep.AppendCPU += time.Duration(benchcpu.Now() - c0)
		if err != nil {
			return fmt.Errorf("append at %s: %w", clk.sim.Format(time.RFC3339), err)
		}
		rep.Appends++
		rep.Rows += int64(b.Len)
		bufFrom, bufRows = upTo, 0
		return nil
	}
	nextMaintain := cfg.MaintainEvery
	for s := 0; s <= secs; s++ {
		clk.sim = cfg.Start.Add(time.Duration(s) * time.Second)
		// The batcher flushes on age (its alarm) or on count; a count
		// bound is met at a second's granularity.
		if bufRows > 0 && (s-bufFrom >= cfg.BatchSeconds || (cfg.BatchRows > 0 && bufRows >= cfg.BatchRows) || s == secs) {
			if err := flush(s); err != nil {
				return nil, err
			}
		}
		if cfg.MaintainEvery > 0 && time.Duration(s)*time.Second >= nextMaintain {
			nextMaintain += cfg.MaintainEvery
			if err := maintain(ctx, tb, st, rep); err != nil {
				return nil, err
			}
		}
		if s < secs {
			bufRows += perSec
		}
	}
	st.pause(true)
	defer st.pause(false)
	files, err := filesPerPartition(ctx, tb)
	if err != nil {
		return nil, err
	}
	rep.FinalFiles = files
	live, err := tb.DataFiles(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range live {
		rep.LiveDataBytes += f.FileSize
	}
	rep.ByClass, rep.Pointer, rep.ObjectsDeleted = st.snapshot()
	objs, err := mem.List(ctx, "")
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if strings.HasPrefix(o.Key, "data/") {
			rep.DataBytes += o.Size
		} else {
			rep.MetaByte += o.Size
		}
	}
	rep.Objects = len(objs)
	rep.Snapshots = len(tb.Metadata().Snapshots)
	rep.Version = tb.Version()
	return rep, nil
}

// maintain runs every maintenance step, measuring its CPU, and the live
// files per partition around it (not counted as the writer's requests).
func maintain(ctx context.Context, tb *table.Table, st *counter, rep *Report) error {
	st.pause(true)
	before, err := filesPerPartition(ctx, tb)
	st.pause(false)
	if err != nil {
		return err
	}
	c0 := benchcpu.Now()
	res, err := tb.Maintain(ctx, table.MaintainOptions{})
	rep.MaintainCPU += time.Duration(benchcpu.Now() - c0)
	if err != nil {
		return fmt.Errorf("maintain: %w", err)
	}
	rep.MaintainRuns++
	rep.MaintainCommits += res.Commits
	rep.Merges += res.Merges
	rep.MaintainRead += res.BytesRead
	rep.MaintainWritten += res.BytesWritten
	st.pause(true)
	after, err := filesPerPartition(ctx, tb)
	st.pause(false)
	if err != nil {
		return err
	}
	rep.MaxFilesBefore = max(rep.MaxFilesBefore, maxOf(before))
	rep.MaxFilesAfter = max(rep.MaxFilesAfter, maxOf(after))
	return nil
}

func maxOf(m map[string]int) int {
	n := 0
	for _, v := range m {
		n = max(n, v)
	}
	return n
}

// filesPerPartition counts the live data files of the current snapshot by
// partition (days since the epoch, as a date).
func filesPerPartition(ctx context.Context, tb *table.Table) (map[string]int, error) {
	hourly := tb.Schema().Partition == schema.Hour
	files, err := tb.DataFiles(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, f := range files {
		d := time.Unix(int64(f.Partition)*86400, 0).UTC().Format("2006-01-02")
		if hourly {
			d = time.Unix(int64(f.Partition)*3600, 0).UTC().Format("2006-01-02T15")
		}
		out[d]++
	}
	return out, nil
}

// makeBatch builds the rows the producers sent in seconds [from, to): row k
// of producer p in second s has ts = start + s + k/R seconds, host p.
func makeBatch(sch *schema.Table, cfg Config, from, to int) (*rows.Batch, error) {
	ms := make([]map[string]any, 0, (to-from)*cfg.Producers*cfg.RowsPerSec)
	step := time.Second / time.Duration(cfg.RowsPerSec)
	for s := from; s < to; s++ {
		t0 := cfg.Start.Add(time.Duration(s) * time.Second)
		for p := range cfg.Producers {
			for k := range cfg.RowsPerSec {
				h := mix(uint64(s)<<32 | uint64(p)<<8 | uint64(k))
				ms = append(ms, map[string]any{
					"ts": t0.Add(time.Duration(k) * step), "host": hosts[p%len(hosts)] + fmt.Sprint(p/len(hosts)),
					// Noisy readings (a percentage with two decimals, a
					// memory size in KiB), so Parquet compresses them as
					// it would real ones, not a counter.
					"region": regions[p%len(regions)], "cpu": float64(h%10000) / 100, "mem": int64(h>>20%(1<<22)) * 1024,
				})
			}
		}
	}
	return rows.FromMaps(sch, ms, rows.Options{})
}

// mix is splitmix64's finalizer: a fixed, well-spread function of its input.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

var (
	hosts   = []string{"web-", "db-", "cache-", "queue-"}
	regions = []string{"eu", "us", "ap"}
)

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
