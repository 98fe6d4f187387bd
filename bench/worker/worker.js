// The benchmark Worker: @timelake/client over an R2 binding, and two peers
// (parquet-wasm, hyparquet-writer + @bokuweb/zstd-wasm) writing the same rows
// to one Parquet file with ZSTD. bench/harness.mjs bundles it with esbuild
// (every .wasm kept as a compiled module, as wrangler does) and drives it in
// workerd through Miniflare, measuring the workerd process from outside:
// inside a Worker the clock stands still between I/O, so no timing is taken
// here. Each route answers JSON with what only the isolate can see: store
// requests and bytes (a counting wrapper over the R2 store) and memory
// (Go heap, WebAssembly linear memory).
//
//   GET /noop                      nothing (the per-request overhead)
//   GET /rows?n=N                  builds the N-row input (kept for later requests)
//   GET /create?t=T[&props=JSON]   creates table T
//   GET /open?t=T[&mem=1]          opens T (in a fresh isolate: the Go runtime's start + openTable)
//                                  (mem=1: the memory store /memcopy made, kept open for /latest, /append)
//   GET /append?t=T&n=N[&mem=1]    opens T (once per isolate) and appends the N rows
//                                  (mem=1: to a table in a memory store in the isolate;
//                                  mem=open: to the table /open?mem=1 opened)
//   GET /fill?t=T&files=F&rows=R   appends F batches of R rows spread over one day (compaction input)
//   GET /small?t=T&k=K             K appends of 10 rows each (a table of many snapshots)
//   GET /copy?from=A&to=B          copies table A's objects to B (a fresh compaction input)
//   GET /maintain?t=T&opts=JSON    TableWriter.maintain(opts), when the client has it
//                                  (mem=1: on the memory store /memcopy made, dropped after)
//   GET /memcopy?from=F&t=T        copies R2 table F into a memory store in the isolate, named T
//   POST /put?t=T&key=K            stores the body at T's key K (a table written elsewhere: the catch-up fixture)
//   GET /latest?t=T[&mem=1]        TableWriter.latest(): the number of series (mem=1: as /open?mem=1)
//   GET /peer/arrow?n=N            rows → an Arrow IPC stream (kept): parquet-wasm's input
//   GET /peer/parquet-wasm?n=N     that stream → parquet-wasm (ZSTD) → bytes
//   GET /peer/hyparquet?n=N        rows → columns → hyparquet-writer (ZSTD via zstd-wasm) → bytes
//   GET /stats                     memory figures (no other route reports them: see fetch)
//   GET /cat/create?t=T            creates T in the REST catalog at env.CATALOG_URI (namespace "bench")
//   GET /cat/append?t=T&n=N        opens catalog table T (once per isolate) and appends the N rows;
//                                  the answer's "catalog" counts the catalog requests it made
//   GET /files?t=T                 T's objects by kind (data files: keys and bytes), for the scan workload
//   GET /scan?t=T&q=JSON           table.scan(q) (times as epoch ms), batches iterated and dropped:
//                                  rows, batches, the scan's stats; store counts split data / other
//   GET /peer/hyparquet-scan?t=T&keys=K1,K2&q=JSON  hyparquet (+ hyparquet-compressors) reading
//                                  those data files of T from the R2 binding with its own filter
//   GET /peer/icebird-scan?t=T&q=JSON  icebird reading T from its metadata file (fetch served from R2), filtered after
//   GET /rollup/…                  the rollup workload (worker/rollup.js: add, rows, append, seed, refresh)
//   /batcher/…                     the Durable Object batcher workload (batcher.js)
//   GET /nested/…                  the label-heavy workload (nested.js: map<string, string> vs 8 string columns)
//
// A catalog table's files go to the same R2 binding as the storage-only
// tables, under the table's location path (the catalog's file:// warehouse:
// file:///tmp/…/warehouse/bench/T → keys tmp/…/warehouse/bench/T/…), which
// is the client's rule for a Store given with a catalog (prefixStore).
import timelakeWasm from "@timelake/client/timelake.wasm";
import { initWasm, createTable, openTable, r2Store, memoryStore, memoryStats, restCatalog, TimelakeError } from "@timelake/client/workers";
import parquetWasmModule from "parquet-wasm/esm/parquet_wasm_bg.wasm";
import * as pw from "parquet-wasm/esm";
import { Table as ArrowTable, makeData, makeVector, tableToIPC, Utf8, TimestampMicrosecond } from "apache-arrow";
import { parquetWriteBuffer } from "hyparquet-writer";
import zstdModule from "../node_modules/@bokuweb/zstd-wasm/dist/web/zstd.wasm";
import { Module as ZstdModule, waitInitialized as zstdReady } from "../node_modules/@bokuweb/zstd-wasm/dist/web/module.js";
import { compress as zstdCompress } from "../node_modules/@bokuweb/zstd-wasm/dist/web/simple/compress.js";
import { scanRoute } from "./scan.js";
import { rollupRoute } from "./rollup.js";
import { batcherRoute } from "./batcher.js";
import { nestedRoute } from "./nested.js";
import { schema, DAY1, HOSTS, makeRows, fillRows } from "./benchrows.js";

