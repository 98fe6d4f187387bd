// The product's path for comparison with the core alone: warm 1,000-row
// appends through @timelake/client (js/wasm, the bridge, its memoryStore) in
// Node, the rows of ../worker/benchrows.js as objects, a fresh table every 50
// appends as in main.go. Prints, by append number, the median CPU of all
// threads and of the main thread, in curve.mjs's windows.
//   bash scripts/build-client.sh && node bench/wasip1/product.mjs [appends=300]
import { readFileSync } from "node:fs";
import { schema, makeRows } from "../worker/benchrows.js";

const { createTable, memoryStore } = await import("../../client/dist/src/node.js");
const N = Number(process.argv[2] ?? 300);
const mainNs = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]);
const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
const rows = makeRows(1000);
let t;
const cpuMs = [], mainMs = [], wallMs = [];
for (let i = 0; i < N; i++) {
  if (i % 50 === 0) t = await createTable(memoryStore(), schema);
  const m0 = mainNs(), c0 = cpuNs(), w0 = performance.now();
  await t.append(rows);
  const w1 = performance.now(), c1 = cpuNs(), m1 = mainNs();
  wallMs.push(w1 - w0);
  cpuMs.push((c1 - c0) / 1e6);
  mainMs.push((m1 - m0) / 1e6);
}
console.log(JSON.stringify({ variant: "client append (js/wasm, bridge, memoryStore)", rep: 1,
  r: { target: "js/wasm", shape: "client", workload: "append 1000", warmup: 0, wallMs, cpuMs, mainMs } }));
