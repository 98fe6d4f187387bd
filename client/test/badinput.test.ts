// The bad-input corpus of the JavaScript API: each malformed call
// rejects with a TimelakeError of the exact code and message, and the store
// is unchanged. (table.test.ts checks row and column for more row errors.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, openTable, TimelakeError, type Store, type TableSchema } from "../src/index.js";
import type { MemoryStore } from "../src/stores/memory.js";

const schema: TableSchema = {
  time: "ts",
  series: ["host"],
  columns: [
    { name: "cpu", type: "double" },
    { name: "mem", type: "long" },
  ],
};
const T0 = Date.UTC(2026, 10, 29, 10, 0, 0);
const good = { ts: new Date(T0), host: "a", cpu: 1, mem: 1n };

function snapshot(st: MemoryStore): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of st.objects) out.set(k, Buffer.from(v).toString("base64"));
  return out;
}

async function keysOf(st: Store): Promise<string[]> {
  return (await st.list("")).map((o) => o.key);
}

type Case = [name: string, run: (st: MemoryStore) => Promise<unknown>, code: string, message: string];

const cases: Case[] = [
  ["createTable on a table", (st) => createTable(st, schema), "TABLE_EXISTS", "a table already exists here"],
  ["createTable with a reserved property", (_) => createTable(memoryStore(), schema, { properties: { "timelake.partition": "hour" } }), "BAD_PROPERTY", "bad table property: timelake.partition is set from the schema and cannot be given"],
  ["createTable with a bad property", (_) => createTable(memoryStore(), schema, { properties: { "write.parquet.page-row-limit": "0" } }), "BAD_PROPERTY", "bad table property: property write.parquet.page-row-limit=\"0\": want a whole number from 1 to 16777216"],
  ["createTable with an unknown type", (_) => createTable(memoryStore(), { ...schema, columns: [{ name: "x", type: "decimal" as "long" }] }), "INVALID_ARGUMENT", "schema column \"x\": unknown column type \"decimal\" (want long, int, double, float, boolean, string, timestamptz, timestamp, timestamptz_ns or timestamp_ns)"],
  ["createTable with a double series", (_) => createTable(memoryStore(), { ...schema, series: ["cpu"] }), "INVALID_ARGUMENT", "schema: series column \"cpu\" must be string, long or int, not double"],
  ["openTable on an empty store", (_) => openTable(memoryStore()), "NO_TABLE", "no table here (no metadata/v1.metadata.json)"],
  ["append a fraction to a long", async (st) => (await openTable(st)).append([{ ...good, mem: 2.5 }]), "TYPE_MISMATCH", "row 1, column \"mem\": 2.5 has a fraction; long wants an integer"],
  ["append an unknown column", async (st) => (await openTable(st)).append([good, { ...good, disk: 1 }]), "UNKNOWN_COLUMN", "row 2, column \"disk\": is not in the table schema (columns: ts, host, cpu, mem)"],
  ["append a bad time", async (st) => (await openTable(st)).append([{ ...good, ts: "tomorrow-ish" }]), "BAD_TIME", "row 1, column \"ts\": cannot parse \"tomorrow-ish\" as a time: want RFC 3339 like 2026-11-29T10:00:00Z or a date like 2026-11-29"],
  ["append no rows", async (st) => (await openTable(st)).append([]), "EMPTY_INPUT", "no rows"],
  ["append a row that is a string", async (st) => (await openTable(st)).append(["row" as unknown as object]), "TYPE_MISMATCH", "row 1: a string given, want an object of column values"],
  // Limits the WebAssembly core enforces as the CLI does: a value too large
  // for any page, and an input spanning more partitions than one append may.
  ["append a 17 MiB string", async (st) => (await openTable(st)).append([{ ...good, host: "x".repeat(17 << 20) }]), "VALUE_TOO_LARGE", "row 1, column \"host\": a value of 17825792 bytes, over the 16777216 a table takes (Parquet pages must stay readable)"],
  ["append 1,001 days", async (st) => (await openTable(st)).append(Array.from({ length: 1001 }, (_, i) => ({ ...good, ts: new Date(T0 + i * 86_400_000) }))), "TOO_MANY_PARTITIONS", "too many partitions in one append: the rows span 1001 ts_day partitions, more than timelake.append.max-partitions=1000 allows (from 2026-11-29T10:00:00Z to 2029-08-25T10:00:00Z): check the time column and its unit (--time-unit, timeUnit), or raise the property"],
  ["append a bad time unit", async (st) => (await openTable(st)).append([good], { timeUnit: "days" as "s" }), "INVALID_ARGUMENT", "timeUnit: unknown time unit \"days\" (want s, ms, us or ns)"],
];

test("bad input corpus: exact code and message, store unchanged", async (t) => {
  const st = memoryStore();
  const w = await createTable(st, schema);
  await w.append([good]);
  const before = await keysOf(st);
  const beforeBytes = snapshot(st);
  const print = process.env.BADINPUT_PRINT === "1";
  for (const [name, run, code, message] of cases) {
    await t.test(name, async () => {
      const e = await run(st).then(
        () => assert.fail("resolved"),
        (e: unknown) => e,
      );
      assert.ok(e instanceof TimelakeError, `got ${String(e)}, want a TimelakeError`);
      if (print) console.log(JSON.stringify([name, e.code, e.message]));
      else {
        assert.equal(e.code, code);
        assert.equal(e.message, message);
      }
      assert.deepEqual(await keysOf(st), before, "the store's keys changed");
      assert.deepEqual(snapshot(st), beforeBytes, "the store's bytes changed");
    });
  }
});
