// Package table is the Timelake write path over a Store: create a table,
// open it, append a batch of rows, and read what it holds (info, the
// last-value index). It decides every step and builds every file through the
// core packages; the Store and Env given to it are its only I/O, clock and
// randomness.
//
//	tb, err := table.Create(ctx, st, env, "file:///data/metrics", sch, nil)
//	res, err := tb.Append(ctx, batch) // rows aligned by package rows
//
// An append (see Append) turns a batch into one Parquet file per partition
// (more past write.target-file-size-bytes), a manifest of the added files,
// the merged last-value index, a manifest list and the next metadata version,
// committed by package commit. The layout on the store:
//
//	metadata/v1.metadata.json, v2.metadata.json, …   one per commit, never rewritten
//	metadata/version-hint.text                        latest N; a hint, written after the commit
//	metadata/snap-<snapshot-id>-<attempt>-<uuid>.avro manifest lists
//	metadata/<uuid>-m0.avro                           manifests
//	metadata/lastvalue-<snapshot-id>-<uuid>.puffin    last-value index of that snapshot (index.go)
//	metadata/timelake-unreferenced.json               when a cleanup first saw each unreferenced file (cleanup.go)
//	data/<partition>=<value>/<uuid>.parquet           data files, e.g. data/ts_day=2026-11-29/…
//	head.json                                         where a client starts; written after the commit
//
// Scan (scan.go) reads rows back: filtered by time and series, projected,
// as of a snapshot, sorted by (series…, time) and deduplicated, pruned down
// to the pages that can hold the rows; the pure part is package scan.
//
//	st, err := tb.Scan(ctx, table.ScanOptions{Series: map[string][]any{"host": {"web-1"}}, FromUS: &from, ToUS: &to},
//		func(b *rows.Batch) error { … })
//
// Compaction also merges data files other engines wrote: without page
// index, unsorted, with repeated keys, without field ids (given a name
// mapping), lacking optional columns (foreignfile.go says how). That path
// added 68 KiB to the WebAssembly module (GOOS=js GOARCH=wasm go build
// ./wasm: 7,945,819 bytes with the new codecs → 8,014,163, 2026-12-01);
// the codecs (package parquet) 7 KiB before it (7,938,779 → 7,945,819).
package table
