#!/usr/bin/env bash
# Runs every benchmark and writes bench/results/WORKERS.md:
#   1. builds @timelake/client (scripts/build-client.sh) and installs bench/'s
#      npm packages from the lockfile (Miniflare brings workerd);
#   2. the workerd half (bench/harness.mjs): appends cold and warm, the same
#      1k-row append through a REST catalog (scripts/restcatalog.sh's server,
#      started here when it is built, stopped on exit), the peers
#      parquet-wasm and hyparquet-writer, maintenance (when the client has
#      maintain()), the index catch-up after another engine's append, V8 CPU
#      profiles of warm appends, compactions and catch-ups, GOGC experiments,
#      scans (bench/scan.mjs: table.scan, hyparquet and icebird),
#      the Durable Object batcher (bench/batcher.mjs: rows/s, ack latency,
#      kills with lost/duplicated rows as an outcome check);
#   3. the native half: go run ./bench/native, go test -bench in table/
#      (BenchmarkAppend, BenchmarkCompact, BenchmarkIndexCatchUp; and issue
#      16's BenchmarkAppendAge and BenchmarkMetadataAfterAppends into
#      results/gotest-targets.txt), and iceberg-go (bench/icebergpeer, its
#      own module);
#   4. Node against a local S3 server (bench/nodeappend.mjs: fresh processes
#      creating a table and appending 100k rows, then warm appends; the S3
#      server is scripts/s3server.sh's, started here, stopped on exit);
#   5. the flights-3m scans (bench/flights.mjs): the CLI and the client in
#      Node and workerd over vega-datasets' flights-3m.parquet loaded as a table of 211
#      files → results/flights.json and their section of results/SCANS.md
#      (alone: BENCH_ONLY=flights bash bench/run.sh);
#   6. bench/report.mjs → results/WORKERS.md, with the table of
#      targets (bench/targetsreport.mjs) from this run's figures.
# Usage: bash bench/run.sh [--smoke]   (--smoke: tiny sizes, one run, a few
# minutes; writes results/*-smoke.* and WORKERS-smoke.md and leaves the real
# results alone)
# Environment: BENCH_RUNS, BENCH_WARM, BENCH_SIZES (see harness.mjs),
# BENCH_GOENV (default "GOGC=100;GOGC=200;GOGC=400;GOGC=off"; "" to skip).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
smoke=0
[ "${1:-}" = "--smoke" ] && smoke=1
res=bench/results
mkdir -p "$res"

# The machine, before anything runs.
load=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
cmd="bash bench/run.sh${1:+ $1}"

bash scripts/build-client.sh
gz=$(gzip -9 -c client/dist/src/timelake.wasm | wc -c)
(cd bench && if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi)
# (@timelake/client is a file: dependency: npm links it, so the fresh build is what gets bundled.)

# BENCH_ONLY=flights: the flights-3m scans alone (bench/flights.mjs: the CLI
# and the client in Node and in workerd over vega-datasets' flights-3m as a
# table of 211 files) → results/flights.json and their section of results/SCANS.md.
if [ "${BENCH_ONLY:-}" = flights ]; then
  node bench/flights.mjs
  exit 0
fi

# The catalog workload's REST catalog (Iceberg's own server, file warehouse),
# when its launcher is built (scripts/restcatalog.sh build; scripts/test.sh
# builds it); stopped on exit. Without it harness.mjs skips the workload and
# the report says why. A catalog of the caller's is not used: this one has
# no token and no other writers.
unset TIMELAKE_CATALOG_URI TIMELAKE_CATALOG_WAREHOUSE TIMELAKE_CATALOG_DIR
unset TIMELAKE_CATALOG_TEST_TOKEN TIMELAKE_CATALOG_TEST_CLIENT TIMELAKE_CATALOG_VEND_S3
own_catalog="" own_s3=""
cleanup() {
  if [ -n "$own_catalog" ]; then bash scripts/restcatalog.sh stop "$TIMELAKE_CATALOG_DIR" || true; fi
  if [ -n "$own_s3" ]; then bash scripts/s3server.sh stop "$TIMELAKE_S3_DIR" || true; fi
}
trap cleanup EXIT
if ! bash scripts/restcatalog.sh check; then
  echo "bench: the REST catalog server is not built (bash scripts/restcatalog.sh build): the catalog workload is skipped" >&2
elif catalog=$(bash scripts/restcatalog.sh start); then
  eval "$catalog"
  export TIMELAKE_CATALOG_URI TIMELAKE_CATALOG_WAREHOUSE TIMELAKE_CATALOG_DIR
  own_catalog=1
else
  echo "bench: the REST catalog server did not start: the catalog workload is skipped" >&2
fi

