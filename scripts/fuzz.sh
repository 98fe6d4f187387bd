#!/usr/bin/env bash
# Runs every fuzz target of the main module for FUZZTIME each (default 30s;
# test.sh runs it with 1s) and prints a Markdown table of executions per
# target. A crasher is written by go test under the package's
# testdata/fuzz/FuzzX/ and fails the script; commit it with the fix.
#   FUZZTIME=30s bash scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-30s}
targets=$(grep -rl --include='*_test.go' '^func Fuzz' . | grep -v '^./interop/' | sort |
  while read -r f; do
    for fn in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do echo "./$(dirname "${f#./}") $fn"; done
  done)
echo "| package | target | execs | execs/s |"
echo "| --- | --- | --- | --- |"
fail=0
while read -r pkg fn; do
  log=$(mktemp)
  if ! go test -run '^$' -fuzz "^${fn}\$" -fuzztime "$fuzztime" -fuzzminimizetime 1s "$pkg" >"$log" 2>&1; then
    if grep -q 'Failing input written' "$log" || ! grep -q 'context deadline exceeded' "$log"; then
      echo "FAIL $pkg $fn" >&2; cat "$log" >&2; fail=1
    else
      # The fuzzing engine sometimes reports its own -fuzztime deadline as a
      # failure, with no failing input: not a finding.
      echo "note: $pkg $fn: the engine's deadline reported as a failure (no failing input)" >&2
    fi
  fi
  # The last progress line: "fuzz: elapsed: 30s, execs: 123456 (4115/sec), new interesting: …"
  line=$(grep -E 'fuzz: elapsed: .*execs: [0-9]+' "$log" | tail -1 || true)
  execs=$(sed -E 's/.*execs: ([0-9]+).*/\1/' <<<"$line")
  secs=$(sed -E 's/.*elapsed: ([0-9]+)s.*/\1/' <<<"$line")
  rate=?
  if [ -n "$execs" ] && [ "${secs:-0}" -gt 0 ]; then rate=$((execs / secs)); fi
  echo "| ${pkg#./} | $fn | ${execs:-?} | $rate |"
  rm -f "$log"
done <<<"$targets"
exit $fail
