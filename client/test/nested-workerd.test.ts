// Nested columns from a Worker in workerd (Miniflare, R2 binding): a table
// with tags map<string, string> appended to with plain objects and Maps,
// scanned back as objects with where filters on a key, latest() the same,
// a bad where a coded error naming the expression.
import assert from "node:assert/strict";
import { test } from "node:test";
import { r2Store } from "../src/index.js";
import { bucketOf, workerForTests } from "./mf.js";
import { addTagsColumn } from "./nestedfixture.js";

const worker = workerForTests();
const post = worker.post;
const day = Date.UTC(2026, 10, 28);
const schema = JSON.stringify({ time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }] });

test("a Worker appends objects and Maps to a map column and scans them back with where", async () => {
  assert.equal((await post(`/create?prefix=n1&schema=${encodeURIComponent(schema)}`)).status, 200);
  await addTagsColumn(r2Store(await bucketOf(worker.mf()), { prefix: "n1" }));
  assert.equal((await post("/open?prefix=n1")).status, 200);
  let r = await post("/append?prefix=n1", [
    { ts: day, host: "a", cpu: 1, tags: { env: "prod", job: "api" } },
    { ts: day + 1000, host: "a", cpu: 2, tags: null },
  ]);
  assert.equal(r.status, 200, JSON.stringify(r.j));
  r = await post("/append?prefix=n1&maps=1", [
    { ts: day, host: "b", cpu: 3, tags: { job: "db", env: "dev" } },
    { ts: day + 1000, host: "b", cpu: 4, tags: { env: "prod", "ключ": "🙂" } },
  ]);
  assert.equal(r.status, 200, JSON.stringify(r.j));
  const all = await post("/scan?prefix=n1", {});
  assert.deepEqual(
    all.j.map((x: any) => [x.host, x.cpu, x.tags]),
    [
      ["a", 1, { env: "prod", job: "api" }],
      ["a", 2, null],
      ["b", 3, { job: "db", env: "dev" }],
      ["b", 4, { env: "prod", "ключ": "🙂" }],
    ],
  );
  const prod = await post("/scan?prefix=n1", { where: "tags[env]=prod", columns: ["cpu"] });
  assert.deepEqual(prod.j.map((x: any) => [x.host, x.cpu, "tags" in x]), [["a", 1, false], ["b", 4, false]]);
  const notProd = await post("/scan?prefix=n1", { where: ["tags[env]!=prod", "tags[job]!=api"] });
  assert.deepEqual(notProd.j.map((x: any) => x.cpu), [2, 3]);
  const info = await post("/info?prefix=n1&fresh=1");
  assert.deepEqual(info.j.latest.map((x: any) => [x.host, x.tags]), [["a", null], ["b", { env: "prod", "ключ": "🙂" }]]);
  const bad = await post("/scan?prefix=n1", { where: "tags[env]" });
  assert.equal(bad.status, 400);
  assert.equal(bad.j.code, "BAD_FILTER");
  assert.match(bad.j.message, /"tags\[env\]": no = or != after tags\[env\]/);
});
