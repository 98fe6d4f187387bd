// WebAssembly writers driven over stdin/stdout, for the shared-writer tests
// (go test ./wasm/e2e: TestNativeAndWasmWritersInTurn, TestCLINodeWorkerdInTurn),
// which interleave them with the native writer (in-process Go, or the
// timelake CLI binary) on one table directory: Node writers through
// localStore, and the test Worker in workerd (Miniflare, R2 binding).
//
// Requests, one JSON object a line on stdin; replies on stdout:
//   {"id":1,"op":"open","name":"a"[,"dir":D]}              → {"id":1,"ok":true,"result":{"version":3}}
//       (dir: another table directory than the one on the command line)
//   {"id":2,"op":"append","name":"a","file":"b.ndjson"}   → the append result
//   {"id":3,"op":"maintain","name":"a","options":{…}}     → the maintain result
//   {"id":4,"op":"hook"}  arms a pause before the next conditional metadata write:
//       the driver prints {"event":"before-commit","key":…} and waits for
//       {"op":"continue"} (the test commits from the other writer meanwhile)
//   {"id":5,"op":"worker-start"}  starts the test Worker (dist/test/worker) in
//       workerd, its bucket persisted under <table dir>.r2
//   {"id":6,"op":"worker","path":"/append?prefix=t"[,"file":"b.ndjson"]}
//       a POST to the Worker (the file's rows as a JSON array for a body); the
//       result is its JSON reply (a non-200 reply rejects with its code)
//
// The Worker's table is the bucket prefix "t", mirrored with the table
// directory: Miniflare persists R2 as a SQLite index plus content-named blobs,
// not as files named by key, so no directory can be shared with it. Before
// each Worker request the directory is copied into the bucket, and after it
// the bucket back into the directory, each copy deleting what the source no
// longer has: at every turn boundary both hold the same objects, and the
// Worker reads what the other writers committed in between. The Worker's
// HOOK (/maintain?hook=1) pauses like the hook above: the bucket is copied out
// before the pause and the directory back in after it, so the writer that
// commits in the pause works on the same objects as the Worker.
// Errors: {"id":…,"ok":false,"code":…,"message":…}. bigints travel as strings.
// Usage: node dist/test/e2e/driver.js <table dir>
import * as fs from "node:fs/promises";
import * as path from "node:path";
import * as readline from "node:readline";
import type { Miniflare } from "miniflare";
import { openTable, TimelakeError, type MaintainOptions, type Store, type TableWriter } from "../../src/index.js";
import { localStore } from "../../src/stores/local.js";
import type { R2BucketLike } from "../../src/stores/r2.js";
import { bucketOf, startWorker } from "../mf.js";

const dir = process.argv[2];
if (!dir) throw new Error("usage: driver.js <table dir>");

const writers = new Map<string, TableWriter>();
let armed = false;
let resume: (() => void) | undefined;

const send = (v: unknown) => process.stdout.write(JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x)) + "\n");

/** Waits for the test to commit from another writer (before-commit … continue). */
function pause(key: string): Promise<void> {
  return new Promise<void>((r) => {
    resume = r;
    send({ event: "before-commit", key });
  });
}

/** localStore(d), pausing before the armed conditional metadata write. */
function hookedStore(d: string): Store {
  const s = localStore(d);
  return {
    location: s.location,
    get: (k) => s.get(k),
    getRange: (k, o, n) => s.getRange(k, o, n),
    put: (k, d) => s.put(k, d),
    delete: (k) => s.delete(k),
    list: (p) => s.list(p),
    async putIfAbsent(k, d) {
      if (armed && /^metadata\/v\d+\.metadata\.json$/.test(k)) {
        armed = false;
        await pause(k);
      }
      return s.putIfAbsent(k, d);
    },
  };
}

function writer(name: string): TableWriter {
  const w = writers.get(name);
  if (!w) throw new TimelakeError("INVALID_ARGUMENT", `no writer ${name}`);
  return w;
}

interface Request {
  id: number;
  op: string;
  name?: string;
  dir?: string;
  file?: string;
  path?: string;
  options?: MaintainOptions;
}

const PREFIX = "t/";
let mf: Miniflare | undefined;

