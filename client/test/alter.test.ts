// TableWriter.alter() in Node: schema changes through the WebAssembly core,
// their refusals (coded RowErrors naming the column, nothing written), and a
// second writer whose alter races the first.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, openTable, RowError, TimelakeError, type SchemaChange, type TableSchema } from "../src/index.js";
import type { MemoryStore } from "../src/stores/memory.js";

const schema: TableSchema = {
  time: "ts",
  series: ["host"],
  columns: [
    { name: "cpu", type: "double" },
    { name: "errs", type: "int", required: true },
    { name: "note", type: "string" },
  ],
};

const DAY = Date.UTC(2026, 10, 20);
const rows = Array.from({ length: 20 }, (_, i) => ({ ts: new Date(DAY + i * 60_000), host: `h${i % 4}`, cpu: i / 2, errs: i, note: "n" }));

/** Every object of the store, for "unchanged" checks. */
async function objects(store: MemoryStore): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const o of await store.list("")) {
    const b = await store.get(o.key);
    out.set(o.key, b === null ? "" : Buffer.from(b).toString("base64"));
  }
  return out;
}

test("alter() commits the changes in order as one new schema; info lists the history", async () => {
  const store = memoryStore();
  const t = await createTable(store, schema);
  await t.append(rows);
  const r = await t.alter([
    { add: "mem", type: "long" },
    { rename: "cpu", to: "load" },
    { widen: "errs", type: "long" },
    { optional: "errs" },
    { drop: "note" },
  ]);
  assert.equal(r.changed, true);
  assert.equal(r.version, 3);
  assert.equal(r.schemaId, 1);
  assert.equal(r.conflicts, 0);
  const cols = r.columns.map((c) => `${c.id}:${c.name}:${c.type}${c.required ? "" : "?"}`).join(" ");
  assert.equal(cols, "1:ts:timestamptz 2:host:string 3:load:double? 4:errs:long? 7:mem:long? 6:_ingest_ts:timestamptz?");
  assert.deepEqual(t.columns, r.columns, "the writer follows its own alter");
  assert.equal(t.version, 3);

  const info = await (await openTable(store)).info();
  assert.deepEqual(
    info.schemas.map((s) => [s.id, s.current, s.columns.map((c) => c.name).join(",")]),
    [
      [0, false, "ts,host,cpu,errs,note,_ingest_ts"],
      [1, true, "ts,host,load,errs,mem,_ingest_ts"],
    ],
  );
  assert.equal(info.rows, 20, "the rows stay");

  const again = await t.alter([{ rename: "load", to: "load" }]);
  assert.equal(again.changed, false, "a no-op commits nothing");
  assert.equal(again.version, 3);
});

test("a refused change is a coded RowError naming the column; nothing is written", async () => {
  const store = memoryStore();
  const t = await createTable(store, schema);
  await t.append(rows);
  const cases: [SchemaChange[], string, string][] = [
    [[{ drop: "ts" }], "SCHEMA_CHANGE_FORBIDDEN", "ts"],
    [[{ drop: "host" }], "SCHEMA_CHANGE_FORBIDDEN", "host"],
    [[{ widen: "cpu", type: "long" }], "SCHEMA_CHANGE_FORBIDDEN", "cpu"],
    [[{ optional: "host" }], "SCHEMA_CHANGE_FORBIDDEN", "host"],
    [[{ required: "cpu" }], "SCHEMA_CHANGE_FORBIDDEN", "cpu"],
    [[{ drop: "cpu" }, { add: "cpu", type: "double" }], "SCHEMA_CHANGE_FORBIDDEN", "cpu"],
    [[{ add: "errs", type: "long" }], "DUPLICATE_COLUMN", "errs"],
    [[{ rename: "nope", to: "x" }], "UNKNOWN_COLUMN", "nope"],
    [[{ add: "x", type: "decimal" as "long" }], "BAD_TYPE", "x"],
    [[{ add: "a.b", type: "long" }], "BAD_COLUMN_NAME", "a.b"],
    [[], "BAD_CHANGE", ""],
  ];
  const before = await objects(store);
  for (const [changes, code, column] of cases) {
    await assert.rejects(t.alter(changes), (e: unknown) => {
      assert.ok(e instanceof RowError, `${JSON.stringify(changes)}: ${String(e)}`);
      assert.equal(e.code, code, `${JSON.stringify(changes)}: ${e.message}`);
      assert.equal(e.column ?? "", column, `${JSON.stringify(changes)}: ${e.message}`);
      return true;
    });
  }
  assert.deepEqual(await objects(store), before, "refused changes wrote nothing");
  await assert.rejects(t.alter([{ drop: "cpu", add: "x" } as unknown as SchemaChange]), (e: unknown) => {
    assert.ok(e instanceof TimelakeError && e.code === "INVALID_ARGUMENT", String(e));
    return true;
  });
  assert.equal((await t.info()).version, 2);
});

