// The test Worker, run in workerd by Miniflare with an R2 binding BUCKET.
//   POST /conformance            the Store conformance suite against r2Store
//   POST /create?prefix=&location=
//   POST /append?prefix=[&timeUnit=]  body: JSON array of rows; 64-bit values as strings
//   POST /create?prefix=&schema=      a table of the schema given as JSON (else the one below)
//   POST /append-arrow?prefix=        body: Arrow IPC bytes
//   POST /generate?prefix=&n=&seed=   appends n generated rows (for timings)
//   GET  /memory                 memory figures of the instance
// Module scope only records the compiled module: the Go runtime starts inside
// the first request.
import wasm from "../../src/timelake.wasm";
import {
  createTable,
  initWasm,
  memoryStats,
  openTable,
  r2Store,
  TimelakeError,
  RowError,
  type R2BucketLike,
  type TableWriter,
  type AppendResult,
  type TimeUnit,
} from "../../src/workers.js";
import { runConformance } from "../conformance.js";

initWasm(wasm);

interface Env {
  BUCKET: R2BucketLike;
}

const writers = new Map<string, TableWriter>();

function json(v: unknown, status = 200): Response {
  return new Response(JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x)), {
    status,
    headers: { "content-type": "application/json" },
  });
}

async function writer(env: Env, prefix: string): Promise<TableWriter> {
  let w = writers.get(prefix);
  if (!w) {
    w = await openTable(r2Store(env.BUCKET, { prefix }));
    writers.set(prefix, w);
  }
  return w;
}

function result(r: AppendResult) {
  return { ...r, memory: memoryStats() };
}

export default {
  async fetch(req: Request, env: Env): Promise<Response> {
    const url = new URL(req.url);
    const q = (k: string) => url.searchParams.get(k) ?? "";
    try {
      switch (url.pathname) {
        case "/conformance": {
          let i = 0;
          const run = q("run") || String(Date.now());
          return json(await runConformance(() => r2Store(env.BUCKET, { prefix: `conformance/${run}/${i++}` })));
        }
        case "/create": {
          const store = r2Store(env.BUCKET, { prefix: q("prefix"), location: q("location") });
          const w = await createTable(store, q("schema") ? JSON.parse(q("schema")) : {
            time: "ts",
            series: ["host", "shard"],
            columns: [
              { name: "shard", type: "long", required: true },
              { name: "cpu", type: "double" },
              { name: "mem", type: "long", required: true },
              { name: "note", type: "string" },
            ],
          });
          writers.set(q("prefix"), w);
          return json({ version: w.version });
        }
        case "/append": {
          const rows = (await req.json()) as object[];
          const w = await writer(env, q("prefix"));
          const opts = q("timeUnit") ? { timeUnit: q("timeUnit") as TimeUnit } : {};
          return json(result(await w.append(rows, opts)));
        }
        case "/append-arrow": {
          const w = await writer(env, q("prefix"));
          return json(result(await w.append(await req.arrayBuffer())));
        }
        case "/info":
          return json(await (await writer(env, q("prefix"))).info());
        case "/latest":
          return json(await (await writer(env, q("prefix"))).latest());
        case "/generate": {
          const n = Number(q("n"));
          const seed = Number(q("seed") || "0");
          const base = Date.UTC(2026, 10, 27) + seed * 86_400_000;
          const rows = new Array<object>(n);
          for (let i = 0; i < n; i++) {
            rows[i] = { ts: base + i * 100, host: `host-${i % 50}`, shard: BigInt(i % 3), cpu: (i % 997) / 7, mem: BigInt(i) * 1024n, note: `n${i % 5}` };
          }
          const w = await writer(env, q("prefix"));
          return json(result(await w.append(rows)));
        }
        case "/memory":
          return json(memoryStats() ?? null);
      }
      return json({ error: "no such route" }, 404);
    } catch (e) {
      if (e instanceof TimelakeError) {
        return json({ name: e.name, code: e.code, message: e.message, ...(e instanceof RowError ? { row: e.row, column: e.column } : {}) }, 400);
      }
      return json({ name: "Error", message: String(e instanceof Error ? e.stack : e) }, 500);
    }
  },
};
