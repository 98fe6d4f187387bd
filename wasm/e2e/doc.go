// Package e2e checks tables written by the WebAssembly build through
// @timelake/client — in workerd (Miniflare, R2 binding), in Node
// (localStore), Deno and Bun, and in headless Chromium (memoryStore and an
// IndexedDB store implemented by the test page) — with the outside readers
// (iceberg-go, DuckDB, pyiceberg), and against the same rows appended by the
// native Go writer; and the shared-writer test: the native writer and the
// WebAssembly client (Node, driven over stdin by client/dist/test/e2e/driver.js)
// append to and maintain one table in turn, conflicts forced both ways, every
// version read by the outside readers.
//
// Its tests run scripts from client/ (client/dist/test/e2e/write.js and
// driver.js, client/test/runtimes/smoke.mjs, client/test/browser/run.mjs), so
// they need the client built and the runtimes installed; scripts/test-client.sh
// does both and runs them with TIMELAKE_CLIENT_E2E=1. Without that variable
// the tests skip.
package e2e
