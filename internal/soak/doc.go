// Package soak holds the concurrency soak tests (soak_test.go): 16 writers
// append batches to one table while a maintainer compacts, expires and
// cleans up; afterwards the row count and per-series sums are exact, the
// history linear, no data file is referenced twice and none was uploaded
// twice (counted for the in-process writers and the maintainer, whose
// requests pass through a counting store). The same run and checks go
// against two stores:
//
//   - TestSoak, a directory table: 8 goroutines of this process, 4
//     `timelake append` processes, 4 WebAssembly clients in Node with
//     localStore (nodewriter.mjs);
//   - TestSoakS3, a table on the local S3 server (scripts/s3server.sh; the
//     test skips, saying so, without its variables): 4 goroutines with
//     store/s3store, 4 `timelake append s3://… --endpoint` processes, 4 Node
//     clients with s3Store, and 4 Workers in workerd (workerwriter.mjs: one
//     Miniflare running the client's S3 test Worker, which writes with
//     s3Store over fetch to the loopback server; the 4 writers' requests run
//     concurrently in that one isolate).
//
// Without the built client (scripts/build-client.sh) or node, goroutines
// stand in for the Node and Worker writers (logged); TIMELAKE_SOAK_JS=1,
// which scripts/test.sh sets, makes that a failure instead.
//
//	go test ./internal/soak                         # bounded: 16 writers x 8 batches
//	TIMELAKE_SOAK_BATCHES=100 go test -timeout 1h ./internal/soak -v   # the long run
//
// The package has no code of its own.
package soak
