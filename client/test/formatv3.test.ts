// Format 3 from JavaScript: createTable({ formatVersion: 3 }) makes a v3
// table whose appends assign row ids (next-row-id advances by the rows).
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, TimelakeError } from "../src/index.js";

const schema = { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" as const }] };

test("createTable({ formatVersion: 3 }) makes a format 3 table with row lineage", async () => {
  const st = memoryStore();
  const t = await createTable(st, schema, { formatVersion: 3 });
  await t.append([
    { ts: new Date(Date.UTC(2026, 0, 1)), host: "a", cpu: 1 },
    { ts: new Date(Date.UTC(2026, 0, 1, 0, 1)), host: "b", cpu: 2 },
  ]);
  const md = JSON.parse(new TextDecoder().decode((await st.get("metadata/v2.metadata.json"))!));
  assert.equal(md["format-version"], 3);
  assert.equal(md["next-row-id"], 2);
  assert.deepEqual([md.snapshots[0]["first-row-id"], md.snapshots[0]["added-rows"]], [0, 2]);
  assert.equal(md.properties["format-version"], undefined);
  await assert.rejects(createTable(memoryStore(), schema, { formatVersion: 4 as 3 }), (e: unknown) => e instanceof TimelakeError && e.code === "INVALID_ARGUMENT");
});
