// Starts the test Worker (dist/test/worker/worker.js) in workerd through
// Miniflare, with an R2 bucket BUCKET persisted to a local directory.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import type { R2BucketLike } from "../src/stores/r2.js";

/** The bucket as seen from Node (Miniflare types it against workers-types, which are not installed). */
export async function bucketOf(mf: Miniflare): Promise<R2BucketLike> {
  return (await mf.getR2Bucket("BUCKET")) as unknown as R2BucketLike;
}

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * hook, when given, is bound as the Worker's HOOK service: a Node function
 * the Worker can call (and wait on) in the middle of an operation.
 */
export async function startWorker(persistDir: string, hook?: (req: Request) => Promise<Response>): Promise<Miniflare> {
  await fs.mkdir(persistDir, { recursive: true });
  const mf = new Miniflare({
    ...(hook ? { serviceBindings: { HOOK: hook as never } } : {}),
    modules: true,
    scriptPath: path.join(dist, "test", "worker", "worker.js"),
    modulesRoot: dist,
    modulesRules: [
      { type: "ESModule", include: ["**/*.js"] },
      { type: "CompiledWasm", include: ["**/*.wasm"] },
    ],
    compatibilityDate: "2025-09-01",
    r2Buckets: ["BUCKET"],
    r2Persist: persistDir,
  });
  await mf.ready;
  return mf;
}

/** Copies every object under prefix out of the bucket into dir (key → file). */
export async function exportBucket(mf: Miniflare, prefix: string, dir: string): Promise<number> {
  const bucket = await bucketOf(mf);
  let cursor: string | undefined;
  let n = 0;
  do {
    const page = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
    for (const o of page.objects) {
      const body = await bucket.get(o.key);
      if (!body) continue;
      const file = path.join(dir, ...o.key.slice(prefix.length).split("/"));
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, new Uint8Array(await body.arrayBuffer()));
      n++;
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return n;
}

/**
 * One test Worker for a test file: started before its tests (an R2 bucket
 * in a temporary directory), disposed after; post sends a POST with a JSON
 * body and returns the status and the JSON answer.
 */
export function workerForTests(): {
  mf: () => Miniflare;
  post: (pathname: string, body?: unknown) => Promise<{ status: number; j: any }>;
} {
  let dir = "";
  let mf: Miniflare | undefined;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "timelake-mf-"));
    mf = await startWorker(path.join(dir, "r2"), async () => new Response("ok"));
  });
  after(async () => {
    await mf?.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  });
  return {
    mf: () => mf!,
    post: async (pathname, body) => {
      const res = await mf!.dispatchFetch(`http://worker${pathname}`, { method: "POST", body: body === undefined ? null : JSON.stringify(body) });
      return { status: res.status, j: await res.json() };
    },
  };
}
