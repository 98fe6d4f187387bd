/**
 * prefixStore: a Store over the keys of another under a folder. The table
 * of a catalog whose location is s3://bucket/path/to/table has its files
 * under path/to/table/ in a Store rooted at the bucket.
 */
import type { GetOptions, Store, StoreObject } from "../store.js";
import { siblingPrefix } from "./sibling.js";

export function prefixStore(inner: Store, prefix: string, location?: string): Store {
  const p = prefix.replace(/^\/+|\/+$/g, "");
  if (p === "") return inner;
  const k = (key: string) => `${p}/${key}`;
  const cut = p.length + 1;
  return {
    get: (key: string, options?: GetOptions) => inner.get(k(key), options),
    getRange: (key: string, offset: number, length: number) => inner.getRange(k(key), offset, length),
    put: (key: string, data: Uint8Array) => inner.put(k(key), data),
    putIfAbsent: (key: string, data: Uint8Array) => inner.putIfAbsent(k(key), data),
    delete: (keys: string[]) => inner.delete(keys.map(k)),
    list: async (sub: string): Promise<StoreObject[]> => (await inner.list(k(sub))).map((o) => ({ ...o, key: o.key.slice(cut) })),
    ...(location === undefined
      ? {}
      : {
          location,
          sibling: (loc: string) => {
            const s = siblingPrefix(location, p, loc);
            return s === undefined ? undefined : prefixStore(inner, s, loc);
          },
        }),
  };
}
