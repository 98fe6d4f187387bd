#!/usr/bin/env bash
# Runs every test: Go vet and tests of the core, stores and CLI (the outside
# readers — iceberg-go, DuckDB, pyiceberg — included), and the interop module;
# every fuzz target briefly; the client in Node, workerd, Deno, Bun and
# Chromium (scripts/test-client.sh); the benchmark harness's smoke run; the
# co-write scenario with Spark, pyiceberg and iceberg-go (internal/cowrite); the
# outside clients through Iceberg's REST catalog server (internal/catalogclients,
# scripts/restcatalog.sh: needs java 17 and mvn).
# Installs what it needs itself: Go modules, npm packages from lockfiles, the
# Python venv (.venv), and pyspark + Iceberg's Spark runtime (scripts/sparkenv.sh).
# TIMELAKE_SKIP_READERS=duckdb,pyiceberg,iceberg-go skips named readers (logged).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== setup: python venv for the outside readers"
bash scripts/pyenv.sh >/dev/null

echo "== setup: Spark for the co-write tests (scripts/sparkenv.sh: pyspark 3.5 in .venv-spark, Iceberg's Spark runtime jar via Maven)"
bash scripts/sparkenv.sh >/dev/null

echo "== S3: a local server for the S3 tests (scripts/s3server.sh: versitygw on 127.0.0.1, stopped on exit)"
eval "$(bash scripts/s3server.sh start)"; trap 'bash scripts/s3server.sh stop "$TIMELAKE_S3_DIR"' EXIT

echo "== go vet"
go vet ./...
(cd interop && go vet ./...)

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted"; exit 1; fi

echo "== client build (the soak's Node and Worker writers need it; test-client.sh tests it below)"
bash scripts/build-client.sh

echo "== setup: the test REST catalog's launcher (scripts/restcatalog.sh build: Iceberg's REST catalog server, jars via Maven into .cache/restcatalog)"
bash scripts/restcatalog.sh build

echo "== go test (core, stores, CLI, outside readers, the soak on a directory and on S3)"
# internal/cowrite and internal/catalogclients run on their own below: one
# holds a Spark session, the other REST catalog servers. internal/scandiff
# (the scan against DuckDB) must not skip here: TIMELAKE_REQUIRE_SCAN.
TIMELAKE_SOAK_JS=1 TIMELAKE_REQUIRE_CATALOG=1 TIMELAKE_REQUIRE_SCAN=1 go test -count=1 $(go list ./... | grep -v -e '/internal/cowrite$' -e '/internal/catalogclients$')

echo "== go test (interop module)"
(cd interop && go test -count=1 ./...)

echo "== wasm build of the core"
# The core packages by package purity's rule (every package but the drivers).
GOOS=js GOARCH=wasm go build $(go run ./internal/purity/corepkgs)

echo "== fuzz: every target for ${TIMELAKE_FUZZTIME:-1s} (FUZZTIME=30s bash scripts/fuzz.sh for the long run)"
FUZZTIME=${TIMELAKE_FUZZTIME:-1s} bash scripts/fuzz.sh

echo "== catalog clients: pyiceberg, DuckDB and iceberg-go on one table through Iceberg's REST catalog server, file and S3 warehouses (internal/catalogclients, two catalog servers, ~40 s)"
TIMELAKE_REQUIRE_CATALOG=1 go test -count=1 -timeout 10m ./internal/catalogclients

echo "== co-write: Spark, pyiceberg and iceberg-go write and maintain Timelake tables (internal/cowrite, one Spark session, ~4-8 min)"
TIMELAKE_REQUIRE_SPARK=1 go test -count=1 -timeout 30m ./internal/cowrite

bash scripts/test-client.sh

echo "== benchmark harness, smoke run (tiny sizes, no timing asserted): bench/run.sh --smoke"
bash bench/run.sh --smoke

echo "all tests passed"
