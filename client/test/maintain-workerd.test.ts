// TableWriter.maintain() and timelake.auto-maintain in workerd (Miniflare,
// R2 binding): compaction keeps every row, auto-maintenance after appends, a
// maintenance commit in the Worker that loses to an append made from Node on
// the same bucket, and compaction figures in a fresh isolate (logged, not
// asserted). TIMELAKE_WORKERD_COMPACT_ROWS sets the rows per file of the
// 24-file compaction (default 2,000; 50,000 gives the 1.2M-row figure).
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import type { Miniflare } from "miniflare";
import { openTable, r2Store } from "../src/index.js";
import { bucketOf, startWorker } from "./mf.js";

let dir: string;
let mf: Miniflare;
/** What HOOK does before the Worker's next metadata commit (then cleared). */
let beforeCommit: (() => Promise<void>) | undefined;

let hookError: unknown;
async function hook(): Promise<Response> {
  const f = beforeCommit;
  beforeCommit = undefined;
  try {
    if (f) await f();
  } catch (e) {
    hookError = e;
  }
  return new Response("ok");
}

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "timelake-mfm-"));
  mf = await startWorker(path.join(dir, "r2"), hook);
});
after(async () => {
  await mf?.dispose();
  await fs.rm(dir, { recursive: true, force: true });
});

async function call(m: Miniflare, pathname: string): Promise<any> {
  const res = await m.dispatchFetch(`http://worker${pathname}`, { method: "POST" });
  const j = await res.json();
  assert.equal(res.status, 200, `${pathname}: ${JSON.stringify(j)}`);
  return j;
}

/** files appends of rowsPer generated rows into one cold day (2026-11-27). */
async function fill(m: Miniflare, prefix: string, files: number, rowsPer: number, props: Record<string, string> = {}) {
  await call(m, `/create?prefix=${prefix}&props=${encodeURIComponent(JSON.stringify(props))}`);
  const results = [];
  // 50 ms apart: up to 1.7M rows stay in one day's partition
  for (let k = 0; k < files; k++) results.push(await call(m, `/generate?prefix=${prefix}&n=${rowsPer}&seed=0&start=${k * rowsPer}&step=50`));
  return results;
}

const MiB = (n: number) => (n / 2 ** 20).toFixed(0);

test("maintain() in a Worker compacts 8 files into one; info and latest unchanged", async () => {
  await fill(mf, "m1", 8, 1000);
  const before = await call(mf, "/info?prefix=m1");
  assert.deepEqual([before.info.files, before.info.rows], [8, 8000]);
  const r = await call(mf, `/maintain?prefix=m1&opts=${encodeURIComponent(JSON.stringify({ compact: true }))}`);
  assert.deepEqual([r.merges, r.filesRead, r.filesWritten, r.rowsBefore, r.rowsAfter], [1, 8, 1, 8000, 8000]);
  assert.match(r.snapshotId, /^\d+$/);
  const afterInfo = await call(mf, "/info?prefix=m1");
  assert.deepEqual([afterInfo.info.files, afterInfo.info.rows, afterInfo.info.version], [1, 8000, r.version]);
  assert.deepEqual(afterInfo.latest, before.latest);
});

test("timelake.auto-maintain=true in a Worker: appends report maintenance; the day stays one file", async () => {
  const results = await fill(mf, "m2", 4, 500, { "timelake.auto-maintain": "true" });
  for (const [k, r] of results.entries()) {
    assert.ok(r.maintenance, `append ${k}: ${JSON.stringify(r)}`);
    assert.equal(r.maintenance.merges, k === 0 ? 0 : 1, `append ${k}: ${r.maintenance.plan}`);
  }
  const info = await call(mf, "/info?prefix=m2");
  assert.deepEqual([info.info.files, info.info.rows], [1, 2000]);
});

test("a Worker's maintain() that loses its commit to an append from Node (same bucket) keeps every row", async () => {
  await fill(mf, "m3", 8, 1000);
  const bucket = await bucketOf(mf);
  let nodeVersion = 0;
  beforeCommit = async () => {
    // Another runtime appends to the same table while the Worker is about to commit.
    // Miniflare's Node-side bucket proxy cannot carry the Headers of a
    // conditional put, so this store checks then puts: safe here, as the
    // Worker, the only other writer, is waiting on this hook.
    const base = r2Store(bucket, { prefix: "m3" });
    const store = { ...base, putIfAbsent: async (k: string, d: Uint8Array) => ((await base.get(k)) ? false : (await base.put(k, d), true)) };
    const w = await openTable(store);
    const rows = Array.from({ length: 300 }, (_, i) => ({ ts: Date.UTC(2026, 10, 27, 20) + i * 1000, host: `node-${i % 3}`, shard: 1n, mem: BigInt(i), cpu: 1 }));
    nodeVersion = (await w.append(rows)).version;
  };
  const r = await call(mf, `/maintain?prefix=m3&hook=1&opts=${encodeURIComponent(JSON.stringify({ compact: true }))}`);
  assert.equal(hookError, undefined);
  assert.equal(nodeVersion, 10, "Node's append took v10");
  assert.ok(r.conflicts >= 1, `conflicts: ${r.conflicts}`);
  assert.ok(r.merges >= 1);
  const info = await call(mf, "/info?prefix=m3&fresh=1");
  assert.equal(info.info.rows, 8300);
  assert.ok(info.info.version > nodeVersion);
});

test("compaction figures in a fresh isolate: 8 x 1k rows and 24 files (logged)", async (t) => {
  const per = Number(process.env["TIMELAKE_WORKERD_COMPACT_ROWS"] || "2000");
  const persist = path.join(dir, "bench-r2");
  const m = await startWorker(persist);
  try {
    await fill(m, "c8", 8, 1000);
    await fill(m, "c24", 24, per);
  } finally {
    await m.dispose();
  }
  for (const [prefix, files, rows] of [["c8", 8, 8000], ["c24", 24, 24 * per]] as const) {
    const fresh = await startWorker(persist); // a new isolate: memory is the runtime plus this run
    try {
      const i0 = await call(fresh, `/info?prefix=${prefix}`);
      assert.deepEqual([i0.info.files, i0.info.rows], [files, rows]);
      const t0 = performance.now();
      const r = await call(fresh, `/maintain?prefix=${prefix}&opts=${encodeURIComponent(JSON.stringify({ compact: true }))}`);
      const ms = performance.now() - t0;
      assert.equal(r.rowsAfter, rows);
      const i1 = await call(fresh, `/info?prefix=${prefix}`);
      assert.deepEqual([i1.info.files, i1.info.rows], [1, rows]);
      t.diagnostic(
        `workerd compaction of ${files} files x ${rows / files} rows: ${ms.toFixed(0)} ms wall (request), ` +
          `read ${MiB(r.bytesRead)} MiB, wrote ${MiB(r.bytesWritten)} MiB; wasm memory ${MiB(i0.memory.wasmMemoryBytes)} MiB after open -> ` +
          `${MiB(r.memory.wasmMemoryBytes)} MiB after maintain (Go heap sys ${MiB(r.memory.heapSys)} MiB, total alloc ${MiB(r.memory.totalAlloc - i0.memory.totalAlloc)} MiB)`,
      );
    } finally {
      await fresh.dispose();
    }
  }
});
