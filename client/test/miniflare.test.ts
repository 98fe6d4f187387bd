// @timelake/client in workerd (Miniflare): the Store conformance suite
// against an R2 binding, appends from a Worker, concurrent requests in one
// isolate, a coded error across the fetch boundary.
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import type { Miniflare } from "miniflare";
import { bucketOf, exportBucket, startWorker } from "./mf.js";

let mf: Miniflare;
let dir: string;

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "timelake-mf-"));
  mf = await startWorker(path.join(dir, "r2"));
});
after(async () => {
  await mf?.dispose();
  await fs.rm(dir, { recursive: true, force: true });
});

async function call(pathname: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await mf.dispatchFetch(`http://worker${pathname}`, {
    method: body === undefined && pathname === "/memory" ? "GET" : "POST",
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  });
  return { status: res.status, json: await res.json() };
}

test("r2Store passes the Store conformance suite inside workerd", async () => {
  const { status, json } = await call("/conformance");
  assert.equal(status, 200, JSON.stringify(json));
  assert.ok(json.length >= 10);
  const failed = json.filter((c: { error?: string }) => c.error);
  assert.deepEqual(failed, [], JSON.stringify(failed, null, 2));
});

test("a Worker creates a table on R2 and appends; concurrent requests in one isolate queue", async () => {
  const created = await call("/create?prefix=t1&location=" + encodeURIComponent("file:///unused"));
  assert.equal(created.status, 200, JSON.stringify(created.json));
  const batch = (k: number) =>
    Array.from({ length: 200 }, (_, i) => ({ ts: Date.UTC(2026, 10, 28, 0, k, i % 60, i), host: `h${i % 7}`, shard: String(i % 3), mem: String(i), cpu: i / 4 }));
  const results = await Promise.all([0, 1, 2, 3, 4].map((k) => call("/append?prefix=t1", batch(k))));
  for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.deepEqual(results.map((r) => r.json.version).sort(), [2, 3, 4, 5, 6]);
  for (const r of results) {
    assert.match(r.json.snapshotId, /^\d+$/);
    assert.equal(r.json.rowsWritten, 200);
    assert.ok(r.json.memory.wasmMemoryBytes > 0);
  }
  const out = path.join(dir, "t1");
  const n = await exportBucket(mf, "t1/", out);
  assert.ok(n >= 6 * 1 + 5 * 4, `exported ${n} objects`);
  await fs.access(path.join(out, "metadata", "v6.metadata.json"));
});

test("bad rows in a Worker: a coded RowError; nothing committed", async () => {
  await call("/create?prefix=t2");
  const before = await (await bucketOf(mf)).list({ prefix: "t2/" });
  const r = await call("/append?prefix=t2", [
    { ts: "2026-11-28T00:00:00Z", host: "a", shard: "1", mem: "1" },
    { ts: "2026-11-28T00:00:01Z", host: "a", shard: "1", mem: "1", cpu: "lots" },
  ]);
  assert.equal(r.status, 400);
  assert.deepEqual({ name: r.json.name, code: r.json.code, row: r.json.row, column: r.json.column }, { name: "RowError", code: "TYPE_MISMATCH", row: 2, column: "cpu" });
  const afterList = await (await bucketOf(mf)).list({ prefix: "t2/" });
  assert.deepEqual(afterList.objects.map((o) => o.key), before.objects.map((o) => o.key));
});

test("appends of 1k, 10k and 100k generated rows in workerd (timings logged)", async (t) => {
  await call("/create?prefix=bench");
  for (const [i, n] of [1_000, 10_000, 100_000, 100_000].entries()) {
    const t0 = performance.now();
    const r = await call(`/generate?prefix=bench&n=${n}&seed=${i}`);
    const ms = performance.now() - t0;
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.rowsWritten, n);
    t.diagnostic(
      `workerd append of ${n} rows: ${ms.toFixed(0)} ms wall (request), wasm memory ${(r.json.memory.wasmMemoryBytes / 2 ** 20).toFixed(0)} MiB, Go heap sys ${(r.json.memory.heapSys / 2 ** 20).toFixed(0)} MiB`,
    );
  }
});
