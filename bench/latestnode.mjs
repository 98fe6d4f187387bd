// latest() in Node through @timelake/client on a memory store: CPU per call
// for a table of S series (one append of 100,000 rows; 30 calls to warm up,
// then 30 measured).
//
//   node bench/latestnode.mjs [series=100,1000,10000]
//   BRIDGE_CLIENT=/tmp/old/client/dist/src/node.js node bench/latestnode.mjs …  (another build)
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const { createTable, memoryStore } = await import(process.env.BRIDGE_CLIENT ?? path.join(here, "../client/dist/src/node.js"));
const { schema } = await import("./worker/benchrows.js");

for (const S of (process.argv[2] ?? "100,1000,10000").split(",").map(Number)) {
  const t = await createTable(memoryStore(), schema);
  const start = Date.UTC(2026, 10, 28, 10);
  await t.append(Array.from({ length: 100_000 }, (_, i) => ({ ts: start + Math.floor(i / S) * 1000, host: "h" + (i % S), region: "eu", cpu: i / 10, mem: i })));
  let rows = 0;
  for (let i = 0; i < 30; i++) rows = (await t.latest()).length;
  const c0 = process.cpuUsage();
  for (let i = 0; i < 30; i++) rows = (await t.latest()).length;
  const c = process.cpuUsage(c0);
  if (rows !== S) throw new Error(`latest() gave ${rows} rows for ${S} series`);
  console.log(JSON.stringify({ series: S, cpuMsPerLatest: +((c.user + c.system) / 1000 / 30).toFixed(2) }));
}
