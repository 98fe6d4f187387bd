// The scan workload's routes, imported by worker.js: Timelake's
// table.scan and two peers reading the same table from the same R2 binding.
// Every route iterates its rows without keeping them and answers what it
// read: rows, the scan's own stats (Timelake), and the store reads, counted
// by worker.js's counters (data-file reads apart: dataReads, dataBytesIn).
//
// A query q (JSON): { from, to } epoch ms (to exclusive), { host } one
// series or none (the whole partition), columns (projection; absent: all).
import { parquetReadObjects, parquetMetadataAsync } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { icebergRead, icebergMetadata } from "icebird";

const tableKey = (t) => "tables/" + t + "/";

// T's objects by kind: data files (key, bytes), and the totals.
async function files(env, t) {
  const out = { data: [], dataBytes: 0, otherBytes: 0, objects: 0 };
  let cursor;
  do {
    const page = await env.BUCKET.list({ prefix: tableKey(t), ...(cursor ? { cursor } : {}) });
    for (const o of page.objects) {
      out.objects++;
      const k = o.key.slice(tableKey(t).length);
      if (/^data\//.test(k)) {
        out.data.push({ key: k, bytes: o.size });
        out.dataBytes += o.size;
      } else out.otherBytes += o.size;
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out;
}

function scanOptions(q) {
  const o = {};
  if (q.from !== undefined) o.from = q.from;
  if (q.to !== undefined) o.to = q.to;
  if (q.host !== undefined) o.series = { host: q.host };
  if (q.columns) o.columns = q.columns;
  return o;
}

async function timelakeScan(env, ctx, t, q) {
  const w = await ctx.writer(env, t);
  const scan = w.scan(scanOptions(q));
  let rows = 0, batches = 0, maxBatch = 0;
  for await (const b of scan) {
    rows += b.length;
    batches++;
    if (b.length > maxBatch) maxBatch = b.length;
  }
  return { rows, batches, maxBatch, stats: await scan.stats };
}

// An AsyncBuffer over one R2 object, its reads counted as the store's are.
async function r2Buffer(env, ctx, key) {
  const head = await env.BUCKET.head(key);
  if (!head) throw new Error(`no object ${key}`);
  return {
    byteLength: head.size,
    async slice(start, end) {
      const e = end ?? head.size;
      const o = await env.BUCKET.get(key, { range: { offset: start, length: e - start } });
      const b = new Uint8Array(await o.arrayBuffer());
      ctx.countRead(key.replace(/^tables\/[^/]+\//, ""), b);
      return b.buffer;
    },
  };
}

// hyparquet's own filter (row groups and pages skipped by their statistics
// and column index when it can), file by file.
async function hyparquetScan(env, ctx, t, keys, q) {
  const filter = {};
  if (q.host !== undefined) filter.host = { $eq: q.host };
  if (q.from !== undefined || q.to !== undefined) {
    filter.ts = {};
    if (q.from !== undefined) filter.ts.$gte = new Date(q.from);
    if (q.to !== undefined) filter.ts.$lt = new Date(q.to);
  }
  let rows = 0, heads = 0;
  for (const k of keys) {
    const file = await r2Buffer(env, ctx, tableKey(t) + k);
    heads++;
    const metadata = await parquetMetadataAsync(file);
    const got = await parquetReadObjects({ file, metadata, compressors, ...(Object.keys(filter).length ? { filter } : {}), ...(q.columns ? { columns: ["ts", "host", ...q.columns] } : {}) });
    rows += got.length;
  }
  return { rows, heads, files: keys.length };
}

// icebird reads through fetch: requests to http://r2.bench/… are served from
// the R2 binding (Range honoured, HEAD answered), counted.
function r2Fetch(env, ctx) {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    // The table's own paths are file:///bench/T/…: its keys are tables/T/….
    const key = url.protocol === "file:" ? "tables/" + decodeURIComponent(url.pathname).replace(/^\/bench\//, "") : decodeURIComponent(url.pathname.slice(1));
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (method === "HEAD") {
      const h = await env.BUCKET.head(key);
      return h ? new Response(null, { headers: { "content-length": String(h.size) } }) : new Response(null, { status: 404 });
    }
    const range = headers.get("range")?.match(/bytes=(\d+)-(\d*)/);
    const o = range ? await env.BUCKET.get(key, { range: { offset: Number(range[1]), ...(range[2] ? { length: Number(range[2]) - Number(range[1]) + 1 } : {}) } }) : await env.BUCKET.get(key);
    if (!o) {
      ctx.misses?.push(key);
      return new Response("not found", { status: 404 });
    }
    const b = new Uint8Array(await o.arrayBuffer());
    ctx.countRead(key.replace(/^tables\/[^/]+\//, ""), b);
    return new Response(b, { status: range ? 206 : 200, headers: { "content-length": String(b.byteLength) } });
  };
}

async function icebirdScan(env, ctx, t, q) {
  const realFetch = globalThis.fetch;
  const misses = [];
  globalThis.fetch = r2Fetch(env, { ...ctx, misses });
  try {
    const tableUrl = `http://r2.bench/tables/${t}`;
    const metadata = await icebergMetadata({ tableUrl });
    const all = await icebergRead({ tableUrl, metadata });
    const from = q.from === undefined ? -Infinity : q.from, to = q.to === undefined ? Infinity : q.to;
    let rows = 0;
    for (const r of all) {
      const ms = r.ts instanceof Date ? r.ts.getTime() : Number(r.ts) / 1000;
      if ((q.host === undefined || r.host === q.host) && ms >= from && ms < to) rows++;
    }
    return { rows, rowsRead: all.length };
  } catch (e) {
    throw new Error(`${e.message}${misses.length ? ` (objects not found: ${misses.slice(0, 3).join(", ")})` : ""}`);
  } finally {
    globalThis.fetch = realFetch;
  }
}

export async function scanRoute(url, env, ctx) {
  const t = url.searchParams.get("t") ?? "t";
  const q = JSON.parse(url.searchParams.get("q") ?? "{}");
  switch (url.pathname) {
    case "/files":
      return files(env, t);
    case "/scan":
      return timelakeScan(env, ctx, t, q);
    case "/peer/hyparquet-scan":
      return hyparquetScan(env, ctx, t, (url.searchParams.get("keys") ?? "").split(",").filter(Boolean), q);
    case "/peer/icebird-scan":
      return icebirdScan(env, ctx, t, q);
  }
  return null;
}
