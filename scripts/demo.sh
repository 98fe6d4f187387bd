#!/usr/bin/env bash
# Sets up and runs the main job on a local default, with no account and no
# network beyond the package registries:
#   1. builds the timelake CLI, creates a table under ./demo-table, appends the
#      sample data set examples/metrics.csv, prints info and the latest value
#      per series;
#   2. builds @timelake/client (the Go core as WebAssembly + TypeScript), bundles
#      the example Worker (examples/worker) with esbuild, runs it in workerd
#      (Miniflare, from npm) with a local R2 bucket, posts the same rows to it,
#      copies the table it wrote out to ./demo-worker-table and prints its info;
#   3. prints how to look at demo-table in the browser (examples/explorer).
# Both tables are Apache Iceberg tables: try
#   duckdb -c "select count(*) from iceberg_scan('demo-table')"
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
go build -o bin/timelake ./cmd/timelake

echo "== the CLI: create, append, info, latest"
rm -rf demo-table
bin/timelake create demo-table --time time --series host \
  --column region:string --column cpu:double --column mem_bytes:long --column healthy:boolean?
bin/timelake append demo-table examples/metrics.csv
bin/timelake info demo-table
bin/timelake latest demo-table

echo
echo "== a Cloudflare Worker (workerd via Miniflare) appending the same rows to R2"
bash scripts/build-client.sh >/dev/null
(cd examples/worker && if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error; fi
  rm -rf .r2 .do && node run.mjs)
bin/timelake info demo-worker-table
bin/timelake latest demo-worker-table

echo
echo "== look at demo-table in the browser (README \"Look at a table in the browser\"):"
echo "   node examples/explorer/serve.mjs demo-table    # then open the link it prints"
