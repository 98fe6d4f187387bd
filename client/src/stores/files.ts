/**
 * fileListStore: a read-only Store over files the user handed to a page —
 * an <input type=file webkitdirectory>'s FileList, a dropped folder, or a
 * folder picked with showDirectoryPicker (walked by directoryFiles) — so a
 * browser can open a table from the local disk without uploading it.
 *
 * Keys are the files' paths below the table's folder. The files are
 * snapshots taken when picked: a table written to afterwards is seen as it
 * was (pick it again to see more). Writes reject with STORE_ERROR.
 */
import { storeError } from "../errors.js";
import { checkKey, checkPrefix, overLimit, tooLarge, type Store, type StoreObject } from "../store.js";

/** A File (its path: webkitRelativePath, else its name), or a path and its bytes. */
export type FileEntry = File | readonly [path: string, blob: Blob];

export interface FileListStore extends Store {
  /** The folder (a path among the files', "" for the top) that holds the table. */
  readonly root: string;
  /** Every folder among the files holding a table (a metadata/*.metadata.json), shortest first. */
  readonly tables: readonly string[];
}

export interface FileListOptions {
  /** The table's folder among the files' paths; default the first of tables (else the top). */
  root?: string;
  /** The Store's location, if known (the table's own location is in its metadata). */
  location?: string;
}

interface Held {
  blob: Blob;
  lastModified: number;
}

function entryOf(e: FileEntry): [string, Held] {
  if (Array.isArray(e)) {
    const [p, blob] = e as readonly [string, Blob];
    return [p, { blob, lastModified: (blob as Partial<File>).lastModified ?? 0 }];
  }
  const f = e as File;
  return [(f as { webkitRelativePath?: string }).webkitRelativePath || f.name, { blob: f, lastModified: f.lastModified }];
}

const clean = (p: string) => p.replace(/\\/g, "/").replace(/^\/+|\/+$/g, "");

/** The folders holding a table: the parents of metadata/ folders with a *.metadata.json. */
export function tableFolders(paths: Iterable<string>): string[] {
  const found = new Set<string>();
  for (const p of paths) {
    const m = /^(?:(.*)\/)?metadata\/[^/]+\.metadata\.json$/.exec(p);
    if (m) found.add(m[1] ?? "");
  }
  return [...found].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
}

export function fileListStore(files: Iterable<FileEntry> | ArrayLike<FileEntry>, options: FileListOptions = {}): FileListStore {
  const all = new Map<string, Held>();
  for (const e of Array.from(files as ArrayLike<FileEntry>)) {
    const [p, held] = entryOf(e);
    all.set(clean(p), held);
  }
  return over(all, options.root === undefined ? undefined : clean(options.root), options.location);
}

function over(all: Map<string, Held>, root: string | undefined, location: string | undefined): FileListStore {
  const tables = tableFolders(all.keys());
  const dir = root ?? tables[0] ?? "";
  const pre = dir === "" ? "" : dir + "/";
  const held = (key: string) => {
    checkKey(key);
    return all.get(pre + key);
  };
  const readOnly = async (): Promise<never> => {
    throw storeError("STORE_ERROR", "fileListStore is read-only: the files were picked in the browser");
  };
  return {
    root: dir,
    tables,
    ...(location === undefined ? {} : { location }),
    async get(key, options) {
      const h = held(key);
      if (!h) return null;
      if (overLimit(h.blob.size, options)) throw tooLarge(key, h.blob.size, options!.maxBytes!);
      return new Uint8Array(await h.blob.arrayBuffer());
    },
    async getRange(key, offset, length) {
      const h = held(key);
      if (!h) return null;
      if (offset < 0 || length < 0 || offset + length > h.blob.size) {
        throw storeError("RANGE", `range ${offset}+${length} past the end of ${key} (${h.blob.size} bytes)`, key);
      }
      return new Uint8Array(await h.blob.slice(offset, offset + length).arrayBuffer());
    },
    put: readOnly,
    putIfAbsent: readOnly,
    delete: readOnly,
    async list(prefix) {
      checkPrefix(prefix);
      const out: StoreObject[] = [];
      for (const [p, h] of all) {
        if (p.startsWith(pre + prefix) && p.length > pre.length) {
          out.push({ key: p.slice(pre.length), size: h.blob.size, lastModified: h.lastModified });
        }
      }
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    /**
     * A table beside this one (a rollup's: "<location>__rollup_<name>"):
     * the folder of the location's last segment in the same parent, when
     * the files hold a table there.
     */
    sibling(loc: string) {
      const name = clean(loc).split("/").pop() ?? "";
      const parent = dir.includes("/") ? dir.slice(0, dir.lastIndexOf("/") + 1) : "";
      const other = parent + name;
      if (name === "" || other === dir || !tables.includes(other)) return undefined;
      return over(all, other, loc);
    },
  };
}

/** The bit of FileSystemDirectoryHandle that directoryFiles uses. */
export interface DirectoryHandleLike {
  kind: "directory";
  name: string;
  values(): AsyncIterable<{ kind: "file" | "directory"; name: string }>;
}

/**
 * Every file under a FileSystemDirectoryHandle (showDirectoryPicker, or a
 * dropped item's getAsFileSystemHandle) with its path below it, for
 * fileListStore. Folders named ".timelake-tmp" (writes in progress) are skipped.
 */
export async function directoryFiles(dir: DirectoryHandleLike, base = ""): Promise<[string, File][]> {
  const out: [string, File][] = [];
  for await (const h of dir.values()) {
    const p = base === "" ? h.name : `${base}/${h.name}`;
    if (h.kind === "directory") {
      if (h.name !== ".timelake-tmp") out.push(...(await directoryFiles(h as unknown as DirectoryHandleLike, p)));
    } else {
      out.push([p, await (h as unknown as { getFile(): Promise<File> }).getFile()]);
    }
  }
  return out;
}
