// Runs the example Worker the way a deployment would, on this machine:
//   1. bundles src/worker.js with esbuild, keeping @timelake/client/timelake.wasm
//      as a compiled WebAssembly module beside the bundle (what wrangler does);
//   2. starts it in workerd (Miniflare) with an R2 bucket persisted under .r2/;
//   3. posts examples/metrics.csv to it: one day to /append, the next half
//      through the queue and half through the Durable Object batcher (/batch);
//      prints the results and the latest row per series;
//   4. copies the table out of the bucket into ../../demo-worker-table, so the
//      timelake CLI and outside readers (DuckDB, pyiceberg) can read it.
// Usage: node run.mjs   (from scripts/demo.sh)
// With CATALOG_URI (and CATALOG_WAREHOUSE, CATALOG_TOKEN, CATALOG_TABLE) in
// the environment, the Worker writes through that Iceberg REST catalog
// instead (its files in the local R2 bucket, under the table location's
// path), and step 4 is skipped: the catalog holds the table.
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const out = path.join(here, "dist");
const tableDir = path.join(root, "demo-worker-table");

// 1. Bundle. The .wasm import stays an import of ./timelake.wasm.
await fs.rm(out, { recursive: true, force: true });
await build({
  entryPoints: [path.join(here, "src/worker.js")],
  bundle: true,
  format: "esm",
  platform: "neutral",
  conditions: ["workerd", "worker"],
  outfile: path.join(out, "worker.js"),
  logLevel: "warning",
  plugins: [{
    name: "compiled-wasm",
    setup(b) {
      b.onResolve({ filter: /\.wasm$/ }, () => ({ path: "./timelake.wasm", external: true }));
    },
  }],
});
const wasmPath = path.join(here, "node_modules/@timelake/client/dist/src/timelake.wasm");
await fs.copyFile(wasmPath, path.join(out, "timelake.wasm"));
const bundled = (await fs.stat(path.join(out, "worker.js"))).size;
console.log(`bundled worker: ${bundled} bytes of JavaScript + timelake.wasm`);

