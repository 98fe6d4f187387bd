// The workerd half of the benchmarks (run by bench/run.sh): bundles
// worker/worker.js with esbuild the way wrangler does (every .wasm import kept
// as a compiled module beside the bundle), starts it in workerd through
// Miniflare with a local R2 bucket, and measures each request from outside
// the workerd process:
//
//   cpu       CPU time of the workerd process over the request: the sum of
//             /proc/<pid>/task/*/schedstat run times (nanoseconds, every
//             thread); /proc/<pid>/stat utime+stime (10 ms ticks) is kept in
//             the JSON as a cross-check. Includes workerd's own work for the
//             request (HTTP, the local R2 simulator, which runs in the same
//             process) — /noop gives the floor. Split by thread: the main
//             thread (where the isolate runs JavaScript and WebAssembly) and
//             V8's platform threads ("V8 DefaultWorker": background
//             compilation — the tier-up of hot WebAssembly functions to
//             optimized code — and concurrent GC). A tier-up started by one
//             request may finish during the next.
//   wall      around Miniflare's dispatchFetch, in Node.
//   rss       peak RSS growth of the workerd process: VmHWM after the request
//             minus VmRSS before it, with the high-water mark reset first
//             (echo 5 > /proc/<pid>/clear_refs).
//   wasm mem  the Go instance's linear memory after the request (it never
//             shrinks, so in a fresh isolate it is the high-water mark), and
//             the Go heap (runtime.MemStats) from the client's memoryStats(),
//             asked for by a /stats request after the measured one (not
//             measured: ReadMemStats costs ~3 ms in WebAssembly).
//   js heap   V8's used/total heap of the isolate after the request, through
//             the inspector (Runtime.getHeapUsage), when BENCH_INSPECT=1.
//   store     requests by kind and bytes moved, counted by a wrapper over the
//             R2 store inside the Worker.
//   catalog   (the catalog workload) the REST catalog requests by kind, counted
//             by the fetch the Worker gives restCatalog; the catalog server's
//             CPU over the request (its JVM, all threads: serverCpuMs), apart.
//
// Cold = the first call in a fresh isolate: a new Miniflare (a new workerd
// process) per cold sample, the row objects built by an earlier request, so
// the cold figure is Go runtime start + openTable + append.
//
// Writes results/workerd.json; bench/report.mjs turns it with the native
// figures into results/WORKERS.md.
//
// Environment: BENCH_RUNS (cold samples, default 5), BENCH_WARM (warm samples
// per fresh instance, default 3), BENCH_STEADY_AFTER and BENCH_STEADY (steady
// appends: BENCH_STEADY of them, default 3, once the isolate has made
// BENCH_STEADY_AFTER, default 8), BENCH_SETTLED_AFTER (1k-row appends into
// the memory store measured once the isolate has made this many appends,
// default 200), BENCH_SIZES (default 1000,10000,100000),
// BENCH_SMOKE=1 (tiny sizes, one run: a check that everything runs),
// BENCH_PROFILE=1 (V8 CPU profile of warm 100k appends, with a Go build that
// keeps function names), BENCH_ONLY (appends,catalog,peers,maintenance,
// catchup, compaction, scan: scan.mjs, batcher: batcher.mjs, rollup: rollup.mjs;
// nested: nested.mjs, only when named), BENCH_WASM (a timelake.wasm to
// bundle instead of the client's, e.g. wasm-opt's output; BENCH_VARIANT
// describes it in the JSON) and BENCH_TAG (a suffix of a partial run's
// output file). The catalog workload needs TIMELAKE_CATALOG_URI (and
// _WAREHOUSE, _DIR), which bench/run.sh exports when it starts the server;
// without it the workload is skipped with a note in the report.
import * as fs from "node:fs/promises";
import * as fss from "node:fs";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import WebSocket from "ws";
import { summarize } from "./cpuprofile.mjs";
import { versionsOf } from "./versions.mjs";
import { CATALOG_WORKLOAD, catalogAppends } from "./catalog.mjs";
import { catchupJobs, catchupWorkload, upload } from "./catchup.mjs";
import { scans } from "./scan.mjs";
import { flightsWorkload } from "./flightsworkerd.mjs";
import { rollupWorkload, profileRollup } from "./rollup.mjs";
import { BATCHER_WORKLOAD, batcherWorkload } from "./batcher.mjs";
import { nestedWorkload } from "./nested.mjs";
import { appends, peers, specAppends } from "./appends.mjs";
import { compactions, maintenance } from "./maintenance.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const dist = path.join(here, "dist");
const work = path.join(here, ".work");
const results = path.join(here, "results");
const require = createRequire(import.meta.url);

