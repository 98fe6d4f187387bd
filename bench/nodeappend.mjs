// Timelake in Node against a local S3-compatible server (the Node rows of the table of targets):
// a fresh Node process per sample that creates a table in the bucket and
// appends N rows (the first call: WebAssembly compile, Go runtime start,
// create, append), then WARM more appends of the same rows in the same
// process. bench/run.sh starts scripts/s3server.sh (versitygw) and runs
//
//   node bench/nodeappend.mjs [--smoke]     → results/node.json (node-smoke.json)
//
// with AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// TIMELAKE_S3_BUCKET exported (s3server.sh start prints them). Without them
// it writes the file with a note and no samples.
//
// The peer the issue names, icebird 0.8.25 (GitHub), cannot be installed
// here: the registry has icebird 0.3.1 only (bench/package.json), whose
// writing API is icebergCreate — an empty table's v1.metadata.json and
// version-hint.text — and no append (icebird's src/index.js exports
// icebergCreate, icebergRead, metadata, manifests and Avro functions). The
// note below says so; the figures are Timelake's alone.
//
// Each child measures itself (process CPU is all threads: process.cpuUsage;
// the main thread from /proc/self/task/<pid>/schedstat; V8 compiles the
// module's hot functions on background threads, and that CPU lands in
// whichever phase it runs during):
//   runtime start   its own fresh process (alternating with the appending
//                   ones): the import of @timelake/client and a first call
//                   that only starts the module (openTable on an empty
//                   memoryStore, which fails NO_TABLE): WebAssembly compile
//                   and instantiate, the Go runtime's start; CPU, and peak RSS
//                   growth (VmHWM at the end − VmRSS before the import)
//   create + first append   the import, the same first call, createTable on
//                   S3 and the first append of N rows: CPU from the import,
//                   by phase too; the process's peak RSS (VmHWM) and its
//                   growth over VmRSS once the rows were built (the rows are
//                   built first, as any writer's input); processCpuMs adds
//                   Node's own start
//   warm            each later append of the same N rows in that process:
//                   CPU, and peak RSS growth (VmHWM after − VmRSS before, the
//                   high-water mark reset first: echo 5 > /proc/self/clear_refs)
//   steady          the same, once the process has made STEADY_AFTER
//                   appends (V8 has finished optimizing the module's hot
//                   functions by then)
// Environment: BENCH_RUNS (fresh processes, 5; smoke 1), BENCH_WARM (3;
// smoke 1), BENCH_STEADY_AFTER (8; smoke 2) and BENCH_STEADY (3; smoke 1),
// as harness.mjs; BENCH_NODE_ROWS (100,000; smoke 1,000).
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { schema, makeRows } from "./worker/benchrows.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const results = path.join(here, "results");
export const ICEBIRD_NOTE =
  "icebird: not measurable here. The issue's peer is icebird 0.8.25 built from GitHub; the package registry has icebird 0.3.1 only, whose one writing function is icebergCreate (an empty table's v1.metadata.json and version-hint.text): it has no append, so there is nothing of icebird's to time for create + first append or a warm append. The figures are Timelake's own, against the same local S3 server (versitygw, scripts/s3server.sh).";

