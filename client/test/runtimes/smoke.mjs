// The same smoke test in Node, Deno and Bun: create, append JavaScript
// objects, read back, a coded error, a localStore table reopened.
// Usage: <runtime> smoke.mjs <dir for the localStore table>
import { createTable, localStore, memoryStore, openTable, RowError } from "../../dist/src/node.js";

const runtime = globalThis.Deno ? "deno" : globalThis.Bun ? "bun" : "node";
const args = globalThis.Deno ? Deno.args : process.argv.slice(2);
const dir = args[0];
if (!dir) throw new Error("usage: smoke.mjs <dir>");
const check = (cond, msg) => {
  if (!cond) throw new Error(`${runtime}: ${msg}`);
};

const schema = { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }, { name: "mem", type: "long" }] };
const T0 = Date.UTC(2026, 10, 29, 10);
const rows = Array.from({ length: 1000 }, (_, i) => ({ ts: new Date(T0 + i * 1000), host: `h${i % 10}`, cpu: i / 8, mem: BigInt(i) << 40n }));

const t = await createTable(memoryStore(), schema);
const r = await t.append(rows);
check(r.version === 2 && r.rowsWritten === 1000 && typeof r.snapshotId === "bigint", `append result ${JSON.stringify({ ...r, snapshotId: String(r.snapshotId) })}`);
const latest = await t.latest();
check(latest.length === 10 && latest.find((x) => x.host === "h9").mem === 999n << 40n, "latest");
try {
  await t.append([{ ts: T0, host: "a", cpu: "high" }]);
  check(false, "bad row accepted");
} catch (e) {
  check(e instanceof RowError && e.code === "TYPE_MISMATCH" && e.row === 1 && e.column === "cpu", `error ${e}`);
}

const lt = await createTable(localStore(dir), schema);
await lt.append(rows);
await lt.append(rows.map((x) => ({ ...x, ts: new Date(x.ts.getTime() + 86_400_000) })));
const info = await (await openTable(localStore(dir))).info();
check(info.version === 3 && info.rows === 2000 && info.partitions.length === 2, `info ${info.version} ${info.rows}`);
console.log(`smoke ok: ${runtime} (append of 1000 rows: ${r.durationMs.toFixed(0)} ms)`);
