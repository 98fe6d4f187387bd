// Compaction of a small table in Node through @timelake/client on memory
// stores: FILES appends of EACH rows over one day (benchrows.js's fillRows,
// as the workerd harness's /fill), copied N times, each copy opened and compacted; CPU per compaction,
// the first three and the median of the last ten. COMPACT_PROFILE=FILE
// writes a V8 CPU profile (0.1 ms sampling) of the last ten compactions and
// prints its categories (bench/cpuprofile.mjs).
//
//   node bench/compactnode.mjs            (FILES=8 EACH=1000 N=40)
//   COMPACT_PROFILE=/tmp/compact.cpuprofile node bench/compactnode.mjs
//   BRIDGE_CLIENT=/tmp/old/client/dist/src/node.js node bench/compactnode.mjs  (another build)
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const { createTable, openTable, memoryStore } = await import(process.env.BRIDGE_CLIENT ?? path.join(here, "../client/dist/src/node.js"));
const { schema, fillRows } = await import("./worker/benchrows.js");
const { startProfile } = await import("./nodeprofile.mjs");
const FILES = +(process.env.FILES ?? 8), EACH = +(process.env.EACH ?? 1000), N = +(process.env.N ?? 40);

const base = memoryStore();
const t = await createTable(base, schema, { properties: { "timelake.maintain-byte-cap": "0" }, location: "file:///bench/c" });
for (let f = 0; f < FILES; f++) await t.append(fillRows(f, FILES, EACH), { timeUnit: "us" });
const objects = await Promise.all((await base.list("")).map(async (o) => [o.key, await base.get(o.key)]));
const copies = [];
for (let i = 0; i < N; i++) {
  const m = memoryStore();
  for (const [k, v] of objects) await m.put(k, v);
  copies.push(m);
}

const profileTo = process.env.COMPACT_PROFILE;
let stop;
const cpus = [];
for (let i = 0; i < N; i++) {
  const w = await openTable(copies[i]);
  if (profileTo && i === N - 10) stop = await startProfile();
  const c0 = process.cpuUsage();
  const r = await w.maintain({ compact: true });
  const c = process.cpuUsage(c0);
  if (r.filesRead !== FILES || r.filesWritten !== 1) throw new Error(`compaction ${i}: read ${r.filesRead} files, wrote ${r.filesWritten}`);
  cpus.push((c.user + c.system) / 1000);
}
await stop?.(profileTo, "the last 10 compactions");
const last = cpus.slice(-10).sort((a, b) => a - b);
console.log(JSON.stringify({ files: FILES, rows: FILES * EACH, firstCpuMs: cpus.slice(0, 3).map((x) => +x.toFixed(1)), medianLast10CpuMs: +((last[4] + last[5]) / 2).toFixed(1) }));
