// Writes bench/results/WORKERS.md from the JSON that bench/run.sh collected:
// results/workerd.json (harness.mjs), native.json (bench/native),
// iceberg-go.json (bench/icebergpeer), gotest.txt and gotest-targets.txt
// (go test -bench in table/), node.json (bench/nodeappend.mjs) and
// machine.json (written by run.sh before anything ran). --smoke: the
// -smoke files of a `bash bench/run.sh --smoke` only → WORKERS-smoke.md.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { scanSection } from "./scanreport.mjs";
import { rollupSection } from "./rollupreport.mjs";
import { batcherSection } from "./batcherreport.mjs";
import { smallSection } from "./smallreport.mjs";
import { targetsSection } from "./targetsreport.mjs";
import { costSection } from "./costreport.mjs";
import { writeFlightsSection } from "./flightsreport.mjs";
import { ms, mib, ok } from "./reportfmt.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const res = path.join(here, "results");
const read = (f) => (fs.existsSync(path.join(res, f)) ? JSON.parse(fs.readFileSync(path.join(res, f), "utf8")) : undefined);
const smoke = process.argv.includes("--smoke");
// --scan: results/SCANS.md from a BENCH_ONLY=scan run (workerd-only-scan.json) alone.
if (process.argv.includes("--scan")) {
  const only = read("workerd-only-scan.json");
  const m = read("machine.json") ?? {};
  const out = [];
  const q = (...l) => out.push(...l);
  q("# Timelake in workerd: scans", "");
  q(`Written by \`BENCH_ONLY=scan node bench/harness.mjs\` (${only?.runs ?? "?"} cold samples, ${only?.warm ?? "?"} warm each) and \`node bench/report.mjs --scan\`; machine: ${m.nproc ?? "?"} CPUs, ${m.cpu ?? "?"}; Node ${only?.versions?.node ?? "?"}, ${only?.versions?.workerd ?? "workerd ?"}, hyparquet ${only?.versions?.hyparquet ?? "?"}, icebird ${only?.versions?.icebird ?? "?"}. Do not edit: rerun. The machine is shared: compare ratios within this run.`, "");
  if (!scanSection(only, q)) q("No scan figures: run `BENCH_ONLY=scan node bench/harness.mjs` first.");
  fs.writeFileSync(path.join(res, "SCANS.md"), out.join("\n") + "\n");
  writeFlightsSection(res); // the flights-3m section (bench/flights.mjs), kept
  console.error("wrote results/SCANS.md");
  process.exit(0);
}
// --rollup: results/ROLLUPS.md from a BENCH_ONLY=rollup run (workerd-only-rollup.json) alone.
if (process.argv.includes("--rollup")) {
  const only = read("workerd-only-rollup.json");
  const m = read("machine.json") ?? {};
  const out = [];
  const q = (...l) => out.push(...l);
  q("# Timelake in workerd: rollups", "");
  q(`Written by \`BENCH_RUNS=${only?.runs ?? "?"} BENCH_WARM=${only?.warm ?? "?"} BENCH_ONLY=rollup node bench/harness.mjs\` and \`node bench/report.mjs --rollup\`; machine: ${m.nproc ?? "?"} CPUs, ${m.cpu ?? "?"}; Node ${only?.versions?.node ?? "?"}, ${only?.versions?.workerd ?? "workerd ?"}. Do not edit: rerun. The machine is shared: compare ratios within this run.`, "");
  if (!rollupSection(only, q)) q("No rollup figures: run `BENCH_ONLY=rollup node bench/harness.mjs` first.");
  fs.writeFileSync(path.join(res, "ROLLUPS.md"), out.join("\n") + "\n");
  console.error("wrote results/ROLLUPS.md");
  process.exit(0);
}
// --batcher: results/BATCHER.md from a BENCH_ONLY=batcher run (workerd-only-batcher.json) alone.
if (process.argv.includes("--batcher")) {
  const only = read("workerd-only-batcher.json");
  const m = read("machine.json") ?? {};
  const out = [];
  const q = (...l) => out.push(...l);
  q("# Timelake in workerd: the Durable Object batcher", "");
  q(`Written by \`BENCH_ONLY=batcher node bench/harness.mjs\` and \`node bench/report.mjs --batcher\`; machine: ${m.nproc ?? "?"} CPUs, ${m.cpu ?? "?"}; Node ${only?.versions?.node ?? "?"}, ${only?.versions?.workerd ?? "workerd ?"} via Miniflare ${only?.versions?.miniflare ?? "?"}. Do not edit: rerun. The machine is shared: absolute times are noisy.`, "");
  if (!batcherSection(only, q)) q("No batcher figures: run `BENCH_ONLY=batcher node bench/harness.mjs` first.");
  fs.writeFileSync(path.join(res, "BATCHER.md"), out.join("\n") + "\n");
  console.error("wrote results/BATCHER.md");
  process.exit(0);
}
// --small [FILE…]: results/SMALL.md from BENCH_ONLY=appends,peers runs, one section per file.
if (process.argv.includes("--small")) {
  const files = process.argv.slice(process.argv.indexOf("--small") + 1).filter((a) => !a.startsWith("--"));
  const m = read("machine.json") ?? {};
  const out = [];
  const q = (...l) => out.push(...l);
  q("# Timelake in workerd: small appends and the first call", "");
  q(`Written by \`node bench/report.mjs --small ${files.join(" ")}\` from runs of \`BENCH_ONLY=appends,peers BENCH_SIZES=1000,100000 node bench/harness.mjs\` (BENCH_WASM, BENCH_TAG: another timelake.wasm); machine: ${m.nproc ?? "?"} CPUs, ${m.cpu ?? "?"}. Do not edit: rerun. The machine is shared: compare ratios within one run.`, "");
  for (const [i, f] of (files.length ? files : ["workerd-only-appends+peers.json"]).entries()) {
    const wd = read(path.basename(f));
    if (!wd) { q(`No ${f}.`, ""); continue; }
    q(`## ${path.basename(f)}: ${wd.runs} cold samples, ${wd.warm} warm and ${wd.steady} steady each; ${wd.variant ?? "go build"}`, "");
    smallSection(wd, q, { heading: "", intro: i === 0 });
  }
  fs.writeFileSync(path.join(res, "SMALL.md"), out.join("\n") + "\n");
  console.error("wrote results/SMALL.md");
  process.exit(0);
}
// A smoke run reads only what the smoke run wrote (the -smoke files), never the last full run's.
const wd = read(smoke ? "workerd-smoke.json" : "workerd.json");
const native = read(smoke ? "native-smoke.json" : "native.json");
const ice = smoke ? undefined : read("iceberg-go.json");
const machine = read(smoke ? "machine-smoke.json" : "machine.json") ?? {};
const text = (f) => (fs.existsSync(path.join(res, f)) ? fs.readFileSync(path.join(res, f), "utf8") : "");
const gotest = smoke ? "" : text("gotest.txt");
const gotest16 = text(smoke ? "gotest-targets-smoke.txt" : "gotest-targets.txt");
const nodeRun = read(smoke ? "node-smoke.json" : "node.json");

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const spread = (xs) => (xs.length > 1 ? `${ms(Math.min(...xs))}–${ms(Math.max(...xs))}` : "");
const groups = (samples) => {
  const g = new Map();
  for (const s of samples ?? []) {
    const k = `${s.workload}\u0000${s.kind}`;
    if (!g.has(k)) g.set(k, []);
    g.get(k).push(s);
  }
  return g;
};
const get = (g, workload, kind) => g.get(`${workload}\u0000${kind}`) ?? [];
const cpuMed = (ss) => median(ss.map((s) => s.cpuMs));
const r = (a, b) => (Number.isFinite(a / b) ? (a / b).toFixed(2) + "×" : "–");
const mainMed = (ss) => median(ss.map((s) => s.cpuMainMs ?? NaN));
const storeLine = (st) => {
  if (!st) return "";
  const kinds = ["get", "getRange", "put", "putIfAbsent", "delete", "list"].filter((k) => st[k]).map((k) => `${k} ${st[k]}`);
  if (st.deletedKeys) kinds.push(`(${st.deletedKeys} keys)`);
  return `${kinds.join(", ")}; in ${((st.bytesIn ?? 0) / 1024).toFixed(1)} KiB, out ${((st.bytesOut ?? 0) / 1024).toFixed(1)} KiB`;
};

