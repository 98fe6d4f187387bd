#!/usr/bin/env bash
# Tests @timelake/client in each runtime: builds it (scripts/build-client.sh:
# the .wasm, wasm_exec.js, tsc; npm ci from the lockfile), then
#   - types (scripts/test-client-types.sh): the package as `npm pack` makes
#     it type-checks in a user's project under node16 and bundler
#     resolution (each export condition its own types), and so do the ```ts
#     blocks of client/README.md;
#   - Node (node:test): the Store conformance suite against memoryStore and
#     localStore; create/append/errors/64-bit values/queue/panics/faulty stores;
#   - workerd through Miniflare (npm miniflare): the conformance suite against
#     an R2 binding, and a Worker appending batches (concurrent requests in
#     one isolate), read afterwards by the outside readers (go test ./wasm/e2e);
#     the Durable Object batcher (client/test/batcher.miniflare.test.ts): many
#     producers, the object stopped after commits and the runtime killed and
#     restarted, every acknowledged row read back exactly once;
#   - Node, Deno and Bun (Deno and Bun from npm): the same smoke test (JS
#     objects and Arrow IPC bytes), its table read by the outside readers
#     (go test ./wasm/e2e);
#   - nested values (lists, structs, maps) appended by the client in Node, and
#     by the CLI from Arrow, Parquet and NDJSON, to one table, scanned back and
#     read by iceberg-go (go test -run TestNestedAllInputs ./cmd/timelake);
#   - writers in turn on one table (go test ./wasm/e2e): the native Go writer
#     and the client in Node; the timelake CLI binary, the client in Node and
#     the Worker in workerd (its R2 bucket mirrored with the table directory
#     around each request), conflicts forced, every version read outside;
#   - headless Chromium (Debian's package, installed with apt-get when
#     /usr/bin/chromium is missing; driven by npm playwright-core, which
#     downloads no browser): the default entry in a page, conformance of
#     memoryStore and an IndexedDB store, its tables read by the outside
#     readers (go test -run TestBrowser ./wasm/e2e); and the table explorer
#     (examples/explorer, client/test/browser/explorer.mjs): a table the
#     CLI made, opened by a link, a folder input, the folder picker and
#     from S3, its chart's points equal to `timelake scan`;
#   - S3 (scripts/s3server.sh, started here unless test.sh did): s3Store in
#     Node and in workerd, read by the outside readers (./store/s3store/s3e2e);
#   - REST catalogs (scripts/restcatalog.sh: Iceberg's own server, needs Java
#     17 and Maven; without them the catalog tests skip): two servers around
#     `node --test` only — a file warehouse with a bearer token and a
#     client-credentials client (client/test/catalog.test.ts), and an S3
#     warehouse on the S3 server vending its credentials, with a token
#     (client/test/catalog.miniflare.test.ts).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/build-client.sh
bash scripts/test-client-types.sh
own_s3=
catalog_dirs=()
stop_catalogs() {
  for d in "${catalog_dirs[@]}"; do bash scripts/restcatalog.sh stop "$d" || true; done
  catalog_dirs=()
}
cleanup() {
  stop_catalogs
  if [ -n "$own_s3" ]; then bash scripts/s3server.sh stop "$TIMELAKE_S3_DIR"; fi
  rm -rf "${catalog_tmp:-}"
}
trap cleanup EXIT
if [ -z "${TIMELAKE_S3_DIR:-}" ]; then eval "$(bash scripts/s3server.sh start)"; own_s3=1; fi

# start_catalog FILE [options]: starts a REST catalog with its exports in
# FILE; exit 3 from restcatalog.sh (no Java or Maven) leaves no FILE, and
# the catalog tests skip.
catalog_tmp=$(mktemp -d)
start_catalog() {
  local rc=0
  bash scripts/restcatalog.sh start "${@:2}" >"$1" || rc=$?
  if [ "$rc" = 3 ]; then
    rm -f "$1"
    echo "restcatalog: cannot build the server here; the catalog tests skip" >&2
    return
  fi
  [ "$rc" = 0 ] || exit "$rc"
  catalog_dirs+=("$(sed -n "s/^export TIMELAKE_CATALOG_DIR='\(.*\)'\$/\1/p" "$1")")
}

echo "== the bridge under GOOS=js in Node (go_js_wasm_exec): ./wasm's own tests"
GOOS=js GOARCH=wasm go test -count=1 -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" ./wasm

echo "== client: node --test (two REST catalog servers up for the catalog tests)"
t0=$(date +%s%N)
catalog_token="tl-token-$RANDOM$RANDOM"
catalog_client="tl-client:tl-secret-$RANDOM$RANDOM"
TIMELAKE_CATALOG_TEST_TOKEN=$catalog_token TIMELAKE_CATALOG_TEST_CLIENT=$catalog_client start_catalog "$catalog_tmp/file.env"
TIMELAKE_CATALOG_TEST_TOKEN=$catalog_token TIMELAKE_CATALOG_VEND_S3=1 start_catalog "$catalog_tmp/s3.env" --s3
echo "catalog servers started in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
(
  if [ -f "$catalog_tmp/file.env" ]; then
    source "$catalog_tmp/file.env"
    export TIMELAKE_CATALOG_TEST_TOKEN=$catalog_token TIMELAKE_CATALOG_TEST_CLIENT=$catalog_client
  fi
  if [ -f "$catalog_tmp/s3.env" ]; then
    eval "$(sed 's/TIMELAKE_CATALOG_/TIMELAKE_CATALOG_S3_/' "$catalog_tmp/s3.env")"
    export TIMELAKE_CATALOG_S3_TOKEN=$catalog_token
  fi
  cd client && node --test dist/test/*.test.js
)
stop_catalogs

echo "== Deno and Bun from npm (client/test/runtimes)"
(cd client/test/runtimes && if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then npm ci --no-audit --no-fund; fi)

echo "== Chromium (Debian package) and playwright-core (client/test/browser)"
chromium=${TIMELAKE_CHROMIUM:-/usr/bin/chromium} # TIMELAKE_CHROMIUM: another build, not installed here
if [ -z "${TIMELAKE_CHROMIUM:-}" ] && [ ! -x /usr/bin/chromium ]; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
  $sudo apt-get update
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
"$chromium" --version
(cd client/test/browser && if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then npm ci --no-audit --no-fund; fi)

echo "== outside readers over tables the client wrote (workerd, Node, Deno, Bun, S3) and the native writer"
TIMELAKE_CLIENT_E2E=1 go test -count=1 -skip TestBrowser ./wasm/e2e/ ./store/s3store/s3e2e/

echo "== nested values from the client, Arrow, Parquet and NDJSON on one table (the CLI; iceberg-go reads it)"
TIMELAKE_CLIENT_E2E=1 go test -count=1 -run TestNestedAllInputs ./cmd/timelake/

echo "== browser: headless Chromium, its tables read by the outside readers"
TIMELAKE_CLIENT_E2E=1 go test -count=1 -v -run TestBrowser ./wasm/e2e/

echo "== the table explorer (examples/explorer) in headless Chromium: its chart against timelake scan"
explorer_tmp=$(mktemp -d)
go build -o "$explorer_tmp/timelake" ./cmd/timelake
node client/test/browser/explorer.mjs "$explorer_tmp/timelake" "$explorer_tmp/work"
rm -rf "$explorer_tmp"

echo "client tests passed"
