#!/usr/bin/env bash
# Reproduces bench/results/BRIDGE.md's "js/wasm against wasip1": the same core
# work (a warm append of 1,000 rows; a compaction of 8 × 1,000 rows) natively,
# as GOOS=js GOARCH=wasm and as GOOS=wasip1 GOARCH=wasm under Node, each
# variant run REPS times, interleaved. Prints the table; the raw lines go to
# $OUT/runs.jsonl.
#
#   bash bench/wasip1/run.sh            # REPS=3 APPENDS=60 WARMUP=150 COMPACTS=8 CWARMUP=10
#
# The warm-up is long on purpose: V8 compiles the module's hot functions
# again (TurboFan) in the background for the first ~100 appends, and until
# then an append costs 2-3x its steady CPU (curve.mjs shows it: run with
# WARMUP=0 APPENDS=300 COMPACTS=0, then node bench/wasip1/curve.mjs $OUT/runs.jsonl).
#   ONLY='^(native|js command|js callback|wasip1 command|wasip1 reactor)$' REPS=5 bash bench/wasip1/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/timelake-wasip1}
REPS=${REPS:-3}
APPENDS=${APPENDS:-60}
WARMUP=${WARMUP:-150}
COMPACTS=${COMPACTS:-8}
CWARMUP=${CWARMUP:-10}
ONLY=${ONLY:-}
mkdir -p "$OUT"
here=bench/wasip1
exec_js="$(go env GOROOT)/lib/wasm/go_js_wasm_exec"
flags=(-trimpath -ldflags='-s -w')

# The product's build flags (scripts/build-client.sh): -trimpath -ldflags='-s -w'.
go build "${flags[@]}" -o "$OUT/native" ./$here
GOOS=js GOARCH=wasm go build "${flags[@]}" -o "$OUT/js.wasm" ./$here
GOOS=js GOARCH=wasm GOWASM=satconv,signext go build "${flags[@]}" -o "$OUT/js-satconv.wasm" ./$here
GOOS=wasip1 GOARCH=wasm go build "${flags[@]}" -o "$OUT/wasi.wasm" ./$here
GOOS=wasip1 GOARCH=wasm GOWASM=satconv,signext go build "${flags[@]}" -o "$OUT/wasi-satconv.wasm" ./$here
GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared "${flags[@]}" -o "$OUT/wasi-reactor.wasm" ./$here
: > "$OUT/sizes.txt"
for f in js.wasm js-satconv.wasm wasi.wasm wasi-satconv.wasm wasi-reactor.wasm; do
  echo "$f $(stat -c %s "$OUT/$f") $(gzip -9c "$OUT/$f" | wc -c)" >> "$OUT/sizes.txt"
done

args=(-appends="$APPENDS" -warmup="$WARMUP" -compacts="$COMPACTS" -cwarmup="$CWARMUP")
pos=("$APPENDS" "$WARMUP" "$COMPACTS" "$CWARMUP")
# name | command (GOGC and GOMAXPROCS come from the environment)
variants=(
  "native|GOGC=100|$OUT/native ${args[*]}"
  "native GOMAXPROCS=1|GOGC=100 GOMAXPROCS=1|$OUT/native ${args[*]}"
  "js command|GOGC=100|$exec_js $OUT/js.wasm ${args[*]}"
  "js callback|GOGC=100|node $here/runcallback.mjs $OUT/js.wasm callback ${pos[*]}"
  "wasip1 command|GOGC=100|node --no-warnings $here/runwasi.mjs $OUT/wasi.wasm command ${pos[*]}"
  "wasip1 reactor|GOGC=100|node --no-warnings $here/runwasi.mjs $OUT/wasi-reactor.wasm reactor ${pos[*]}"
  "js command GOGC=400|GOGC=400|$exec_js $OUT/js.wasm ${args[*]}"
  "wasip1 command GOGC=400|GOGC=400|node --no-warnings $here/runwasi.mjs $OUT/wasi.wasm command ${pos[*]}"
  "js command GOGC=off|GOGC=off|$exec_js $OUT/js.wasm ${args[*]}"
  "wasip1 command GOGC=off|GOGC=off|node --no-warnings $here/runwasi.mjs $OUT/wasi.wasm command ${pos[*]}"
  "js command GOWASM=satconv,signext|GOGC=100|$exec_js $OUT/js-satconv.wasm ${args[*]}"
  "wasip1 command GOWASM=satconv,signext|GOGC=100|node --no-warnings $here/runwasi.mjs $OUT/wasi-satconv.wasm command ${pos[*]}"
  # V8 without its baseline compiler: the whole module compiled by TurboFan
  # at instantiation, so no tier-up during the run (a Node flag; workerd
  # takes none from its user).
  "js command node --no-liftoff|GOGC=100|node --no-liftoff --stack-size=8192 $(go env GOROOT)/lib/wasm/wasm_exec_node.js $OUT/js.wasm ${args[*]}"
  "wasip1 command node --no-liftoff|GOGC=100|node --no-liftoff --no-warnings $here/runwasi.mjs $OUT/wasi.wasm command ${pos[*]}"
)
: > "$OUT/runs.jsonl"
: > "$OUT/load.txt"
: > "$OUT/failures.txt"
for rep in $(seq 1 "$REPS"); do
  echo "rep $rep start: $(cat /proc/loadavg)" >> "$OUT/load.txt"
  for v in "${variants[@]}"; do
    IFS='|' read -r name envs cmd <<< "$v"
    [[ -n "$ONLY" && ! "$name" =~ $ONLY ]] && continue
    echo "rep $rep: $name" >&2
    # A run's lines are kept even if the process then fails; the failure is
    # reported.
    set +e
    env $envs $cmd | while IFS= read -r line; do
      printf '{"variant":"%s","rep":%d,"r":%s}\n' "$name" "$rep" "$line"
    done >> "$OUT/runs.jsonl"
    rc=${PIPESTATUS[0]}
    set -e
    [[ $rc != 0 ]] && echo "rep $rep: $name exited with status $rc" | tee -a "$OUT/failures.txt" >&2
  done
done
echo "end: $(cat /proc/loadavg)" >> "$OUT/load.txt"
cat "$OUT/load.txt" "$OUT/failures.txt"
node $here/report.mjs "$OUT/runs.jsonl" "$OUT/sizes.txt"
