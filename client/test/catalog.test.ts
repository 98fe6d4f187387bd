// Tables in an Iceberg REST catalog from Node: Iceberg's own REST server
// (scripts/restcatalog.sh, started by scripts/test-client.sh with a file
// warehouse, a bearer token and a client-credentials client), the files in
// the warehouse directory through localStore. The injected fetch counts
// the catalog requests: an append without a conflict is one commit request.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { createTable, openTable, restCatalog, TimelakeError, type TableSchema } from "../src/node.js";
import { localStore } from "../src/stores/local.js";

const uri = process.env.TIMELAKE_CATALOG_URI;
const warehouse = process.env.TIMELAKE_CATALOG_WAREHOUSE;
const token = process.env.TIMELAKE_CATALOG_TEST_TOKEN;
const client = process.env.TIMELAKE_CATALOG_TEST_CLIENT;
const skip = uri && warehouse ? false : "no REST catalog: TIMELAKE_CATALOG_URI is unset (scripts/test-client.sh starts scripts/restcatalog.sh)";
const ns = `js_${randomBytes(4).toString("hex")}`;

const schema: TableSchema = {
  time: "ts",
  series: ["host"],
  columns: [
    { name: "cpu", type: "double" },
    { name: "mem", type: "long" },
  ],
};

/** A fetch that records every request (method and path). */
function countingFetch() {
  const seen: { method: string; path: string }[] = [];
  const f: typeof fetch = async (input, init) => {
    const u = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    seen.push({ method: init?.method ?? "GET", path: u.pathname });
    return fetch(input, init);
  };
  return { fetch: f, seen, take: () => seen.splice(0) };
}

const files = (loc: string) => localStore(fileURLToPath(loc));

function catalog(extra: { token?: string; credential?: string; fetch?: typeof fetch } = {}) {
  return restCatalog({ uri: uri!, warehouse: warehouse!, ...(token && !extra.credential ? { token } : {}), ...extra });
}

async function rejectsWith(p: Promise<unknown>, code: string, secret?: string): Promise<TimelakeError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof TimelakeError, String(e));
    assert.equal(e.code, code, e.message);
    if (secret) assert.ok(!e.message.includes(secret) && !String(e.stack).includes(secret), `the secret is in the message: ${e.message}`);
    return e;
  }
  assert.fail(`resolved; want ${code}`);
}

test("create, append, info, latest, maintain and reopen through the catalog; one commit request per append", { skip }, async () => {
  const c = countingFetch();
  const cat = catalog({ fetch: c.fetch });
  const name = `${ns}.cpu`;
  const tablePath = new RegExp(`/v1/namespaces/${ns}/tables/cpu$`);
  const w = await createTable(cat, name, schema, { store: files, properties: { "write.metadata.previous-versions-max": "5" } });
  const created = c.take();
  assert.ok(created.some((r) => r.method === "POST" && r.path.endsWith(`/v1/namespaces/${ns}/tables`)), JSON.stringify(created));
  const v0 = w.version;

  const t = Date.UTC(2026, 10, 30, 12, 0, 0);
  const r1 = await w.append([
    { ts: t, host: "h1", cpu: 0.5, mem: 1n },
    { ts: t + 1000, host: "h1", cpu: 0.75, mem: 2n },
    { ts: t, host: "h2", cpu: 1.5, mem: 9007199254740993n },
  ]);
  assert.equal(r1.rowsWritten, 3);
  assert.equal(r1.version, v0 + 1);
  assert.equal(r1.retries, 0);
  assert.deepEqual(c.take(), [{ method: "POST", path: `/v1/namespaces/${ns}/tables/cpu` }], "one commit request, no load");

  const info = await w.info();
  assert.equal(info.rows, 3);
  assert.equal(info.files, 1);
  assert.equal(info.snapshots, 1);
  assert.equal(info.snapshotId, r1.snapshotId);
  assert.equal(info.properties["timelake.catalog-table"], name);
  assert.ok(info.location.startsWith(warehouse!), info.location);
  assert.deepEqual(c.take(), [], "info reads storage, not the catalog");
  const dataFiles = await files(info.location).list("data/");
  assert.equal(dataFiles.filter((o) => o.key.endsWith(".parquet")).length, 1);

  const latest = await w.latest();
  assert.deepEqual(
    latest.map((r) => [r["host"], r["cpu"], r["mem"], r["ts"]]),
    [
      ["h1", 0.75, 2n, "2026-11-30T12:00:01.000000Z"],
      ["h2", 1.5, 9007199254740993n, "2026-11-30T12:00:00.000000Z"],
    ],
  );

  const m = await w.maintain();
  assert.equal(m.rowsAfter, m.rowsBefore);
  const afterMaintain = c.take();
  assert.ok(afterMaintain.every((r) => r.path.match(tablePath)), JSON.stringify(afterMaintain));

  // Another writer opens the table (one load) and appends (one commit).
  const c2 = countingFetch();
  const w2 = await openTable(catalog({ fetch: c2.fetch }), name, { store: files });
  assert.equal(w2.version, w.version);
  assert.deepEqual(
    c2.take().map((r) => `${r.method} ${r.path}`),
    ["GET /v1/config", `GET /v1/namespaces/${ns}/tables/cpu`],
  );
  const r2 = await w2.append([{ ts: t + 2000, host: "h3", cpu: 3, mem: 3n }]);
  assert.equal(r2.version, w.version + 1);
  assert.deepEqual(c2.take(), [{ method: "POST", path: `/v1/namespaces/${ns}/tables/cpu` }]);
  const r3 = await w2.append([{ ts: t + 3000, host: "h3", cpu: 4, mem: 4n }]);
  assert.equal(r3.version, r2.version + 1);
  assert.equal(c2.take().length, 1);

  // The first writer is behind now: its commit is refused (409), it loads
  // the table and rebases — three requests, and the append lands once.
  const r4 = await w.append([{ ts: t + 4000, host: "h1", cpu: 5, mem: 5n }]);
  assert.equal(r4.retries, 1);
  assert.equal(r4.version, r3.version + 1);
  assert.deepEqual(
    c.take().map((r) => `${r.method} ${r.path}`),
    [`POST /v1/namespaces/${ns}/tables/cpu`, `GET /v1/namespaces/${ns}/tables/cpu`, `POST /v1/namespaces/${ns}/tables/cpu`],
  );
  assert.equal((await w2.info()).rows, 5, "info is of the version the writer last saw");
  const w3 = await openTable(catalog(), name, { store: files });
  const final = await w3.info();
  assert.equal(final.rows, 6);
  assert.equal(final.version, r4.version);
  assert.equal(final.snapshotId, r4.snapshotId);
  assert.deepEqual((await w3.latest()).map((r) => [r["host"], r["cpu"]]), [["h1", 5], ["h2", 1.5], ["h3", 4]]);
  await w3.close();
  await w.close();
  await w2.close();
});

