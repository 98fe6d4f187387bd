// The same smoke test in Node, Deno and Bun: create, append JavaScript
// objects and Arrow IPC bytes (pyarrow's fixtures from arrowipc/testdata: a
// stream into the localStore table, a ZSTD-compressed file into a memory
// one), read back (latest, scan, scan.arrow() appended back), a coded error,
// a localStore table reopened.
// Usage: <runtime> smoke.mjs <dir for the localStore table>
import { readFileSync } from "node:fs";
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
// scan: a series IN filter, a time range, a projection, in batches of 16; a break frees the queue.
const from = T0 + 100_000, to = T0 + 900_000;
const sc = t.scan({ series: { host: ["h7", "h3"] }, from: new Date(from), to, columns: ["mem"], batchRows: 16 });
const scanned = [];
for await (const x of sc.rows()) scanned.push(x);
const want = rows.filter((x) => (x.host === "h3" || x.host === "h7") && x.ts >= from && x.ts < to).sort((a, b) => a.host.localeCompare(b.host) || a.ts - b.ts);
check(
  scanned.length === want.length && want.length > 100 &&
    scanned.every((x, i) => x.host === want[i].host && x.mem === want[i].mem && x.ts === want[i].ts.toISOString().replace("Z", "000Z") && !("cpu" in x)),
  `scan: ${scanned.length} rows, want ${want.length}`,
);
const st = await sc.stats;
check(st.rows === want.length && !st.stopped && st.filesRead === 1, `scan stats ${JSON.stringify({ ...st, snapshotId: String(st.snapshotId) })}`);
// arrow(): the same scan as Arrow IPC stream bytes, appended to a table of
// its columns, scans back to the same rows; arrowStream() gives the same
// bytes, a chunk per batch and the end of the stream.
const same = { series: { host: ["h7", "h3"] }, from: new Date(from), to, columns: ["mem"], batchRows: 16 };
const bytes = await t.scan(same).arrow();
check(bytes instanceof Uint8Array && new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true) === 0xffffffff, `arrow(): ${bytes?.length} bytes`);
const back = await createTable(memoryStore(), { time: "ts", series: ["host"], columns: [{ name: "mem", type: "long" }] });
await back.append(bytes);
const again = [];
for await (const x of back.scan().rows()) again.push(x);
check(again.length === scanned.length && again.every((x, i) => x.ts === scanned[i].ts && x.host === scanned[i].host && x.mem === scanned[i].mem), `arrow round trip: ${again.length} rows`);
const chunks = [];
const rd = t.scan(same).arrowStream().getReader();
for (let c = await rd.read(); !c.done; c = await rd.read()) chunks.push(c.value);
const joined = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
chunks.reduce((at, c) => (joined.set(c, at), at + c.length), 0);
check(chunks.length === Math.ceil(scanned.length / 16) + 1 && joined.every((b, i) => b === bytes[i]) && joined.length === bytes.length, `arrowStream(): ${chunks.length} chunks`);
for await (const _ of t.scan({ batchRows: 1 })) break;
check((await t.latest()).length === 10, "an op after a scan left early");
try {
  await t.append([{ ts: T0, host: "a", cpu: "high" }]);
  check(false, "bad row accepted");
} catch (e) {
  check(e instanceof RowError && e.code === "TYPE_MISMATCH" && e.row === 1 && e.column === "cpu", `error ${e}`);
}

const lt = await createTable(localStore(dir), schema);
await lt.append(rows);
await lt.append(rows.map((x) => ({ ...x, ts: new Date(x.ts.getTime() + 86_400_000) })));
// bench.arrows: 1,000 rows (ts timestamp[ms], host, cpu, mem int64, note) on
// 2025-11-29 as a Uint8Array; note is not a column here.
const fixture = (name) => readFileSync(new URL(`../../../arrowipc/testdata/${name}`, import.meta.url));
const ra = await lt.append(new Uint8Array(fixture("bench.arrows")), { ignoreUnknown: true });
check(ra.version === 4 && ra.rowsWritten === 1000, `arrow append ${ra.version} ${ra.rowsWritten}`);
const info = await (await openTable(localStore(dir))).info();
check(info.version === 4 && info.rows === 3000 && info.partitions.length === 3, `info ${info.version} ${info.rows}`);

// types-zstd.arrow: an Arrow IPC file with ZSTD bodies, every flat type, 15
// copies of 20 keys, as an ArrayBuffer.
const typed = fixture("types-zstd.arrow");
const ints = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"].map((name) => ({ name, type: "long" }));
const dbls = ["f16", "f32", "f64"].map((name) => ({ name, type: "double" }));
const tt = await createTable(memoryStore(), { time: "ts", series: ["host"], columns: [...ints, ...dbls, { name: "flag", type: "boolean" }, { name: "note", type: "string" }, { name: "word", type: "string" }] });
const rt = await tt.append(typed.buffer.slice(typed.byteOffset, typed.byteOffset + typed.byteLength));
check(rt.inputRows === 300 && rt.rowsWritten === 20, `arrow file append ${rt.inputRows} ${rt.rowsWritten}`);
const cut = fixture("types.arrows");
try {
  await tt.append(cut.subarray(0, cut.length - 100));
  check(false, "a truncated Arrow stream accepted");
} catch (e) {
  check(e instanceof RowError && e.code === "SYNTAX", `truncated Arrow stream: ${e}`);
}
check((await tt.info()).version === 2, "a failed Arrow append committed");
console.log(`smoke ok: ${runtime} (append of 1000 rows: ${r.durationMs.toFixed(0)} ms)`);
