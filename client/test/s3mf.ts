// Starts the S3 test Worker (dist/test/s3worker/worker.js) in workerd through
// Miniflare, bound to the S3 server named by the environment
// (scripts/s3server.sh exports it).
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export function s3ServerEnv(): Record<string, string> | undefined {
  const e = process.env;
  if (!e.TIMELAKE_S3_BUCKET || !e.AWS_ENDPOINT_URL || !e.AWS_ACCESS_KEY_ID || !e.AWS_SECRET_ACCESS_KEY) return undefined;
  return {
    S3_ENDPOINT: e.AWS_ENDPOINT_URL,
    S3_REGION: e.AWS_REGION ?? "us-east-1",
    S3_BUCKET: e.TIMELAKE_S3_BUCKET,
    S3_ACCESS_KEY_ID: e.AWS_ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY: e.AWS_SECRET_ACCESS_KEY,
  };
}

/** script: the Worker's path under dist/test. */
export async function startS3Worker(bindings: Record<string, string>, script = "s3worker/worker.js"): Promise<Miniflare> {
  const mf = new Miniflare({
    modules: true,
    scriptPath: path.join(dist, "test", script),
    modulesRoot: dist,
    modulesRules: [
      { type: "ESModule", include: ["**/*.js"] },
      { type: "CompiledWasm", include: ["**/*.wasm"] },
    ],
    compatibilityDate: "2025-09-01",
    bindings,
  });
  await mf.ready;
  return mf;
}

/** POSTs to the Worker; rejects unless it answers 200. */
export async function callWorker(mf: Miniflare, p: string, body?: unknown): Promise<any> {
  const res = await mf.dispatchFetch(`http://worker${p}`, { method: "POST", ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const j = await res.json();
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(j)}`);
  return j;
}
