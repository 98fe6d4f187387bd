// Map keys that are not strings (Node): a JS Map keyed by numbers, bigints,
// booleans or Dates fills a map<long, …>, map<int, …>, map<boolean, …> or
// map<timestamptz, …> column (each key sent as its text, read by the core as
// the key type) and scans back exactly, as the keys' canonical texts; a key
// the key type cannot take is TYPE_MISMATCH naming row, column and key; an
// object key TYPE_MISMATCH naming row and column; the table unchanged.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, RowError, type TableSchema, type TableWriter } from "../src/index.js";
import { parseRows, rowsJSON } from "../src/rowjson.js";

const T0 = Date.UTC(2026, 10, 29);

const schema: TableSchema = {
  time: "ts",
  series: ["host"],
  columns: [
    { name: "byLong", type: "map<long, string>" },
    { name: "byInt", type: "map<int, double>" },
    { name: "byBool", type: "map<boolean, string>" },
    { name: "byTime", type: "map<timestamptz, long>" },
  ],
};
const names = ["byLong", "byInt", "byBool", "byTime"] as const;

async function scanRows(t: TableWriter): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const r of t.scan().rows()) out.push([r["host"], ...names.map((n) => r[n])]);
  return out;
}

test("a Map keyed by numbers, bigints, booleans and Dates fills maps of those key types", async () => {
  const t = await createTable(memoryStore(), schema);
  const big = 2n ** 63n - 1n;
  await t.append([
    {
      ts: new Date(T0),
      host: "a",
      byLong: new Map<unknown, string>([[1, "one"], [big, "max"], [-(2n ** 63n), "min"], ["7", "string key"]]),
      byInt: new Map<number, number>([[-5, 0.5], [2147483647, 2]]),
      byBool: new Map<boolean, string>([[true, "yes"], [false, "no"]]),
      byTime: new Map<Date, bigint>([[new Date(Date.UTC(2026, 10, 29, 1, 2, 3, 456)), 9007199254740993n]]),
    },
  ]);
  assert.deepEqual(await scanRows(t), [
    [
      "a",
      { "1": "one", "9223372036854775807": "max", "-9223372036854775808": "min", "7": "string key" },
      { "-5": 0.5, "2147483647": 2 },
      { true: "yes", false: "no" },
      { "2026-11-29T01:02:03.456000Z": 9007199254740993n },
    ],
  ]);
  await t.close();
});

test("a Map key the key type cannot take, or an object key, is refused naming row and column; nothing appended", async () => {
  const t = await createTable(memoryStore(), schema);
  const ok = { ts: new Date(T0), host: "a" };
  const cases: [Record<string, unknown>, string, string, RegExp][] = [
    [{ byLong: new Map([[1.5, "x"]]) }, "TYPE_MISMATCH", "byLong", /at byLong\[1\.5\]/],
    [{ byInt: new Map([[2 ** 31, 1]]) }, "TYPE_MISMATCH", "byInt", /at byInt\[2147483648\]/],
    [{ byBool: new Map([[1, "x"]]) }, "TYPE_MISMATCH", "byBool", /at byBool\[1\]: key: key "1" is not true or false/],
    [{ byLong: new Map<unknown, string>([[1, "x"], ["1", "y"]]) }, "TYPE_MISMATCH", "byLong", /key "1" appears twice/],
    [{ byLong: new Map([[{}, "x"]]) }, "TYPE_MISMATCH", "byLong", /a Map key must be a string, number, bigint, boolean or Date, not a Object/],
    [{ byLong: new Map([[null, "x"]]) }, "TYPE_MISMATCH", "byLong", /not null/],
    [{ byTime: new Map([[new Date(NaN), 1]]) }, "BAD_TIME", "byTime", /an invalid Date as a Map key/],
  ];
  for (const [bad, code, col, msg] of cases) {
    await assert.rejects(t.append([ok, { ...ok, ts: new Date(T0 + 1), ...bad }]), (e: unknown) => {
      assert.ok(e instanceof RowError, String(e));
      assert.deepEqual([e.code, e.row, e.column], [code, 2, col], e.message);
      assert.match(e.message, msg);
      return true;
    });
  }
  assert.deepEqual(await scanRows(t), [], "nothing appended");
  await t.close();
});

test("the batcher's row JSON sends a Map's keys as append does", () => {
  const d = new Date(Date.UTC(2026, 10, 29, 1, 2, 3, 456));
  assert.deepEqual(parseRows(rowsJSON([{ m: new Map<unknown, number>([[1, 1], [2n, 2], [true, 3], [d, 4]]) }])), [{ m: { "1": 1, "2": 2, true: 3, [d.toISOString()]: 4 } }]);
  assert.throws(() => rowsJSON([{ m: new Map<unknown, number>([[1, 1], ["1", 2]]) }]), (e: unknown) => e instanceof RowError && e.code === "TYPE_MISMATCH" && /the Map key "1" appears twice/.test(e.message));
  assert.throws(() => rowsJSON([{ m: new Map([[[1], 1]]) }]), (e: unknown) => e instanceof RowError && e.code === "TYPE_MISMATCH" && /not a Array/.test(e.message));
});
