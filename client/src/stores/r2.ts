/**
 * r2Store: a Store over a Cloudflare R2 bucket binding. The conditional
 * create is a put with `onlyIf: If-None-Match: *`, which resolves to null
 * when the key already exists.
 */
import { storeError } from "../errors.js";
import { checkKey, checkPrefix, overLimit, tooLarge, type Store, type StoreObject } from "../store.js";
import { siblingPrefix } from "./sibling.js";

/** The part of the Workers R2Bucket type this store uses. */
export interface R2BucketLike {
  get(key: string, options?: { range?: { offset: number; length: number } }): Promise<R2ObjectBodyLike | null>;
  head(key: string): Promise<{ size: number } | null>;
  put(key: string, value: Uint8Array, options?: { onlyIf?: Headers }): Promise<unknown | null>;
  delete(keys: string | string[]): Promise<void>;
  list(options?: { prefix?: string; cursor?: string; limit?: number }): Promise<{
    objects: { key: string; size: number; uploaded: Date }[];
    truncated: boolean;
    cursor?: string;
  }>;
}

export interface R2ObjectBodyLike {
  size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
  /** The body as a stream; cancelled unread when the object is over a get's maxBytes. */
  body?: ReadableStream;
}

export interface R2StoreOptions {
  /** Where the table lives in the bucket, e.g. "tables/metrics" (no leading or trailing "/"). */
  prefix?: string;
  /** The table location written into its metadata; default r2://<bucketName>/<prefix>. */
  location?: string;
  /** Used for the default location. */
  bucketName?: string;
}

export interface R2Store extends Store {
  readonly location: string;
}

export function r2Store(bucket: R2BucketLike, options: R2StoreOptions = {}): R2Store {
  const prefix = (options.prefix ?? "").replace(/^\/+|\/+$/g, "");
  if (prefix !== "") checkKey(prefix);
  const base = prefix === "" ? "" : prefix + "/";
  const full = (key: string) => base + key;
  const fail = (op: string, key: string, e: unknown) =>
    storeError("STORE_ERROR", `r2Store ${op} ${JSON.stringify(key)}: ${e instanceof Error ? e.message : String(e)}`, key, e);
  const location = options.location || `r2://${options.bucketName ?? "bucket"}${prefix ? "/" + prefix : ""}`;
  return {
    location,
    sibling: (loc: string) => {
      const p = siblingPrefix(location, prefix, loc);
      return p === undefined ? undefined : r2Store(bucket, { ...options, prefix: p, location: loc });
    },
    async get(key, options) {
      checkKey(key);
      let o: R2ObjectBodyLike | null;
      try {
        o = await bucket.get(full(key));
      } catch (e) {
        throw fail("get", key, e);
      }
      if (!o) return null;
      // R2 gives the object's size with its metadata, before the body streams.
      if (overLimit(o.size, options)) {
        await o.body?.cancel().catch(() => {});
        throw tooLarge(key, o.size, options!.maxBytes!);
      }
      try {
        return new Uint8Array(await o.arrayBuffer());
      } catch (e) {
        throw fail("get", key, e);
      }
    },
    async getRange(key, offset, length) {
      checkKey(key);
      const past = (size: number | string) =>
        storeError("RANGE", `range ${offset}+${length} past the end of ${key} (${size} bytes)`, key);
      if (offset < 0 || length < 0) throw past("?");
      if (length === 0) {
        // R2 has no empty range; ask for the size instead.
        const h = await bucket.head(full(key)).catch((e: unknown) => Promise.reject(fail("getRange", key, e)));
        if (!h) return null;
        if (offset > h.size) throw past(h.size);
        return new Uint8Array(0);
      }
      let o: R2ObjectBodyLike | null;
      try {
        o = await bucket.get(full(key), { range: { offset, length } });
      } catch (e) {
        // A range starting past the end: "The requested range is not satisfiable (10039)".
        if (/\b10039\b|not satisfiable/i.test(String(e))) throw past("fewer");
        throw fail("getRange", key, e);
      }
      if (!o) return null;
      if (offset + length > o.size) throw past(o.size);
      return new Uint8Array(await o.arrayBuffer());
    },
    async put(key, data) {
      checkKey(key);
      try {
        await bucket.put(full(key), data);
      } catch (e) {
        throw fail("put", key, e);
      }
    },
    async putIfAbsent(key, data) {
      checkKey(key);
      try {
        const r = await bucket.put(full(key), data, { onlyIf: new Headers({ "If-None-Match": "*" }) });
        return r !== null;
      } catch (e) {
        throw fail("putIfAbsent", key, e);
      }
    },
    async delete(keys) {
      for (const k of keys) checkKey(k);
      try {
        for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000).map(full));
      } catch (e) {
        throw fail("delete", keys[0] ?? "", e);
      }
    },
    async list(p) {
      checkPrefix(p);
      const out: StoreObject[] = [];
      let cursor: string | undefined;
      try {
        do {
          const page = await bucket.list({ prefix: full(p), limit: 1000, ...(cursor ? { cursor } : {}) });
          for (const o of page.objects) {
            out.push({ key: o.key.slice(base.length), size: o.size, lastModified: o.uploaded.getTime() });
          }
          cursor = page.truncated ? page.cursor : undefined;
        } while (cursor);
      } catch (e) {
        throw fail("list", p, e);
      }
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
  };
}
