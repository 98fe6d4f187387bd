// TableWriter.delete in Node: by series, by range, with purge; a bare
// delete refused; the rows left are exactly those that do not match.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, TimelakeError } from "../src/index.js";

const schema = { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" as const }] };
const T0 = Date.UTC(2026, 10, 1);

async function table() {
  const st = memoryStore();
  const t = await createTable(st, schema, { formatVersion: 3 });
  for (let k = 0; k < 2; k++) {
    await t.append(Array.from({ length: 60 }, (_, i) => ({ ts: new Date(T0 + (k * 60 + i) * 3_600_000), host: `h${i % 3}`, cpu: i })));
  }
  return { st, t };
}

async function rows(t: Awaited<ReturnType<typeof table>>["t"]): Promise<string[]> {
  const out: string[] = [];
  for await (const r of t.scan().rows()) out.push(`${String(r.host)}@${new Date(r.ts as string | Date).getTime()}`);
  return out.sort();
}

test("delete by series, by range, and with purge", async () => {
  const { st, t } = await table();
  const before = await rows(t);
  assert.equal(before.length, 120);
  await assert.rejects(t.delete({}), (e: unknown) => e instanceof TimelakeError && e.code === "BAD_FILTER");
  const r1 = await t.delete({ series: { host: ["h1"] } });
  assert.equal(r1.rowsDeleted, 40);
  assert.deepEqual(await rows(t), before.filter((k) => !k.startsWith("h1@")));
  const from = T0 + 24 * 3_600_000, to = T0 + 48 * 3_600_000;
  const r2 = await t.delete({ from: new Date(from), to, purge: true, now: true });
  const left = before.filter((k) => !k.startsWith("h1@")).filter((k) => { const ts = Number(k.split("@")[1]); return ts < from || ts >= to; });
  assert.deepEqual(await rows(t), left);
  assert.ok(r2.purge && r2.purge.snapshotsExpired.length > 0 && r2.purge.filesDeleted > 0, JSON.stringify(r2.purge));
  const keys = (await st.list("data/")).length;
  assert.ok(keys > 0);
});
