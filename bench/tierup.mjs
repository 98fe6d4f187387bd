// How a warm append's cost falls as V8 compiles the hot WebAssembly functions
// to optimized code: 1k-row appends through @timelake/client in Node against
// a memoryStore, CPU and wall per append for each block of appends.
//
//   node bench/tierup.mjs [blocks=8] [appends per block=100] [rows=1000]
//   BRIDGE_CLIENT=/tmp/old/client/dist/src/node.js node bench/tierup.mjs …  (another build)
//   TIERUP_PROFILE=/tmp/settled.cpuprofile node bench/tierup.mjs 5 100  (a V8 profile of the last block)
//
// And what V8 compiled on the way, by Go package (a build that keeps its
// function names, so not scripts/build-client.sh's -s -w):
//
//   GOOS=js GOARCH=wasm go build -trimpath -o client/dist/src/timelake.wasm ./wasm
//   node --trace-wasm-compilation-times bench/tierup.mjs > /tmp/tierup.log
//   node bench/tierup.mjs --compiled /tmp/tierup.log client/dist/src/timelake.wasm
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

if (process.argv[2] === "--compiled") {
  summarize(process.argv[3], process.argv[4]);
} else {
  const { createTable, memoryStore } = await import(process.env.BRIDGE_CLIENT ?? path.join(here, "../client/dist/src/node.js"));
  const { schema, makeRows } = await import("./worker/benchrows.js");
  const { startProfile } = await import("./nodeprofile.mjs");
  const [blocks, per, n] = [process.argv[2] ?? 8, process.argv[3] ?? 100, process.argv[4] ?? 1000].map(Number);
  const t = await createTable(memoryStore(), schema);
  const rows = makeRows(n);
  // TIERUP_PROFILE=FILE: a V8 CPU profile (0.1 ms sampling) of the last block
  // only, once the hot code is optimized; summarized by bench/cpuprofile.mjs.
  const profileTo = process.env.TIERUP_PROFILE;
  for (let b = 0; b < blocks; b++) {
    const stop = profileTo && b === blocks - 1 ? await startProfile() : undefined;
    const c0 = process.cpuUsage(), t0 = performance.now();
    for (let i = 0; i < per; i++) await t.append(rows);
    const c = process.cpuUsage(c0);
    await stop?.(profileTo, `appends ${b * per + 1}-${(b + 1) * per}`);
    console.log(JSON.stringify({ appends: `${b * per + 1}-${(b + 1) * per}`, cpuMsPerAppend: +((c.user + c.system) / 1000 / per).toFixed(2), wallMsPerAppend: +((performance.now() - t0) / per).toFixed(2) }));
  }
}

// summarize prints the optimizing compiler's work from a
// --trace-wasm-compilation-times log: functions, body bytes and compile ms,
// in all and by Go package (names from the module's name section).
function summarize(logFile, wasmFile) {
  const names = functionNames(fs.readFileSync(wasmFile));
  const pkgs = new Map();
  let fns = 0, bytes = 0, msAll = 0;
  for (const line of fs.readFileSync(logFile, "utf8").split("\n")) {
    if (!/using (TurboFan|Turboshaft)/.test(line)) continue;
    const idx = Number(line.match(/#(\d+)/)?.[1]);
    const body = Number(line.match(/bodysize (\d+)/)?.[1] ?? 0), took = Number(line.match(/took ([\d.]+) ms/)?.[1] ?? 0);
    const pkg = (names.get(idx) ?? "?").replace(/^github\.com_timelake_timelake_/, "timelake/").replace(/^github\.com_klauspost_compress_/, "klauspost/").split(/\.|__/)[0];
    const q = pkgs.get(pkg) ?? { fns: 0, bytes: 0, ms: 0 };
    q.fns++, (q.bytes += body), (q.ms += took);
    pkgs.set(pkg, q);
    fns++, (bytes += body), (msAll += took);
  }
  console.log(`optimized: ${fns} functions, ${bytes} body bytes, ${msAll} ms of compilation`);
  for (const [k, q] of [...pkgs].sort((a, b) => b[1].ms - a[1].ms).slice(0, 20)) console.log(`${String(q.ms).padStart(6)} ms ${String(q.bytes).padStart(8)} B ${String(q.fns).padStart(4)} fns  ${k}`);
}

// functionNames reads the "name" custom section's function names.
function functionNames(b) {
  let p = 8;
  const leb = () => {
    let r = 0, s = 0, x;
    do { x = b[p++]; r += (x & 0x7f) * 2 ** s; s += 7; } while (x & 0x80);
    return r;
  };
  const out = new Map();
  while (p < b.length) {
    const id = b[p++], len = leb(), end = p + len;
    if (id === 0) {
      const nl = leb(), nm = b.toString("utf8", p, p + nl);
      p += nl;
      while (nm === "name" && p < end) {
        const sid = b[p++], sl = leb(), se = p + sl;
        if (sid === 1) for (let i = leb(); i > 0; i--) { const idx = leb(), l = leb(); out.set(idx, b.toString("utf8", p, p + l)); p += l; }
        p = se;
      }
    }
    p = end;
  }
  return out;
}
