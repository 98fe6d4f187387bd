// A Worker in workerd (Miniflare) keeping an hourly rollup of a table in
// Iceberg's REST catalog (S3 warehouse, vended credentials: see
// catalog.miniflare.test.ts): addRollup creates it as a table of the same
// catalog, each call appends and refreshes; Node reads the rollup table
// back through the catalog by name.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { openTable, restCatalog } from "../src/node.js";
import { catalogWorker, s3CatalogEnv } from "./catalogmf.js";
import { callWorker } from "./s3mf.js";

const env = s3CatalogEnv();
const { uri, warehouse, token, skip } = env;
const worker = catalogWorker(env);
const ns = `mfru_${randomBytes(4).toString("hex")}`;

test("a Worker adds and refreshes a rollup of a catalog table; Node reads it from the catalog", { skip }, async () => {
  const name = `${ns}.cpu`;
  const schema = { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }] };
  await callWorker(worker(), `/create?name=${name}`, schema);
  // Two hours of rows, then a rewrite of the first hour's (the later append wins).
  const rows = (k: number, base: number) => Array.from({ length: 60 }, (_, i) => ({ ts: Date.UTC(2026, 10, 28, k, i), host: `h${i % 3}`, cpu: base + i }));
  const r1 = await callWorker(worker(), `/rollup?name=${name}`, [...rows(0, 0), ...rows(1, 100)]);
  assert.equal(r1.refresh.mode, "full");
  assert.deepEqual(r1.definitions.map((d: { table: string }) => d.table), [`${ns}.cpu__rollup_hourly`]);
  assert.ok(r1.requests.includes(`POST /v1/namespaces/${ns}/tables`), JSON.stringify(r1.requests)); // the rollup table created
  assert.ok(r1.requests.includes(`POST /v1/namespaces/${ns}/tables/cpu__rollup_hourly`), JSON.stringify(r1.requests)); // its refresh committed
  const r2 = await callWorker(worker(), `/rollup?name=${name}`, rows(0, 1000));
  assert.equal(r2.refresh.mode, "incremental");
  assert.equal(r2.refresh.rows, 3); // the first hour of each host, recomputed

  const cat = restCatalog({ uri: uri!, warehouse: warehouse!, ...(token ? { token } : {}) });
  const ru = await openTable(cat, `${ns}.cpu__rollup_hourly`);
  const got: string[] = [];
  for await (const b of ru.scan()) {
    const c = b.columns;
    for (let i = 0; i < b.length; i++) got.push(`${c.host![i]} ${String(c.bucket![i]).slice(11, 13)} ${c.row_count![i]} ${c.cpu_max![i]} ${c.cpu_sum![i]}`);
  }
  // Hour 0: cpu 1000+i; hour 1: 100+i; host h<j> has i = j, j+3, …, j+57.
  const want: string[] = [];
  for (const [hour, base] of [["00", 1000], ["01", 100]] as const) {
    for (let j = 0; j < 3; j++) {
      let sum = 0;
      for (let i = j; i < 60; i += 3) sum += base + i;
      want.push(`h${j} ${hour} 20 ${base + 57 + j} ${sum}`);
    }
  }
  assert.deepEqual(got.sort(), want.sort());
});
