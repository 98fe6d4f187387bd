// The test Worker, run in workerd by Miniflare with an R2 binding BUCKET.
//   POST /conformance            the Store conformance suite against r2Store
//   POST /create?prefix=&location=
//   POST /append?prefix=[&timeUnit=]  body: JSON array of rows; 64-bit values as strings
//   POST /create?prefix=&schema=      a table of the schema given as JSON (else the one below)
//   POST /append-arrow?prefix=        body: Arrow IPC bytes
//   POST /append?prefix=&maps=1       the rows' tags objects as Maps
//   POST /scan?prefix=                body: ScanOptions JSON; the rows (of a newly opened table)
//   POST /append-typed?prefix=        body: JSON rows in which {"$bigint": "digits"} is a bigint
//                                and {"$map": [[key, value], …]} a Map (nested values)
//   POST /scan-typed?prefix=          as /scan, each bigint answered as {"$bigint": "digits"}
//   POST /scan-arrow?prefix=          body: ScanOptions JSON; scan(o).arrow()'s bytes
//   POST /generate?prefix=&n=&seed=   appends n generated rows (for timings)
//   GET  /memory                 memory figures of the instance
//   POST /maintain?prefix=[&opts=JSON][&hook=1]  TableWriter.maintain(opts); with
//                                hook=1 the writer's store calls HOOK before
//                                each metadata commit (a test lets another
//                                writer win it)
//   POST /delete?prefix=            body: DeleteOptions JSON; TableWriter.delete
//   POST /info?prefix=[&fresh=1] info, latest and memory figures
//   POST /open?prefix=[&rollups=broken]  (re)opens the writer of /append at the newest
//                                version; rollups=broken: its rollup tables' store
//                                (openTable's rollupStore option) fails every read
//   POST /rollup-add?prefix=     an hourly inline rollup (cpu max, avg; mem max),
//                                no Store given: r2Store's sibling
//   POST /rollup-rows?prefix=[&fresh=1]  the hourly rollup's rows, opened by rollup(name)
//                                (of a newly opened writer with fresh=1)
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
  type MaintainOptions,
  type SchemaChange,
  type DeleteOptions,
  type ScanOptions,
} from "../../src/workers.js";
import { runConformance } from "../conformance.js";

initWasm(wasm);

interface Env {
  BUCKET: R2BucketLike;
  /** Optional: a Node function the test binds (Miniflare serviceBindings). */
  HOOK?: { fetch(url: string, init?: RequestInit): Promise<Response> };
}

/** A store that awaits HOOK before every conditional metadata write. */
function hooked(store: ReturnType<typeof r2Store>, env: Env) {
  return {
    ...store,
    location: store.location,
    get: store.get.bind(store),
    getRange: store.getRange.bind(store),
    put: store.put.bind(store),
    delete: store.delete.bind(store),
    list: store.list.bind(store),
    async putIfAbsent(key: string, data: Uint8Array) {
      if (env.HOOK && /^metadata\/v\d+\.metadata\.json$/.test(key)) await (await env.HOOK.fetch(`http://hook/before?key=${encodeURIComponent(key)}`)).text();
      return store.putIfAbsent(key, data);
    },
  };
}

const writers = new Map<string, TableWriter>();