const W = groups(wd?.samples);
const N = groups(native?.samples);
const I = groups(ice?.samples);
const lines = [];
const p = (...l) => lines.push(...l);

p("# Timelake in workerd: benchmarks", "");
p(`Written by \`${machine.command ?? "bash bench/run.sh"}\` on ${machine.date ?? "?"}${smoke ? " (SMOKE RUN: tiny sizes, figures mean nothing)" : ""}. Do not edit: rerun.`, "");
p("## Machine and versions", "");
p(`- ${machine.nproc ?? "?"} CPUs, ${machine.cpu ?? "?"}; load average at start ${machine.load ?? "?"} (other jobs run on this machine: absolute times are noisy, **ratios from the same run are the figures that count**)`);
p(`- ${machine.go ?? ""}; Node ${wd?.versions?.node ?? "?"}; ${wd?.versions?.workerd ?? "workerd ?"} via Miniflare ${wd?.versions?.miniflare ?? "?"}; esbuild ${wd?.versions?.esbuild ?? "?"}`);
p(`- peers: parquet-wasm ${wd?.versions?.["parquet-wasm"] ?? "?"} (input built with apache-arrow ${wd?.versions?.["apache-arrow"] ?? "?"}), hyparquet-writer ${wd?.versions?.["hyparquet-writer"] ?? "?"} with @bokuweb/zstd-wasm ${wd?.versions?.["@bokuweb/zstd-wasm"] ?? "?"}, iceberg-go ${ice?.icebergGo ?? "?"} (native)`);
if (wd?.bundleSizes) p(`- bundle: ${Object.entries(wd.bundleSizes).map(([k, v]) => `${k} ${(v / 2 ** 20).toFixed(2)} MiB`).join(", ")}; timelake.wasm gzip -9: ${machine.wasmGzip ? (machine.wasmGzip / 2 ** 20).toFixed(2) + " MiB" : "?"}`);
p(`- samples: ${wd?.runs ?? "?"} cold (each a new workerd process) and ${wd?.warm ?? "?"} warm per cold (the isolate's calls 2–${(wd?.warm ?? 0) + 1}); appends also ${wd?.steady ?? "?"} steady per cold (calls ${(wd?.steadyAfter ?? 0) + 1}–${(wd?.steadyAfter ?? 0) + (wd?.steady ?? 0)} of the isolate, when V8 has finished optimizing the hot WebAssembly functions); medians, with min–max`, "");