const smoke = process.env.BENCH_SMOKE === "1";
const RUNS = Number(process.env.BENCH_RUNS ?? (smoke ? 1 : 5));
const WARM = Number(process.env.BENCH_WARM ?? (smoke ? 1 : 3));
// Steady: appends measured once the isolate has made STEADY_AFTER of them,
// when V8 has finished compiling the hot WebAssembly functions to optimized
// code (the warm calls 2–4 still pay for that on its background threads).
const STEADY_AFTER = Number(process.env.BENCH_STEADY_AFTER ?? (smoke ? 2 : 8));
const STEADY = Number(process.env.BENCH_STEADY ?? (smoke ? 1 : 3));
// Settled: 1k-row appends into the memory store once the isolate has made
// SETTLED_AFTER appends in all (a busy Worker's isolate): V8 compiles a hot
// WebAssembly function to optimized code only after it has run a while,
// and Go's functions are slow to compile, so a warm append pays that
// compilation for its first hundred calls or so (docs/decisions/wasm-fixed-costs.md).
const SETTLED_AFTER = Number(process.env.BENCH_SETTLED_AFTER ?? (smoke ? 4 : 200));
const SIZES = (process.env.BENCH_SIZES ?? (smoke ? "1000" : "1000,10000,100000")).split(",").map(Number);
const COMPACT = compactions(smoke);
const INSPECT = process.env.BENCH_INSPECT !== "0";
const PROFILE = process.env.BENCH_PROFILE === "1";

const log = (...a) => console.error("bench:", ...a);
const CATCHUP_JOBS = catchupJobs(smoke);

// ---- bundle ----------------------------------------------------------------

// goEnv: environment for the Go program (GOGC, GOMEMLIMIT), patched into the
// bundled copy of wasm_exec.js (the client does not expose it): an experiment
// for settings the bridge could make, not a change to the client.
async function bundle(wasmOverride, goEnv) {
  await fs.rm(dist, { recursive: true, force: true });
  await fs.mkdir(dist, { recursive: true });
  const copied = new Map();
  await build({
    entryPoints: [path.join(here, "worker/worker.js")],
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    outfile: path.join(dist, "worker.js"),
    logLevel: "warning",
    plugins: [
      {
        name: "compiled-wasm",
        setup(b) {
          if (goEnv) {
            b.onLoad({ filter: /gen[\\/]wasm_exec\.js$/ }, async (args) => {
              const src = await fs.readFile(args.path, "utf8");
              if (!src.includes("this.env = {};")) throw new Error("wasm_exec.js: no this.env to patch");
              return { contents: src.replace("this.env = {};", `this.env = ${JSON.stringify(goEnv)};`), loader: "js" };
            });
          }
          b.onResolve({ filter: /\.wasm$/ }, (args) => {
            // zstd-wasm exports only its entry points: its files are named by path.
            let file = args.path.startsWith(".") ? path.resolve(args.resolveDir, args.path) : require.resolve(args.path, { paths: [args.resolveDir] });
            const name = path.basename(file);
            if (name === "timelake.wasm" && wasmOverride) file = wasmOverride;
            copied.set(name, file);
            return { path: "./" + name, external: true };
          });
        },
      },
    ],
  });
  const sizes = {};
  for (const [name, file] of copied) {
    await fs.copyFile(file, path.join(dist, name));
    sizes[name] = fss.statSync(file).size;
  }
  sizes["worker.js"] = fss.statSync(path.join(dist, "worker.js")).size;
  return sizes;
}

// ---- workerd process figures ----------------------------------------------

