// Schema changes from a Worker in workerd (Miniflare, R2 binding): alter()
// and append({ evolve: true }) through the /workers entry, refusals as
// coded errors naming the column, and a writer in Node that sees the
// Worker's schema.
import assert from "node:assert/strict";
import { test } from "node:test";
import { openTable, r2Store } from "../src/index.js";
import { bucketOf, workerForTests } from "./mf.js";

const worker = workerForTests();
const post = worker.post;

const day = Date.UTC(2026, 10, 27);
const rows = (n: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => ({ ts: day + i * 1000, host: `h${i % 3}`, shard: String(i % 2), mem: String(i), ...extra }));

test("append({ evolve: true }) in a Worker adds the new keys as columns with the rows", async () => {
  assert.equal((await post("/create?prefix=e1")).status, 200);
  assert.equal((await post("/append?prefix=e1", rows(30))).status, 200);
  const r = await post("/append?prefix=e1&evolve=1", rows(3, { disk: 2.5, zone: "eu" }));
  assert.equal(r.status, 200, JSON.stringify(r.j));
  assert.equal(r.j.version, 3);
  const t = await openTable(r2Store(await bucketOf(worker.mf()), { prefix: "e1" }));
  assert.deepEqual(
    t.columns.map((c) => `${c.name}:${c.type}`).slice(-3),
    ["disk:double", "zone:string", "_ingest_ts:timestamptz"],
  );
  const info = await t.info();
  assert.deepEqual([info.rows, info.schemas.length], [33, 2]);
});

test("alter() in a Worker: one commit; a refused change is a coded error naming the column", async () => {
  assert.equal((await post("/create?prefix=a1")).status, 200);
  assert.equal((await post("/append?prefix=a1", rows(10))).status, 200);
  const bad = await post("/alter?prefix=a1", [{ drop: "shard" }]);
  assert.equal(bad.status, 400);
  assert.deepEqual([bad.j.code, bad.j.column], ["SCHEMA_CHANGE_FORBIDDEN", "shard"]);
  const r = await post("/alter?prefix=a1", [{ rename: "cpu", to: "load" }, { add: "disk", type: "long" }, { drop: "note" }]);
  assert.equal(r.status, 200, JSON.stringify(r.j));
  assert.deepEqual([r.j.version, r.j.schemaId, r.j.changed], [3, 1, true]);
  const t = await openTable(r2Store(await bucketOf(worker.mf()), { prefix: "a1" }));
  assert.deepEqual(
    t.columns.map((c) => c.name),
    ["ts", "host", "shard", "load", "mem", "disk", "_ingest_ts"],
  );
});
