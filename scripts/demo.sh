#!/usr/bin/env bash
# Sets up and runs the main job on a local default: builds the timelake CLI,
# creates a table under ./demo-table (removed first), appends the sample data
# set examples/metrics.csv, and prints info and the latest value per series.
# No account, no network beyond the Go module download on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
go build -o bin/timelake ./cmd/timelake
rm -rf demo-table
bin/timelake create demo-table --time time --series host \
  --column region:string --column cpu:double --column mem_bytes:long --column healthy:boolean?
bin/timelake append demo-table examples/metrics.csv
bin/timelake info demo-table
bin/timelake latest demo-table
