// TableWriter.adopt() and adoptTable() in Node: another engine's table (no
// Timelake key) is read as stored, refuses appends with NOT_ADOPTED, and
// after adopt() takes appends and answers latest().
import assert from "node:assert/strict";
import { test } from "node:test";
import { adoptTable, createTable, memoryStore, openTable, TimelakeError, type TableSchema } from "../src/index.js";
import type { MemoryStore } from "../src/stores/memory.js";

const schema: TableSchema = { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }] };
const DAY = Date.UTC(2026, 10, 20);
const rows = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ ts: new Date(DAY + i * 60_000), host: `${prefix}${i % 2}`, cpu: i / 2 }));

/** A table as another engine leaves it: the next version without Timelake's properties, unsorted by default, no index. */
async function foreignTable(): Promise<MemoryStore> {
  const store = memoryStore();
  const t = await createTable(store, schema);
  await t.append(rows(10, "h"));
  const md = JSON.parse(new TextDecoder().decode((await store.get("metadata/v2.metadata.json"))!)) as Record<string, any>;
  for (const k of ["timelake.time-column", "timelake.series-columns", "timelake.partition"]) delete md["properties"][k];
  md["sort-orders"] = [{ "order-id": 0, fields: [] }];
  md["default-sort-order-id"] = 0;
  delete md["statistics"];
  for (const s of md["snapshots"]) delete s["summary"]["timelake.last-value-index"];
  await store.put("metadata/v3.metadata.json", new TextEncoder().encode(JSON.stringify(md)));
  await store.put("metadata/version-hint.text", new TextEncoder().encode("3"));
  return store;
}

test("another engine's table: read as stored, NOT_ADOPTED for writes, adopted by adopt()", async () => {
  const store = await foreignTable();
  const t = await openTable(store);
  const info = await t.info();
  assert.equal(info.rows, 10);
  await assert.rejects(t.append(rows(2, "x")), (e: unknown) => e instanceof TimelakeError && e.code === "NOT_ADOPTED");
  await assert.rejects(t.latest(), (e: unknown) => e instanceof TimelakeError && e.code === "NOT_ADOPTED");
  let n = 0;
  for await (const b of t.scan({ series: { host: ["h0"] } })) n += b.length;
  assert.equal(n, 5, "a filter on any column, rows as stored");

  const ks = await t.suggestKey();
  assert.equal(ks.time, "ts", ks.why.join("; "));
  await assert.rejects(t.adopt({ time: "cpu" }), (e: unknown) => e instanceof TimelakeError && e.code === "BAD_KEY_COLUMN");
  const r = await t.adopt({ time: "ts", series: ["host"] });
  assert.equal(r.version, 4);
  assert.equal(r.sortOrderAdded, true);
  assert.equal(r.sortOrderDefault, true, "the default was unsorted");
  assert.equal(r.writeRefusal, "");
  assert.equal(t.version, 4);
  assert.equal((await t.latest()).length, 2, "the index is caught up from the files");
  await t.append(rows(4, "new"));
  assert.equal((await t.info()).rows, 14);
});

test("adoptTable() opens and adopts; the same key again is nothing to do", async () => {
  const store = await foreignTable();
  const t = await adoptTable(store, { time: "ts", series: ["host"] });
  assert.equal(t.version, 4);
  const again = await t.adopt({ time: "ts", series: ["host"] });
  assert.equal(again.alreadyAdopted, true);
  assert.equal(again.version, 4);
  await assert.rejects(t.adopt({ time: "ts" }), (e: unknown) => e instanceof TimelakeError && e.code === "BAD_KEY_COLUMN");
});

test("createTable with a partition spec of more than the time writes one file per tuple", async () => {
  const store = memoryStore();
  const t = await createTable(store, { ...schema, partition: "day, bucket(4, host)" });
  await t.append(rows(40, "h").map((r, i) => ({ ...r, host: `h${i % 8}` })));
  const info = await t.info();
  assert.equal(info.partition, "ts_day, host_bucket");
  assert.ok(info.partitions.length > 1, JSON.stringify(info.partitions));
  assert.ok(info.partitions.every((p) => /^ts_day=2026-11-20\/host_bucket=\d$/.test(p.name)), JSON.stringify(info.partitions));
  let n = 0;
  for await (const b of t.scan({})) n += b.length;
  assert.equal(n, 40);
  await assert.rejects(createTable(memoryStore(), { ...schema, partition: "bucket(4, cpu)" }), (e: unknown) => e instanceof TimelakeError);
});
