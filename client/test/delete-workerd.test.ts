// TableWriter.delete in a Worker (workerd through Miniflare, R2 binding):
// a delete by series and a purge; a Node reader sees the rows left.
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

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "timelake-mfd-"));
  mf = await startWorker(path.join(dir, "r2"), async () => new Response("ok"));
});
after(async () => {
  await mf?.dispose();
  await fs.rm(dir, { recursive: true, force: true });
});

async function post(pathname: string, body?: unknown): Promise<{ status: number; j: any }> {
  const res = await mf.dispatchFetch(`http://worker${pathname}`, { method: "POST", body: body === undefined ? null : JSON.stringify(body) });
  return { status: res.status, j: await res.json() };
}

const day = Date.UTC(2026, 10, 27);
const rows = (n: number, k: number) =>
  Array.from({ length: n }, (_, i) => ({ ts: day + (k * n + i) * 60_000, host: `h${i % 3}`, shard: "1", mem: String(i) }));

test("delete and purge in a Worker", async () => {
  assert.equal((await post("/create?prefix=d1")).status, 200);
  for (let k = 0; k < 3; k++) assert.equal((await post("/append?prefix=d1", rows(30, k))).status, 200);
  const bare = await post("/delete?prefix=d1", {});
  assert.deepEqual([bare.status, bare.j.code], [400, "BAD_FILTER"]);
  const r = await post("/delete?prefix=d1", { series: { host: ["h2"] }, purge: true, now: true });
  assert.equal(r.status, 200, JSON.stringify(r.j));
  assert.equal(r.j.rowsDeleted, 30);
  assert.ok(r.j.purge.filesDeleted > 0 && r.j.purge.snapshotsExpired.length > 0, JSON.stringify(r.j.purge));
  const t = await openTable(r2Store(await bucketOf(mf), { prefix: "d1" }));
  const hosts = new Set<string>();
  let n = 0;
  for await (const row of t.scan().rows()) {
    hosts.add(String(row.host));
    n++;
  }
  assert.deepEqual([n, [...hosts].sort()], [60, ["h0", "h1"]]);
});
