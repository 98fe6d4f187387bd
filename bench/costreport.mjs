// "## Read path and fixed costs" of WORKERS.md: the targets for scans at
// scale and for WebAssembly's fixed costs per call and per request, every
// figure from the run report.mjs is writing:
//   wd       results/workerd.json (harness.mjs): appends warm, steady and
//            settled, the empty request, peers, compaction, expiry,
//            catch-up, the scans against hyparquet
//   native   results/native.json (go run ./bench/native): the same work natively
//   gotest   results/gotest.txt (BenchmarkIndexCatchUp natively)
//   flights  results/flights.json (bench/flights.mjs, step 5 of run.sh)
// Ratios of medians; CPU is all threads · the main thread where both are known.
import { median, ok as verdict, fmt, ratio as x } from "./reportfmt.mjs";
import { goBenchLines } from "./targetsreport.mjs";
import { flightsTargets } from "./flightsreport.mjs";

const judge = (v) => (v === undefined || Number.isNaN(v) ? "n/a" : verdict(v));

export function costSection({ wd, native, gotest, flights, machine }, p) {
  const of = (workload, kind) => (wd?.samples ?? []).filter((s) => s.workload === workload && s.kind === kind);
  const cpu = (ss) => median(ss.map((s) => s.cpuMs));
  const main = (ss) => median(ss.map((s) => s.cpuMainMs ?? NaN));
  const nat = (workload, kind) => median((native?.samples ?? []).filter((s) => s.workload === workload && s.kind === kind).map((s) => s.cpuMs));
  const both = (ss) => `${fmt(cpu(ss))} · ${fmt(main(ss))} ms`;
  const G = goBenchLines(gotest);

  p("## Read path and fixed costs", "");
  p("Every figure below is from this run: workerd (harness.mjs; CPU all threads · main thread, medians), natively (`go run ./bench/native`, `go test -bench BenchmarkIndexCatchUp ./table/`), the flights-3m scans (`bench/flights.mjs`). Warm: the isolate's calls 2–4; steady: after 8 calls; settled: after " + (wd?.settledAfter ?? "?") + " appends in the same isolate (a busy Worker), when V8 has compiled the hot WebAssembly to optimized code. A warm call pays for part of that compilation on V8's background threads and runs the rest in baseline code: docs/decisions/wasm-fixed-costs.md, \"Tier-up\". Not a test: nothing asserts a timing.", "");
  p("| target | measured | ratio | target | |", "| --- | --- | --- | --- | --- |");

  // Scans at scale: flights-3m, when bench/flights.mjs ran in this run.
  const sameRun = flights && machine?.date && flights.date >= machine.date;
  if (sameRun) for (const t of flightsTargets(flights)) p(`| flights-3m, ${t.target} | ${t.measured} | | | ${t.verdict} |`);
  else p(`| flights-3m: bytes read ≤ 1.1×, Node ≤ 3× the CLI, 3 months ≤ 3.3× 1 month | not in this run${flights ? ` (results/flights.json is from ${flights.date})` : ""} | | | n/a |`);

  // The whole day streamed against hyparquet, workerd, warm.
  for (const files of ["24 files (as appended)", "compacted"]) {
    const ours = of(`scan whole day streamed, all columns, ${files}`, "warm"), hy = of(`hyparquet whole day streamed, all columns, ${files}`, "warm");
    if (!ours.length || !hy.length) continue;
    p(`| whole day streamed (1.2M rows, ${files}) in workerd / hyparquet, warm | ${both(ours)}; hyparquet ${both(hy)} | ${x(cpu(ours), cpu(hy))} · ${x(main(ours), main(hy))} | ≤ 0.5× | ${judge(cpu(ours) / cpu(hy) <= 0.5)} |`);
  }

  // The 1k append: against native, against the empty request.
  const natWire = nat("append 1000 (columns in, as from JS)", "warm");
  const natPlain = nat("append 1000", "warm");
  const noopWarm = of("noop", "warm"), noopSettled = of("noop", "settled");
  for (const kind of ["warm", "steady", "settled"]) {
    const a = of("append 1000 (memory store)", kind);
    if (!a.length) continue;
    p(`| 1k-row append, memory store, ${kind}: WASM / native (the same path natively: columns in → align → append) | ${both(a)}; natively ${fmt(natWire)} ms (a prebuilt batch ${fmt(natPlain)} ms) | ${x(cpu(a), natWire)} · ${x(main(a), natWire)} | ≤ 3× | ${judge(cpu(a) / natWire <= 3)} |`);
    const noop = kind === "settled" && noopSettled.length ? noopSettled : noopWarm;
    if (noop.length) p(`| 1k-row append, memory store, ${kind} / the empty request${noop === noopSettled ? " (settled isolate)" : ""} | ${both(a)}; empty request ${both(noop)} | ${x(cpu(a), cpu(noop))} · ${x(main(a), main(noop))} | ≤ 4× | ${judge(cpu(a) / cpu(noop) <= 4)} |`);
  }

  // Maintenance: compaction warm and steady, expiry warm, against native (a fresh copy in a warm process).
  for (const [w, kinds] of [["compact 24 files / 1200000 rows", ["warm", "steady"]], ["compact 24 files / 1200000 rows (memory store)", ["warm", "steady"]], ["compact 8 files / 8000 rows", ["warm", "steady"]], ["compact 8 files / 8000 rows (memory store)", ["warm", "steady"]], ["expire + cleanup, 1000 snapshots", ["warm"]], ["expire + cleanup, 1000 snapshots (memory store)", ["warm"]]]) {
    // Natively the store is a memory store; workerd's R2 figure includes Miniflare's R2 simulator, which runs in its process.
    const n = nat(w.replace(" (memory store)", ""), "cold");
    for (const kind of kinds) {
      const a = of(w, kind);
      if (!a.length || !Number.isFinite(n)) continue;
      p(`| ${w}, ${kind}: WASM / native | ${both(a)}; natively ${fmt(n)} ms | ${x(cpu(a), n)} · ${x(main(a), n)} | ≤ 3× | ${judge(cpu(a) / n <= 3)} |`);
    }
  }

  // Catch-up after a foreign append of 100k rows: workerd (R2, includes openTable; and a memory store) against BenchmarkIndexCatchUp.
  // The memory-store runs (an opened table, no R2 simulator) are what BenchmarkIndexCatchUp does natively.
  for (const [key, prefix] of [
    ["latest-after-foreign-100k", "catch-up: latest,"],
    ["latest-after-foreign-100k", "catch-up (memory store, table open): latest,"],
    ["append-1k-after-foreign-100k", "catch-up: append 1000,"],
    ["append-1k-after-foreign-100k", "catch-up (memory store, table open): append 1000,"],
  ]) {
    const b = G[`BenchmarkIndexCatchUp/${key}`];
    const name = [...new Set((wd?.samples ?? []).map((s) => s.workload))].find((w) => w.startsWith(prefix));
    if (!b || !name) continue;
    for (const kind of ["warm", "steady"]) {
      const a = of(name, kind);
      if (a.length) p(`| ${name}, ${kind}: WASM / native | ${both(a)}; natively ${fmt(b["cpu-ms/op"])} ms | ${x(cpu(a), b["cpu-ms/op"])} · ${x(main(a), b["cpu-ms/op"])} | ≤ 3× | ${judge(cpu(a) / b["cpu-ms/op"] <= 3)} |`);
    }
  }

  // The first call and the 100k append against parquet-wasm.
  const big = Math.max(0, ...(wd?.samples ?? []).filter((s) => /^append \d+$/.test(s.workload)).map((s) => Number(s.workload.split(" ")[1])));
  const first = of(`append ${big}`, "cold"), pwFirst = of(`parquet-wasm ${big}`, "cold");
  if (first.length && pwFirst.length) p(`| first call (fresh isolate: runtime start, open, append ${big.toLocaleString("en")}) / parquet-wasm's first call | ${both(first)}; parquet-wasm ${both(pwFirst)} | ${x(cpu(first), cpu(pwFirst))} · ${x(main(first), main(pwFirst))} | ≤ 1.5× | ${judge(cpu(first) / cpu(pwFirst) <= 1.5)} |`);
  const mem = of(`append ${big} (memory store)`, "warm"), pw = of(`parquet-wasm ${big}`, "warm");
  if (mem.length && pw.length) p(`| append ${big.toLocaleString("en")} warm, memory store / parquet-wasm's write (no regression) | ${both(mem)}; parquet-wasm ${both(pw)} | ${x(cpu(mem), cpu(pw))} · ${x(main(mem), main(pw))} | ≤ 1.0× | ${judge(cpu(mem) / cpu(pw) <= 1)} |`);
  const wasm = Math.max(0, ...of(`append ${big}`, "warm").concat(of(`append ${big}`, "cold"), mem).map((s) => s.body?.memory?.wasmMemoryBytes ?? 0));
  if (wasm) p(`| WASM memory after appends of ${big.toLocaleString("en")} rows (no regression) | ${fmt(wasm / 2 ** 20)} MiB | | ≤ 32 MiB | ${judge(wasm <= 32 * 2 ** 20)} |`);
  p("");
}
