// A Worker in workerd (Miniflare) writing a table kept in Iceberg's REST
// catalog: fetch to the loopback catalog server (started by
// scripts/test-client.sh with an S3 warehouse, credential vending and a
// bearer token), the data to the local S3 server, with the vended
// credentials or with an s3Store rooted at the bucket. Node reads the table
// back through the catalog (vended credentials too).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { openTable, restCatalog, s3Store } from "../src/node.js";
import { catalogWorker, s3CatalogEnv } from "./catalogmf.js";
import { callWorker, startS3Worker } from "./s3mf.js";

const env = s3CatalogEnv();
const { s3, uri, warehouse, token, skip } = env;
const worker = catalogWorker(env);
const ns = `mf_${randomBytes(4).toString("hex")}`;

const tablePath = (t: string) => `/v1/namespaces/${ns}/tables/${t}`;

test("a Worker creates a catalog table and appends with vended credentials and with a Store rooted at the bucket", { skip }, async () => {
  const name = `${ns}.cpu`;
  const schema = { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }] };
  const created = await callWorker(worker(), `/create?name=${name}`, schema);
  assert.equal(created.requests[0], "GET /v1/config");
  const rows = (k: number) => Array.from({ length: 50 }, (_, i) => ({ ts: Date.UTC(2026, 10, 28, k, 0, i), host: `h${i % 5}`, cpu: k * 100 + i }));

  const a1 = await callWorker(worker(), `/append?name=${name}`, rows(0));
  assert.equal(a1.rowsWritten, 50);
  assert.equal(a1.version, created.version + 1);
  // The isolate keeps the catalog: no config, one load, one commit.
  assert.deepEqual(a1.requests, [`GET ${tablePath("cpu")}`, `POST ${tablePath("cpu")}`]);

  const a2 = await callWorker(worker(), `/append?name=${name}&mode=rooted`, rows(1));
  assert.equal(a2.version, a1.version + 1);
  assert.deepEqual(a2.requests, [`GET ${tablePath("cpu")}`, `POST ${tablePath("cpu")}`]);

  const read = await callWorker(worker(), `/read?name=${name}`);
  assert.equal(read.info.rows, 100);
  assert.equal(read.info.snapshots, 2);
  assert.ok(read.info.location.startsWith(warehouse!), read.info.location);
  assert.deepEqual(
    read.latest.map((r: Record<string, unknown>) => [r["host"], r["cpu"]]),
    [["h0", 145], ["h1", 146], ["h2", 147], ["h3", 148], ["h4", 149]],
  );

  // Node, through the catalog with the vended credentials (no store given).
  const node = await openTable(restCatalog({ uri: uri!, warehouse: warehouse!, ...(token ? { token } : {}) }), name);
  assert.equal(node.version, a2.version);
  const info = await node.info();
  assert.equal(info.rows, 100);
  assert.equal(info.files, 2);
  const r3 = await node.append(rows(2));
  assert.equal(r3.version, a2.version + 1);
  await node.close();

  // The files are in the bucket under the table's location.
  const loc = new URL(info.location.replace(/^s3:/, "http:"));
  assert.equal(loc.host, s3!.S3_BUCKET);
  const bucket = s3Store({
    bucket: s3!.S3_BUCKET!, prefix: loc.pathname.replace(/^\/+/, ""), endpoint: s3!.S3_ENDPOINT!, region: s3!.S3_REGION!,
    credentials: { accessKeyId: s3!.S3_ACCESS_KEY_ID!, secretAccessKey: s3!.S3_SECRET_ACCESS_KEY! },
  });
  const data = (await bucket.list("data/")).filter((o) => o.key.endsWith(".parquet"));
  assert.equal(data.length, 3);
  const after = await callWorker(worker(), `/read?name=${name}&mode=rooted`);
  assert.equal(after.info.rows, 150);
});

test("a Worker with a wrong catalog token gets CATALOG_AUTH without the token", { skip: skip || (!token ? "the S3 catalog runs without a token" : false) }, async () => {
  const bad = `bad-${randomBytes(8).toString("hex")}`;
  const w = await startS3Worker({ ...s3!, CATALOG_URI: uri!, CATALOG_WAREHOUSE: warehouse!, CATALOG_TOKEN: bad }, "catalogworker/worker.js");
  try {
    const res = await w.dispatchFetch(`http://worker/read?name=${ns}.cpu`, { method: "POST" });
    const j = (await res.json()) as { code: string; error: string };
    assert.equal(res.status, 500);
    assert.equal(j.code, "CATALOG_AUTH", j.error);
    assert.ok(!j.error.includes(bad), j.error);
  } finally {
    await w.dispose();
  }
});
