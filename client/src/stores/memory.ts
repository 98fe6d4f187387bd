/** memoryStore: a Store in a Map, for tests, browsers and short-lived tables. */
import { storeError } from "../errors.js";
import { checkKey, checkPrefix, overLimit, tooLarge, type Store, type StoreObject } from "../store.js";

/** A Store held in memory. `location` defaults to "memory://timelake". */
export interface MemoryStore extends Store {
  readonly location: string;
  /** The stored objects by key (for tests and inspection; do not modify). */
  readonly objects: ReadonlyMap<string, Uint8Array>;
}

export function memoryStore(options: { location?: string } = {}): MemoryStore {
  return spaceStore(options.location ?? "memory://timelake", new Map());
}

/**
 * A memory store in space: its siblings (Store.sibling: any other
 * location, a rollup's table say) are the stores of the same space, made
 * on first use, so every writer of a table reached from one memoryStore()
 * finds the same rollup tables.
 */
function spaceStore(location: string, space: Map<string, MemoryStore>): MemoryStore {
  const data = new Map<string, Uint8Array>();
  const modified = new Map<string, number>();
  const set = (key: string, bytes: Uint8Array) => {
    data.set(key, bytes.slice());
    modified.set(key, Date.now());
  };
  const store: MemoryStore = {
    location,
    objects: data,
    sibling(loc: string) {
      if (typeof loc !== "string" || loc === "" || loc === location) return undefined;
      let s = space.get(loc);
      if (s === undefined) space.set(loc, (s = spaceStore(loc, space)));
      return s;
    },
    async get(key, options) {
      checkKey(key);
      const d = data.get(key);
      if (d && overLimit(d.length, options)) throw tooLarge(key, d.length, options!.maxBytes!);
      return d ?? null;
    },
    async getRange(key, offset, length) {
      checkKey(key);
      const d = data.get(key);
      if (!d) return null;
      if (offset < 0 || length < 0 || offset + length > d.length) {
        throw storeError("RANGE", `range ${offset}+${length} past the end of ${key} (${d.length} bytes)`, key);
      }
      return d.subarray(offset, offset + length);
    },
    async put(key, bytes) {
      checkKey(key);
      set(key, bytes);
    },
    async putIfAbsent(key, bytes) {
      checkKey(key);
      if (data.has(key)) return false;
      set(key, bytes);
      return true;
    },
    async delete(keys) {
      for (const k of keys) checkKey(k);
      for (const k of keys) {
        data.delete(k);
        modified.delete(k);
      }
    },
    async list(prefix) {
      checkPrefix(prefix);
      const out: StoreObject[] = [];
      for (const [key, d] of data) {
        if (key.startsWith(prefix)) out.push({ key, size: d.length, lastModified: modified.get(key) ?? 0 });
      }
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
  };
  space.set(location, store);
  return store;
}