# The local S3-compatible server of the Node workload: versitygw,
# built once into ./bin by scripts/s3server.sh (go install). Ours only: an
# S3 server of the caller's is not used. Without it nodeappend.mjs writes a
# note and the report says why.
unset TIMELAKE_S3_DIR TIMELAKE_S3_ROOT TIMELAKE_S3_BUCKET AWS_ENDPOINT_URL
if s3=$(bash scripts/s3server.sh start); then
  eval "$s3"
  own_s3=1
else
  echo "bench: the local S3 server did not start: the Node workload is skipped" >&2
fi

# the native benchmarks: BENCH_AGE_BENCH and BENCH_META_BENCH are the
# -bench patterns (a smoke run takes tiny sizes); output → $1.
targets_go() {
  go test ./table -run '^$' -timeout 60m -bench "$BENCH_AGE_BENCH" -benchtime "$BENCH_AGE_TIME" 2>&1 | grep -E '^(Benchmark|goos|goarch|cpu|ok|FAIL|---)' >"$1"
  go test ./table -run '^$' -timeout 60m -bench "$BENCH_META_BENCH" -benchtime 1x 2>&1 | grep -E '^(Benchmark|ok|FAIL|---)' >>"$1"
  cat "$1"
}

node -e '
const [file, nproc, cpu, load, go, cmd, gz] = process.argv.slice(1);
require("fs").writeFileSync(file, JSON.stringify({ nproc: +nproc, cpu, load, go, command: cmd, wasmGzip: +gz, date: new Date().toISOString() }, null, 1));
' "$res/machine$([ $smoke = 1 ] && echo -smoke).json" "$(nproc)" "$cpu" "$load" "$(go version)" "$cmd" "$gz"

if [ $smoke = 1 ]; then
  BENCH_SMOKE=1 BENCH_PROFILE=0 BENCH_GOENV="${BENCH_GOENV-}" node bench/harness.mjs
  go run ./bench/native -smoke -runs 1 -warm 1 >"$res/native-smoke.json"
  # 10-row appends after 10,000 commits (1k rows takes minutes); 100 appends with auto-maintain.
  BENCH_AGE_BENCH='BenchmarkAppendAge/rows=10$/' BENCH_AGE_TIME=3x BENCH_META_BENCH='BenchmarkMetadataAfterAppends/appends=100$' \
    targets_go "$res/gotest-targets-smoke.txt"
  node bench/nodeappend.mjs --smoke
  node bench/report.mjs --smoke
  exit 0
fi

echo "== workerd"
BENCH_PROFILE=1 BENCH_GOENV="${BENCH_GOENV-GOGC=100;GOGC=200;GOGC=400;GOGC=off}" node bench/harness.mjs

echo "== native"
go run ./bench/native -runs "${BENCH_RUNS:-5}" -warm "${BENCH_WARM:-3}" >"$res/native.json"
# (BenchmarkIndexCatchUp: the catch-up workload natively, with its Timelake append of 100k rows.)
go test -run XXX -bench 'BenchmarkAppend|BenchmarkCompact/files=(8|24)/rows=(8000|1200000)$|BenchmarkIndexCatchUp' -benchtime 5x ./table/ 2>&1 |
  grep -E '^(Benchmark|goos|goarch|cpu|ok)' | tee "$res/gotest.txt"
# Natively, per-process CPU profiles of the same code paths (go tool pprof -top).
go test -run XXX -bench 'BenchmarkAppend/rows=100000' -benchtime 100x -cpuprofile "$res/native-append.pprof" -o /tmp/table.bench.test ./table/ >/dev/null
go tool pprof -top -nodecount 25 /tmp/table.bench.test "$res/native-append.pprof" 2>/dev/null >"$res/native-append-pprof.txt" || true

echo "== iceberg-go"
tmp=${TMPDIR:-/tmp}
[ -d /dev/shm ] && tmp=/dev/shm
(cd bench/icebergpeer && TMPDIR=$tmp go run . -rows 100000 -runs "${BENCH_RUNS:-5}" -warm "${BENCH_WARM:-3}") >"$res/iceberg-go.json"

echo "== append cost by table age, metadata/ after 10,000 appends"
# BenchmarkAppendAge: 1k- and 10-row appends after 10 and after 10,000
# commits (300 measured appends each, manifest merges included);
# BenchmarkMetadataAfterAppends: 10,000 appends of 10 rows with auto-maintain.
BENCH_AGE_BENCH='BenchmarkAppendAge' BENCH_AGE_TIME=300x BENCH_META_BENCH='BenchmarkMetadataAfterAppends/appends=10000$' \
  targets_go "$res/gotest-targets.txt"

echo "== Node: create + first append, warm appends (local S3 server)"
node bench/nodeappend.mjs

echo "== flights-3m scans: the CLI and the client in Node and workerd (bench/flights.mjs → results/SCANS.md)"
node bench/flights.mjs

node bench/report.mjs
echo "wrote $res/WORKERS.md"
