// One scan of bench/flights.mjs in a fresh Node process: the client's
// table.scan over localStore (a counting wrapper on its getRange), as
// column batches iterated and dropped, or with --arrow as the Arrow IPC
// stream (arrowStream) read and dropped. Prints one JSON line.
//
//   node bench/flightsnode.mjs TABLE_DIR [--from T] [--to T] [--arrow] [--client DIST]
//
// The client is this tree's build (client/dist, scripts/build-client.sh);
// --client DIST imports DIST/src/node.js instead (a build of another
// commit, for before/after figures).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const dir = args[0];
const client = opt("--client") ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "client", "dist");
const { openTable, localStore } = await import(path.join(path.resolve(client), "src", "node.js"));

// Every read, data files apart: requests and bytes.
const base = localStore(dir);
const reads = { requests: 0, bytes: 0, dataRequests: 0, dataBytes: 0 };
const count = (key, b) => {
  const n = b?.length ?? 0;
  reads.requests++;
  reads.bytes += n;
  if (key.startsWith("data/")) {
    reads.dataRequests++;
    reads.dataBytes += n;
  }
  return b;
};
const store = {
  ...base,
  get: async (k, o) => count(k, await base.get(k, o)),
  getRange: async (k, off, n) => count(k, await base.getRange(k, off, n)),
};

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const table = await openTable(store);
const t1 = performance.now();
const q = {};
if (opt("--from")) q.from = opt("--from");
if (opt("--to")) q.to = opt("--to");
const scan = table.scan(q);
let rows = 0, batches = 0, outBytes = 0;
if (args.includes("--arrow")) {
  const r = scan.arrowStream().getReader();
  for (;;) {
    const { done, value } = await r.read();
    if (done) break;
    outBytes += value.length;
    batches++;
  }
} else {
  for await (const b of scan) {
    rows += b.length;
    batches++;
  }
}
const stats = await scan.stats;
const t2 = performance.now();
const cpu = process.cpuUsage(cpu0);
const hwm = /VmHWM:\s*(\d+)/.exec(fs.readFileSync("/proc/self/status", "utf8"))?.[1];
console.log(
  JSON.stringify(
    {
      openMs: t1 - t0,
      scanMs: t2 - t1,
      ms: t2 - t0,
      cpuMs: (cpu.user + cpu.system) / 1000,
      rows: rows || Number(stats.rows),
      batches,
      outBytes,
      reads,
      stats,
      peakRssMiB: hwm ? +hwm / 1024 : undefined,
    },
    (_, v) => (typeof v === "bigint" ? String(v) : v),
  ),
);
