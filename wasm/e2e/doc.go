// Package e2e checks tables written by the WebAssembly build through
// @timelake/client — in workerd (Miniflare, R2 binding) and in Node
// (localStore) — with the outside readers (iceberg-go, DuckDB, pyiceberg),
// and against the same rows appended by the native Go writer; and the
// shared-writer test: the native writer and the WebAssembly client (Node,
// driven over stdin by client/dist/test/e2e/driver.js) append to and
// maintain one table in turn, conflicts forced both ways, every version read
// by the outside readers.
//
// Its tests run client/dist/test/e2e/write.js and driver.js, so it needs the client built
// (scripts/build-client.sh); scripts/test-client.sh builds it and runs this
// test with TIMELAKE_CLIENT_E2E=1. Without that variable the test skips.
package e2e