// The Durable Object class of the batcher workload (bound only when the harness asks).
export { BenchBatcher } from "./batcher.js";

initWasm(timelakeWasm);

// The table's schema and rows (table/bench_test.go's benchBatch), shared
// with the Node benchmark.
export { schema };

const rowsByN = new Map();
const rowsOf = (n) => {
  let r = rowsByN.get(n);
  if (!r) rowsByN.set(n, (r = makeRows(n)));
  return r;
};

// Store requests by kind and bytes moved, since the last take().
function newCounters() {
  return { get: 0, getRange: 0, put: 0, putIfAbsent: 0, delete: 0, deletedKeys: 0, list: 0, bytesIn: 0, bytesOut: 0, dataReads: 0, dataBytesIn: 0 };
}
let counters = newCounters();
function take() {
  const c = counters;
  counters = newCounters();
  return c;
}
// Reads of data files (keys under data/), apart: the scan workload's range requests.
const isData = (k) => /(^|\/)data\//.test(k);
function countRead(k, b) {
  if (!b) return;
  counters.bytesIn += b.byteLength;
  if (isData(k)) {
    counters.dataReads++;
    counters.dataBytesIn += b.byteLength;
  }
}
function counted(s) {
  return {
    location: s.location,
    async get(k, o) {
      counters.get++;
      const b = await s.get(k, o);
      countRead(k, b);
      return b;
    },
    async getRange(k, off, len) {
      counters.getRange++;
      const b = await s.getRange(k, off, len);
      countRead(k, b);
      return b;
    },
    async put(k, d) {
      counters.put++;
      counters.bytesOut += d.byteLength;
      return s.put(k, d);
    },
    async putIfAbsent(k, d) {
      counters.putIfAbsent++;
      counters.bytesOut += d.byteLength;
      return s.putIfAbsent(k, d);
    },
    async delete(keys) {
      counters.delete++;
      counters.deletedKeys += keys.length;
      return s.delete(keys);
    },
    async list(p) {
      counters.list++;
      return s.list(p);
    },
  };
}

const writers = new Map();
const memTables = new Map(); // /memcopy's memory stores, by table name
// A table in a memory store inside the isolate: the append without the R2
// simulator's work (which runs in the same workerd process).
async function memWriter(t) {
  let w = writers.get("mem:" + t);
  if (!w) writers.set("mem:" + t, (w = await createTable(counted(memoryStore()), schema, { location: "file:///bench/" + t })));
  return w;
}
// A table /memcopy made, opened once per isolate: with /open?mem=1 before
// it, /latest and /append (mem=open) measure what BenchmarkIndexCatchUp
// measures natively (an opened table, a memory store, no R2 simulator).
async function memOpened(t) {
  let w = writers.get("memo:" + t);
  if (!w) writers.set("memo:" + t, (w = await openTable(counted(memTables.get(t)))));
  return w;
}
const storeOf = (env, t) => counted(r2Store(env.BUCKET, { prefix: "tables/" + t, location: "file:///bench/" + t }));
async function writer(env, t) {
  let w = writers.get(t);
  if (!w) writers.set(t, (w = await openTable(storeOf(env, t))));
  return w;
}

// --- a table in a REST catalog ----------------------------------------------

