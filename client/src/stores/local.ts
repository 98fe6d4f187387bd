/**
 * localStore: a Store in a directory of the local filesystem (Node, Deno,
 * Bun), laid out like the Go core's dirstore so that the CLI and this client
 * share tables: key "a/b" is the file <dir>/a/b.
 *
 * Writes go to a temporary file in <dir>/.timelake-tmp/ first. put renames it
 * over the key (atomic replace); putIfAbsent hard-links it to the key, which
 * fails with EEXIST when the key exists: an atomic create-if-absent that
 * never exposes a partial object.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { StoreError, storeError } from "../errors.js";
import { checkKey, checkPrefix, overLimit, tooLarge, type Store, type StoreObject } from "../store.js";

/** The directory under the root that holds objects being written. */
export const TEMP_DIR = ".timelake-tmp";

export interface LocalStore extends Store {
  readonly location: string;
  readonly dir: string;
}

function code(e: unknown): string | undefined {
  return typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : undefined;
}

/**
 * The location of directory dir as written into a table's metadata:
 * file:// and the absolute path as it is, not percent-encoded
 * ("file:///data/my tablé"), as Iceberg Java and the Go core write it and
 * pyiceberg and DuckDB open it.
 */
export function fileLocation(dir: string): string {
  const p = path.resolve(dir).split(path.sep).join("/");
  return "file://" + (p.startsWith("/") ? "" : "/") + p;
}

