// Writes the same batches to two tables through @timelake/client, for the
// outside readers (go test ./wasm/e2e runs this, then reads both):
//   <out>/workerd  appended by the test Worker in workerd (Miniflare, R2
//                  binding persisted under <out>/r2), then copied out of the
//                  bucket into files
//   <out>/node     appended in Node to a localStore
//   <out>/batch-<k>.ndjson  the rows of batch k, as NDJSON the native CLI reads
// Usage: node dist/test/e2e/write.js <out>
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { createTable } from "../../src/index.js";
import { localStore } from "../../src/stores/local.js";
import { exportBucket, startWorker } from "../mf.js";

const out = path.resolve(process.argv[2] ?? "");
if (!process.argv[2]) throw new Error("usage: write.js <out>");

/** A deterministic generator (xorshift), so reruns write the same rows. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

interface Row {
  ts: string;
  host: string;
  shard: string;
  cpu: number | null;
  mem: string;
  note: string;
}

// Keys (host, shard, ts) never repeat across batches: batch k uses second k
// of each minute. Times spread over three days; mem goes past 2^53.
function batch(k: number, n: number): Row[] {
  const r = rng(1000 + k);
  const day = Date.UTC(2026, 10, 27);
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const minute = r(3 * 24 * 60);
    const ms = day + minute * 60_000 + k * 1000 + r(1000);
    rows.push({
      ts: new Date(ms).toISOString(),
      host: `host-${String(r(25)).padStart(2, "0")}`,
      shard: String(r(3)),
      cpu: r(10) === 0 ? null : r(100_000) / 8,
      mem: String((BigInt(r(1 << 30)) << 24n) + BigInt(i)),
      note: `n${i % 5}`,
    });
  }
  return rows;
}

const sizes = [500, 20_000, 3_000, 1_200];
const batches = sizes.map((n, k) => batch(k, n));
await fs.mkdir(out, { recursive: true });
for (const [k, b] of batches.entries()) {
  await fs.writeFile(path.join(out, `batch-${k}.ndjson`), b.map((r) => JSON.stringify(r)).join("\n") + "\n");
}

const schema = {
  time: "ts",
  series: ["host", "shard"],
  columns: [
    { name: "shard", type: "long" as const, required: true },
    { name: "cpu", type: "double" as const },
    { name: "mem", type: "long" as const, required: true },
    { name: "note", type: "string" as const },
  ],
};

// Node: rows as JavaScript values of several kinds (Date, bigint, number).
const node = await createTable(localStore(path.join(out, "node")), schema);
for (const b of batches) {
  const r = await node.append(
    b.map((x) => ({ ts: new Date(x.ts), host: x.host, shard: BigInt(x.shard), cpu: x.cpu, mem: BigInt(x.mem), note: x.note })),
  );
  console.log(`node: version ${r.version}, ${r.rowsWritten} rows, ${r.durationMs.toFixed(0)} ms`);
}

// workerd: the same rows as JSON (ISO strings, decimal strings) through the Worker.
const mf = await startWorker(path.join(out, "r2"));
try {
  const post = async (p: string, body?: unknown) => {
    const res = await mf.dispatchFetch(`http://worker${p}`, { method: "POST", ...(body ? { body: JSON.stringify(body) } : {}) });
    const j = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(j)}`);
    return j;
  };
  const location = pathToFileURL(path.join(out, "workerd")).href;
  await post(`/create?prefix=e2e&location=${encodeURIComponent(location)}`);
  for (const b of batches) {
    const r = await post("/append?prefix=e2e", b);
    console.log(`workerd: version ${r["version"]}, ${r["rowsWritten"]} rows`);
  }
  const n = await exportBucket(mf, "e2e/", path.join(out, "workerd"));
  console.log(`workerd: ${n} objects copied out of the bucket`);
} finally {
  await mf.dispose();
}
