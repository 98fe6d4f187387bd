// TableWriter.delete in a Worker (workerd through Miniflare, R2 binding):
// a delete by series and a purge; a Node reader sees the rows left.
import assert from "node:assert/strict";
import { test } from "node:test";
import { openTable, r2Store } from "../src/index.js";
import { bucketOf, workerForTests } from "./mf.js";

const worker = workerForTests();
const post = worker.post;

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
  const t = await openTable(r2Store(await bucketOf(worker.mf()), { prefix: "d1" }));
  const hosts = new Set<string>();
  let n = 0;
  for await (const row of t.scan().rows()) {
    hosts.add(String(row.host));
    n++;
  }
  assert.deepEqual([n, [...hosts].sort()], [60, ["h0", "h1"]]);
});
