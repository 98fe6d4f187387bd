// Command scalesim simulates one table's day: producers → a batcher → one
// writer, with hourly maintenance, against the real table code over a
// memory store that counts requests; it prints the figures of docs/SCALE.md.
//
//	go run ./internal/scalesim -producers 100 -rate 1 -batch-seconds 10 -hours 24
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/timelake/timelake/schema"
)

func main() {
	var cfg Config
	var hours float64
	flag.IntVar(&cfg.Producers, "producers", 100, "producers (hosts), each one series")
	flag.IntVar(&cfg.RowsPerSec, "rate", 1, "rows a second per producer")
	flag.IntVar(&cfg.BatchSeconds, "batch-seconds", 10, "the batcher appends when its oldest row is this old")
	flag.IntVar(&cfg.BatchRows, "batch-rows", 0, "… or when it holds this many rows (0: no bound)")
	flag.Float64Var(&hours, "hours", 24, "simulated hours; the per-day figures are scaled from them")
	flag.DurationVar(&cfg.MaintainEvery, "maintain-every", time.Hour, "maintenance interval (0: none)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "randomness seed (ids)")
	start := flag.String("start", "2026-11-29T23:00:00Z", "simulated start (RFC 3339); crossing midnight makes a cold partition")
	part := flag.String("partition", "day", "the table's partition: day, hour or month")
	flag.Parse()
	t, err := time.Parse(time.RFC3339, *start)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalesim: -start:", err)
		os.Exit(2)
	}
	cfg.Start = t
	if cfg.Partition, err = schema.ParseTransform(*part); err != nil {
		fmt.Fprintln(os.Stderr, "scalesim: -partition:", err)
		os.Exit(2)
	}
	cfg.Duration = time.Duration(hours * float64(time.Hour))
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalesim:", err)
		os.Exit(1)
	}
	printReport(os.Stdout, rep)
}
