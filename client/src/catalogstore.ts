/**
 * Which Store holds a catalog table's files. The catalog names the table's
 * location (s3://bucket/warehouse/ns/t, file:///…) and may vend storage
 * credentials for it; the store option of createTable/openTable says what
 * to do with them:
 *
 *   - a function (location, vended) => Store: called with both, its Store's
 *     keys relative to the location;
 *   - a Store: rooted at the location's bucket (the URI's authority), so the
 *     table's keys are prefixed with the location's path (in a Worker:
 *     r2Store(env.BUCKET) for an R2 Data Catalog table);
 *   - none: an s3Store built from the vended S3 credentials (over
 *     globalThis.fetch, not the catalog's fetch).
 */
import { TimelakeError } from "./errors.js";
import { missingStoreMethods, type Store } from "./store.js";
import { prefixStore } from "./stores/prefix.js";
import { s3Store } from "./stores/s3.js";

/** The storage configuration a catalog vended (Iceberg FileIO properties: s3.access-key-id, …). */
export type VendedConfig = Record<string, string>;

export type StoreFactory = (location: string, vended: VendedConfig) => Store | Promise<Store>;

/** Splits scheme://bucket/path into its parts. */
export function splitLocation(location: string): { scheme: string; bucket: string; path: string } {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/]*)\/?(.*)$/.exec(location);
  if (!m) throw new TimelakeError("INVALID_ARGUMENT", `timelake: the catalog's table location ${JSON.stringify(location)} is not scheme://bucket/path`);
  return { scheme: m[1]!.toLowerCase(), bucket: m[2]!, path: m[3]!.replace(/\/+$/, "") };
}

/** The factory the bridge calls; rooted stores and vended credentials as above. */
export function storeFactory(store: Store | StoreFactory | undefined): StoreFactory {
  if (typeof store === "function") return store;
  if (store !== undefined) {
    const missing = missingStoreMethods(store);
    if (missing.length > 0) throw new TimelakeError("INVALID_ARGUMENT", `timelake: options.store is neither a Store nor a function: missing ${missing.join(", ")}`);
    return (location) => {
      const { scheme, path } = splitLocation(location);
      if (scheme === "file") {
        throw new TimelakeError("INVALID_ARGUMENT", `timelake: the table is at ${location}: a file:// location needs a store factory, e.g. { store: (loc) => localStore(locationPath(loc)) }`);
      }
      return prefixStore(store, path, location);
    };
  }
  return vendedS3Store;
}

function vendedS3Store(location: string, v: VendedConfig): Store {
  const { scheme, bucket, path } = splitLocation(location);
  if (scheme !== "s3" && scheme !== "s3a" && scheme !== "s3n") {
    throw new TimelakeError("INVALID_ARGUMENT", `timelake: the table is at ${location}; give options.store (a Store or (location, vended) => Store): only s3:// tables get a store from vended credentials`);
  }
  const accessKeyId = v["s3.access-key-id"];
  const secretAccessKey = v["s3.secret-access-key"];
  if (!accessKeyId || !secretAccessKey) {
    throw new TimelakeError("INVALID_ARGUMENT", `timelake: the catalog vended no S3 credentials for ${location} (s3.access-key-id, s3.secret-access-key); give options.store`);
  }
  const endpoint = v["s3.endpoint"];
  const pathStyle = v["s3.path-style-access"];
  return s3Store({
    bucket,
    ...(path === "" ? {} : { prefix: path }),
    ...(endpoint ? { endpoint } : {}),
    region: v["s3.region"] || v["client.region"] || "us-east-1",
    credentials: { accessKeyId, secretAccessKey, sessionToken: v["s3.session-token"] || undefined },
    ...(pathStyle === undefined ? {} : { forcePathStyle: pathStyle === "true" }),
    location,
  });
}
