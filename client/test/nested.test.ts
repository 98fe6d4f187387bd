// Nested columns from JavaScript (Node): a table with tags map<string,
// string> appended to with plain objects and Maps (undefined members left
// out), scanned back as parsed objects (rows and column batches) and
// latest() the same; where filters on a key (= and !=, ANDed, a row
// without the key matching !=); bad nested values and bad where
// expressions as coded errors naming row, column or expression.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, openTable, RowError, type ScanOptions, type TableWriter } from "../src/index.js";
import { addTagsColumn } from "./nestedfixture.js";

const day = Date.UTC(2026, 10, 28);
const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "000Z");

async function tagsTable(): Promise<TableWriter> {
  const store = memoryStore();
  const w = await createTable(store, { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }] });
  await w.close();
  await addTagsColumn(store);
  return openTable(store);
}

async function scanRows(w: TableWriter, o: ScanOptions = {}) {
  const out: Record<string, unknown>[] = [];
  for await (const r of w.scan(o).rows()) out.push(r);
  return out;
}

test("objects and Maps in, parsed objects out; where on a key", async () => {
  const w = await tagsTable();
  assert.deepEqual(
    w.columns.map((c) => `${c.name}:${c.type}`),
    ["ts:timestamptz", "host:string", "cpu:double", "_ingest_ts:timestamptz", "tags:map<string, string>"],
  );
  await w.append([
    { ts: day, host: "a", cpu: 1, tags: { env: "prod", job: "api", gone: undefined } },
    { ts: day + 1000, host: "a", cpu: 2, tags: new Map<string, string | null>([["job", "db"], ["env", "dev"], ["k", null]]) },
    { ts: day + 2000, host: "a", cpu: 3, tags: {} },
    { ts: day, host: "b", cpu: 4, tags: null },
    { ts: day + 1000, host: "b", cpu: 5, tags: { "ключ": "значение 🙂", q: "\"\\\n" , env: "prod"} },
    { ts: day + 2000, host: "b", cpu: 6 },
  ]);
  const all = await scanRows(w);
  assert.deepEqual(
    all.map((r) => [r["host"], r["cpu"], r["tags"]]),
    [
      ["a", 1, { env: "prod", job: "api" }],
      ["a", 2, { job: "db", env: "dev", k: null }],
      ["a", 3, {}],
      ["b", 4, null],
      ["b", 5, { "ключ": "значение 🙂", q: "\"\\\n", env: "prod" }],
      ["b", 6, null],
    ],
  );
  // a Map's order is kept
  assert.deepEqual(Object.keys(all[1]!["tags"] as object), ["job", "env", "k"]);
  // column batches carry the same objects
  for await (const b of w.scan({ columns: ["tags"] })) {
    assert.deepEqual(b.columns["tags"]![0], { env: "prod", job: "api" });
    assert.equal(b.columns["tags"]![3], null);
  }
  const cpu = async (o: ScanOptions) => (await scanRows(w, o)).map((r) => r["cpu"]);
  assert.deepEqual(await cpu({ where: "tags[env]=prod" }), [1, 5]);
  assert.deepEqual(await cpu({ where: ["tags[env]!=prod"] }), [2, 3, 4, 6]);
  assert.deepEqual(await cpu({ where: ["tags[env]!=prod", "tags[job]=db"] }), [2]);
  assert.deepEqual(await cpu({ where: "tags[env]=prod", series: { host: "b" } }), [5]);
  // the filtered column need not be projected
  const proj = await scanRows(w, { where: "tags[job]=api", columns: ["cpu"] });
  assert.deepEqual(proj, [{ ts: iso(day), host: "a", cpu: 1 }]);
  // latest(): the last row of each series, tags parsed
  const latest = await w.latest();
  assert.deepEqual(latest.map((r) => [r["host"], r["tags"]]), [["a", {}], ["b", null]]);
  // the JSON text as a string is taken too (the Go API's form), stored compact
  await w.append([{ ts: day + 3000, host: "c", cpu: 7, tags: ' { "env" : "prod" } ' }]);
  assert.deepEqual((await scanRows(w, { series: { host: "c" } })).map((r) => r["tags"]), [{ env: "prod" }]);
  await w.close();
});

test("bad nested values and where expressions are coded errors", async () => {
  const w = await tagsTable();
  const row = (tags: unknown, host = "a") => ({ ts: day, host, cpu: 1, tags });
  const cases: [unknown[], string, number, string, RegExp][] = [
    [[row({ a: "b" }), row(new Map<unknown, string>([[{ k: 1 }, "x"]]))], "TYPE_MISMATCH", 2, "tags", /a Map key must be a string, number, bigint, boolean or Date, not a Object/],
    [[row({ a: new Set(["x"]) })], "TYPE_MISMATCH", 1, "tags", /a Set inside a nested value/],
    [[row({ a: 1 })], "TYPE_MISMATCH", 1, "tags", /at tags\[a\]: a number 1 given for a string/],
    [[row(["a"])], "TYPE_MISMATCH", 1, "tags", /map<string, string>/],
    [[row({ a: "b" }), row("x", { h: 1 } as unknown as string)], "TYPE_MISMATCH", 2, "host", /a JavaScript object given for a string column/],
    [[row({ a: new Date(NaN) })], "BAD_TIME", 1, "tags", /an invalid Date/],
  ];
  for (const [rows, code, r, col, msg] of cases) {
    await assert.rejects(w.append(rows as object[]), (e: unknown) => {
      assert.ok(e instanceof RowError, String(e));
      assert.deepEqual([e.code, e.row, e.column], [code, r, col], e.message);
      assert.match(e.message, msg);
      return true;
    });
  }
  assert.equal((await scanRows(w)).length, 0, "nothing appended");
  for (const [where, code, msg] of [
    ["tags[env]", "BAD_FILTER", /no = or != after tags\[env\]/],
    ["cpu=1", "BAD_FILTER", /column cpu is double, not a map or struct/],
    ["labels[a]=b", "UNKNOWN_COLUMN", /no such column/],
  ] as const) {
    await assert.rejects(scanRows(w, { where }), (e: unknown) => {
      assert.ok(e instanceof RowError, String(e));
      assert.equal(e.code, code);
      assert.match(e.message, msg);
      assert.ok(e.message.includes(JSON.stringify(where)), e.message);
      return true;
    });
  }
  await assert.rejects(scanRows(w, { where: [1] as unknown as string[] }), (e: unknown) => e instanceof RowError && e.code === "BAD_FILTER");
  await w.close();
});
