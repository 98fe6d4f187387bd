// Nested columns of every shape from JavaScript (Node): a table created
// with list<long>, a struct holding a list and a struct holding a
// map<string, long>, a map<string, long> and a map of lists of structs, by
// type text; JS arrays, objects, Maps and bigints (the int64 ends, 2^53+1)
// appended; scanned back as parsed values exactly (rows and column
// batches, bigints for longs past 2^53), before and after maintain;
// scan.arrow() read by apache-arrow as the nested types with the same
// values; a wrong shape a TYPE_MISMATCH naming row, column and path, the
// table unchanged.
import assert from "node:assert/strict";
import { test } from "node:test";
import { tableFromIPC } from "apache-arrow";
import { createTable, memoryStore, openTable, RowError, type TableWriter } from "../src/index.js";
import { arrowRows, shapeNames, shapesArrowTypes, shapesIn, shapesOut, shapesSchema } from "./nestedshapes.js";

const T0 = Date.UTC(2026, 10, 29);

function rowsOf(host: string, values: unknown[][]) {
  return values.map((v, i) => {
    const r: Record<string, unknown> = { ts: new Date(T0 + i), host: `${host}${i + 1}` };
    shapeNames.forEach((n, j) => {
      if (v[j] !== null || i !== 1) r[n] = v[j];
    });
    return r;
  });
}

function want(...hosts: string[]): unknown[][] {
  return hosts.flatMap((h) => shapesOut.map((v, i) => [`${h}${i + 1}`, ...v]));
}

async function scanRows(t: TableWriter): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const r of t.scan().rows()) out.push([r["host"], ...shapeNames.map((n) => r[n])]);
  return out;
}

test("JS values of every nested shape in, the same values out (rows, batches, Arrow), across maintain", async () => {
  const store = memoryStore();
  const t = await createTable(store, shapesSchema);
  assert.deepEqual(
    t.columns.filter((c) => (shapeNames as readonly string[]).includes(c.name)).map((c) => `${c.name}:${c.type}`),
    [
      "lst:list<long>",
      "st:struct<a: long, b: list<string>, c: struct<d: double, e: map<string, long>>>",
      "mp:map<string, long>",
      "deep:map<string, list<struct<a: long>>>",
    ],
  );
  await t.append(rowsOf("a", shapesIn()));
  assert.deepEqual(await scanRows(t), want("a"));
  await t.append(rowsOf("b", shapesIn()));
  await t.maintain();
  const reopened = await openTable(store);
  assert.deepEqual(await scanRows(reopened), want("a", "b"), "after maintain, reopened");

  // column batches carry the same values
  const batched: unknown[][] = [];
  for await (const b of reopened.scan({ columns: [...shapeNames] })) {
    for (let i = 0; i < b.length; i++) batched.push([b.columns["host"]![i], ...shapeNames.map((n) => b.columns[n]![i])]);
  }
  assert.deepEqual(batched, want("a", "b"));

  // scan.arrow(): apache-arrow reads the nested types and the same values
  const a = tableFromIPC(await reopened.scan({ columns: [...shapeNames] }).arrow());
  for (const n of shapeNames) assert.equal(String(a.schema.fields.find((f) => f.name === n)!.type), shapesArrowTypes[n], n);
  assert.deepEqual(arrowRows(a, shapeNames), want("a", "b"));

  // and those Arrow bytes append into a fresh table as the same rows
  const again = await createTable(memoryStore(), shapesSchema);
  await again.append(await reopened.scan().arrow());
  assert.deepEqual(await scanRows(again), want("a", "b"));
  await t.close();
  await reopened.close();
  await again.close();
});

test("a nested value of the wrong shape is a TYPE_MISMATCH naming row, column and path", async () => {
  const t = await createTable(memoryStore(), shapesSchema);
  const ok = { ts: new Date(T0), host: "a" };
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ st: { c: { e: new Map([["k", "x"]]) } } }, "st", /at st\.c\.e\[k\]/],
    [{ st: [1] }, "st", /struct/],
    [{ lst: [1, "2"] }, "lst", /at lst\[1\]/],
    [{ deep: { q: [{ a: 1 }, { a: 1.5 }] } }, "deep", /at deep\[q\]\[1\]\.a/],
    [{ mp: new Map([["k", 2n ** 64n]]) }, "mp", /at mp\[k\]/],
    [{ st: { nope: 1 } }, "st", /nope/],
  ];
  for (const [bad, col, msg] of cases) {
    await assert.rejects(t.append([ok, { ...ok, ts: new Date(T0 + 1), ...bad }]), (e: unknown) => {
      assert.ok(e instanceof RowError, String(e));
      assert.deepEqual([e.code, e.row, e.column], ["TYPE_MISMATCH", 2, col], e.message);
      assert.match(e.message, msg);
      return true;
    });
  }
  assert.deepEqual(await scanRows(t), [], "nothing appended");
  await t.close();
});

test("a struct field added by alter: latest() of the same writer gives the old rows with it null, as a reopened table does", async () => {
  const store = memoryStore();
  const t = await createTable(store, { time: "ts", series: ["host"], columns: [{ name: "st", type: "struct<a: long, b: list<string>>" }] });
  await t.append([
    { ts: new Date(T0), host: "a", st: { a: 1n, b: ["x"] } },
    { ts: new Date(T0), host: "b", st: null },
  ]);
  await t.alter([{ add: "st.c", type: "map<string, long>" }]);
  const want = [
    ["a", { a: 1, b: ["x"], c: null }],
    ["b", null],
  ];
  assert.deepEqual((await t.latest()).map((r) => [r["host"], r["st"]]), want);
  assert.deepEqual((await (await openTable(store)).latest()).map((r) => [r["host"], r["st"]]), want);
  await t.append([{ ts: new Date(T0 + 1), host: "b", st: { c: new Map([["k", 2n ** 60n]]) } }]);
  assert.deepEqual((await t.latest()).map((r) => [r["host"], r["st"]]), [
    ["a", { a: 1, b: ["x"], c: null }],
    ["b", { a: null, b: null, c: { k: 2n ** 60n } }],
  ]);
  await t.close();
});