/** Whether a path looks percent-encoded: an escape, every "%" one, nothing an encoder escapes left as it is. */
function looksEncoded(p: string): boolean {
  if (/[\s"#?<>`{}|^\u007f-\uffff\\]/.test(p) || /[\u0000-\u001f]/.test(p)) return false;
  return /%[0-9a-fA-F]{2}/.test(p) && !/%(?![0-9a-fA-F]{2})/.test(p);
}

/**
 * The directory of a file location (file:///p, file:/p, file://localhost/p,
 * or a bare /p): its path as written when that exists, else percent-decoded
 * when it looks encoded (a table an older writer placed at
 * file:///data/my%20table is in /data/my table), else as written. For a
 * catalog table: { store: (loc) => localStore(locationPath(loc)) }.
 */
export function locationPath(location: string): string {
  const m = /^file:(?:\/\/(?:localhost)?(?=\/)|(?=\/))(.*)$/i.exec(location);
  const p = m ? m[1]! : location.startsWith("/") ? location : undefined;
  if (p === undefined) throw storeError("BAD_KEY", `localStore: ${JSON.stringify(location)} is not a file location (file:///absolute/path)`);
  if (existsSync(p) || !looksEncoded(p)) return p;
  try {
    const d = decodeURIComponent(p);
    return d.includes("\0") || d.includes("\\") ? p : d;
  } catch {
    return p;
  }
}

export function localStore(dir: string): LocalStore {
  const root = path.resolve(dir);
  const token = randomBytes(6).toString("hex");
  let seq = 0;
  const file = (key: string) => path.join(root, ...key.split("/"));
  const fail = (op: string, key: string, e: unknown) =>
    storeError("STORE_ERROR", `localStore ${op} ${JSON.stringify(key)}: ${e instanceof Error ? e.message : String(e)}`, key, e);

  async function writeTemp(data: Uint8Array): Promise<string> {
    const tmp = path.join(root, TEMP_DIR, `${token}-${++seq}.tmp`);
    await fs.mkdir(path.dirname(tmp), { recursive: true });
    const fh = await fs.open(tmp, "wx");
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    return tmp;
  }

  /** key's file open for reading; null when there is none (ENOENT, or a file where a folder of the key is: ENOTDIR). */
  async function openForRead(op: string, key: string): Promise<fs.FileHandle | null> {
    try {
      return await fs.open(file(key), "r");
    } catch (e) {
      if (code(e) === "ENOENT" || code(e) === "ENOTDIR") return null;
      throw fail(op, key, e);
    }
  }

  async function walk(rel: string, out: StoreObject[], prefix: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(path.join(root, rel), { withFileTypes: true });
    } catch (e) {
      if (code(e) === "ENOENT") return;
      throw e;
    }
    for (const ent of entries) {
      const key = rel === "" ? ent.name : `${rel}/${ent.name}`;
      if (key === TEMP_DIR) continue;
      // Skip subtrees that cannot hold a key with the prefix.
      if (!(key.startsWith(prefix) || prefix.startsWith(key + "/"))) continue;
      if (ent.isDirectory()) await walk(key, out, prefix);
      else if (ent.isFile() && key.startsWith(prefix)) {
        const st = await fs.stat(path.join(root, key));
        out.push({ key, size: st.size, lastModified: st.mtimeMs });
      }
    }
  }

  return {
    location: fileLocation(root),
    dir: root,
    // A directory beside this one (a rollup's default location), nowhere else.
    sibling(loc: string) {
      let dir: string;
      try {
        dir = path.resolve(locationPath(loc));
      } catch {
        return undefined;
      }
      return dir !== root && path.dirname(dir) === path.dirname(root) ? localStore(dir) : undefined;
    },
    async get(key, options) {
      checkKey(key);
      const fh = await openForRead("get", key);
      if (fh === null) return null;
      try {
        // The size from the open file, before reading it: a file over the
        // limit is never read.
        const size = (await fh.stat()).size;
        if (overLimit(size, options)) throw tooLarge(key, size, options!.maxBytes!);
        return new Uint8Array(await fh.readFile());
      } catch (e) {
        if (e instanceof StoreError) throw e;
        throw fail("get", key, e);
      } finally {
        await fh.close();
      }
    },
    async getRange(key, offset, length) {
      checkKey(key);
      const fh = await openForRead("getRange", key);
      if (fh === null) return null;
      try {
        const size = (await fh.stat()).size;
        if (offset < 0 || length < 0 || offset + length > size) {
          throw storeError("RANGE", `range ${offset}+${length} past the end of ${key} (${size} bytes)`, key);
        }
        const buf = new Uint8Array(length);
        let done = 0;
        while (done < length) {
          const { bytesRead } = await fh.read(buf, done, length - done, offset + done);
          if (bytesRead === 0) throw storeError("RANGE", `${key} ended at ${offset + done} bytes`, key);
          done += bytesRead;
        }
        return buf;
      } finally {
        await fh.close();
      }
    },
    async put(key, data) {
      checkKey(key);
      let tmp: string | undefined;
      try {
        tmp = await writeTemp(data);
        await fs.mkdir(path.dirname(file(key)), { recursive: true });
        await fs.rename(tmp, file(key));
        tmp = undefined;
      } catch (e) {
        throw fail("put", key, e);
      } finally {
        if (tmp) await fs.rm(tmp, { force: true });
      }
    },
    async putIfAbsent(key, data) {
      checkKey(key);
      let tmp: string | undefined;
      try {
        tmp = await writeTemp(data);
        await fs.mkdir(path.dirname(file(key)), { recursive: true });
        try {
          await fs.link(tmp, file(key));
          return true;
        } catch (e) {
          if (code(e) === "EEXIST") return false;
          throw e;
        }
      } catch (e) {
        throw fail("putIfAbsent", key, e);
      } finally {
        if (tmp) await fs.rm(tmp, { force: true });
      }
    },
    async delete(keys) {
      for (const k of keys) checkKey(k);
      for (const k of keys) {
        try {
          await fs.unlink(file(k));
        } catch (e) {
          if (code(e) !== "ENOENT" && code(e) !== "ENOTDIR") throw fail("delete", k, e);
        }
      }
    },
    async list(prefix) {
      checkPrefix(prefix);
      const out: StoreObject[] = [];
      try {
        await walk("", out, prefix);
      } catch (e) {
        throw fail("list", prefix, e);
      }
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
  };
}