function childWorkerd(ppid) {
  for (const d of fss.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fss.readFileSync(`/proc/${d}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (Number(rest[1]) === ppid && comm.startsWith("workerd")) return Number(d);
    } catch {}
  }
  return undefined;
}

function cpuSched(pid) {
  const ms = { all: 0, main: 0, v8: 0 };
  for (const t of fss.readdirSync(`/proc/${pid}/task`)) {
    try {
      const run = Number(fss.readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]) / 1e6;
      ms.all += run;
      if (Number(t) === pid) ms.main += run;
      else if (fss.readFileSync(`/proc/${pid}/task/${t}/comm`, "utf8").startsWith("V8 ")) ms.v8 += run;
    } catch {}
  }
  return ms;
}

function cpuStat(pid) {
  const stat = fss.readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, ticks of 10 ms
}

function status(pid, key) {
  const m = fss.readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${key}:\\s+(\\d+) kB`, "m"));
  return m ? Number(m[1]) * 1024 : NaN;
}

// ---- the inspector (JS heap, CPU profile) ------------------------------------

class Inspector {
  static async connect(port) {
    for (let i = 0; i < 50; i++) {
      try {
        const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
        const t = targets.find((x) => x.id === "core:user:");
        if (t) {
          const ws = new WebSocket(t.webSocketDebuggerUrl);
          await new Promise((res, rej) => (ws.once("open", res), ws.once("error", rej)));
          return new Inspector(ws);
        }
      } catch {}
      await new Promise((r) => setTimeout(r, 100));
    }
    return undefined;
  }
  constructor(ws) {
    this.ws = ws;
    this.id = 0;
    this.pending = new Map();
    ws.on("message", (m) => {
      const msg = JSON.parse(String(m));
      const p = this.pending.get(msg.id);
      if (p) {
        this.pending.delete(msg.id);
        msg.error ? p.rej(new Error(JSON.stringify(msg.error))) : p.res(msg.result);
      }
    });
  }
  send(method, params = {}) {
    const id = ++this.id;
    this.ws.send(JSON.stringify({ id, method, params }));
    return new Promise((res, rej) => {
      this.pending.set(id, { res, rej });
      setTimeout(() => this.pending.has(id) && (this.pending.delete(id), rej(new Error(method + ": no answer"))), 10_000);
    });
  }
  close() {
    this.ws.close();
  }
}

// ---- Miniflare -----------------------------------------------------------------

let portSeq = 0;
async function start(persist, bindings, more = {}) {
  await fs.mkdir(persist, { recursive: true });
  const inspectorPort = INSPECT || PROFILE ? 19300 + (process.pid % 300) + (portSeq++ % 50) * 7 : undefined;
  const mf = new Miniflare({
    modules: true,
    scriptPath: path.join(dist, "worker.js"),
    modulesRoot: dist,
    modulesRules: [
      { type: "ESModule", include: ["**/*.js"] },
      { type: "CompiledWasm", include: ["**/*.wasm"] },
    ],
    compatibilityDate: "2025-09-01",
    r2Buckets: ["BUCKET"],
    r2Persist: persist,
    ...(bindings ? { bindings } : {}),
    ...(inspectorPort ? { inspectorPort } : {}),
    ...more, // Durable Objects (the batcher workload)
  });
  await mf.ready;
  const pid = childWorkerd(process.pid);
  if (!pid) throw new Error("workerd child process not found");
  const inspector = inspectorPort ? await Inspector.connect(inspectorPort) : undefined;
  return { mf, pid, inspector, async close() { inspector?.close(); await mf.dispose(); } };
}

async function call(w, route) {
  const res = await w.mf.dispatchFetch("http://bench" + route);
  const body = await res.json();
  if (!res.ok || body.error) throw new Error(`${route}: ${res.status} ${JSON.stringify(body).slice(0, 2000)}`);
  return body;
}

