// The Durable Object batcher section of the benchmark report:
// report.mjs puts it in WORKERS.md when the run measured the batcher, and
// `node bench/report.mjs --batcher` writes results/BATCHER.md from a
// `BENCH_ONLY=batcher node bench/harness.mjs` run (results/workerd-only-batcher.json).
import { median } from "./reportfmt.mjs";
const n0 = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en") : "–");
const spread = (xs) => (xs.length > 1 ? ` (${n0(Math.min(...xs))}–${n0(Math.max(...xs))})` : "");
const med = (runs, f) => `${n0(median(runs.map(f)))}${spread(runs.map(f))}`;

export function batcherSection(wd, p) {
  const b = wd?.batcher;
  if (!b) return false;
  const c = b.config;
  const runs = b.runs ?? [];
  p("## Durable Object batcher", "");
  p(`\`TableBatcher\` from \`@timelake/client/workers\` (SQLite-backed Durable Object storage in Miniflare) appending to one table on the R2 binding, maxRows ${c.maxRows.toLocaleString("en")}, maxWaitMs ${c.maxWaitMs}. Throughput: ${c.producers} producers inside the isolate, each ${c.sends} sends of ${c.rows} rows one after another (${(c.producers * c.sends * c.rows).toLocaleString("en")} rows a run, a fresh workerd process each run). Acknowledgement: a send resolves once its rows are durable in the object's storage; latency by workerd's clock (it advances across I/O). Appended: until the object holds no row (its alarm appends). CPU: the workerd process, all threads, over the load and the appends. Kills: producers driven from Node (each acknowledgement seen), the workerd process killed at a random moment ${c.kills} times and restarted on the same storage, then drained and the table read back raw.`, "");
  if (b.loadAvg) p(`Load average of the machine as the workload ended (1, 5, 15 min): ${b.loadAvg.join(", ")} on this machine's CPUs; other jobs share them, so the times are noisy.`, "");
  p("| measure | median (min–max) |", "| --- | --- |");
  p(`| runs | ${runs.length} |`);
  p(`| rows/s acknowledged | ${med(runs, (r) => r.ackedRowsPerS)} |`);
  p(`| rows/s into the table (until all appended) | ${med(runs, (r) => r.rowsPerS)} |`);
  p(`| commits per run | ${med(runs, (r) => r.commits)} |`);
  p(`| ack latency p50 ms | ${med(runs, (r) => r.p50)} |`);
  p(`| ack latency p99 ms | ${med(runs, (r) => r.p99)} |`);
  p(`| ack latency max ms | ${med(runs, (r) => r.max)} |`);
  p(`| workerd CPU ms per 1,000 rows (all threads / main thread) | ${n0(median(runs.map((r) => (r.cpuMs / r.rows) * 1000)))} / ${n0(median(runs.map((r) => (r.cpuMainMs / r.rows) * 1000)))} |`);
  const k = b.kills;
  if (k?.drained === false) p(`| kills | ${n0(k.acked)} rows acknowledged over ${k.kills} kills; **the batcher did not drain within 60 s after the last restart**, so nothing was checked |`);
  else if (k) p(`| kills: rows acknowledged / stored / **lost** / **stored twice** | ${n0(k.acked)} / ${n0(k.stored)} / **${k.lost}** / **${k.duplicated}** (${k.kills} kills; ${k.cut} sends cut by a kill, not acknowledged) |`);
  p("", "| target | measured | |", "| --- | --- | --- |");
  p(`| Durable Object: rows/s into one table, p99 acknowledgement latency, nothing lost under kills | ${med(runs, (r) => r.rowsPerS)} rows/s; p99 ${med(runs, (r) => r.p99)} ms; ${k ? `${k.lost} lost, ${k.duplicated} twice over ${k.kills} kills` : "kills not run"} | ${k && runs.length ? (k.lost === 0 && k.duplicated === 0 ? "met" : "**not met**") : "n/a"} |`);
  p("");
  if (b.failures?.length) p(`**Outcome check failed:** ${b.failures.join("; ")}`, "");
  return true;
}
