// Nested columns created, altered and appended to through the WebAssembly
// core: createTable takes a nested type's text (as `timelake create
// --column` does), alter adds a nested column and a struct field, and
// rows whose nested values are given as JSON text scan back as the same
// JSON; a value of the wrong type is a TYPE_MISMATCH naming the path.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, openTable, RowError, type TableSchema } from "../src/index.js";

const schema: TableSchema = {
  time: "ts",
  series: ["host"],
  columns: [
    { name: "tags", type: "map<string, long>" },
    { name: "attrs", type: "struct<a: long, b: list<string>>" },
  ],
};

const DAY = Date.UTC(2026, 10, 20);

test("createTable and alter take nested type text; appends of JSON text scan back exactly", async () => {
  const store = memoryStore();
  const t = await createTable(store, schema);
  const cols = t.columns.map((c) => `${c.name}:${c.type}`).join(" ");
  assert.equal(cols, "ts:timestamptz host:string tags:map<string, long> attrs:struct<a: long, b: list<string>> _ingest_ts:timestamptz");
  await t.append([
    { ts: new Date(DAY), host: "a", tags: `{"x": 1, "y": null}`, attrs: `{"b": ["p", null], "a": 5}` },
    { ts: new Date(DAY + 60_000), host: "a", tags: "{}", attrs: null },
  ]);
  const r = await t.alter([{ add: "attrs.c", type: "long" }, { add: "nums", type: "list<double>" }]);
  assert.equal(r.changed, true);
  const types = r.columns.map((c) => `${c.name}:${c.type}`).join(" ");
  assert.equal(types, "ts:timestamptz host:string tags:map<string, long> attrs:struct<a: long, b: list<string>, c: long> nums:list<double> _ingest_ts:timestamptz");
  await t.append([{ ts: new Date(DAY + 120_000), host: "b", attrs: `{"c": 7}`, nums: "[1.5, null]" }]);
  await assert.rejects(
    t.append([{ ts: new Date(DAY), host: "c", tags: `{"x": "1"}` }]),
    (e: unknown) => e instanceof RowError && e.code === "TYPE_MISMATCH" && /at tags\[x\]/.test(e.message),
  );
  const seen: string[] = [];
  for await (const row of (await openTable(store)).scan().rows()) {
    const o = row as Record<string, unknown>;
    const text = (v: unknown) => (v === null || v === undefined ? "-" : typeof v === "string" ? v : JSON.stringify(v));
    seen.push(`${o.host} ${text(o.tags)} ${text(o.attrs)} ${text(o.nums)}`);
  }
  // a nested value as JSON text (or, should scan give JS values, as their JSON)
  assert.deepEqual(seen.sort(), [
    `a {"x":1,"y":null} {"a":5,"b":["p",null],"c":null} -`,
    `a {} - -`,
    `b - {"a":null,"b":null,"c":7} [1.5,null]`,
  ]);
});