// Catalog requests by kind since the last take(): config (GET /v1/config),
// token (POST …/oauth/tokens), load (GET …/tables/T), commit (POST
// …/tables/T), other; and each request as "METHOD path".
function newCatalogCounters() {
  return { config: 0, token: 0, load: 0, commit: 0, other: 0, requests: [] };
}
let catCounters = newCatalogCounters();
function countCatalog(method, url) {
  const p = new URL(url).pathname;
  const c = catCounters;
  c.requests.push(`${method} ${p}`);
  if (method === "GET" && p.endsWith("/v1/config")) c.config++;
  else if (method === "POST" && p.endsWith("/oauth/tokens")) c.token++;
  else if (method === "GET" && /\/namespaces\/[^/]+\/tables\/[^/]+$/.test(p)) c.load++;
  else if (method === "POST" && /\/namespaces\/[^/]+\/tables\/[^/]+$/.test(p)) c.commit++;
  else c.other++;
}
let catalog;
// One Catalog per isolate (its config and token are kept), its fetch counting.
function catalogOf(env) {
  if (!env.CATALOG_URI) throw new Error("no CATALOG_URI binding: the harness starts the Worker with one when the catalog server runs");
  catalog ??= restCatalog({
    uri: env.CATALOG_URI,
    warehouse: env.CATALOG_WAREHOUSE,
    fetch: (input, init) => {
      countCatalog(init?.method ?? (input instanceof Request ? input.method : "GET"), input instanceof Request ? input.url : String(input));
      return fetch(input, init);
    },
  });
  return catalog;
}
// The table's files: the R2 binding under the location's path.
const catalogStore = (env) => (location) => {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/]*\/?(.*)$/i.exec(location);
  if (!m) throw new Error(`catalog location ${location} is not scheme://bucket/path`);
  return counted(r2Store(env.BUCKET, { prefix: m[1].replace(/\/+$/, ""), location }));
};
const catalogName = (t) => "bench." + t;
async function catalogWriter(env, t) {
  let w = writers.get("cat:" + t);
  if (!w) writers.set("cat:" + t, (w = await openTable(catalogOf(env), catalogName(t), { store: catalogStore(env) })));
  return w;
}

function mem() {
  const m = memoryStats();
  return m ? { wasmMemoryBytes: m.wasmMemoryBytes, goHeapSys: m.heapSys, goHeapAlloc: m.heapAlloc, goSys: m.sys, numGC: m.numGC } : null;
}

// --- peers ---------------------------------------------------------------

let pwReady = false;
const ipcByN = new Map();
// An Arrow Utf8 vector of strings: one UTF-8 buffer and offsets (Arrow's
// builders compile code with new Function, which workerd refuses).
const encoder = new TextEncoder();
function utf8Vector(strs) {
  const n = strs.length;
  const offsets = new Int32Array(n + 1);
  let buf = new Uint8Array(n * 8);
  let at = 0;
  for (let i = 0; i < n; i++) {
    for (;;) {
      const { read, written } = encoder.encodeInto(strs[i], buf.subarray(at));
      if (read === strs[i].length) {
        at += written;
        break;
      }
      const bigger = new Uint8Array(buf.length * 2);
      bigger.set(buf.subarray(0, at));
      buf = bigger;
    }
    offsets[i + 1] = at;
  }
  return makeVector(makeData({ type: new Utf8(), length: n, nullCount: 0, valueOffsets: offsets, data: buf.subarray(0, at) }));
}

// rows → an Arrow IPC stream (what parquet-wasm takes): timestamps and
// numbers as typed arrays wrapped without copying, strings as utf8Vector.
function arrowIPC(rows) {
  const n = rows.length;
  const ts = new BigInt64Array(n);
  const mem = new BigInt64Array(n);
  const cpu = new Float64Array(n);
  const host = new Array(n);
  const region = new Array(n);
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    ts[i] = BigInt(r.ts) * 1000n;
    host[i] = r.host;
    region[i] = r.region;
    cpu[i] = r.cpu;
    mem[i] = BigInt(r.mem);
  }
  const table = new ArrowTable({
    ts: makeVector(makeData({ type: new TimestampMicrosecond("UTC"), length: n, nullCount: 0, data: ts })),
    host: utf8Vector(host),
    region: utf8Vector(region),
    cpu: makeVector(cpu),
    mem: makeVector(mem),
  });
  return tableToIPC(table, "stream");
}
// The plain write: the IPC stream of /peer/arrow → one Parquet file, ZSTD.
function parquetWasmWrite(ipc) {
  if (!pwReady) {
    pw.initSync({ module: parquetWasmModule });
    pwReady = true;
  }
  const props = new pw.WriterPropertiesBuilder().setCompression(pw.Compression.ZSTD).build();
  return pw.writeParquet(pw.Table.fromIPCStream(ipc), props);
}

