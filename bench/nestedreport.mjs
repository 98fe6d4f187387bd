// Prints the label-heavy workload's figures as Markdown (bench/results/NESTED.md
// quotes them): workerd medians from results/workerd-only-nested.json
// (BENCH_ONLY=nested node bench/harness.mjs) and the native go test -bench
// lines from results/gotest-nested.txt, with the map / columns ratios.
//
//   node bench/nestedreport.mjs [WORKERD.json [GOTEST.txt]]   (in results/; the defaults above)
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const results = path.join(path.dirname(fileURLToPath(import.meta.url)), "results");
const med = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mib = (b) => (b / 2 ** 20).toFixed(1);

const w = JSON.parse(fs.readFileSync(path.join(results, process.argv[2] ?? "workerd-only-nested.json"), "utf8"));
const groups = new Map();
for (const s of w.samples) {
  const k = `${s.workload}\t${s.kind}`;
  if (!groups.has(k)) groups.set(k, []);
  groups.get(k).push(s);
}
const row = (k) => {
  const xs = groups.get(k) ?? [];
  return { n: xs.length, cpu: med(xs.map((x) => x.cpuMs)), min: Math.min(...xs.map((x) => x.cpuMs)), max: Math.max(...xs.map((x) => x.cpuMs)), wasm: Math.max(...xs.map((x) => x.body.memory?.wasmMemoryBytes ?? NaN)), heap: Math.max(...xs.map((x) => x.body.memory?.goHeapSys ?? NaN)) };
};
console.log("| workload | call | n | CPU ms median (min–max) | WASM memory MiB (max) | Go heap sys MiB (max) |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const k of groups.keys()) {
  const [name, kind] = k.split("\t");
  const r = row(k);
  console.log(`| ${name} | ${kind} | ${r.n} | ${r.cpu.toFixed(0)} (${r.min.toFixed(0)}–${r.max.toFixed(0)}) | ${mib(r.wasm)} | ${mib(r.heap)} |`);
}
const ratio = (a, b) => (row(a).cpu / row(b).cpu).toFixed(2);
const M = "labels append 100000 (map<string, string>)", C = "labels append 100000 (8 string columns)";
console.log(`\nworkerd ratio map / columns: first ${ratio(M + "\tfirst", C + "\tfirst")}, warm ${ratio(M + "\twarm", C + "\twarm")}; ` +
  `scan ${ratio("labels scan 100000 (map<string, string>)\twarm", "labels scan 100000 (8 string columns)\twarm")}`);

const go = fs.readFileSync(path.join(results, process.argv[3] ?? "gotest-nested.txt"), "utf8");
const ns = new Map();
for (const m of go.matchAll(/^(Benchmark\S+?)-\d+\s+\d+\s+(\d+) ns\/op(?:.*?(\d+) B\/op)?/gm)) {
  if (!ns.has(m[1])) ns.set(m[1], { ns: [], b: [] });
  ns.get(m[1]).ns.push(Number(m[2]));
  ns.get(m[1]).b.push(Number(m[3]));
}
console.log("\n| native benchmark | runs | ms/op median | MiB allocated/op |");
console.log("| --- | --- | --- | --- |");
for (const [k, v] of ns) console.log(`| ${k} | ${v.ns.length} | ${(med(v.ns) / 1e6).toFixed(1)} | ${mib(med(v.b))} |`);
const nr = (a, b) => (med(ns.get(a).ns) / med(ns.get(b).ns)).toFixed(2);
if (ns.has("BenchmarkAppendLabels/shape=map")) console.log(`\nnative ratio map / columns: append ${nr("BenchmarkAppendLabels/shape=map", "BenchmarkAppendLabels/shape=columns")}, scan ${nr("BenchmarkScanLabels/shape=map", "BenchmarkScanLabels/shape=columns")}`);