test("the catalog's errors keep their codes: TABLE_EXISTS, NO_TABLE, BAD_TABLE_NAME, a file:// table without a factory", { skip }, async () => {
  const cat = catalog();
  const name = `${ns}.errs`;
  await createTable(cat, name, schema, { store: files });
  await rejectsWith(createTable(cat, name, schema, { store: files }), "TABLE_EXISTS");
  await rejectsWith(openTable(cat, `${ns}.missing`, { store: files }), "NO_TABLE");
  await rejectsWith(openTable(cat, "nodots", { store: files }), "BAD_TABLE_NAME");
  const e = await rejectsWith(openTable(cat, name, { store: localStore("/tmp") }), "INVALID_ARGUMENT");
  assert.match(e.message, /file:\/\/ location needs a store factory/);
  await rejectsWith(openTable(cat, name), "INVALID_ARGUMENT");
});

test("auth: a wrong token or client secret is CATALOG_AUTH and the message holds no secret; the client-credentials flow writes", { skip: skip || (!token || !client ? "the catalog runs without auth (TIMELAKE_CATALOG_TEST_TOKEN/_CLIENT unset)" : false) }, async () => {
  const name = `${ns}.auth`;
  await createTable(catalog(), name, schema, { store: files });
  const badToken = `wrong-${randomBytes(8).toString("hex")}`;
  await rejectsWith(openTable(catalog({ token: badToken }), name, { store: files }), "CATALOG_AUTH", badToken);
  await rejectsWith(openTable(restCatalog({ uri: uri!, warehouse: warehouse! }), name, { store: files }), "CATALOG_AUTH");
  const [id, secret] = client!.split(":") as [string, string];
  const badSecret = `bad-${randomBytes(8).toString("hex")}`;
  await rejectsWith(openTable(catalog({ credential: `${id}:${badSecret}` }), name, { store: files }), "CATALOG_AUTH", badSecret);

  const c = countingFetch();
  const w = await openTable(catalog({ credential: client!, fetch: c.fetch }), name, { store: files });
  assert.deepEqual(c.take().map((r) => `${r.method} ${r.path}`), ["POST /v1/oauth/tokens", "GET /v1/config", `GET /v1/namespaces/${ns}/tables/auth`]);
  const r = await w.append([{ ts: Date.UTC(2026, 10, 30), host: "h1", cpu: 1, mem: 1n }]);
  assert.equal(r.rowsWritten, 1);
  assert.equal(c.take().length, 1, "the token is reused");
  // A catalog down is CATALOG_UNAVAILABLE, with the secret kept out.
  const down = restCatalog({ uri: "http://127.0.0.1:9", credential: `${id}:${secret}` });
  await rejectsWith(openTable(down, name, { store: files }), "CATALOG_UNAVAILABLE", secret);
  assert.ok(!JSON.stringify(down).includes(secret));
});