/** JSON.parse's reviver for /append-typed: {"$bigint": "digits"} a bigint, {"$map": [[k, v], …]} a Map. */
function typedValue(_k: string, x: unknown): unknown {
  if (x && typeof x === "object" && !Array.isArray(x)) {
    const o = x as Record<string, unknown>;
    if (typeof o["$bigint"] === "string") return BigInt(o["$bigint"]);
    if (Array.isArray(o["$map"])) return new Map(o["$map"] as [unknown, unknown][]);
  }
  return x;
}

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
          const properties = q("props") ? (JSON.parse(q("props")) as Record<string, string>) : {};
          const w = await createTable(store, q("schema") ? JSON.parse(q("schema")) : {
            time: "ts",
            series: ["host", "shard"],
            columns: [
              { name: "shard", type: "long", required: true },
              { name: "cpu", type: "double" },
              { name: "mem", type: "long", required: true },
              { name: "note", type: "string" },
            ],
          }, { properties });
          writers.set(q("prefix"), w);
          return json({ version: w.version });
        }
        case "/append": {
          let rows = (await req.json()) as object[];
          if (q("maps")) rows = rows.map((r) => ("tags" in r && r.tags && typeof r.tags === "object" ? { ...r, tags: new Map(Object.entries(r.tags)) } : r));
          const w = await writer(env, q("prefix"));
          const opts = { ...(q("timeUnit") ? { timeUnit: q("timeUnit") as TimeUnit } : {}), ...(q("evolve") ? { evolve: true } : {}) };
          return json(result(await w.append(rows, opts)));
        }
        case "/append-typed": {
          const rows = JSON.parse(await req.text(), typedValue) as object[];
          const w = await writer(env, q("prefix"));
          return json(result(await w.append(rows)));
        }
        case "/scan-typed": {
          const t = await openTable(r2Store(env.BUCKET, { prefix: q("prefix") }));
          const rows = [];
          for await (const r of t.scan((await req.json()) as ScanOptions).rows()) rows.push(r);
          await t.close();
          const text = JSON.stringify(rows, (_k, x) => (typeof x === "bigint" ? { $bigint: x.toString() } : x));
          return new Response(text, { headers: { "content-type": "application/json" } });
        }
        case "/scan-arrow": {
          const t = await openTable(r2Store(env.BUCKET, { prefix: q("prefix") }));
          const bytes = await t.scan((await req.json()) as ScanOptions).arrow();
          await t.close();
          return new Response(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
        }
        case "/append-arrow": {
          const w = await writer(env, q("prefix"));
          return json(result(await w.append(await req.arrayBuffer())));
        }
        case "/alter": {
          const w = await writer(env, q("prefix"));
          return json(await w.alter((await req.json()) as SchemaChange[]));
        }
        case "/open": {
          const failing = {
            ...r2Store(env.BUCKET, { prefix: q("prefix") + "__rollup_hourly" }),
            get: () => Promise.reject(new TimelakeError("STORE_ERROR", "r2 is down")),
          };
          const w = await openTable(r2Store(env.BUCKET, { prefix: q("prefix") }), q("rollups") === "broken" ? { rollupStore: () => failing } : {});
          writers.set(q("prefix"), w);
          return json({ version: w.version });
        }
        case "/rollup-add": {
          const w = await writer(env, q("prefix"));
          const ru = await w.addRollup("hourly", { every: "1h", aggregates: { cpu: ["max", "avg"], mem: ["max"] }, inline: true });
          return json({ location: ru.store.location, rollups: await w.rollups() });
        }
        case "/rollup-rows": {
          const w = q("fresh") ? await openTable(r2Store(env.BUCKET, { prefix: q("prefix") })) : await writer(env, q("prefix"));
          const ru = await w.rollup("hourly");
          const rows = [];
          for await (const r of ru.scan().rows()) rows.push(r);
          await ru.close();
          return json(rows);
        }
        case "/scan": {
          const t = await openTable(r2Store(env.BUCKET, { prefix: q("prefix") }));
          const rows = [];
          for await (const r of t.scan((await req.json()) as ScanOptions).rows()) rows.push(r);
          await t.close();
          return json(rows);
        }
        case "/latest":
          return json(await (await writer(env, q("prefix"))).latest());
        case "/generate": {
          const n = Number(q("n"));
          const seed = Number(q("seed") || "0");
          const start = Number(q("start") || "0"); // index of the first row: distinct keys across calls
          const step = Number(q("step") || "100"); // ms between rows
          const base = Date.UTC(2026, 10, 27) + seed * 86_400_000;
          const rows = new Array<object>(n);
          for (let i = 0; i < n; i++) {
            rows[i] = { ts: base + (start + i) * step, host: `host-${i % 50}`, shard: BigInt(i % 3), cpu: (i % 997) / 7, mem: BigInt(i) * 1024n, note: `n${i % 5}` };
          }
          const w = await writer(env, q("prefix"));
          return json(result(await w.append(rows)));
        }
        case "/maintain": {
          const opts = q("opts") ? (JSON.parse(q("opts")) as MaintainOptions) : {};
          const w = q("hook") ? await openTable(hooked(r2Store(env.BUCKET, { prefix: q("prefix") }), env)) : await writer(env, q("prefix"));
          const r = await w.maintain(opts);
          return json({ ...r, memory: memoryStats() });
        }
        case "/delete": {
          const w = await writer(env, q("prefix"));
          return json(await w.delete((await req.json()) as DeleteOptions));
        }
        case "/info": {
          // fresh=1: a newly opened writer sees the newest version (others may have committed)
          const w = q("fresh") ? await openTable(r2Store(env.BUCKET, { prefix: q("prefix") })) : await writer(env, q("prefix"));
          return json({ info: await w.info(), latest: await w.latest(), memory: memoryStats() });
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
