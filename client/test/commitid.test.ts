// append(rows, { commitId }) and findCommit in Node, through the core; the
// batcher's row encoding (bigints and Dates kept across JSON).
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, openTable, TimelakeError, type TableSchema } from "../src/index.js";
import { parseRows, rowsJSON } from "../src/rowjson.js";

const schema: TableSchema = { time: "ts", series: ["host"], columns: [{ name: "mem", type: "long" }] };
const rows = (n: number, at: number) => Array.from({ length: n }, (_, i) => ({ ts: at + i, host: `h${i % 3}`, mem: BigInt(i) }));

test("append with a commitId: findCommit finds it, a second append with it is COMMIT_EXISTS, bad ids BAD_COMMIT_ID", async () => {
  const store = memoryStore();
  const t = await createTable(store, schema);
  assert.equal(await t.findCommit("batch-1"), undefined);
  const r = await t.append(rows(10, Date.UTC(2026, 11, 3)), { commitId: "batch-1" });
  assert.equal(r.commitId, "batch-1");
  const other = await openTable(store);
  const found = await other.findCommit("batch-1");
  assert.deepEqual(found && { snapshotId: found.snapshotId, addedRows: found.addedRows, operation: found.operation, version: found.version }, {
    snapshotId: r.snapshotId,
    addedRows: 10,
    operation: "append",
    version: 2,
  });
  assert.equal(other.version, 2, "findCommit loaded the newest version");
  await assert.rejects(other.append(rows(10, Date.UTC(2026, 11, 3)), { commitId: "batch-1" }), (e: unknown) => e instanceof TimelakeError && e.code === "COMMIT_EXISTS");
  await assert.rejects(t.append(rows(1, 0), { commitId: "a b" }), (e: unknown) => e instanceof TimelakeError && e.code === "BAD_COMMIT_ID" && /character ' ' at byte 1/.test(e.message));
  await assert.rejects(t.findCommit(""), (e: unknown) => e instanceof TimelakeError && e.code === "BAD_COMMIT_ID");
  assert.equal((await t.info()).rows, 10);
});

test("the batcher's row JSON keeps bigints (past 2^53) and Dates as the same instant", () => {
  const big = 2n ** 62n + 1n;
  const d = new Date(Date.UTC(2026, 11, 3, 1, 2, 3, 456));
  const back = parseRows(rowsJSON([{ ts: d, n: big, s: "x", f: 0.5, nul: null }]));
  assert.deepEqual(back, [{ ts: d.toISOString(), n: big, s: "x", f: 0.5, nul: null }]);
  // a map column's Map travels as its entries' object; a Map key that is an object is refused
  assert.deepEqual(parseRows(rowsJSON([{ tags: new Map([["env", "prod"], ["k", null]]) }])), [{ tags: { env: "prod", k: null } }]);
  assert.throws(() => rowsJSON([{ tags: new Map([[{}, "x"]]) }]), (e: unknown) => e instanceof TimelakeError && e.code === "TYPE_MISMATCH" && /a Map key must be a string, number, bigint, boolean or Date, not a Object/.test(e.message));
  assert.throws(() => rowsJSON([{ tags: new Set(["x"]) }]), (e: unknown) => e instanceof TimelakeError && e.code === "TYPE_MISMATCH");
  assert.throws(() => parseRows("[1]"), (e: unknown) => e instanceof TimelakeError && e.code === "INVALID_ARGUMENT" && /row 1 is not an object/.test(e.message));
  assert.throws(() => parseRows("[]"), (e: unknown) => e instanceof TimelakeError && e.code === "INVALID_ARGUMENT");
  assert.throws(() => parseRows("{"), (e: unknown) => e instanceof TimelakeError && e.code === "INVALID_ARGUMENT");
});

test("parseRows on mangled input: rows or INVALID_ARGUMENT, nothing else (seeded fuzz)", () => {
  const seedText = rowsJSON([{ ts: new Date(0), n: 5n, s: 'q"\\', o: { "$timelake.bigint": "7" } }]);
  let x = 12345;
  const rnd = (n: number) => ((x = (x * 1103515245 + 12345) & 0x7fffffff) % n);
  for (let i = 0; i < 5000; i++) {
    const chars = [...seedText];
    for (let k = 0, m = 1 + rnd(4); k < m; k++) {
      const at = rnd(chars.length + 1);
      if (rnd(2)) chars.splice(at, 1);
      else chars.splice(at, 0, String.fromCharCode(rnd(128)));
    }
    const text = chars.join("");
    try {
      const rows = parseRows(text);
      assert.ok(Array.isArray(rows) && rows.length > 0);
    } catch (e) {
      assert.ok(e instanceof TimelakeError && e.code === "INVALID_ARGUMENT", `${text}: ${String(e)}`);
    }
  }
});
