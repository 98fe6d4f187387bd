// The S3 REST catalog and the catalog Worker (catalogworker/worker.js in
// workerd through Miniflare) of the catalog Worker tests
// (catalog.miniflare.test.ts, rollupcatalog.miniflare.test.ts).
import { after, before } from "node:test";
import type { Miniflare } from "miniflare";
import { s3ServerEnv, startS3Worker } from "./s3mf.js";

/**
 * The S3 REST catalog of the Worker tests (scripts/test-client.sh starts it
 * with the S3 server): its URI, warehouse and token, the S3 server's
 * bindings, and skip, why the tests skip (false when they run).
 */
export function s3CatalogEnv() {
  const s3 = s3ServerEnv();
  const uri = process.env.TIMELAKE_CATALOG_S3_URI;
  const warehouse = process.env.TIMELAKE_CATALOG_S3_WAREHOUSE;
  const token = process.env.TIMELAKE_CATALOG_S3_TOKEN;
  const skip: string | false =
    s3 && uri && warehouse ? false : "no S3 REST catalog: TIMELAKE_CATALOG_S3_URI or the S3 server is unset (scripts/test-client.sh starts both)";
  return { s3, uri, warehouse, token, skip };
}

/**
 * Starts the catalog Worker (dist/test/catalogworker/worker.js) bound to
 * env's S3 server and catalog before the file's tests, unless they skip,
 * and disposes of it after them; the function returned gives the Worker.
 */
export function catalogWorker(env: ReturnType<typeof s3CatalogEnv>): () => Miniflare {
  let mf: Miniflare | undefined;
  before(async () => {
    if (!env.skip) {
      const { s3, uri, warehouse, token } = env;
      mf = await startS3Worker(
        { ...s3!, CATALOG_URI: uri!, CATALOG_WAREHOUSE: warehouse!, ...(token ? { CATALOG_TOKEN: token } : {}) },
        "catalogworker/worker.js",
      );
    }
  });
  after(async () => {
    await mf?.dispose();
  });
  return () => mf!;
}
