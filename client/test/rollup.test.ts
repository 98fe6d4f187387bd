// Rollups from JavaScript: addRollup, rollups, rollup(name) and
// refreshRollup through the WebAssembly core, against a brute-force
// aggregate of the rows appended (duplicates resolved: the later append wins).
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, TimelakeError } from "../src/index.js";
import { schema, DAY, rowsOf, expected, rollupRows, type Row } from "./rollupfixtures.js";

test("addRollup, refreshRollup and rollup(name): exact under duplicates and late rows", async () => {
  const t = await createTable(memoryStore(), schema);
  const rstore = memoryStore();
  const ru = await t.addRollup("hourly", { every: "1h", aggregates: { cpu: ["max", "avg"], mem: ["max"] } }, rstore);
  assert.deepEqual(
    (await t.rollups()).map((d) => [d.name, d.every, d.aggregates]),
    [["hourly", "1h", "cpu:count,sum,max;mem:max"]],
  );
  const batches: Row[][] = [];
  for (let k = 1; k <= 4; k++) {
    const b = rowsOf(k, 500);
    batches.push(b);
    await t.append(b.map((r) => ({ ...r, ts: new Date(r.ts) })));
    const res = await t.refreshRollup("hourly", ru);
    assert.equal(res.mode, k === 1 ? "full" : "incremental");
    assert.equal(typeof res.sourceSnapshot, "bigint");
    assert.ok(res.committed && res.rows > 0);
    assert.deepEqual(await rollupRows(ru), expected(batches), `after append ${k}`);
  }
  const again = await t.refreshRollup("hourly", ru);
  assert.equal(again.mode, "up-to-date");
  // rollup(name) opens the same table from its store.
  const opened = await t.rollup("hourly", rstore);
  assert.deepEqual(await rollupRows(opened), expected(batches));
  await assert.rejects(t.rollup("nope", rstore), (e: unknown) => e instanceof TimelakeError && e.code === "NO_ROLLUP");
});

test("addRollup refuses bad definitions by code, naming the property", async () => {
  const t = await createTable(memoryStore(), schema);
  await assert.rejects(
    t.addRollup("h", { every: "2h" as "1h", aggregates: { cpu: ["max"] } }, memoryStore()),
    (e: unknown) => e instanceof TimelakeError && e.code === "BAD_ROLLUP" && /timelake\.rollup\.h\.every/.test(e.message),
  );
  await assert.rejects(
    t.addRollup("h", { every: "1h", aggregates: { host: ["max"] } }, memoryStore()),
    (e: unknown) => e instanceof TimelakeError && e.code === "BAD_ROLLUP",
  );
  await t.addRollup("h", { every: "1h", aggregates: { cpu: ["max"] } }, memoryStore());
  await assert.rejects(
    t.addRollup("h", { every: "1d", aggregates: { cpu: ["min"] } }, memoryStore()),
    (e: unknown) => e instanceof TimelakeError && e.code === "ROLLUP_EXISTS",
  );
});

test("maintain({ rollups }) refreshes them first, then maintains the table and theirs", async () => {
  const t = await createTable(memoryStore(), schema);
  const ru = await t.addRollup("hourly", { every: "1h", aggregates: { cpu: ["max", "avg"], mem: ["max"] } }, memoryStore());
  const batches: Row[][] = [];
  for (let k = 1; k <= 3; k++) {
    batches.push(rowsOf(k, 300));
    await t.append(batches[k - 1]!.map((r) => ({ ...r, ts: new Date(r.ts) })));
  }
  const r = await t.maintain({ rollups: { hourly: ru } });
  const refresh = r.rollups?.refreshes["hourly"];
  assert.ok(refresh && "mode" in refresh && refresh.mode === "full", JSON.stringify(r.rollups, (_k, v) => (typeof v === "bigint" ? String(v) : v)));
  assert.equal(r.rollups?.retentionHeld, false);
  assert.equal(typeof r.rollups?.tables["hourly"]?.version, "number");
  assert.deepEqual(await rollupRows(ru), expected(batches));
  // A rollup whose table is gone: the refresh error is reported, retention held, the run goes on.
  const broken = await t.addRollup("broken", { every: "1d", aggregates: { cpu: ["max"] } }, memoryStore());
  await broken.close();
  const r2 = await t.maintain({ rollups: { broken } });
  assert.ok(r2.rollups && "error" in r2.rollups.refreshes["broken"]!);
  assert.equal(r2.rollups.retentionHeld, true);
  assert.ok(r2.warnings.some((w) => /retention skipped/.test(w)), r2.warnings.join("\n"));
});

test("a rollup follows table.alter: renamed time-series and value columns refresh, its own names stay; a dropped one is ROLLUP_COLUMN_DROPPED", async () => {
  const t = await createTable(memoryStore(), schema);
  const ru = await t.addRollup("hourly", { every: "1h", aggregates: { cpu: ["max", "avg"], mem: ["max"] } }, memoryStore());
  const batches: Row[][] = [rowsOf(1, 200)];
  await t.append(batches[0]!.map((r) => ({ ...r, ts: new Date(r.ts) })));
  await t.refreshRollup("hourly", ru);
  await t.alter([{ rename: "cpu", to: "cpu_pct" }, { rename: "host", to: "hostname" }]);
  // Late rows and duplicates under the new names.
  batches.push(rowsOf(2, 200));
  await t.append(batches[1]!.map((r) => ({ ts: new Date(r.ts), hostname: r.host, cpu_pct: r.cpu, mem: r.mem })));
  const res = await t.refreshRollup("hourly", ru);
  assert.equal(res.mode, "incremental");
  assert.deepEqual(await rollupRows(ru), expected(batches), "columns host, cpu_max, cpu_sum as created");
  await t.alter([{ drop: "mem" }]);
  await t.append([{ ts: new Date(DAY), hostname: "h0", cpu_pct: 1 }]);
  await assert.rejects(
    t.refreshRollup("hourly", ru),
    (e: unknown) => e instanceof TimelakeError && e.code === "ROLLUP_COLUMN_DROPPED" && /hourly: column mem/.test(e.message),
  );
});