// 2. workerd with an R2 bucket.
const mf = new Miniflare({
  modules: true,
  scriptPath: path.join(out, "worker.js"),
  modulesRoot: out,
  modulesRules: [
    { type: "ESModule", include: ["**/*.js"] },
    { type: "CompiledWasm", include: ["**/*.wasm"] },
  ],
  compatibilityDate: "2025-09-01",
  r2Buckets: ["BUCKET"],
  r2Persist: path.join(here, ".r2"),
  queueProducers: { ROWS: "rows" },
  queueConsumers: { rows: { maxBatchSize: 100, maxBatchTimeout: 1 } }, // 100 messages of 50 rows: 5,000-row appends
  durableObjects: { BATCHER: { className: "MetricsBatcher", useSQLite: true } },
  durableObjectsPersist: path.join(here, ".do"),
  bindings: {
    TABLE_LOCATION: "file://" + tableDir,
    ...Object.fromEntries(["CATALOG_URI", "CATALOG_WAREHOUSE", "CATALOG_TOKEN", "CATALOG_TABLE"].filter((k) => process.env[k]).map((k) => [k, process.env[k]])),
  },
});
try {
  await mf.ready;
  // 3. The sample rows, as JSON objects, in two batches.
  const csv = (await fs.readFile(path.join(root, "examples/metrics.csv"), "utf8")).trim().split("\n");
  const header = csv[0].split(",");
  const rows = csv.slice(1).map((line) => {
    const f = line.split(",");
    const r = {};
    header.forEach((h, i) => {
      if (f[i] !== "") r[h] = h === "cpu" ? Number(f[i]) : h === "healthy" ? f[i] === "true" : f[i];
    });
    return r;
  });
  // The first day straight to /append; the second through the queue.
  const firstDay = rows.filter((r) => r.time < "2026-11-28");
  const secondDay = rows.filter((r) => r.time >= "2026-11-28");
  const res = await mf.dispatchFetch("http://worker/append", { method: "POST", body: JSON.stringify(firstDay) });
  const body = await res.json();
  if (!res.ok) throw new Error(`append failed: ${JSON.stringify(body)}`);
  console.log(`worker appended ${body.rowsWritten} rows: version ${body.version}, snapshot ${body.snapshotId}, ${body.files} files, ${body.durationMs} ms`);
  const inline = body.rollups?.[0];
  console.log(`  and refreshed rollup ${inline?.rollup} in the same call: ${inline?.refresh ? `${inline.refresh.mode}, ${inline.refresh.rows} rows, reflects snapshot ${inline.refresh.sourceSnapshot}` : JSON.stringify(inline?.error ?? body.warnings)}`);
  // The second day: half through the queue, half through the Durable Object batcher.
  const half = Math.floor(secondDay.length / 2);
  const q = await mf.dispatchFetch("http://worker/enqueue", { method: "POST", body: JSON.stringify(secondDay.slice(0, half)) });
  console.log(`queued ${(await q.json()).enqueued} rows as messages of 50 rows`);
  const toBatcher = secondDay.slice(half);
  const sends = [];
  for (let i = 0; i < toBatcher.length; i += 50) {
    // Many producers at once, 50 rows each: the object acknowledges each once stored.
    sends.push(mf.dispatchFetch("http://worker/batch", { method: "POST", body: JSON.stringify(toBatcher.slice(i, i + 50)) }).then((r) => r.json()));
  }
  const acks = await Promise.all(sends);
  const bad = acks.find((a) => a.accepted === undefined);
  if (bad) throw new Error(`batch failed: ${JSON.stringify(bad)}`);
  console.log(`sent ${toBatcher.length} rows to the Durable Object batcher in ${sends.length} sends, each acknowledged once durable in its storage`);
  for (let i = 0; ; i++) {
    const info = await (await mf.dispatchFetch("http://worker/info")).json();
    if (info.rows >= rows.length) {
      console.log(`the queue consumer and the batcher appended them: table at version ${info.version}, ${info.rows} rows`);
      break;
    }
    if (i > 200) throw new Error(`the queue consumer or the batcher did not append the rows: ${JSON.stringify(info)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const rolled = (await (await mf.dispatchFetch("http://worker/rollup?limit=0")).text()).split("\n").filter((l) => l);
  console.log(`hourly rollup (refreshed inline by every append: /append, the queue consumer, the batcher): ${rolled.length} rows, first: ${rolled[0]}`);
  const latest = await (await mf.dispatchFetch("http://worker/latest")).json();
  console.log(`latest row per series (${latest.length} series), first: ${JSON.stringify(latest[0])}`);

  if (process.env.CATALOG_URI) {
    const info = await (await mf.dispatchFetch("http://worker/info")).json();
    console.log(`catalog table ${process.env.CATALOG_TABLE || "metrics.cpu"} at ${info.location}: version ${info.version}, ${info.rows} rows, ${info.files} files`);
  } else {
    // 4. Copy the table out of the bucket.
    await fs.rm(tableDir, { recursive: true, force: true });
    const bucket = await mf.getR2Bucket("BUCKET");
    let cursor, n = 0;
    do {
      const page = await bucket.list({ prefix: "metrics/", ...(cursor ? { cursor } : {}) });
      for (const o of page.objects) {
        const obj = await bucket.get(o.key);
        const file = path.join(tableDir, o.key.slice("metrics/".length));
        await fs.mkdir(path.dirname(file), { recursive: true });
        await fs.writeFile(file, new Uint8Array(await obj.arrayBuffer()));
        n++;
      }
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    console.log(`copied ${n} objects of the R2 table to ${path.relative(root, tableDir)}/`);
  }
} finally {
  await mf.dispose();
}
