// The small-append and first-call section of the
// benchmark report: report.mjs puts it in WORKERS.md, and
// `node bench/report.mjs --small FILE…` writes results/SMALL.md from runs of
// `BENCH_ONLY=appends,peers BENCH_SIZES=1000,100000 node bench/harness.mjs`
// (results/workerd-only-appends+peers[-TAG].json; BENCH_WASM and BENCH_TAG
// run the same workloads with another build of timelake.wasm, e.g. wasm-opt's).
import { median, ms, spread as range } from "./reportfmt.mjs";
const r = (a, b) => (Number.isFinite(a / b) ? (a / b).toFixed(2) + "×" : "–");
const ok = (x, target) => (!Number.isFinite(x) ? "n/a" : x <= target ? "met" : "**not met**");

// smallSection prints the section from one harness run's JSON; false when
// the run has neither figure.
export function smallSection(wd, p, { heading = "## Small appends and the first call", intro = true } = {}) {
  const samples = wd?.samples ?? [];
  const of = (workload, kind) => samples.filter((s) => s.workload === workload && s.kind === kind);
  const cpu = (ss) => ss.map((s) => s.cpuMs);
  const main = (ss) => ss.map((s) => s.cpuMainMs ?? NaN);
  const noop = of("noop", "warm");
  const sizes = [...new Set(samples.filter((s) => /^append \d+$/.test(s.workload)).map((s) => Number(s.workload.split(" ")[1])))].sort((a, b) => a - b);
  const peer = samples.find((s) => /^parquet-wasm \d+$/.test(s.workload))?.workload;
  if (!noop.length && !peer) return false;
  if (heading) p(heading, "");
  if (intro) {
    p("Ratios of medians from the same run (the machine is shared: absolute times move between runs, ratios less). CPU is the workerd process's over the request, all threads and the main thread (where JavaScript and WebAssembly run; V8's other threads compile hot WebAssembly in the background and help its GC). The empty request (`/noop`) is measured in the same isolates as the appends, after them. Memory figures are taken by a request of their own after each measured one (`runtime.ReadMemStats` costs ~3 ms in WebAssembly, more than the empty request itself).", "");
  }
  if (wd?.bundleSizes?.["timelake.wasm"]) p(`timelake.wasm: ${wd.variant ?? "go build -ldflags='-s -w'"}, ${(wd.bundleSizes["timelake.wasm"] / 2 ** 20).toFixed(2)} MiB.`, "");
  p("| measure | Timelake CPU ms, all threads · main thread | reference CPU ms, all · main | ratio, all threads | ratio, main thread | target | |", "| --- | --- | --- | --- | --- | --- | --- |");
  const row = (name, ours, ref, target) => {
    if (!ours.length || !ref.length) return;
    const a = median(cpu(ours)), b = median(cpu(ref)), am = median(main(ours)), bm = median(main(ref));
    p(`| ${name} | ${ms(a)}${range(cpu(ours))} · ${ms(am)} (n=${ours.length}) | ${ms(b)} · ${ms(bm)} (n=${ref.length}) | ${r(a, b)} | ${r(am, bm)} | ${target ? `≤ ${target}×` : ""} | ${target ? ok(a / b, target) : ""} |`);
  };
  for (const n of sizes.filter((n) => n <= 1000)) {
    row(`warm ${n.toLocaleString("en")}-row append (memory store) / empty request`, of(`append ${n} (memory store)`, "warm"), noop, 2);
    row(`… steady (after 8 appends) / empty request`, of(`append ${n} (memory store)`, "steady"), noop, 2);
  }
  if (peer) {
    const pn = Number(peer.split(" ")[1]);
    row(`first call: append ${pn.toLocaleString("en")} rows (R2; runtime start + openTable + append) / parquet-wasm's first write of them`, of(`append ${pn}`, "cold"), of(peer, "cold"), 1.5);
    for (const n of sizes.filter((n) => n < pn)) row(`first call: append ${n.toLocaleString("en")} rows (R2) / parquet-wasm's first write of ${pn.toLocaleString("en")}`, of(`append ${n}`, "cold"), of(peer, "cold"));
    row(`runtime start + openTable / parquet-wasm's first write of ${pn.toLocaleString("en")}`, of("open (runtime start + openTable)", "cold"), of(peer, "cold"));
  }
  p("");
  return true;
}
