// Rollups of a table opened through an Iceberg REST catalog, from Node:
// Iceberg's own REST server (scripts/restcatalog.sh, started by
// scripts/test-client.sh with a file warehouse and a bearer token), the
// files in the warehouse directory through localStore. addRollup creates
// the rollup as table "ns.<table>__rollup_<name>" of the same catalog and
// rollup(name) opens it through the catalog; its rows equal a brute-force
// aggregate of the rows appended (the later append of a key wins).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { createTable, openTable, restCatalog, TimelakeError } from "../src/node.js";
import { localStore } from "../src/stores/local.js";
import { schema, rowsOf, expected, rollupRows, type Row } from "./rollupfixtures.js";

const uri = process.env.TIMELAKE_CATALOG_URI;
const warehouse = process.env.TIMELAKE_CATALOG_WAREHOUSE;
const token = process.env.TIMELAKE_CATALOG_TEST_TOKEN;
const skip = uri && warehouse ? false : "no REST catalog: TIMELAKE_CATALOG_URI is unset (scripts/test-client.sh starts scripts/restcatalog.sh)";
const ns = `jsru_${randomBytes(4).toString("hex")}`;

const files = (loc: string) => localStore(fileURLToPath(loc));

test("addRollup and rollup(name) on a catalog table: the rollup is a table of the same catalog", { skip }, async () => {
  const cat = restCatalog({ uri: uri!, warehouse: warehouse!, ...(token ? { token } : {}) });
  const name = `${ns}.cpu`;
  const t = await createTable(cat, name, schema, { store: files });
  const ru = await t.addRollup("hourly", { every: "1h", aggregates: { cpu: ["max", "avg"], mem: ["max"] } });
  const defs = await t.rollups();
  assert.equal(defs.length, 1);
  assert.equal(defs[0]!.table, `${ns}.cpu__rollup_hourly`);
  assert.ok(defs[0]!.location.startsWith(warehouse!) && defs[0]!.location.endsWith("cpu__rollup_hourly"), defs[0]!.location);

  const batches: Row[][] = [];
  for (let k = 1; k <= 3; k++) {
    const b = rowsOf(k, 400);
    batches.push(b);
    await t.append(b.map((r) => ({ ...r, ts: new Date(r.ts) })));
    const res = await t.refreshRollup("hourly", ru);
    assert.equal(res.mode, k === 1 ? "full" : "incremental");
    assert.ok(res.committed);
    assert.deepEqual(await rollupRows(ru), expected(batches), `after append ${k}`);
  }
  // rollup(name) opens it through the catalog; so does openTable by its name.
  const opened = await t.rollup("hourly");
  assert.deepEqual(await rollupRows(opened), expected(batches));
  const byName = await openTable(cat, `${ns}.cpu__rollup_hourly`, { store: files });
  assert.equal(byName.version, opened.version);
  assert.equal((await byName.info()).snapshots, 3);
  await assert.rejects(t.rollup("nope"), (e: unknown) => e instanceof TimelakeError && e.code === "NO_ROLLUP");
  await assert.rejects(
    t.addRollup("hourly", { every: "1d", aggregates: { cpu: ["min"] } }),
    (e: unknown) => e instanceof TimelakeError && e.code === "ROLLUP_EXISTS",
  );

  // Reopened through the catalog, as another process would: maintain({ rollups }) refreshes it.
  const t2 = await openTable(cat, name, { store: files });
  const ru2 = await t2.rollup("hourly");
  batches.push(rowsOf(9, 200));
  await t2.append(batches[3]!.map((r) => ({ ...r, ts: new Date(r.ts) })));
  const m = await t2.maintain({ rollups: { hourly: ru2 } });
  const refresh = m.rollups?.refreshes["hourly"];
  assert.ok(refresh && "mode" in refresh && refresh.mode === "incremental", JSON.stringify(m.rollups, (_k, v) => (typeof v === "bigint" ? String(v) : v)));
  assert.equal(m.rollups?.retentionHeld, false);
  assert.deepEqual(await rollupRows(ru2), expected(batches));
});

test("inline rollup of a catalog table: append refreshes it through the catalog, in the same call", { skip }, async () => {
  const cat = restCatalog({ uri: uri!, warehouse: warehouse!, ...(token ? { token } : {}) });
  const name = `${ns}.inl`;
  const t = await createTable(cat, name, schema, { store: files });
  const ru = await t.addRollup("hourly", { every: "1h", aggregates: { cpu: ["max", "avg"], mem: ["max"] }, inline: true });
  const batches: Row[][] = [];
  for (let k = 1; k <= 2; k++) {
    batches.push(rowsOf(k, 300));
    const r = await t.append(batches[k - 1]!.map((x) => ({ ...x, ts: new Date(x.ts) })));
    assert.deepEqual(r.warnings, []);
    assert.equal(r.rollups?.[0]?.refresh?.sourceSnapshot, r.snapshotId);
    assert.deepEqual(await rollupRows(ru), expected(batches), `after append ${k}`);
  }
  // Another writer, opened through the catalog, holds no rollup table: the
  // append opens it through the catalog with the table's store option.
  const t2 = await openTable(cat, name, { store: files });
  batches.push(rowsOf(7, 100));
  const r = await t2.append(batches[2]!.map((x) => ({ ...x, ts: new Date(x.ts) })));
  assert.deepEqual(r.warnings, []);
  assert.equal(r.rollups?.[0]?.refresh?.sourceSnapshot, r.snapshotId);
  assert.deepEqual(await rollupRows(await t2.rollup("hourly")), expected(batches));
});
