#!/usr/bin/env bash
# The CLI as a new user drives it: N appends of 10 rows, one
# process each, into a fresh directory table with the default properties.
# Prints the mean wall time of appends 11–20 and of the last 10, the size of
# metadata/ and what `timelake info` says after.
#
#   bash bench/cliage.sh [N=1000] [timelake binary, default: built from ./cmd/timelake]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
bin=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$bin" ]; then
  bin=$work/timelake
  go build -o "$bin" ./cmd/timelake
fi
t=$work/t
"$bin" create "$t" --time ts --series host --column cpu:double >/dev/null
early=0 late=0
for i in $(seq 1 "$n"); do
  f=$work/batch.csv
  { echo ts,host,cpu; for h in 0 1 2 3 4 5 6 7 8 9; do echo "2026-12-01T00:00:00.$(printf %06d "$i")Z,h$h,$i.5"; done; } >"$f"
  s=$(date +%s%N)
  "$bin" append "$t" "$f" >/dev/null
  e=$(date +%s%N)
  if [ "$i" -gt 10 ] && [ "$i" -le 20 ]; then early=$((early + e - s)); fi
  if [ "$i" -gt $((n - 10)) ]; then late=$((late + e - s)); fi
done
echo "append (wall, one process each): appends 11-20 $((early / 10000000)) ms, appends $((n - 9))-$n $((late / 10000000)) ms"
echo "metadata/: $(du -sb "$t/metadata" | cut -f1) bytes in $(ls "$t/metadata" | wc -l) objects"
"$bin" info "$t" | grep -E '^(version|snapshot|rows|files) '
