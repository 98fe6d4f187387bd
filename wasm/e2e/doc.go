// Package e2e checks tables written by the WebAssembly build through
// @timelake/client — in workerd (Miniflare, R2 binding), in Node
// (localStore), Deno and Bun, and in headless Chromium (memoryStore and an
// IndexedDB store implemented by the test page) — with the outside readers
// (iceberg-go, DuckDB, pyiceberg), and against the same rows appended by the
// native Go writer; and the shared-writer test: the native writer and the
// WebAssembly client (Node, driven over stdin by client/dist/test/e2e/driver.js)
// append to and maintain one table in turn, conflicts forced both ways, every
// version read by the outside readers; and the same with three writers: the
// timelake CLI binary (built once with go build), the client in Node and the
// test Worker in workerd, whose R2 bucket is mirrored with the table
// directory around each of its requests (Miniflare keeps R2 objects in SQLite
// and content-named blobs, so no directory can be shared with it), plus the
// same NDJSON appended by the CLI and by the client to two tables, read alike.
//
// Its tests run scripts from client/ (client/dist/test/e2e/write.js and
// driver.js, client/test/runtimes/smoke.mjs, client/test/browser/run.mjs), so
// they need the client built and the runtimes installed; scripts/test-client.sh
// does both and runs them with TIMELAKE_CLIENT_E2E=1. Without that variable
// the tests skip.
package e2e
