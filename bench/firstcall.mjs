// The first call in a fresh Node process, by phase: read timelake.wasm,
// WebAssembly.compile, the runtime's start (a first call that fails NO_TABLE),
// create + append 1k rows, a second append. ms wall and process CPU.
//   node bench/firstcall.mjs   (CLIENT: another build's client/dist/src)
const dist = process.env.CLIENT ?? new URL("../client/dist/src", import.meta.url).pathname;
const { openTable, createTable, memoryStore, initWasm } = await import(dist + "/node.js");
const { schema, makeRows } = await import("./worker/benchrows.js");
const fs = await import("node:fs");
const rows = makeRows(1000);
const out = {};
let c = process.cpuUsage(), t = performance.now();
const lap = (name) => { const c2 = process.cpuUsage(c); out[name] = { wall: +(performance.now() - t).toFixed(1), cpu: +((c2.user + c2.system) / 1000).toFixed(1) }; c = process.cpuUsage(); t = performance.now(); };
const bytes = fs.readFileSync(dist + "/timelake.wasm");
lap("read");
const mod = await WebAssembly.compile(bytes);
lap("compile");
if (initWasm) initWasm(mod);
try { await openTable(memoryStore()); } catch (e) { if (e.code !== "NO_TABLE" && e.code !== "NOT_FOUND") throw e; }
lap("runtime start + failed open");
const tb = await createTable(memoryStore(), schema);
await tb.append(rows);
lap("create + append 1k");
await tb.append(rows);
lap("warm append 1k");
console.log(JSON.stringify(out));