p("## Defaults (what the figures ran with)", "");
p("| setting | value | why |", "| --- | --- | --- |");
p("| batch size | one `append()` call = one batch = one commit (the CLI's `--batch-rows` 100,000) | 100k rows fit the isolate's memory target (see peak memory below) |");
p("| row-group size | `write.parquet.row-group-size-bytes` 128 MiB, capped at 16 MiB in WASM | bounds the buffered row group inside the 128 MiB isolate |");
p("| page rows | `write.parquet.page-row-limit` 8,192 | |");
p("| files per merge | at most 24 | the 24-file / 1.2M-row case below |");
p("| read-ahead per merge | 8 MiB of compressed pages (`mergeReadBudget`), shared by the inputs; a file or row group within its share is read in one request | the 24-file merge below: 24 range requests, 29 MiB of WASM memory; every request is a round trip to R2 or S3 |");
p("| compaction trigger | `timelake.compact-min-files` 8, `timelake.compact-cold-after` 1h | |");
p("| byte cap | `timelake.maintain-byte-cap` 256 MiB (0 in the compaction runs here, so one run merges all inputs) | |");
p("| codec | ZSTD (klauspost/compress, default level) | |", "");

// ---- workerd table
p("## Timelake in workerd", "");
p("CPU: workerd process CPU over the request (all threads), and the same split by thread: the main thread, where the isolate runs JavaScript and WebAssembly (and Miniflare's local R2), and V8's platform threads, which compile hot WebAssembly functions to optimized code in the background (tier-up) and help the GC; a tier-up started by one request may finish during the next. Peak RSS growth: the workerd process's VmHWM after the request minus VmRSS before (high-water mark reset before each request). WASM memory: the Go instance's linear memory after the request (it only grows: the isolate's WebAssembly high-water mark). JS heap: V8 heap of the Worker's isolate after the request (inspector `Runtime.getHeapUsage`, used / total). Store: requests by kind and bytes, counted inside the Worker.", "");
p("| workload | call | n | CPU ms median (min–max) | main thread / V8 threads CPU ms | wall ms | peak RSS growth MiB (max) | WASM memory MiB | Go heap sys MiB | JS heap used / total MiB | store requests (one sample) |");
p("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
const seen = new Set();
for (const s of wd?.samples ?? []) {
  const k = `${s.workload}\u0000${s.kind}`;
  if (seen.has(k)) continue;
  seen.add(k);
  const ss = W.get(k);
  const cpu = ss.map((x) => x.cpuMs);
  const rss = ss.map((x) => x.rssGrowth);
  const wasm = ss.map((x) => x.body?.memory?.wasmMemoryBytes ?? NaN).filter(Number.isFinite);
  const heap = ss.map((x) => x.body?.memory?.goHeapSys ?? NaN).filter(Number.isFinite);
  const js = ss.map((x) => x.jsHeap).filter(Boolean);
  const split = ss[0].cpuMainMs === undefined ? "–" : `${ms(median(ss.map((x) => x.cpuMainMs)))} / ${ms(median(ss.map((x) => x.cpuV8Ms)))}`;
  p(`| ${s.workload} | ${s.kind} | ${ss.length} | ${ms(median(cpu))} (${spread(cpu)}) | ${split} | ${ms(median(ss.map((x) => x.wallMs)))} | ${mib(median(rss))} (${mib(Math.max(...rss))}) | ${wasm.length ? mib(Math.max(...wasm)) : "–"} | ${heap.length ? mib(Math.max(...heap)) : "–"} | ${js.length ? `${mib(Math.max(...js.map((j) => j.used)))} / ${mib(Math.max(...js.map((j) => j.total)))}` : "–"} | ${storeLine(ss[ss.length - 1].body?.store)} |`);
}
if (wd?.maintainNote) p("", `**Compaction and expiry in workerd:** ${wd.maintainNote}`);
p("");

// ---- appends through a REST catalog
const CAT = "append 1000 through a REST catalog";
const catKinds = ["cold", "warm", "steady"];
const catalogLine = (c) => (c ? `commit ${c.commit}, load ${c.load}, config ${c.config}, token ${c.token}${c.other ? `, other ${c.other}` : ""}` : "");
// Whether every sample of these kinds made exactly one catalog request, the commit.
const oneCommit = (kinds) => {
  const ss = kinds.flatMap((k) => get(W, CAT, k));
  return ss.length ? ss.every((x) => x.body?.catalog?.commit === 1 && x.body.catalog.requests.length === 1) : undefined;
};
const distinctCatalog = (ss) => [...new Set(ss.map((x) => catalogLine(x.body?.catalog)))].join(" · ");
const distinctStore = (ss) => {
  const kinds = [...new Set(ss.map((x) => storeLine(x.body?.store).replace(/; in .*/, "")))].join(" · ");
  const last = storeLine(ss.at(-1)?.body?.store).replace(/^[^;]*; /, "");
  return `${kinds}; ${last} (last sample)`;
};
p("## append 1000 through a REST catalog vs storage-only: requests and CPU", "");
if (wd?.catalogNote) p(`The catalog workload was ${wd.catalogNote}.`, "");
else if (get(W, CAT, "warm").length) {
  p("The same 1,000 rows appended to a table kept in a REST catalog (Iceberg's own server, `scripts/restcatalog.sh`, started by bench/run.sh: a JDBC catalog in SQLite, file warehouse, no token, no other writer) and to the storage-only table of `append 1000` (R2). The catalog table's files go to the same Miniflare R2 binding, keyed under the table's location path as the client's rule for a Store given with a catalog (`prefixStore`) keys them; the table metadata is written by the catalog server into its own warehouse. Catalog requests are counted by the `fetch` the Worker gives `restCatalog` (config `GET /v1/config`, token `POST …/oauth/tokens`, load `GET …/tables/t`, commit `POST …/tables/t`), store requests by the counting Store as everywhere here; both list every sample's counts (distinct ones joined by ·). Cold: a fresh isolate's first call (runtime start, the catalog's config, the table's load at open, the append). CPU is the workerd process's, as above; the catalog server's CPU (its JVM, all threads) over the same request is apart, in the last column: a real catalog's work is elsewhere and is not billed as Worker CPU, but its round trips are in the wall time.", "");
  p("| workload | call | n | catalog requests | store requests | CPU ms median (min–max) | main / V8 threads CPU ms | wall ms | catalog server CPU ms |");
  p("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const [label, name] of [["storage-only (R2)", "append 1000"], ["through the REST catalog (R2)", CAT]]) {
    for (const kind of catKinds) {
      const ss = get(W, name, kind);
      if (!ss.length) continue;
      const cpu = ss.map((x) => x.cpuMs);
      const srv = ss.map((x) => x.serverCpuMs).filter(Number.isFinite);
      p(`| ${label} | ${kind} | ${ss.length} | ${name === CAT ? distinctCatalog(ss) : "none"} | ${distinctStore(ss)} | ${ms(median(cpu))}${ss.length > 1 ? ` (${spread(cpu)})` : ""} | ${ms(mainMed(ss))} / ${ms(median(ss.map((x) => x.cpuV8Ms)))} | ${ms(median(ss.map((x) => x.wallMs)))} | ${srv.length ? ms(median(srv)) : ""} |`);
    }
  }
  const ratio = (kind) => r(cpuMed(get(W, CAT, kind)), cpuMed(get(W, "append 1000", kind)));
  p("", `Catalog / storage-only, workerd CPU: cold ${ratio("cold")}, warm ${ratio("warm")}, steady ${ratio("steady")}. Every warm and steady catalog append made exactly one catalog request, the commit POST: **${oneCommit(["warm", "steady"]) ? "yes" : "no"}**${wd?.catalogFailures?.length ? ` (${wd.catalogFailures.join("; ")})` : ""}.`, "");
}
// ---- peers
const big = Math.max(...(wd?.samples ?? []).filter((s) => /^append \d+$/.test(s.workload)).map((s) => Number(s.workload.split(" ")[1])), 0);
const ours = cpuMed(get(W, `append ${big}`, "warm"));
const oursMem = cpuMed(get(W, `append ${big} (memory store)`, "warm"));
const oursCold = cpuMed(get(W, `append ${big}`, "cold"));
const oursSteady = cpuMed(get(W, `append ${big}`, "steady"));
const oursMemSteady = cpuMed(get(W, `append ${big} (memory store)`, "steady"));
const oursColdMain = median(get(W, `append ${big}`, "cold").map((s) => s.cpuMainMs ?? NaN));
const pwWarm = cpuMed(get(W, `parquet-wasm ${big}`, "warm"));
const pwCold = cpuMed(get(W, `parquet-wasm ${big}`, "cold"));
const arrowWarm = cpuMed(get(W, `arrow ${big}`, "warm"));
const hyWarm = cpuMed(get(W, `hyparquet-writer ${big}`, "warm"));
const hyCold = cpuMed(get(W, `hyparquet-writer ${big}`, "cold"));
const noop = cpuMed(get(W, "noop", "warm"));
p(`## Peers: ${big.toLocaleString("en")} rows in the same run, same workerd`, "");
p("Timelake's append sorts by (series, time), deduplicates, writes Parquet with statistics and page index, the manifest, the last-value index, the manifest list and the metadata, and commits; the peers write one Parquet file (ZSTD) and nothing else. parquet-wasm's input is an Arrow IPC stream built from the same row objects by an earlier request (`arrow` row: that build on its own).", "");
p("CPU is all threads; the main thread's share (where JavaScript and WebAssembly run) is in the workerd table above. Warm: the isolate's calls 2–4; steady: after 8 calls (Timelake's appends only: the peers' small modules are optimized by their second call, V8 threads ≈ 2 ms).", "");
p("| writer | warm CPU ms | steady CPU ms | first call CPU ms | Timelake (R2) / it, warm · steady | Timelake (memory store) / it, warm · steady |", "| --- | --- | --- | --- | --- | --- |");
p(`| Timelake append, R2 | ${ms(ours)} | ${ms(oursSteady)} | ${ms(oursCold)} | 1 | |`);
p(`| Timelake append, memory store in the isolate | ${ms(oursMem)} | ${ms(oursMemSteady)} | | | 1 |`);
const both = (a, as, b) => `${r(a, b)} · ${r(as, b)}`;
p(`| parquet-wasm write (Arrow IPC in) | ${ms(pwWarm)} | | ${ms(pwCold)} | ${both(ours, oursSteady, pwWarm)} | ${both(oursMem, oursMemSteady, pwWarm)} |`);
p(`| parquet-wasm incl. rows → Arrow | ${ms(pwWarm + arrowWarm)} | | | ${both(ours, oursSteady, pwWarm + arrowWarm)} | ${both(oursMem, oursMemSteady, pwWarm + arrowWarm)} |`);
p(`| hyparquet-writer (rows → columns → file) | ${ms(hyWarm)} | | ${ms(hyCold)} | ${both(ours, oursSteady, hyWarm)} | ${both(oursMem, oursMemSteady, hyWarm)} |`);
p(`| (empty request: the floor of every figure) | ${ms(noop)} | | | |`, "");

// ---- native
p("## Natively (Go, same workloads, memory store) and the WASM/native ratio", "");
p("`go run ./bench/native`: process CPU (getrusage, all threads) and wall per operation; peak heap is the live heap's high-water mark above the heap before the operation (sampled every ms). Ratio: workerd CPU (memory-store figure where there is one, else R2) / native CPU, same call kind (for maintenance, which natively runs on a fresh copy of its input in a warm process, workerd's steady figure for compaction, warm for expiry). “columns in, as from JS” is the WASM build's path natively: the client's wire columns (numbers, UTF-8 strings) aligned by \`wasm/colrows\` and appended; the plain rows start from a prebuilt \`rows.Batch\` (as BenchmarkAppend).", "");
p("| workload | call | n | CPU ms median (min–max) | wall ms | peak heap MiB | allocated MiB | store requests | workerd CPU ms | WASM/native |");
p("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
const seenN = new Set();
for (const s of native?.samples ?? []) {
  const k = `${s.workload}\u0000${s.kind}`;
  if (seenN.has(k)) continue;
  seenN.add(k);
  const ss = N.get(k);
  const cpu = ss.map((x) => x.cpuMs);
  const base = s.workload.replace(" (columns in, as from JS)", "");
  // Maintenance runs natively on a fresh copy of its input each time, in a
  // process already warm: the workerd figure to compare is the warm one.
  const steady = /^compact/.test(base) ? get(W, base, "steady") : [];
  const kind = steady.length ? "steady" : /^(compact|expire)/.test(base) ? "warm" : s.kind;
  const wMem = get(W, `${base} (memory store)`, kind);
  const wR2 = get(W, base, kind);
  const wcpu = wMem.length ? cpuMed(wMem) : cpuMed(wR2);
  p(`| ${s.workload} | ${s.kind} | ${ss.length} | ${ms(median(cpu))} (${spread(cpu)}) | ${ms(median(ss.map((x) => x.wallMs)))} | ${mib(median(ss.map((x) => x.peakHeapBytes)))} | ${mib(median(ss.map((x) => x.allocatedBytes)))} | ${storeLine(ss[ss.length - 1].store)} | ${ms(wcpu)}${wMem.length ? " (mem)" : ""} | ${r(wcpu, median(cpu))} |`);
}
p("");
const iceWarm = cpuMed(get(I, `iceberg-go append ${big}`, "warm"));
const iceCold = cpuMed(get(I, `iceberg-go append ${big}`, "cold"));
const natWarm = cpuMed(get(N, `append ${big}`, "warm"));
const natWire = cpuMed(get(N, `append ${big} (columns in, as from JS)`, "warm"));
if (ice) {
  p(`### iceberg-go ${ice.icebergGo} appending the same ${big.toLocaleString("en")} rows natively`, "");
  p("Hadoop (file system) catalog in a temporary directory, day(ts) partitioning, ZSTD; `AppendTable` timed whole (Parquet, manifest, list, metadata, commit). iceberg-go does not sort. Timelake natively: the memory store.", "");
  p("| | CPU ms warm | CPU ms first | wall ms warm | peak heap MiB | peak RSS growth MiB |", "| --- | --- | --- | --- | --- | --- |");
  const iw = get(I, `iceberg-go append ${big}`, "warm");
  p(`| iceberg-go | ${ms(iceWarm)} | ${ms(iceCold)} | ${ms(median(iw.map((x) => x.wallMs)))} | ${mib(median(iw.map((x) => x.peakHeapBytes)))} | ${mib(median(iw.map((x) => x.rssGrowth)))} |`);
  const nw = get(N, `append ${big}`, "warm");
  p(`| Timelake native | ${ms(natWarm)} | ${ms(cpuMed(get(N, `append ${big}`, "cold")))} | ${ms(median(nw.map((x) => x.wallMs)))} | ${mib(median(nw.map((x) => x.peakHeapBytes)))} | |`);
  p("", `Timelake native / iceberg-go, warm CPU: **${r(natWarm, iceWarm)}**.`, "");
}

// ---- index catch-up
// go test -bench lines of one benchmark: sub-benchmark → {n, metric unit → value}.
function goBench(prefix) {
  const out = {};
  for (const line of gotest.split("\n")) {
    const m = line.match(/^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.*)$/);
    if (!m || !m[1].startsWith(prefix)) continue;
    const metrics = { n: Number(m[2]) };
    for (const [, v, unit] of m[3].matchAll(/([\d.]+) (\S+)/g)) metrics[unit] = Number(v);
    out[m[1].slice(prefix.length)] = metrics;
  }
  return out;
}
const KINDS = ["cold", "warm", "steady"];
const catchupNames = [...new Set((wd?.samples ?? []).map((s) => s.workload).filter((w) => w.startsWith("catch-up:")))];
const catchupN = Number(catchupNames[0]?.match(/foreign append of (\d+) rows/)?.[1] ?? NaN);
const wasmMaxOf = (ss) => Math.max(0, ...ss.map((s) => s.body?.memory?.wasmMemoryBytes ?? 0));
// The catch-up's CPU over a Timelake append of the same rows, same call kind, R2 (as the catch-up).
const catchupRatio = (name, kind) => cpuMed(get(W, name, kind)) / cpuMed(get(W, `append ${catchupN}`, kind));
const CU = goBench("BenchmarkIndexCatchUp/");
const cuBase = CU["timelake-append-100k"]?.["cpu-ms/op"];
// Native sub-benchmark, its label, and the workerd workload it matches (for WASM/native).
const NATIVE_CU = [
  ["latest-after-foreign-100k", "catch-up: latest", "catch-up: latest"],
  ["latest-after-foreign-unsorted-100k", "catch-up: latest, the foreign file unsorted (every row another series)"],
  ["append-1k-after-foreign-100k", "catch-up: append 1000", "catch-up: append 1000"],
  ["timelake-append-100k", "Timelake append of 100k rows (the reference)", "append"],
];
const steadyOf = (prefix) => cpuMed(get(W, prefix === "append" ? `append ${catchupN}` : catchupNames.find((n) => n.startsWith(prefix + ",")) ?? "", "steady"));
function catchupSection() {
  p(`## Index catch-up after another engine's append of ${catchupN.toLocaleString("en")} rows`, "");
  p("The table (table/catchup_bench_test.go, `TestCatchUpFixture` for workerd, `BenchmarkIndexCatchUp` natively): a Timelake append of 1k rows (100 series), then another engine's append of the foreign rows, committed by `table.CommitForeign` as another engine would: its own data file (sorted), manifest and manifest list, the next sequence number, no `timelake.*` summary keys and no statistics entry, so no index for that snapshot. `latest()` and the next append must bring the index up from the foreign data file (series and time columns only). In workerd the table is written natively, loaded into R2 object by object, and every call runs on a fresh copy, its `openTable` included (the append reference below reuses its open table; its cold call includes the runtime start and openTable too). Nothing is simulated: the index files are all there, the foreign snapshot has none.", "");
  p(`| workload | call | n | CPU ms median (min–max) | main / V8 threads ms | WASM memory MiB (max) | store requests | Timelake append ${catchupN.toLocaleString("en")} (R2), same call, CPU ms | catch-up / append |`);
  p("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const name of catchupNames) {
    for (const kind of KINDS) {
      const ss = get(W, name, kind);
      if (!ss.length) continue;
      const cpu = ss.map((x) => x.cpuMs);
      p(`| ${name.replace(/, after .*/, "")} | ${kind} | ${ss.length} | ${ms(median(cpu))} (${spread(cpu)}) | ${ms(mainMed(ss))} / ${ms(median(ss.map((x) => x.cpuV8Ms)))} | ${mib(wasmMaxOf(ss))} | ${storeLine(ss.at(-1).body?.store)} | ${ms(cpuMed(get(W, `append ${catchupN}`, kind)))} | ${r(catchupRatio(name, kind), 1)} |`);
    }
  }
  if (!Object.keys(CU).length) return p("", "Natively: not run (bench/run.sh runs BenchmarkIndexCatchUp in the full run, not the smoke run).", "");
  p("", "Natively (`go test -bench BenchmarkIndexCatchUp -benchtime 5x ./table/`, same run; memory store, each iteration on a freshly opened table; CPU is the process's, GC threads included; peak heap is the live heap's high-water mark above the table held in memory):", "");
  p("| workload | n | CPU ms/op | wall ms/op | peak heap MiB | allocated MiB/op | / Timelake append 100k | workerd steady (R2) / native (workerd's includes openTable and the request floor) |", "| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const [key, label, wdName] of NATIVE_CU) {
    const b = CU[key];
    const wasm = wdName ? r(steadyOf(wdName), b?.["cpu-ms/op"]) : "";
    if (b) p(`| ${label} | ${b.n} | ${ms(b["cpu-ms/op"])} | ${ms(b["ns/op"] / 1e6)} | ${ms(b["peak-heap-MiB"])} | ${mib(b["B/op"])} | ${r(b["cpu-ms/op"], cuBase)} | ${wasm} |`);
  }
  p("");
}
// The issue's two targets: ≤ 2× the append of the same rows (every call kind, and natively) and ≤ 32 MiB.
function catchupTargets() {
  const ratios = catchupNames.flatMap((name) => KINDS.map((kind) => ({ name, kind, x: catchupRatio(name, kind) }))).filter((q) => Number.isFinite(q.x));
  const nat = [["latest", CU["latest-after-foreign-100k"]], ["latest (unsorted file)", CU["latest-after-foreign-unsorted-100k"]], ["append 1k", CU["append-1k-after-foreign-100k"]]].filter(([, b]) => b);
  const text = catchupNames.map((name) => `${name.replace(/^catch-up: |, after .*/g, "")} ${KINDS.map((k) => r(catchupRatio(name, k), 1)).join(" / ")}`).join("; ");
  const natText = nat.map(([l, b]) => `${l} ${r(b["cpu-ms/op"], cuBase)}`).join(", ");
  const all = [...ratios.map((q) => q.x), ...nat.map(([, b]) => b["cpu-ms/op"] / cuBase)];
  p(`| index catch-up after a foreign append of ${catchupN.toLocaleString("en")} rows ≤ 2× a Timelake append of the same rows | workerd, cold / warm / steady: ${text}; natively: ${natText || "not measured"} | ${all.length ? ok(all.every((x) => x <= 2)) : "n/a"} |`);
  const wmax = wasmMaxOf(catchupNames.flatMap((name) => KINDS.flatMap((k) => get(W, name, k))));
  p(`| … and ≤ 32 MiB of WASM memory | ${mib(wmax)} MiB WASM linear memory at most (the isolate's high-water mark after each catch-up call${nat.length ? `; natively peak heap ${nat.map(([l, b]) => `${l} ${ms(b["peak-heap-MiB"])}`).join(", ")} MiB` : ""}) | ${ok(wmax ? wmax <= 32 * 2 ** 20 : undefined)} |`);
}
if (catchupNames.length) catchupSection();
// ---- scans: bench/scanreport.mjs
if (!scanSection(wd, p)) p("## Scans", "", "Not in this run: `results/SCANS.md` has the last `BENCH_ONLY=scan` run (`node bench/report.mjs --scan` regenerates it).", "");
// ---- rollups: bench/rollupreport.mjs
if (!rollupSection(wd, p)) p("## Rollups", "", "Not in this run: `results/ROLLUPS.md` has the last `BENCH_ONLY=rollup` run (`node bench/report.mjs --rollup` regenerates it).", "");
// ---- the Durable Object batcher: bench/batcherreport.mjs
if (!batcherSection(wd, p)) p("## Durable Object batcher", "", "Not in this run: `results/BATCHER.md` has the last `BENCH_ONLY=batcher` run (`node bench/report.mjs --batcher` regenerates it).", "");

// ---- small appends and the first call: bench/smallreport.mjs
smallSection(wd, p);

// ---- targets
p("## Workload targets", "");
const wasmMax = Math.max(...get(W, `append ${big}`, "warm").concat(get(W, `append ${big}`, "cold")).map((s) => s.body?.memory?.wasmMemoryBytes ?? 0));
const c24 = get(W, "compact 24 files / 1200000 rows", "warm");
const c24n = get(N, "compact 24 files / 1200000 rows", "cold");
p("| target | measured | |", "| --- | --- | --- |");
const okWS = (warm, steady) => (warm === undefined ? "n/a" : warm ? "met" : steady ? "met in the steady state; **not met** in the isolate's first calls" : "**not met**");
const fin = (x) => (Number.isFinite(x) ? x : NaN);
p(`| append ${big.toLocaleString("en")} warm CPU ≤ 100 ms | memory store ${ms(oursMem)} ms warm, ${ms(oursMemSteady)} ms steady; R2 ${ms(ours)} ms warm, ${ms(oursSteady)} ms steady (Miniflare's R2 runs in the same process) | ${Number.isFinite(oursMem) ? okWS(oursMem <= 100, fin(oursMemSteady) <= 100) : "n/a"} |`);
p(`| … and ≤ 2× parquet-wasm's plain write | memory store ${r(oursMem, pwWarm)} warm, ${r(oursMemSteady, pwWarm)} steady; R2 ${r(ours, pwWarm)} warm, ${r(oursSteady, pwWarm)} steady | ${Number.isFinite(oursMem / pwWarm) ? okWS(oursMem / pwWarm <= 2, fin(oursMemSteady / pwWarm) <= 2) : "n/a"} |`);
const openCold = get(W, "open (runtime start + openTable)", "cold");
const openNote = openCold.length ? `; of it, the runtime's start + openTable alone: ${ms(cpuMed(openCold))} ms (main thread ${ms(median(openCold.map((s) => s.cpuMainMs ?? NaN)))} ms)` : "";
p(`| first call ≤ 350 ms | ${ms(oursCold)} ms all threads, main thread ${ms(oursColdMain)} ms${openNote} | ${Number.isFinite(oursCold) ? (oursCold <= 350 ? "met" : fin(oursColdMain) <= 350 ? "met on the main thread; **not met** with V8's background compilation counted" : "**not met**") : "n/a"} |`);
p(`| peak isolate memory ≤ 32 MiB | WASM linear memory ${mib(wasmMax)} MiB (+ JS heap, table above) | ${ok(wasmMax ? wasmMax <= 32 * 2 ** 20 : undefined)} |`);
p(`| compaction 24 files / 1.2M rows ≤ 1.5 s, ≤ 64 MiB | ${c24.length ? `${ms(cpuMed(c24))} ms, WASM memory ${mib(Math.max(...c24.map((s) => s.body?.memory?.wasmMemoryBytes ?? 0)))} MiB` : `not measured in workerd; natively ${ms(cpuMed(c24n))} ms, peak heap ${mib(median(c24n.map((s) => s.peakHeapBytes)))} MiB`} | ${c24.length ? ok(cpuMed(c24) <= 1500) : "n/a"} |`);
p(`| WASM/native ≤ 2.5 (append ${big.toLocaleString("en")}, memory stores) | ${r(oursMem, natWire)} warm, ${r(oursMemSteady, natWire)} steady, against the same code path natively (columns in → align → append); ${r(oursMem, natWarm)} warm, ${r(oursMemSteady, natWarm)} steady against BenchmarkAppend's prebuilt batch | ${Number.isFinite(oursMem / natWire) ? okWS(oursMem / natWire <= 2.5, fin(oursMemSteady / natWire) <= 2.5) : "n/a"} |`);
const c24nat = cpuMed(c24n);
const c24s = cpuMed(get(W, "compact 24 files / 1200000 rows", "steady"));
if (c24.length && Number.isFinite(c24nat)) p(`| WASM/native ≤ 2.5 (compaction 24 files / 1.2M rows) | ${r(cpuMed(c24), c24nat)} warm, ${r(c24s, c24nat)} steady (workerd / native) | ${okWS(cpuMed(c24) / c24nat <= 2.5, fin(c24s / c24nat) <= 2.5)} |`);
p(`| native append at least as fast as iceberg-go | ${r(natWarm, iceWarm)} of iceberg-go's CPU | ${ok(Number.isFinite(natWarm / iceWarm) ? natWarm <= iceWarm : undefined)} |`);
if (catchupNames.length) catchupTargets();
{
  const warm = get(W, CAT, "warm").concat(get(W, CAT, "steady"));
  const cold = get(W, CAT, "cold");
  const loads = cold.map((x) => x.body?.catalog?.load ?? NaN);
  p(`| an append through a catalog without a conflict: one catalog request, the commit; the table loaded at open, not per append | ${wd?.catalogNote ? "not measured: the catalog workload was skipped" : `warm and steady: ${distinctCatalog(warm) || "–"} (${warm.length} appends); cold (open + first append): ${distinctCatalog(cold) || "–"}`} | ${wd?.catalogNote || !warm.length ? "n/a" : ok(oneCommit(["warm", "steady"]) && loads.every((l) => l === 1))} |`);
}
p(`| .wasm gzipped ≤ 3 MB | ${machine.wasmGzip ? (machine.wasmGzip / 1e6).toFixed(2) + " MB" : "?"} | ${ok(machine.wasmGzip ? machine.wasmGzip <= 3e6 : undefined)} |`);
const st = get(W, `append ${big}`, "warm").at(-1)?.body?.store;
if (st) {
  const writes = (st.put ?? 0) + (st.putIfAbsent ?? 0), reads = (st.get ?? 0) + (st.getRange ?? 0);
  p(`| append of one partition ≤ 7 writes, ≤ 2 reads (no conflict) | ${writes} writes, ${reads} reads (warm) | ${ok(writes <= 7 && reads <= 2)} |`);
}
p("");
// ---- the benchmark's table of targets: bench/targetsreport.mjs
targetsSection({ wd, native, gotest: gotest16, node: nodeRun, smoke }, p);
// ---- scans at scale and WebAssembly's fixed costs: bench/costreport.mjs
costSection({ wd, native, gotest, flights: smoke ? undefined : read("flights.json"), machine }, p);

// ---- profiles
if (wd?.profiles) {
  p("## Where the time goes in workerd (V8 CPU profile)", "");
  p("Warm appends and compactions profiled through the inspector, with the same Go code built without `-s -w` so the WebAssembly functions keep their names; self time grouped by package. The `.cpuprofile` files beside this one open in Chrome DevTools.", "");
  for (const [name, prof] of Object.entries(wd.profiles)) {
    p(`### ${name}: ${prof.appends} calls, ${ms(prof.totalMs)} ms sampled (\`${prof.file}\`)`, "");
    p("| part | ms | % |", "| --- | --- | --- |");
    for (const c of prof.categories) p(`| ${c.name} | ${ms(c.ms)} | ${c.pct.toFixed(1)} |`);
    p("", "Top functions by self time:", "", "| function | ms | % |", "| --- | --- | --- |");
    for (const t of prof.top.slice(0, 15)) p(`| \`${t.name.slice(0, 90)}\` | ${ms(t.ms)} | ${t.pct.toFixed(1)} |`);
    p("");
  }
}
if (gotest) p("## `go test -bench` in table/ (same run)", "", "```", gotest.trim(), "```", "");
p("## Method notes", "");
p("- Cold = the first call in a fresh isolate: a new Miniflare instance (a new workerd process) per sample; the row objects are built by an earlier request, so the cold append is Go runtime start + `openTable` + append. Compiling the modules happens when workerd loads the script, before any request, and is not in the figure.");
p("- Inside a Worker the clock stands still between I/O (Spectre mitigation), so nothing is timed inside; CPU is the workerd process's, from `/proc/<pid>/task/*/schedstat` (ns, all threads; `/proc/<pid>/stat` utime+stime, 10 ms ticks, is kept in workerd.json as a cross-check). It includes workerd's own work for the request: HTTP from Node, and Miniflare's R2 simulator, which runs in the same process — hence the memory-store rows, which measure the Worker alone.");
p("- Peak RSS growth is of the whole workerd process (V8 heap, WebAssembly memory, workerd's buffers), reset before each request (`echo 5 > /proc/<pid>/clear_refs`). WASM linear memory never shrinks, so its figure after the request is the isolate's high-water mark so far in that process.");
p("- The JS heap is read after the request; V8 does not report a per-request peak. Its `total` is what V8 reserved, which stays near the peak until a GC shrinks it.");
p("- Native figures are one Go process (`bench/native`), GOMAXPROCS = the machine's CPUs: GC runs on another thread there but in the same thread in WASM; CPU time (not wall) is compared.");
fs.writeFileSync(path.join(res, smoke ? "WORKERS-smoke.md" : "WORKERS.md"), lines.join("\n") + "\n");
console.error(`wrote results/${smoke ? "WORKERS-smoke.md" : "WORKERS.md"}`);
