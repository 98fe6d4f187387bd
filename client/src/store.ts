/**
 * The Store interface: a flat key space rooted at one table. Keys are
 * relative ("metadata/v3.metadata.json", "data/ts_day=2026-11-29/<uuid>.parquet")
 * and never leave the table: see checkKey.
 *
 * Any object with these six methods is a store. Methods may return Promises
 * or plain values; several calls are in flight at once during an append's
 * uploads.
 */
import { storeError, type StoreError } from "./errors.js";

export interface StoreObject {
  key: string;
  size: number;
  /** Milliseconds since the epoch, or a Date. Orphan cleanup needs the age. */
  lastModified: number | Date;
}

/** Options of Store.get. */
export interface GetOptions {
  /**
   * The largest object the caller accepts, in bytes. A store refuses a larger
   * object by its size (a stat, a Content-Length, R2's object size) before
   * reading its body, rejecting with code TOO_LARGE (see tooLarge). The core
   * passes it for every file whose size comes from storage: metadata
   * versions (128 MiB), manifests, manifest lists and indexes (256 MiB),
   * version-hint.text (1 KiB). A store that ignores it stays correct: the
   * core refuses the oversized object after it arrives, with the same error,
   * but the store has read it whole by then.
   */
  maxBytes?: number;
}

export interface Store {
  /** The whole object, or null when there is none; see GetOptions.maxBytes. */
  get(key: string, options?: GetOptions): Promise<Uint8Array | null>;
  /**
   * `length` bytes from `offset`, or null when there is no object. A range
   * past the end rejects with code RANGE (storeError("RANGE", …)) or returns
   * the shorter tail, which the core treats the same.
   */
  getRange(key: string, offset: number, length: number): Promise<Uint8Array | null>;
  /** Writes the object, replacing any; readers never see a partial object. */
  put(key: string, data: Uint8Array): Promise<void>;
  /** Writes only if no object exists; of concurrent calls for a key exactly one gets true. */
  putIfAbsent(key: string, data: Uint8Array): Promise<boolean>;
  /** Removes the objects; missing keys are not an error. */
  delete(keys: string[]): Promise<void>;
  /** Every object whose key starts with prefix, sorted by key. */
  list(prefix: string): Promise<StoreObject[]>;
  /** The URI outside readers resolve the table's file paths against (optional). */
  readonly location?: string;
  /**
   * The Store of the table at location when it sits beside this one (same
   * scheme, bucket and parent folder, as a rollup's table does by default:
   * "<location>__rollup_<name>"), else undefined. Optional: TableWriter's
   * addRollup, rollup and inline refresh use it to find a rollup's table
   * without being given its Store (r2Store, s3Store, prefixStore,
   * localStore and memoryStore have it; see stores/sibling.ts).
   */
  sibling?(location: string): Store | undefined;
}

const STORE_METHODS = ["get", "getRange", "put", "putIfAbsent", "delete", "list"] as const;

/** Names the Store methods obj lacks (empty when it is a store). */
export function missingStoreMethods(obj: unknown): string[] {
  if (obj === null || typeof obj !== "object") return [...STORE_METHODS];
  const o = obj as Record<string, unknown>;
  return STORE_METHODS.filter((m) => typeof o[m] !== "function");
}

/**
 * The rejection of a get whose object has more than maxBytes: a StoreError
 * with code TOO_LARGE, which the core reports as it reports an oversized
 * file from a Go store (CORRUPT_TABLE, or a fall-back where the core has one,
 * as for version-hint.text).
 */
export function tooLarge(key: string, size: number, maxBytes: number): StoreError {
  return storeError("TOO_LARGE", `object larger than the limit: ${JSON.stringify(key)} has ${size} bytes, the limit is ${maxBytes}`, key);
}

/** Whether an object of size bytes is over options.maxBytes (when given). */
export function overLimit(size: number, options?: GetOptions): boolean {
  return options?.maxBytes !== undefined && size > options.maxBytes;
}

/** The longest key accepted, as in the Go core (store.MaxKeyLen). */
export const MAX_KEY_LEN = 768;

/**
 * Refuses keys that are empty, absolute, have "." or ".." or empty segments,
 * backslashes, control characters or lone surrogates, or are longer than
 * MAX_KEY_LEN bytes: the same rules as the Go core's store.CheckKey. Throws a
 * StoreError with code BAD_KEY.
 */
export function checkKey(key: string): void {
  const bad = (why: string) => storeError("BAD_KEY", `key not allowed: ${JSON.stringify(key)}: ${why}`, key);
  if (typeof key !== "string") throw bad("not a string");
  if (key === "") throw bad("empty");
  if (utf8Length(key) > MAX_KEY_LEN) throw bad(`longer than ${MAX_KEY_LEN} bytes`);
  if (!key.isWellFormed()) throw bad("not UTF-8");
  if (key.startsWith("/")) throw bad("absolute");
  if (key.includes("\\")) throw bad("backslash");
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) throw bad("control character");
  }
  for (const seg of key.split("/")) {
    if (seg === "") throw bad("empty path segment");
    if (seg === "." || seg === "..") throw bad("dot segment");
  }
}

/** checkKey for list prefixes: "" and a trailing "/" are allowed. */
export function checkPrefix(prefix: string): void {
  if (prefix === "") return;
  checkKey(prefix.endsWith("/") ? prefix.slice(0, -1) : prefix);
}

/** The UTF-8 length of s, as TextEncoder would encode it. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3; // a lone surrogate becomes U+FFFD
    } else n += 3;
  }
  return n;
}
