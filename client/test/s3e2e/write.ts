// Writes one table on the local S3 server (scripts/s3server.sh) from Node and
// from a Worker in workerd at once, for the outside readers (go test
// ./store/s3store/s3e2e runs this, then reads it):
//   the table: s3://$TIMELAKE_S3_BUCKET/<prefix>, whose objects the server's
//     posix backend keeps as files under $TIMELAKE_S3_ROOT/<bucket>/<prefix>;
//     its location is that directory's file:// URI, so readers resolve it
//   <out>/batch-<k>.ndjson  the rows of batch k
//   <out>/table.json        {"dir": the table's directory, "versions": N}
// Usage: node dist/test/s3e2e/write.js <out>
import { randomBytes } from "node:crypto";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { createTable, s3Store } from "../../src/node.js";
import { callWorker, s3ServerEnv, startS3Worker } from "../s3mf.js";

const out = path.resolve(process.argv[2] ?? "");
if (!process.argv[2]) throw new Error("usage: write.js <out>");
const env = s3ServerEnv();
if (!env || !process.env.TIMELAKE_S3_ROOT) throw new Error("no S3 server in the environment (scripts/s3server.sh)");

function batch(k: number, n: number) {
  const rows = [];
  for (let i = 0; i < n; i++) {
    // Keys (host, ts) never repeat across batches: batch k uses millisecond k.
    const ms = Date.UTC(2026, 10, 27) + (i % 4000) * 60_000 + Math.floor(i / 4000) * 1000 + k;
    rows.push({ ts: new Date(ms).toISOString(), host: `host-${i % 13}`, cpu: i % 11 === 0 ? null : (i * 7 + k) / 8, mem: String(BigInt(i) << 40n) });
  }
  return rows;
}
const batches = [800, 5_000, 300, 2_000].map((n, k) => batch(k, n));
await fs.mkdir(out, { recursive: true });
for (const [k, b] of batches.entries()) await fs.writeFile(path.join(out, `batch-${k}.ndjson`), b.map((r) => JSON.stringify(r)).join("\n") + "\n");

const prefix = `e2e-${randomBytes(6).toString("hex")}/metrics`;
const dir = path.join(process.env.TIMELAKE_S3_ROOT, env.S3_BUCKET!, ...prefix.split("/"));
const store = s3Store({
  bucket: env.S3_BUCKET!, prefix, endpoint: env.S3_ENDPOINT!, region: env.S3_REGION!,
  credentials: { accessKeyId: env.S3_ACCESS_KEY_ID!, secretAccessKey: env.S3_SECRET_ACCESS_KEY! },
  location: pathToFileURL(dir).href,
});
const node = await createTable(store, {
  time: "ts", series: ["host"],
  columns: [{ name: "cpu", type: "double" }, { name: "mem", type: "long", required: true }],
});
const mf = await startS3Worker(env);
try {
  // Node appends batches 0 and 2, the Worker 1 and 3, concurrently.
  const results = await Promise.all([
    (async () => [await node.append(batches[0]!.map((r) => ({ ...r, mem: BigInt(r.mem) }))), await node.append(batches[2]!)])(),
    (async () => [await callWorker(mf, `/append?prefix=${prefix}`, batches[1]), await callWorker(mf, `/append?prefix=${prefix}`, batches[3])])(),
  ]);
  for (const [who, rs] of [["node", results[0]], ["workerd", results[1]]] as const) {
    for (const r of rs) console.log(`${who}: version ${r.version}, ${r.rowsWritten} rows, ${r.retries} retries`);
  }
} finally {
  await mf.dispose();
}
await fs.writeFile(path.join(out, "table.json"), JSON.stringify({ dir, versions: 1 + batches.length }));
