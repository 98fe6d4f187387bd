// What the ```ts blocks of client/README.md take from their surroundings:
// a Worker's env and bindings (Cloudflare's types, reduced to what the
// package needs), the rows to append, a table opened before.
import type { BatcherStub, DurableStateLike, R2BucketLike, TableWriter } from "@timelake/client/workers";

declare global {
  type R2Bucket = R2BucketLike;
  type DurableObjectState = DurableStateLike;
  interface Env {
    BUCKET: R2Bucket;
    BATCHER: { idFromName(name: string): unknown; get(id: unknown): BatcherStub };
    CATALOG_URI: string;
    CATALOG_WAREHOUSE: string;
    CATALOG_TOKEN: string;
  }
  const env: Env;
  const rows: Record<string, unknown>[];
  const table: TableWriter;
}
export {};