/** The table directory's files, relative with "/" (temporary files skipped). */
async function dirFiles(root: string): Promise<Set<string>> {
  const out = new Set<string>();
  for (const e of await fs.readdir(root, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const rel = path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join("/");
    if (!rel.split("/").some((p) => p.startsWith("."))) out.add(rel);
  }
  return out;
}

async function bucketKeys(b: R2BucketLike): Promise<Set<string>> {
  const out = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await b.list({ prefix: PREFIX, ...(cursor ? { cursor } : {}) });
    for (const o of page.objects) out.add(o.key.slice(PREFIX.length));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out;
}

/** Makes the bucket hold exactly the directory's files. */
async function dirToBucket(): Promise<void> {
  const b = await bucketOf(mf!);
  const files = await dirFiles(dir!);
  for (const f of files) await b.put(PREFIX + f, new Uint8Array(await fs.readFile(path.join(dir!, f))));
  const gone = [...(await bucketKeys(b))].filter((k) => !files.has(k));
  if (gone.length) await b.delete(gone.map((k) => PREFIX + k));
}

/** Makes the directory hold exactly the bucket's objects. */
async function bucketToDir(): Promise<void> {
  const b = await bucketOf(mf!);
  const keys = await bucketKeys(b);
  for (const k of keys) {
    const o = await b.get(PREFIX + k);
    if (!o) throw new Error(`bucket: ${k} listed but not found`);
    const file = path.join(dir!, ...k.split("/"));
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, new Uint8Array(await o.arrayBuffer()));
  }
  for (const f of await dirFiles(dir!)) if (!keys.has(f)) await fs.rm(path.join(dir!, f));
}

/** The Worker's HOOK: pauses (when armed) with the bucket mirrored out. */
async function workerHook(): Promise<Response> {
  if (armed) {
    armed = false;
    await bucketToDir();
    await pause("(worker)");
    await dirToBucket();
  }
  return new Response("ok");
}

async function workerCall(p: string, file?: string): Promise<unknown> {
  if (!mf) throw new TimelakeError("INVALID_ARGUMENT", "worker-start first");
  await dirToBucket();
  let body: string | undefined;
  if (file) body = JSON.stringify((await fs.readFile(file, "utf8")).split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as object));
  const res = await mf.dispatchFetch(`http://worker${p}`, { method: "POST", ...(body ? { body } : {}) });
  const j = (await res.json()) as { code?: string; message?: string };
  await bucketToDir();
  if (res.status !== 200) throw new TimelakeError((j.code ?? "ERROR") as never, `worker ${p}: ${res.status} ${j.message ?? JSON.stringify(j)}`);
  return j;
}

async function run(req: Request): Promise<unknown> {
  switch (req.op) {
    case "open": {
      const w = await openTable(hookedStore(req.dir ?? dir!));
      writers.set(req.name!, w);
      return { version: w.version };
    }
    case "append": {
      const text = await fs.readFile(req.file!, "utf8");
      const rows = text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as object);
      return writer(req.name!).append(rows);
    }
    case "maintain":
      return writer(req.name!).maintain(req.options ?? {});
    case "hook":
      armed = true;
      return {};
    case "worker-start":
      mf ??= await startWorker(dir!.replace(/\/+$/, "") + ".r2", workerHook);
      return {};
    case "worker":
      return workerCall(req.path!, req.file);
  }
  throw new TimelakeError("INVALID_ARGUMENT", `unknown op ${req.op}`);
}

let chain: Promise<void> = Promise.resolve();
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (line.trim() === "") continue;
  const req = JSON.parse(line) as Request;
  if (req.op === "continue") {
    const r = resume;
    resume = undefined;
    r?.();
    continue;
  }
  // Requests run in order, but the loop keeps reading (a paused request waits for "continue").
  chain = chain.then(async () => {
    try {
      send({ id: req.id, ok: true, result: await run(req) });
    } catch (e) {
      send({ id: req.id, ok: false, code: e instanceof TimelakeError ? e.code : "ERROR", message: e instanceof Error ? e.message : String(e) });
    }
  });
}
await chain;
await mf?.dispose();