let zstdStarted;
function zstdInit() {
  zstdStarted ??= (() => {
    ZstdModule.instantiateWasm = (imports, receive) => {
      const inst = new WebAssembly.Instance(zstdModule, imports);
      receive(inst, zstdModule);
      return inst.exports;
    };
    ZstdModule.init();
    return zstdReady();
  })();
  return zstdStarted;
}

async function hyparquetWrite(rows) {
  await zstdInit();
  const n = rows.length;
  const ts = new Array(n);
  const host = new Array(n);
  const region = new Array(n);
  const cpu = new Float64Array(n);
  const mem = new BigInt64Array(n);
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    ts[i] = new Date(r.ts);
    host[i] = r.host;
    region[i] = r.region;
    cpu[i] = r.cpu;
    mem[i] = BigInt(r.mem);
  }
  const buf = parquetWriteBuffer({
    columnData: [
      { name: "ts", data: ts, type: "TIMESTAMP", nullable: false },
      { name: "host", data: host, type: "STRING", nullable: false },
      { name: "region", data: region, type: "STRING", nullable: false },
      { name: "cpu", data: cpu, type: "DOUBLE" },
      { name: "mem", data: mem, type: "INT64" },
    ],
    codec: "ZSTD",
    compressors: { ZSTD: (b) => zstdCompress(b, 3) },
  });
  return new Uint8Array(buf);
}

// --- routes --------------------------------------------------------------

const json = (v, status = 200) =>
  new Response(JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x)), {
    status,
    headers: { "content-type": "application/json" },
  });

