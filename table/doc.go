// Package table is Timelake's table over a Store: create or open a table,
// append batches of rows, scan them back, keep the last-value index and the
// rollups, change the schema and properties, and maintain it (compaction,
// retention, snapshot expiry, file cleanup). It decides every step and
// builds every file through the packages below it; it performs no I/O of
// its own and reads no clock: the Store and the Env a caller gives it are
// all it touches.
//
//	tb, err := table.Create(ctx, st, env, "file:///data/metrics", sch, nil)
//	res, err := tb.Append(ctx, batch) // rows aligned by package rows
//	stats, err := tb.Scan(ctx, table.ScanOptions{Series: map[string][]any{"host": {"web-1"}}, FromUS: &from, ToUS: &to},
//		func(b *rows.Batch) error { … })
//
// # What lives where
//
// The table is an Apache Iceberg table; its layout on the store:
//
//	metadata/v1.metadata.json, v2.metadata.json, …   one per commit, never rewritten
//	metadata/version-hint.text                        latest N; a hint, written after the commit
//	metadata/snap-<snapshot-id>-<seq>-<attempt>.avro  manifest lists (package snapshot names them)
//	metadata/<uuid>-m<k>.avro                         manifests
//	metadata/lastvalue-<snapshot-id>-<uuid>.puffin    last-value index of that snapshot (index.go)
//	metadata/timelake-unreferenced.json               when a cleanup first saw each unreferenced file (cleanup.go)
//	data/<partition>=<value>/<uuid>.parquet           data files, e.g. data/ts_day=2026-11-29/…
//	head.json                                         where a client starts; written after the commit
//
// The package's concerns, by file:
//
//	table.go, read.go, head.go      open and load a version; info; head.json and the hints
//	env.go, errors.go, props.go     the caller's clock and randomness; errors and their codes; settings
//	append.go, evolve_append.go     appends (and appends that widen the schema first)
//	commitid.go                     caller-chosen commit ids: idempotent appends across crashes
//	append_run.go                   one attempt of an append: the commit's rebuild
//	meta.go, totals.go, history.go  metadata reads and caches; summary totals; bounded history
//	manifestmerge.go                merging small manifests as appends add them
//	alter.go, setprops.go           schema changes and properties (metadata-only versions)
//	catalog.go                      tables in an Iceberg REST catalog (the catalog decides versions)
//	index.go, catchup*.go           the last-value index; catching it up after other engines' commits
//	scan.go, inforows.go            scans and exact counts; the file reads are package datafile's
//	maintain.go, compact*.go,       maintenance: plans from package maintenance, merges through
//	rewrite.go, cleanup.go          datafile.Merge, rewrites, expiry, cleanup of unreferenced files
//	foreign.go                      what other engines write into a table, and how it is treated
//	rollup*.go                      derived tables of time buckets, refreshed or folded on append
//
// Below it: datafile (reading data and delete files), snapshot (the one
// builder of every next version: manifest list and metadata, from what a
// commit changes), commit (the two-step commit), iceberg, parquet, avro, puffin (the formats), lastvalue, rows,
// schema, scan (the pure read planner), maintenance (the pure planner),
// rollup, restcatalog, location and store. None of them imports table.
//
// # The caller's duties
//
// Everything the package touches comes through two values a caller gives
// it. In order:
//
//  1. Give an Env. Env.Now is the clock (the append's _ingest_ts, snapshot
//     timestamps, the ages that retention and expiry compare), Env.Rand the
//     randomness (uuids, snapshot ids, commit ids, backoff jitter) and
//     Env.Sleep the wait between commit retries. A test gives a fixed clock
//     and a seeded reader and replays an operation byte for byte; a driver
//     gives the wall clock, crypto/rand and a sleep that honours the context.
//  2. Give a Store rooted at the table (package store): Get, GetRange, Put,
//     PutIfAbsent, Delete and List over keys relative to the table. The
//     commit's safety rests on PutIfAbsent alone: of concurrent writes of
//     one key, exactly one must succeed. An implementation refuses keys
//     that would leave the table's prefix (store.CheckKey) and passes the
//     conformance suite of store/storetest.
//  3. Open one Table per goroutine (Create, Open, or OpenInCatalog for a
//     REST catalog). A Table is not safe for concurrent use: it caches the
//     version it knows, its manifest list and last-value index. Other
//     writers, in this process or any other engine, open their own; the
//     commit protocol (package commit) makes them safe against each other,
//     and a Table that lost a race rebases onto the winner by itself.
//  4. Call an operation with a context; cancelling it stops at the next
//     request. A failed write leaves the table as it was: files it uploaded
//     and did not commit are deleted when possible, and otherwise are
//     orphans that maintenance removes after timelake.orphan-grace.
//  5. Read an error's stable code with Code. COMMIT_CONFLICT_EXHAUSTED and
//     COMMIT_DROPPED mean nothing was committed: run the operation again
//     later. COMMIT_UNKNOWN means the one conditional write that decides
//     failed in a way that hides its outcome: the change may be in the
//     table or not. An append that must land exactly once carries a commit
//     id of the caller's (AppendWithCommitID); after COMMIT_UNKNOWN or a
//     crash, ask FindCommit before appending it again. An append with a
//     random id cannot be told apart from a second copy.
//  6. Take Warnings in a result as news, not failure: the hints
//     (version-hint.text, head.json) and best-effort deletions come after
//     the commit, which stands whatever happens to them. Readers never
//     trust a hint for correctness.
//  7. Run Maintain now and then (AutoMaintainOptions says what an append
//     with timelake.auto-maintain runs): it compacts, applies retention,
//     expires snapshots and deletes the files no retained snapshot needs.
//     Nothing else deletes data.
package table
