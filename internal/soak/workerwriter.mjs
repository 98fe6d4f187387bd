// The soak's Worker writers: one Miniflare (workerd) running the client's S3
// test Worker (client/dist/test/s3worker), which writes to the S3 server of
// the environment (scripts/s3server.sh) with s3Store over fetch. One writer
// per HOST appends its batches as POST /append requests, all at once: the
// requests of the writers run concurrently in one isolate, on one
// WebAssembly instance. Prints one JSON line per batch.
// usage: node workerwriter.mjs CLIENT_DIST PREFIX BATCHES ROWS START_MS HOST...
import * as path from "node:path";
import { pathToFileURL } from "node:url";

const [dist, prefix, batches, rowsPer, startMs, ...hosts] = process.argv.slice(2);
const { callWorker, s3ServerEnv, startS3Worker } = await import(pathToFileURL(path.join(dist, "test", "s3mf.js")).href);
const env = s3ServerEnv();
if (!env) throw new Error("no S3 server in the environment (scripts/s3server.sh)");

const mf = await startS3Worker(env);
try {
  await Promise.all(
    hosts.map(async (host) => {
      for (let b = 0; b < Number(batches); b++) {
        const rows = [];
        for (let i = 0; i < Number(rowsPer); i++) {
          const n = b * Number(rowsPer) + i;
          // JSON carries the long column as a decimal string.
          rows.push({ ts: Number(startMs) + n * 1000, host, v: String(n * 7 + 1) });
        }
        const r = await callWorker(mf, `/append?prefix=${encodeURIComponent(prefix)}`, rows);
        console.log(JSON.stringify({ host, batch: b, version: r.version, retries: r.retries, rows: r.rowsWritten, repeatedDataUploads: r.repeatedDataUploads }));
      }
    }),
  );
} finally {
  await mf.dispose();
}