async function measure(w, route) {
  const { pid } = w;
  try {
    fss.writeFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {}
  const rss0 = status(pid, "VmRSS");
  const c0 = cpuSched(pid), s0 = cpuStat(pid);
  const x0 = w.serverPid ? cpuSched(w.serverPid).all : 0;
  const t0 = performance.now();
  const body = await call(w, route);
  const wall = performance.now() - t0;
  const c1 = cpuSched(pid), s1 = cpuStat(pid);
  const serverCpuMs = w.serverPid ? cpuSched(w.serverPid).all - x0 : undefined;
  const hwm = status(pid, "VmHWM");
  // The memory figures by a request of their own, after the measured one:
  // reading the Go heap's figures costs more than an empty request.
  body.memory ??= (await call(w, "/stats")).memory;
  let jsHeap;
  if (w.inspector) {
    try {
      const h = await w.inspector.send("Runtime.getHeapUsage");
      jsHeap = { used: h.usedSize, total: h.totalSize };
    } catch {}
  }
  return { route, wallMs: wall, cpuMs: c1.all - c0.all, cpuMainMs: c1.main - c0.main, cpuV8Ms: c1.v8 - c0.v8, cpuStatMs: s1 - s0, rssGrowth: hwm - rss0, rssAfter: status(pid, "VmRSS"), jsHeap, body, ...(serverCpuMs === undefined ? {} : { serverCpuMs }) };
}

// ---- workloads ------------------------------------------------------------------

const samples = []; // {workload, kind: cold|warm, ...measure}
const record = (workload, kind, m) => {
  samples.push({ workload, kind, ...m });
  log(`${workload} ${kind}: cpu ${m.cpuMs.toFixed(1)} ms, wall ${m.wallMs.toFixed(1)} ms, rss +${(m.rssGrowth / 2 ** 20).toFixed(1)} MiB` +
    (m.body.memory ? `, wasm ${(m.body.memory.wasmMemoryBytes / 2 ** 20).toFixed(1)} MiB` : "") +
    (m.body.result?.snapshotsExpired !== undefined ? `, ${m.body.result.snapshotsExpired} snapshots expired, ${m.body.result.filesDeleted} files deleted` : ""));
};


// ---- profile ------------------------------------------------------------------------

// Which part of the work a function's self time belongs to, by its name: Go
// functions keep their package path in a build without -s -w.
// Go names in the name section spell the package path with "_" for "/" and ".".
// profileRoutes profiles `times` calls of each route (after one call to warm
// up, or setup(k) before call k when given: a compaction needs a fresh copy).
async function profileRoutes(w, out, jobs) {
  for (const { name, route, times, setup } of jobs) {
    if (setup) await setup(-1);
    await call(w, typeof route === "function" ? route(-1) : route); // warm up
    for (let k = 0; k < times; k++) if (setup) await setup(k);
    await w.inspector.send("Profiler.enable");
    await w.inspector.send("Profiler.setSamplingInterval", { interval: 200 });
    await w.inspector.send("Profiler.start");
    for (let k = 0; k < times; k++) await call(w, typeof route === "function" ? route(k) : route);
    const { profile: prof } = await w.inspector.send("Profiler.stop");
    const file = path.join(results, `profile-${name.replace(/[^a-z0-9]+/gi, "-").replace(/-$/, "")}.cpuprofile`);
    await fs.writeFile(file, JSON.stringify(prof));
    out[name] = { file: path.relative(root, file), appends: times, ...summarize(prof) };
    log(`profile ${name}: ${out[name].categories.map((c) => `${c.name} ${c.pct.toFixed(0)}%`).join(", ")}`);
    for (const t of out[name].top.slice(0, 12)) log(`  ${t.ms.toFixed(1)} ms ${t.pct.toFixed(1)}% ${t.name}`);
  }
}

// The catch-up's latest() and append, warm: fresh copies of the fixture
// (catchup() wrote it).
async function profileCatchup(w, out) {
  await upload(w, "pcu", path.join(work, "catchup-fixture"));
  await profileRoutes(w, out, CATCHUP_JOBS.map((job) => ({
    name: job.r2 ? `${job.name} (R2)` : job.name,
    setup: async (k) => {
      for (const route of job.prep("pcu", `pcu-${job.tag}${k + 1}`)) await call(w, route);
    },
    route: (k) => job.route(`pcu-${job.tag}${k + 1}`),
    times: 5,
  })));
}

async function profile({ appendsToo = true, compaction = true, catchupToo = false } = {}) {
  const n = SIZES[SIZES.length - 1];
  const persist = path.join(work, "profile");
  await fs.rm(persist, { recursive: true, force: true });
  const w = await start(persist);
  const out = {};
  try {
    if (!w.inspector) throw new Error("no inspector");
    if (appendsToo) {
      await call(w, `/create?t=p`);
      await call(w, `/rows?n=${n}`);
      // Small appends are short: more of them, for a profile of some weight.
      const times = n <= 10_000 ? 40 : 5;
      await profileRoutes(w, out, [
        { name: `append ${n} (R2)`, route: `/append?t=p&n=${n}`, times },
        { name: `append ${n} (memory store)`, route: `/append?t=pm&n=${n}&mem=1`, times },
      ]);
    }
    if (compaction) {
      // The largest compaction, warm: three merges of fresh copies of its table.
      const c = COMPACT[COMPACT.length - 1];
      const t = `pc${c.files}x${c.rows}`;
      await call(w, `/create?t=${t}&props=${encodeURIComponent(JSON.stringify({ "timelake.maintain-byte-cap": "0" }))}`);
      await call(w, `/fill?t=${t}&files=${c.files}&rows=${c.rows}`);
      const opts = encodeURIComponent(JSON.stringify({ compact: true }));
      await profileRoutes(w, out, [
        {
          name: `compact ${c.files} files / ${c.files * c.rows} rows (R2)`,
          setup: (k) => call(w, `/copy?from=${t}&to=${t}-p${k + 1}`),
          route: (k) => `/maintain?t=${t}-p${k + 1}&opts=${opts}`,
          times: 3,
        },
      ]);
    }
    if (catchupToo) await profileCatchup(w, out);
  } finally {
    await w.close();
  }
  return out;
}

// ---- main -------------------------------------------------------------------------

await fs.mkdir(work, { recursive: true });
await fs.mkdir(results, { recursive: true });
// BENCH_WASM: another build of timelake.wasm (e.g. wasm-opt's) in place of
// the client's; BENCH_TAG names the run's output file apart.
const WASM = process.env.BENCH_WASM || undefined;
const bundleSizes = await bundle(WASM);
log("bundled:", JSON.stringify(bundleSizes));
const only = (process.env.BENCH_ONLY ?? "appends,catalog,peers,maintenance,catchup,scan,batcher,rollup").split(",");
// What every workload takes (each destructures the part it uses).
const ctx = { start, call, measure, record, log, work, root, smoke, RUNS, WARM, STEADY_AFTER, STEADY, SETTLED_AFTER, SIZES };
if (only.includes("appends")) await appends(ctx);
if (only.includes("spec")) await specAppends(ctx);
let catalogNote;
let catalogFailures = [];
if (only.includes("catalog")) ({ note: catalogNote, failures: catalogFailures } = await catalogAppends(ctx));
if (only.includes("peers")) await peers(ctx);
let maintainNote;
if (only.includes("maintenance")) maintainNote = await maintenance(ctx);
else if (only.includes("compaction")) maintainNote = await maintenance(ctx, { expiry: false });
else if (only.includes("expiry")) maintainNote = await maintenance(ctx, { compaction: false });
if (only.includes("catchup")) await catchupWorkload(ctx);
let scan;
if (only.includes("scan")) scan = await scans(ctx);
let flights;
if (only.includes("flights")) flights = await flightsWorkload(ctx);
let rollup;
if (only.includes("rollup")) rollup = await rollupWorkload(ctx);
if (only.includes("nested")) await nestedWorkload(ctx);
let batcher;
if (only.includes("batcher")) batcher = await batcherWorkload(ctx);
// GOGC / GOMEMLIMIT experiments: warm and cold 100k appends with each setting.
if (process.env.BENCH_GOENV) {
  for (const spec of process.env.BENCH_GOENV.split(";")) {
    const goEnv = Object.fromEntries(spec.split(",").map((kv) => kv.split("=")));
    await bundle(undefined, goEnv);
    const n = SIZES[SIZES.length - 1];
    const persist = path.join(work, "goenv");
    await fs.rm(persist, { recursive: true, force: true });
    for (let r = 0; r < RUNS; r++) {
      const w = await start(persist);
      try {
        await call(w, `/rows?n=${n}`);
        const name = `append ${n} (memory store) ${spec}`;
        record(name, "cold", await measure(w, `/append?t=g&n=${n}&mem=1`));
        for (let k = 0; k < WARM; k++) record(name, "warm", await measure(w, `/append?t=g&n=${n}&mem=1`));
      } finally {
        await w.close();
      }
    }
  }
  await bundle(WASM);
}
let profiles;
if (PROFILE) {
  // The same module built with its name section (no -s -w), so the profile names Go functions.
  const named = path.join(work, "timelake-names.wasm");
  execFileSync("go", ["build", "-trimpath", "-o", named, "./wasm"], { cwd: root, env: { ...process.env, GOOS: "js", GOARCH: "wasm" }, stdio: "inherit" });
  await bundle(named);
  profiles = await profile({ appendsToo: only.includes("appends"), compaction: only.includes("maintenance") || only.includes("compaction"), catchupToo: only.includes("catchup") });
  if (only.includes("nested")) {
    // Warm appends of the label rows, each shape profiled in one isolate (bench/nested.mjs).
    const n = smoke ? 1000 : 100_000;
    const persist = path.join(work, "profile-nested");
    await fs.rm(persist, { recursive: true, force: true });
    const w = await start(persist);
    try {
      if (!w.inspector) throw new Error("no inspector");
      await call(w, `/nested/rows?n=${n}`);
      const jobs = [];
      for (const shape of ["map", "columns"]) {
        await call(w, `/nested/create?t=p${shape}&shape=${shape}`);
        jobs.push({ name: `labels append ${n} (${shape})`, route: `/nested/append?t=p${shape}&shape=${shape}&n=${n}`, times: 5 });
      }
      // and scans of a table of the n rows (its own: the appends above grow theirs)
      for (const shape of ["map", "columns"]) {
        await call(w, `/nested/create?t=s${shape}&shape=${shape}`);
        await call(w, `/nested/append?t=s${shape}&shape=${shape}&n=${n}`);
        jobs.push({ name: `labels scan ${n} (${shape})`, route: `/nested/scan?t=s${shape}`, times: 5 });
      }
      await profileRoutes(w, profiles, jobs);
    } finally {
      await w.close();
    }
  }
  if (only.includes("rollup")) {
    // Inline refreshes after 1k-row appends, each profiled on its own (bench/rollup.mjs).
    const persist = path.join(work, "profile-rollup");
    await fs.rm(persist, { recursive: true, force: true });
    const w = await start(persist);
    try {
      if (!w.inspector) throw new Error("no inspector");
      for (const n of smoke ? [100] : [1000, 100_000]) profiles[`rollup inline refresh after ${n}`] = await profileRollup({ call, log, results, summarize }, w, n);
    } finally {
      await w.close();
    }
  }
}
const variant = process.env.BENCH_VARIANT ?? (WASM ? path.basename(WASM) : undefined);
const out = { smoke, variant, runs: RUNS, scan, flights, batcher, rollup, catalogNote, catalogFailures, warm: WARM, steadyAfter: STEADY_AFTER, steady: STEADY, settledAfter: SETTLED_AFTER, versions: versionsOf(here), bundleSizes, maintainNote, profiles, samples };
// A run of some workloads only (BENCH_ONLY) writes beside the full run's figures, not over them.
const partial = process.env.BENCH_ONLY ? `workerd-only-${only.join("+")}${process.env.BENCH_TAG ? "-" + process.env.BENCH_TAG : ""}.json` : undefined;
await fs.writeFile(path.join(results, smoke ? "workerd-smoke.json" : partial ?? "workerd.json"), JSON.stringify(out, null, 1));
// Medians on stderr, for a partial run that report.mjs does not read.
for (const key of [...new Set(samples.map((x) => `${x.workload}\t${x.kind}`))]) {
  const [workload, kind] = key.split("\t");
  const xs = samples.filter((x) => x.workload === workload && x.kind === kind);
  const med = (f) => { const v = xs.map(f).sort((a, b) => a - b); return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2; };
  const st = xs.at(-1).body?.store;
  log(`median ${workload} ${kind} (n=${xs.length}): cpu ${med((x) => x.cpuMs).toFixed(1)} ms (${Math.min(...xs.map((x) => x.cpuMs)).toFixed(0)}–${Math.max(...xs.map((x) => x.cpuMs)).toFixed(0)}), wall ${med((x) => x.wallMs).toFixed(1)} ms` +
    (xs[0].body?.memory ? `, wasm ${(Math.max(...xs.map((x) => x.body.memory.wasmMemoryBytes)) / 2 ** 20).toFixed(1)} MiB` : "") +
    (st ? `, store ${JSON.stringify(st)}` : ""));
}
log(`wrote ${samples.length} samples`);
// The outcome check of the catalog workload fails the run (after the figures are written).
if (catalogFailures.length) {
  for (const f of catalogFailures) log(`FAIL ${CATALOG_WORKLOAD}: ${f}`);
  if (smoke) process.exit(1);
}
// The batcher's outcome check (no acknowledged row lost, none twice) fails the run.
if (batcher?.failures.length) {
  for (const f of batcher.failures) log(`FAIL ${BATCHER_WORKLOAD}: ${f}`);
  process.exit(1);
}
