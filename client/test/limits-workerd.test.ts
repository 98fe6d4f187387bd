// The input limits in a Worker (workerd through Miniflare, R2 binding, the
// /workers entry): a value too large for any page and an append spanning
// more partitions than one append may are coded errors, and the bucket
// keeps the table as it was.
import assert from "node:assert/strict";
import { test } from "node:test";
import { bucketOf, workerForTests } from "./mf.js";

const worker = workerForTests();
const post = worker.post;

async function keys(prefix: string): Promise<string[]> {
  const b = await bucketOf(worker.mf());
  return (await b.list({ prefix })).objects.map((o) => o.key).sort();
}

const day = Date.UTC(2026, 10, 27);

test("a 17 MiB value and 1,001 days in one append are coded errors in a Worker; the table is unchanged", async () => {
  assert.equal((await post("/create?prefix=l1")).status, 200);
  assert.equal((await post("/append?prefix=l1", [{ ts: day, host: "a", shard: "1", mem: "1" }])).status, 200);
  const before = await keys("l1/");
  const big = await post("/append?prefix=l1", [{ ts: day, host: "x".repeat(17 << 20), shard: "1", mem: "1" }]);
  assert.equal(big.status, 400, JSON.stringify(big.j).slice(0, 200));
  assert.equal(big.j.code, "VALUE_TOO_LARGE");
  assert.match(big.j.message, /column "host": a value of 17825792 bytes/);
  const days = await post("/append?prefix=l1", Array.from({ length: 1001 }, (_, i) => ({ ts: day + i * 86_400_000, host: "a", shard: "1", mem: "1" })));
  assert.equal(days.status, 400, JSON.stringify(days.j).slice(0, 200));
  assert.equal(days.j.code, "TOO_MANY_PARTITIONS");
  assert.match(days.j.message, /the rows span 1001 ts_day partitions/);
  assert.deepEqual(await keys("l1/"), before);
});
