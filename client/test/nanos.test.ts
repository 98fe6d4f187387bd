// Nanosecond timestamps (Iceberg format 3's timestamptz_ns, timestamp_ns)
// from JavaScript: a format 3 table takes ISO strings with 9 digits,
// bigints in "ns" and Dates, and scan() and latest() give every
// nanosecond back as ISO 8601 strings with 9 fraction digits; a format 2
// create with an ns column is refused with BAD_SCHEMA.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, TimelakeError, type TableSchema } from "../src/index.js";

const schema: TableSchema = {
  time: "ts",
  series: ["host"],
  columns: [
    { name: "ts", type: "timestamptz_ns" },
    { name: "seen", type: "timestamp_ns" },
  ],
};

test("ns columns keep every nanosecond through append, scan and latest", async () => {
  const t = await createTable(memoryStore(), schema, { formatVersion: 3 });
  await t.append([
    { ts: "1969-12-31T23:59:59.999999999Z", host: "a", seen: "2026-11-29T10:00:00.123456789" },
    { ts: "1970-01-01T00:00:00.000000001Z", host: "a", seen: null },
    { ts: new Date(Date.UTC(2026, 10, 29, 10)), host: "b", seen: "2262-04-11T23:47:16.854775807" },
  ]);
  await t.append([{ ts: 1795946400000000001n, host: "c", seen: -1n }], { timeUnit: "ns" });
  const got: Record<string, unknown>[] = [];
  for await (const r of t.scan().rows()) got.push(r);
  assert.deepEqual(
    got.map((r) => [r.ts, r.host, r.seen]),
    [
      ["1969-12-31T23:59:59.999999999Z", "a", "2026-11-29T10:00:00.123456789Z"],
      ["1970-01-01T00:00:00.000000001Z", "a", null],
      ["2026-11-29T10:00:00.000000000Z", "b", "2262-04-11T23:47:16.854775807Z"],
      ["2026-11-29T10:00:00.000000001Z", "c", "1969-12-31T23:59:59.999999999Z"],
    ],
  );
  const ranged: unknown[] = [];
  for await (const r of t.scan({ from: "1970-01-01T00:00:00.000000001Z", to: "2026-11-29T10:00:00.000000001Z" }).rows()) ranged.push(r.ts);
  assert.deepEqual(ranged, ["1970-01-01T00:00:00.000000001Z", "2026-11-29T10:00:00.000000000Z"]);
  const latest = await t.latest();
  assert.deepEqual(
    latest.map((r) => [r.host, r.ts]),
    [
      ["a", "1970-01-01T00:00:00.000000001Z"],
      ["b", "2026-11-29T10:00:00.000000000Z"],
      ["c", "2026-11-29T10:00:00.000000001Z"],
    ],
  );
});

test("delete by a range in nanoseconds removes exactly its rows", async () => {
  const t = await createTable(memoryStore(), schema, { formatVersion: 3 });
  await t.append([-1n, 0n, 1n, 2n].map((ts) => ({ ts, host: "a", seen: null })), { timeUnit: "ns" });
  await t.delete({ from: "1970-01-01T00:00:00.000000000Z", to: "1970-01-01T00:00:00.000000002Z" });
  const left: unknown[] = [];
  for await (const r of t.scan().rows()) left.push(r.ts);
  assert.deepEqual(left, ["1969-12-31T23:59:59.999999999Z", "1970-01-01T00:00:00.000000002Z"]);
});

test("a format 2 table refuses ns columns (BAD_SCHEMA)", async () => {
  await assert.rejects(createTable(memoryStore(), schema), (e: unknown) => e instanceof TimelakeError && e.code === "BAD_SCHEMA" && /format 3|format-version 3/.test(e.message));
});
