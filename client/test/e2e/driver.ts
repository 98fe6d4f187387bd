// A WebAssembly writer driven over stdin/stdout, for the shared-writer test
// (go test ./wasm/e2e: TestNativeAndWasmWritersInTurn), which interleaves it
// with the native Go writer on one table directory (localStore).
//
// Requests, one JSON object a line on stdin; replies on stdout:
//   {"id":1,"op":"open","name":"a"}                       → {"id":1,"ok":true,"result":{"version":3}}
//   {"id":2,"op":"append","name":"a","file":"b.ndjson"}   → the append result
//   {"id":3,"op":"maintain","name":"a","options":{…}}     → the maintain result
//   {"id":4,"op":"hook"}  arms a pause before the next conditional metadata write:
//       the driver prints {"event":"before-commit","key":…} and waits for
//       {"op":"continue"} (the test commits from the other writer meanwhile)
// Errors: {"id":…,"ok":false,"code":…,"message":…}. bigints travel as strings.
// Usage: node dist/test/e2e/driver.js <table dir>
import * as fs from "node:fs/promises";
import * as readline from "node:readline";
import { openTable, TimelakeError, type MaintainOptions, type Store, type TableWriter } from "../../src/index.js";
import { localStore } from "../../src/stores/local.js";

const dir = process.argv[2];
if (!dir) throw new Error("usage: driver.js <table dir>");

const writers = new Map<string, TableWriter>();
let armed = false;
let resume: (() => void) | undefined;

const send = (v: unknown) => process.stdout.write(JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x)) + "\n");

/** localStore(dir), pausing before the armed conditional metadata write. */
function hookedStore(): Store {
  const s = localStore(dir!);
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
        await new Promise<void>((r) => {
          resume = r;
          send({ event: "before-commit", key: k });
        });
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
  file?: string;
  options?: MaintainOptions;
}

async function run(req: Request): Promise<unknown> {
  switch (req.op) {
    case "open": {
      const w = await openTable(hookedStore());
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
