// scan.arrow() of a table with a map<string, string> column (added by
// another engine, as Spark or pyiceberg add one): apache-arrow reads the
// column as an Arrow Map of Utf8 to Utf8, with the table's field ids on
// the column, its key and its value, and each row's entries, nulls and
// empty maps as appended.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DataType, tableFromIPC, type Field } from "apache-arrow";
import { createTable, memoryStore, openTable } from "../src/index.js";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/** A table ts, host, cpu to which another engine added tags map<string, string>; the column's ids. */
async function tagsTable(): Promise<{ store: ReturnType<typeof memoryStore>; last: number }> {
  const store = memoryStore();
  await createTable(store, { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }] });
  // the other engine's schema change: tags map<string, string>
  const md = JSON.parse(dec((await store.get("metadata/v1.metadata.json"))!)) as Record<string, any>;
  const sch = md["schemas"].find((s: any) => s["schema-id"] === md["current-schema-id"]);
  const last = md["last-column-id"] as number;
  sch.fields.push({
    id: last + 1,
    name: "tags",
    required: false,
    type: { type: "map", "key-id": last + 2, key: "string", "value-id": last + 3, value: "string", "value-required": false },
  });
  md["last-column-id"] = last + 3;
  await store.put("metadata/v2.metadata.json", enc(JSON.stringify(md)));
  await store.put("metadata/version-hint.text", enc("2"));
  return { store, last };
}

test("scan.arrow(): a map<string, string> column as an Arrow Map, rows as appended; its bytes append as the same rows", async () => {
  const { store, last } = await tagsTable();
  const t = await openTable(store);
  const T0 = Date.UTC(2026, 10, 29);
  const tags = ['{"job":"api","zone":null,"é\\n\\"q\\"":"日本😀"}', null, "{}", '{"k":""}'];
  const want = [{ job: "api", zone: null, 'é\n"q"': "日本😀" }, null, {}, { k: "" }];
  await t.append(tags.map((tg, i) => ({ ts: new Date(T0 + i), host: `h${i}`, tags: tg })));

  const bytes = await t.scan({ columns: ["tags"] }).arrow();
  const a = tableFromIPC(bytes);
  const f = a.schema.fields.find((x) => x.name === "tags") as Field;
  assert.ok(DataType.isMap(f.type), `tags is ${f.type}`);
  const entries = f.type.children[0]!;
  const [key, value] = entries.type.children as Field[];
  assert.equal(String(key!.type), "Utf8");
  assert.equal(String(value!.type), "Utf8");
  assert.equal(key!.nullable, false);
  assert.equal(f.metadata.get("PARQUET:field_id"), String(last + 1));
  assert.equal(key!.metadata.get("PARQUET:field_id"), String(last + 2));
  assert.equal(value!.metadata.get("PARQUET:field_id"), String(last + 3));
  const col = a.getChild("tags")!;
  const hosts = a.getChild("host")!;
  const got = Array.from({ length: a.numRows }, (_, i) => {
    const v = col.get(i);
    return [hosts.get(i), v === null ? null : v.toJSON()];
  });
  assert.deepEqual(got, want.map((w, i) => [`h${i}`, w]));

  // Arrow IPC bytes with a map column append into the tags of another table
  const other = await openTable((await tagsTable()).store);
  await other.append(bytes);
  assert.deepEqual(await other.scan({ columns: ["tags"] }).arrow(), bytes, "the same stream, byte for byte");
});
