// Package wasmdiff checks that the core writes byte-identical files natively
// and as WebAssembly: wasmdiff_test.go builds a table (with nested columns;
// CSV, NDJSON and Go values appended, then compaction, retention and expiry,
// then a schema change adding a struct field) with a fixed clock
// and fixed randomness into a memory store, hashes every object, and runs
// the same test under GOOS=js GOARCH=wasm in Node (through the Go
// toolchain's lib/wasm/go_js_wasm_exec) to compare the hashes.
//
//	go test ./internal/wasmdiff      # needs node on PATH; skipped (logged) without it
//
// The package has no code of its own.
package wasmdiff