test("two writers alter from one version: the second applies its change on top of the first", async () => {
  const store = memoryStore();
  await createTable(store, schema);
  const a = await openTable(store);
  const b = await openTable(store);
  await a.alter([{ add: "mem", type: "long" }]);
  const r = await b.alter([{ add: "disk", type: "long" }]);
  assert.equal(r.conflicts, 1);
  assert.equal(r.schemaId, 2);
  assert.deepEqual(
    r.columns.map((c) => `${c.id}:${c.name}`),
    ["1:ts", "2:host", "3:cpu", "4:errs", "5:note", "7:mem", "8:disk", "6:_ingest_ts"],
  );
});

test("append({ evolve: true }) adds unknown keys as columns typed from their values, in the append's commit", async () => {
  const store = memoryStore();
  const t = await createTable(store, schema);
  await t.append(rows);
  await assert.rejects(t.append([{ ts: new Date(DAY), host: "a", errs: 1, disk: 5 }]), (e: unknown) => {
    assert.ok(e instanceof RowError && e.code === "UNKNOWN_COLUMN" && e.column === "disk", String(e));
    return true;
  });
  const r = await t.append(
    [
      { ts: new Date(DAY + 3_600_000), host: "h0", errs: 1, disk: null, big: 1n << 40n, ok: true, seen: new Date(DAY), zone: "eu" },
      { ts: new Date(DAY + 3_660_000), host: "h1", errs: 2, disk: 2.5, big: 7n, ok: false, seen: null, zone: "us" },
    ],
    { evolve: true },
  );
  assert.equal(r.version, 3, "the columns and the rows in one commit");
  assert.equal(r.rowsWritten, 2);
  const cols = t.columns.map((c) => `${c.name}:${c.type}${c.required ? "" : "?"}`).join(" ");
  assert.equal(cols, "ts:timestamptz host:string cpu:double? errs:int note:string? disk:double? big:long? ok:boolean? seen:timestamptz? zone:string? _ingest_ts:timestamptz?");
  const info = await (await openTable(store)).info();
  assert.equal(info.rows, 22);
  assert.equal(info.schemas.length, 2);
  const latest = await t.latest();
  const h1 = latest.find((x) => x["host"] === "h1")!;
  assert.deepEqual([h1["disk"], h1["big"], h1["ok"], h1["zone"]], [2.5, 7n, false, "us"]);
  const h3 = latest.find((x) => x["host"] === "h3")!;
  assert.deepEqual([h3["disk"], h3["zone"]], [null, null], "series not appended since: the new columns null");
});

test("after alter(), append() takes the new names; scan and latest read old and new rows under the current schema", async () => {
  const store = memoryStore();
  const t = await createTable(store, schema);
  await t.append(rows);
  await t.alter([{ rename: "cpu", to: "load" }, { add: "disk", type: "long" }, { drop: "note" }]);
  const r = await t.append([{ ts: new Date(DAY + 3_600_000), host: "h9", load: 4.5, errs: 3, disk: 12n }]);
  assert.equal(r.version, 4);
  const b = await t.append([{ ts: new Date(DAY + 3_700_000), host: "h8", load: 1, errs: 1, zone: "eu" }], { evolve: true });
  assert.equal(b.version, 5);
  const seen: Record<string, unknown>[] = [];
  for await (const row of t.scan().rows()) seen.push(row);
  assert.equal(seen.length, 22);
  const h9 = seen.find((x) => x["host"] === "h9")!;
  assert.deepEqual([h9["load"], h9["disk"], h9["zone"]], [4.5, 12n, null]);
  const old = seen.find((x) => x["host"] === "h0")!;
  assert.deepEqual([old["disk"], "cpu" in old, "note" in old], [null, false, false]);
  const latest = await t.latest();
  assert.deepEqual(latest.find((x) => x["host"] === "h8")!["zone"], "eu");
});
