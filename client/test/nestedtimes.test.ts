// Epoch numbers at a nested column's timestamp leaves (Node): as in a flat
// timestamptz column, a number or bigint there is a time in
// AppendOptions.timeUnit (default ms) — in a list, a struct field, a map's
// value and a map's key, for microsecond and nanosecond leaves — and scans
// back as the same instant the flat column holds; a Date or ISO text still
// works; a time out of range is TIME_OUT_OF_RANGE naming row and column,
// nothing appended.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, RowError, type TableSchema, type TableWriter } from "../src/index.js";
import { epochText, timeTree } from "../src/nestedtime.js";

const T0 = Date.UTC(2026, 10, 29);

const schema: TableSchema = {
  time: "ts",
  series: ["host"],
  columns: [
    { name: "at", type: "timestamptz" },
    { name: "times", type: "list<timestamptz>" },
    { name: "ev", type: "struct<name: string, when: timestamptz, n: long>" },
    { name: "byTime", type: "map<timestamptz, timestamptz>" },
  ],
};
const names = ["at", "times", "ev", "byTime"] as const;

async function scanRows(t: TableWriter): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const r of t.scan().rows()) out.push([r["host"], ...names.map((n) => r[n])]);
  return out;
}

test("timeTree finds the timestamp leaves of a nested type text", () => {
  assert.equal(timeTree("map<string, string>"), undefined);
  assert.equal(timeTree("struct<a: decimal(10, 2), b: list<long>>"), undefined);
  assert.deepEqual(timeTree("list<timestamptz_ns>"), { list: "ns" });
  assert.deepEqual(timeTree("map<timestamp, struct<a: decimal(10, 2), t: timestamptz>>"), { key: "us", value: { fields: new Map([["t", "us"]]) } });
  assert.equal(timeTree("struct<a:: timestamptz"), undefined, "not parsed: no conversion");
  // a nanosecond leaf keeps every nanosecond of a bigint; a number is rounded half away from zero
  assert.equal(epochText(1795914123456789999n, "ns", "ns", 0, "c"), "2026-11-29T01:02:03.456789999Z");
  assert.equal(epochText(-1.5, "ns", "ns", 0, "c"), "1969-12-31T23:59:59.999999998Z");
  assert.equal(epochText(1795914123456n, "ms", "ns", 0, "c"), "2026-11-29T01:02:03.456000000Z");
  assert.throws(() => epochText(2n ** 63n, "ns", "ns", 3, "c"), (e: unknown) => e instanceof RowError && e.code === "TIME_OUT_OF_RANGE" && e.row === 4 && e.column === "c");
});

test("a number or bigint at a nested timestamp leaf is a time in timeUnit, as in a flat column", async () => {
  const t = await createTable(memoryStore(), schema);
  const ms = Date.UTC(2026, 10, 29, 1, 2, 3, 456);
  const iso = "2026-11-29T01:02:03.456000Z";
  // default unit ms: numbers and bigints; a Date and ISO text as before
  await t.append([
    { ts: new Date(T0), host: "a", at: ms, times: [ms, BigInt(ms), new Date(ms), "2026-11-29T01:02:03.456Z", null], ev: { name: "x", when: ms, n: 5 }, byTime: new Map<unknown, number>([[ms, ms + 1]]) },
  ]);
  // unit s with a fraction (rounded to the microsecond, half away from zero), us as a bigint, ns floored to the microsecond
  await t.append([{ ts: new Date(T0 + 1), host: "b", at: 1795914123.4567895, times: [1795914123.4567895, -1.5], ev: { when: 1795914123n }, byTime: { "2026-11-29T01:02:03Z": 0 } }], { timeUnit: "s" });
  await t.append([{ ts: new Date(T0 + 2), host: "c", at: 1795914123456789n, times: [1795914123456789n], byTime: new Map([[1795914123456789n, 1n]]) }], { timeUnit: "us" });
  await t.append([{ ts: new Date(T0 + 3), host: "d", at: 1795914123456789999n, times: [1795914123456789999n, -1n] }], { timeUnit: "ns" });
  assert.deepEqual(await scanRows(t), [
    ["a", iso, [iso, iso, iso, iso, null], { name: "x", when: iso, n: 5 }, { [iso]: "2026-11-29T01:02:03.457000Z" }],
    ["b", "2026-11-29T01:02:03.456790Z", ["2026-11-29T01:02:03.456790Z", "1969-12-31T23:59:58.500000Z"], { name: null, when: "2026-11-29T01:02:03.000000Z", n: null }, { "2026-11-29T01:02:03.000000Z": "1970-01-01T00:00:00.000000Z" }],
    ["c", "2026-11-29T01:02:03.456789Z", ["2026-11-29T01:02:03.456789Z"], null, { "2026-11-29T01:02:03.456789Z": "1970-01-01T00:00:00.000001Z" }],
    ["d", "2026-11-29T01:02:03.456789Z", ["2026-11-29T01:02:03.456789Z", "1969-12-31T23:59:59.999999Z"], null, null],
  ]);
  await t.close();
});

test("a nested time out of range is TIME_OUT_OF_RANGE naming row and column; nothing appended", async () => {
  const t = await createTable(memoryStore(), schema);
  const ok = { ts: new Date(T0), host: "a" };
  for (const bad of [{ times: [1e20] }, { ev: { when: NaN } }, { byTime: new Map([[-1e15, 1]]) }]) {
    await assert.rejects(t.append([ok, { ...ok, ts: new Date(T0 + 1), ...bad }]), (e: unknown) => {
      assert.ok(e instanceof RowError, String(e));
      assert.deepEqual([e.code, e.row, e.column], ["TIME_OUT_OF_RANGE", 2, Object.keys(bad)[0]], e.message);
      return true;
    });
  }
  assert.deepEqual(await scanRows(t), [], "nothing appended");
  await t.close();
});
