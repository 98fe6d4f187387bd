// Package soak holds the concurrency soak test (soak_test.go): 16 writers —
// goroutines of this process, `timelake append` processes and, when Node and
// the built client are there, WebAssembly clients in Node
// (nodewriter.mjs) — append batches to one directory table while a
// maintainer compacts, expires and cleans up; afterwards the row count and
// per-series sums are exact, the history linear, no data file is referenced
// twice and none was uploaded twice.
//
//	go test ./internal/soak                         # bounded: 16 writers x 8 batches
//	TIMELAKE_SOAK_BATCHES=100 go test -timeout 1h ./internal/soak -v   # the long run
//
// The package has no code of its own.
package soak