// ---- the child: one fresh process --------------------------------------------

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const mainCpu = () => {
  try {
    return Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return NaN;
  }
};
const status = (key) => {
  const m = fs.readFileSync("/proc/self/status", "utf8").match(new RegExp(`^${key}:\\s+(\\d+) kB`, "m"));
  return m ? Number(m[1]) * 1024 : NaN;
};
const resetPeak = () => {
  try {
    fs.writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
};

// The rows and schema of the workerd harness: worker/benchrows.js.

async function child() {
  const { n, warm, steadyAfter, steady, prefix, startOnly } = JSON.parse(process.argv[3]);
  const env = process.env;
  const rows = startOnly ? [] : makeRows(n); // every append appends these (as the workerd harness does)
  const rssRows = status("VmRSS");
  // phase(f): f's CPU, all threads and main thread (V8's background
  // compilation of the module lands in whichever phase it runs during).
  const phases = {};
  const phase = async (name, f) => {
    const c0 = cpuNow(), m0 = mainCpu();
    const v = await f();
    phases[name] = { cpuMs: cpuNow() - c0, cpuMainMs: mainCpu() - m0, rssAfter: status("VmRSS") };
    return v;
  };
  const cpu0 = cpuNow(), main0 = mainCpu();
  const { createTable, openTable, memoryStore, s3Store } = await phase("import", () => import("@timelake/client"));
  // The runtime's start: a first call that does nothing else.
  await phase("runtimeStart", async () => {
    try {
      await openTable(memoryStore());
    } catch (e) {
      if (e?.code !== "NO_TABLE") throw e;
    }
  });
  const u0 = process.resourceUsage();
  const base = { cpuMs: cpuNow() - cpu0, cpuMainMs: mainCpu() - main0, peakRss: status("VmHWM"), rssRows, rssGrowth: status("VmHWM") - rssRows, phases, processCpuMs: (u0.userCPUTime + u0.systemCPUTime) / 1000, node: process.version };
  if (startOnly) return process.stdout.write(JSON.stringify({ start: base }));
  const store = s3Store({
    bucket: env.TIMELAKE_S3_BUCKET,
    prefix,
    endpoint: env.AWS_ENDPOINT_URL,
    region: env.AWS_REGION ?? "us-east-1",
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
  });
  const t = await phase("create", () => createTable(store, schema));
  const r = await phase("append", () => t.append(rows));
  if (r.rowsWritten !== n) throw new Error(`first append wrote ${r.rowsWritten} rows of ${n}`);
  const u1 = process.resourceUsage();
  const first = {
    cpuMs: cpuNow() - cpu0, // import + runtime start + create + first append
    cpuMainMs: mainCpu() - main0,
    peakRss: status("VmHWM"), // before any reset of the high-water mark
    rssRows,
    rssGrowth: status("VmHWM") - rssRows,
    phases,
    processCpuMs: (u1.userCPUTime + u1.systemCPUTime) / 1000, // Node's own start too
  };
  const measured = async () => {
    const cleared = resetPeak();
    const before = status("VmRSS");
    const w0 = cpuNow(), m0 = mainCpu();
    const res = await t.append(rows);
    const cpuMs = cpuNow() - w0, cpuMainMs = mainCpu() - m0;
    if (res.rowsWritten !== n) throw new Error(`an append wrote ${res.rowsWritten} rows of ${n}`);
    return { cpuMs, cpuMainMs, rssGrowth: cleared ? status("VmHWM") - before : NaN, rssAfter: status("VmRSS") };
  };
  const warmSamples = [], steadySamples = [];
  for (let k = 0; k < warm; k++) warmSamples.push(await measured());
  // Steady: once the process has made steadyAfter appends (V8's background
  // tier-up of the module's hot functions has finished by then).
  for (let k = 1 + warm; k < steadyAfter; k++) await t.append(rows);
  for (let k = 0; k < steady; k++) steadySamples.push(await measured());
  process.stdout.write(JSON.stringify({ first, warm: warmSamples, steady: steadySamples, node: process.version }));
}

// ---- the parent: fresh processes, results/node.json ----------------------------------

async function parent() {
  const smoke = process.argv.includes("--smoke");
  const RUNS = Number(process.env.BENCH_RUNS ?? (smoke ? 1 : 5));
  const WARM = Number(process.env.BENCH_WARM ?? (smoke ? 1 : 3));
  const STEADY_AFTER = Number(process.env.BENCH_STEADY_AFTER ?? (smoke ? 2 : 8));
  const STEADY = Number(process.env.BENCH_STEADY ?? (smoke ? 1 : 3));
  const N = Number(process.env.BENCH_NODE_ROWS ?? (smoke ? 1000 : 100_000));
  const file = path.join(results, smoke ? "node-smoke.json" : "node.json");
  const out = { smoke, rows: N, runs: RUNS, warm: WARM, steadyAfter: STEADY_AFTER, steady: STEADY, icebird: ICEBIRD_NOTE, starts: [], samples: [] };
  const env = process.env;
  if (!env.AWS_ENDPOINT_URL || !env.TIMELAKE_S3_BUCKET) {
    out.note = "no local S3 server (AWS_ENDPOINT_URL, TIMELAKE_S3_BUCKET unset: bench/run.sh starts scripts/s3server.sh)";
    console.error(`nodeappend: ${out.note}`);
  } else {
    const run = (args) => {
      const c = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", JSON.stringify(args)], { cwd: here, encoding: "utf8", maxBuffer: 1 << 24 });
      if (c.status !== 0) throw new Error(`nodeappend: a child failed (${c.status}): ${c.stderr}`);
      return JSON.parse(c.stdout);
    };
    const f0 = (x) => x.toFixed(0);
    for (let r = 0; r < RUNS; r++) {
      // Alternating: a process that only starts the runtime, then one that appends.
      const { start } = run({ startOnly: true });
      out.starts.push(start);
      console.error(`nodeappend ${r}: runtime start alone (import + first call) ${f0(start.cpuMs)} ms CPU (main thread ${f0(start.cpuMainMs)}), RSS +${(start.rssGrowth / 2 ** 20).toFixed(1)} MiB`);
      const s = run({ n: N, warm: WARM, steadyAfter: STEADY_AFTER, steady: STEADY, prefix: `bench-node/${process.pid}-${r}` });
      out.samples.push(s);
      out.node = s.node;
      const f = s.first, ph = f.phases;
      console.error(`nodeappend ${r}: create + first append of ${N} rows ${f0(f.cpuMs)} ms CPU, main thread ${f0(f.cpuMainMs)} (import ${f0(ph.import.cpuMs)}, runtime start ${f0(ph.runtimeStart.cpuMs)}, create ${f0(ph.create.cpuMs)}, append ${f0(ph.append.cpuMs)}), peak RSS ${(f.peakRss / 2 ** 20).toFixed(1)} MiB (+${(f.rssGrowth / 2 ** 20).toFixed(1)}); warm ${s.warm.map((w) => f0(w.cpuMs)).join(", ")} ms, steady ${s.steady.map((w) => f0(w.cpuMs)).join(", ")} ms`);
    }
  }
  fs.mkdirSync(results, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(out, null, 1));
  console.error(`nodeappend: wrote ${path.relative(path.dirname(here), file)}`);
}

if (process.argv[2] === "--child") await child();
else await parent();
