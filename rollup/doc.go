// Package rollup is the pure part of rollups: continuous aggregates of a
// raw Timelake table, kept as an ordinary Iceberg table of their own. It
// does no I/O; package table refreshes a rollup over the stores.
//
// A rollup is defined in the raw table's properties, so every writer finds
// it (def.go):
//
//	timelake.rollup.hourly.every       = 1h
//	timelake.rollup.hourly.aggregates  = cpu:min,max,avg,last;mem:max
//	timelake.rollup.hourly.retention   = 365d
//	timelake.rollup.hourly.location    = file:///data/metrics__rollup_hourly
//
// Its table (schema.go) has the raw table's series columns, `bucket` (the
// bucket's start, timestamptz), `row_count` and one column per aggregate
// (cpu_min, cpu_max, cpu_sum, cpu_count, cpu_last, mem_max), partitioned by
// day (month for 1d buckets) and sorted by (series…, bucket), without
// _ingest_ts: the later commit of a bucket wins, as in any raw table.
//
//	defs, err := rollup.Parse(props)           // every rollup of the raw table
//	out, err := rollup.Schema(raw, defs[0])    // the rollup table's schema
//	agg, err := rollup.NewAggregator(scanned, out, defs[0])
//	agg.Add(batch, keep)                       // batches sorted by (series…, time), deduplicated
//	rowsOut := agg.Finish()
//
// A refresh finds the (series, bucket) keys that changed since the raw
// snapshot the rollup last reflected (Dirty, from the rows of the files
// added since), recomputes those buckets from the deduplicated raw rows
// (Dirty.Ranges says which time ranges and series to scan) and appends
// them to the rollup table.
package rollup