async function route(url, env, req) {
  const q = (k, d) => url.searchParams.get(k) ?? d;
  const t = q("t", "t");
  if (url.pathname.startsWith("/batcher/")) return batcherRoute(url, env);
  if (url.pathname.startsWith("/nested/")) return nestedRoute(url, env, { storeOf, writers });
  switch (url.pathname) {
    case "/noop":
      return {};
    case "/rows":
      return { rows: rowsOf(Number(q("n"))).length };
    case "/create": {
      // partition: another engine's kind of spec ("day, bucket(16, host)")
      const spec = q("partition", "") ? { ...schema, partition: q("partition", "") } : schema;
      const w = await createTable(storeOf(env, t), spec, { properties: JSON.parse(q("props", "{}")) });
      writers.set(t, w);
      return { version: w.version };
    }
    case "/open": {
      const w = q("mem") ? await memOpened(t) : await writer(env, t);
      return { version: w.version };
    }
    case "/append": {
      const rows = rowsOf(Number(q("n")));
      const w = q("mem") === "open" ? await memOpened(t) : q("mem") ? await memWriter(t) : await writer(env, t);
      const r = await w.append(rows);
      return { version: r.version, rowsWritten: r.rowsWritten, files: r.files, bytes: r.bytes };
    }
    case "/fill": {
      const files = Number(q("files")), each = Number(q("rows"));
      const w = await writer(env, t);
      for (let f = 0; f < files; f++) await w.append(fillRows(f, files, each), { timeUnit: "us" });
      return { version: w.version };
    }
    case "/small": {
      const k = Number(q("k"));
      const w = await writer(env, t);
      const base = DAY1 - 2 * 86400_000; // two days before: one partition, many snapshots
      for (let i = 0; i < k; i++) {
        await w.append(Array.from({ length: 10 }, (_, j) => ({ ts: base + i * 1000, host: HOSTS[j], region: "eu", cpu: j, mem: i })));
      }
      return { version: w.version };
    }
    case "/copy": {
      const from = "tables/" + q("from") + "/", to = "tables/" + q("to") + "/";
      let cursor, n = 0;
      do {
        const page = await env.BUCKET.list({ prefix: from, ...(cursor ? { cursor } : {}) });
        for (const o of page.objects) {
          const b = await env.BUCKET.get(o.key);
          await env.BUCKET.put(to + o.key.slice(from.length), await b.arrayBuffer());
          n++;
        }
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor);
      return { objects: n };
    }
    case "/memcopy": {
      // The R2 table q("from") copied into a memory store inside the
      // isolate: maintenance measured without the R2 simulator's work.
      const from = "tables/" + q("from") + "/";
      const m = memoryStore();
      let cursor, n = 0;
      do {
        const page = await env.BUCKET.list({ prefix: from, ...(cursor ? { cursor } : {}) });
        for (const o of page.objects) {
          const b = await env.BUCKET.get(o.key);
          await m.put(o.key.slice(from.length), new Uint8Array(await b.arrayBuffer()));
          n++;
        }
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor);
      memTables.set(t, m);
      return { objects: n };
    }
    case "/maintain": {
      const w = q("mem") ? await openTable(counted(memTables.get(t))) : await writer(env, t);
      if (typeof w.maintain !== "function") return { unavailable: "TableWriter.maintain is missing" };
      try {
        const r = await w.maintain(JSON.parse(q("opts", "{}")));
        return { result: r };
      } catch (e) {
        if (e instanceof TimelakeError && e.code === "NOT_IMPLEMENTED") return { unavailable: e.message };
        throw e;
      } finally {
        if (q("mem")) memTables.delete(t); // each run has its own copy: the isolate does not keep them all
      }
    }
    case "/put": {
      const data = await req.arrayBuffer();
      await env.BUCKET.put("tables/" + t + "/" + q("key"), data);
      return { bytes: data.byteLength };
    }
    case "/latest": {
      const w = q("mem") ? await memOpened(t) : await writer(env, t);
      return { series: (await w.latest()).length };
    }
    case "/peer/arrow": {
      const n = Number(q("n"));
      ipcByN.set(n, arrowIPC(rowsOf(n)));
      return { bytes: ipcByN.get(n).byteLength };
    }
    case "/peer/parquet-wasm": {
      const n = Number(q("n"));
      if (!ipcByN.has(n)) ipcByN.set(n, arrowIPC(rowsOf(n)));
      return { bytes: parquetWasmWrite(ipcByN.get(n)).byteLength };
    }
    case "/peer/hyparquet":
      return { bytes: (await hyparquetWrite(rowsOf(Number(q("n"))))).byteLength };
    case "/stats":
      return {};
    case "/files":
    case "/scan":
    case "/peer/hyparquet-scan":
    case "/peer/icebird-scan":
      return scanRoute(url, env, { writer, countRead });
    case "/rollup/add":
    case "/rollup/rows":
    case "/rollup/append":
    case "/rollup/seed":
    case "/rollup/refresh":
      return rollupRoute(url, env, { writer, counted });
    case "/cat/create": {
      const w = await createTable(catalogOf(env), catalogName(t), schema, { store: catalogStore(env) });
      writers.set("cat:" + t, w);
      return { version: w.version };
    }
    case "/cat/append": {
      const rows = rowsOf(Number(q("n")));
      const w = await catalogWriter(env, t);
      const r = await w.append(rows);
      return { version: r.version, rowsWritten: r.rowsWritten, files: r.files, bytes: r.bytes };
    }
  }
  return null;
}

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    take();
    catCounters = newCatalogCounters();
    try {
      const body = await route(url, env, req);
      if (body === null) return json({ error: "not found" }, 404);
      const cat = url.pathname.startsWith("/cat/") ? { catalog: catCounters } : {};
      // Memory figures only on /stats, which the harness asks for after each
      // measured request: the Go heap's figures come from
      // runtime.ReadMemStats, which stops the world and costs about 3 ms in
      // WebAssembly, more than the whole of an empty request.
      const memory = url.pathname === "/stats" ? { memory: mem() } : {};
      return json({ ...body, store: take(), ...cat, ...memory });
    } catch (e) {
      const code = e instanceof TimelakeError ? e.code : "INTERNAL";
      return json({ error: String(e?.stack ?? e), code }, 500);
    }
  },
};
