// Warm 1,000-row appends through @timelake/client in Node against a
// memoryStore, with every store call counted by method (and the keys of the
// first counted append printed): where a warm append's fixed cost goes.
//
//   node bench/bridgecount.mjs [appends=200] [rows=1000]
//   BRIDGE_CLIENT=/tmp/old/client/dist/src/node.js node bench/bridgecount.mjs …  (another build, for
//   before/after pairs run alternately)
//
// Prints ms per append (wall and process CPU) and store calls per append.
const { createTable, memoryStore } = await import(process.env.BRIDGE_CLIENT ?? "../client/dist/src/node.js");
import { schema, makeRows } from "./worker/benchrows.js";

const N = Number(process.argv[2] ?? 200);
const ROWS = Number(process.argv[3] ?? 1000);
const inner = memoryStore();
const counts = new Map();
let log = null;
const counted = new Proxy(inner, {
  get(t, prop) {
    const v = Reflect.get(t, prop, t);
    if (typeof v !== "function") return v;
    return (...args) => {
      counts.set(prop, (counts.get(prop) ?? 0) + 1);
      if (log) log.push(`${String(prop)} ${typeof args[0] === "string" ? args[0] : JSON.stringify(args[0])}`);
      return v.apply(t, args);
    };
  },
});
const t = await createTable(counted, schema);
const rows = makeRows(ROWS);
for (let i = 0; i < 10; i++) await t.append(rows); // warm up V8 and the Go heap
counts.clear();
log = [];
await t.append(rows);
const oneLog = log;
log = null;
counts.clear();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < N; i++) await t.append(rows);
const wall = performance.now() - t0;
const c = process.cpuUsage(cpu0);
const per = Object.fromEntries([...counts].map(([k, v]) => [k, v / N]));
console.log(JSON.stringify({ appends: N, rows: ROWS, wallMsPerAppend: +(wall / N).toFixed(3), cpuMsPerAppend: +((c.user + c.system) / 1000 / N).toFixed(3), storeCallsPerAppend: per }));
console.log("one warm append's store calls:\n  " + oneLog.join("\n  "));
