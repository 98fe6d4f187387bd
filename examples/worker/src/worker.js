// A Worker that appends rows to a Timelake table in an R2 bucket, as a user
// would write it: the package's /workers entry and its .wasm imported as a
// compiled module (Workers cannot compile WebAssembly from bytes).
//
//   POST /append   body: a JSON array of rows ({time, host, cpu, …}); appended now
//   POST /enqueue  body: a JSON array of rows; sent to the ROWS queue, whose
//                  consumer (queue() below) appends each delivered batch in one commit
//   POST /batch    body: a JSON array of rows; sent to the BATCHER Durable Object
//                  (MetricsBatcher below), answered once they are durable in its
//                  storage; it appends up to 5,000 rows at a time, at least every 2 s,
//                  each acknowledged row exactly once (whatever restarts it)
//   GET  /rollup   the hourly rollup (bucket, host, row_count, cpu_min, cpu_max,
//                  cpu_sum, cpu_count, cpu_last, mem_bytes_max) as NDJSON; takes
//                  /query's parameters (series=host:…, from, to, columns, limit)
//   GET  /info     what the table holds
//   GET  /latest   the latest row of every series
//   GET  /query    rows as NDJSON, deduplicated, sorted by (host, time):
//                  ?series=host:web-1[,web-2]  (repeatable; COL:V[,V…])
//                  &from=…&to=…  (RFC 3339, a date, or epoch ms; from inclusive, to exclusive)
//                  &columns=cpu[,mem_bytes]  &limit=N  (default 10000, at most 100000)
//                  &asOf=SNAPSHOT|TIME  &raw=1
//                  The scan's plan and cost (files, pages, requests, bytes read)
//                  come in the x-timelake-scan-stats header, so the body is
//                  built before the response starts (hence the limit).
//                  &format=arrow (or Accept: application/vnd.apache.arrow.stream):
//                  the rows as an Arrow IPC stream (scan.arrow()), for
//                  apache-arrow, DuckDB-Wasm or pyarrow; scan.arrowStream()
//                  would stream it instead, without the stats header.
//
// With CATALOG_URI set (and CATALOG_WAREHOUSE, CATALOG_TOKEN; CATALOG_TABLE,
// default "metrics.cpu"), the table is kept in that Iceberg REST catalog (R2
// Data Catalog: the bucket's catalog URI, ACCOUNTID_BUCKET, an API token): the
// catalog decides each version, and the files go to r2Store(env.BUCKET),
// rooted at the bucket — the client prefixes the keys with the path of the
// table's location (s3://bucket/<path>), so the Worker needs no S3 keys.
//
// The table keeps an hourly rollup, refreshed inline by every append
// (timelake.rollup.inline=true, set by addRollup's inline option): append()
// refreshes it after its commit, in the same call, whichever way the rows
// come (/append, the queue consumer, the Durable Object batcher). The
// append's result carries the refresh in `rollups` (or, when it failed, a
// warning: the rows are committed either way, and the next refresh catches
// up). A storage-only table's rollup is beside it (prefix
// metrics__rollup_hourly: r2Store derives that store itself); a catalog
// table's is table <table>__rollup_hourly of the same catalog.
import wasm from "@timelake/client/timelake.wasm";
import { initWasm, createTable, openTable, r2Store, restCatalog, sendRows, TableBatcher, TimelakeError } from "@timelake/client/workers";

initWasm(wasm); // records the module only; the Go runtime starts in the first request

const schema = {
  time: "time",
  series: ["host"],
  columns: [
    { name: "region", type: "string", required: true },
    { name: "cpu", type: "double", required: true },
    { name: "mem_bytes", type: "long", required: true },
    { name: "healthy", type: "boolean" },
  ],
  partition: "day",
};

let writer; // one TableWriter per isolate, reused across requests

const ROLLUP = "hourly";
const rollupSpec = { every: "1h", aggregates: { cpu: ["min", "max", "avg", "last"], mem_bytes: ["max"] }, inline: true };

async function table(env) {
  if (writer) return writer;
  let t;
  if (env.CATALOG_URI) t = await catalogTable(env);
  else {
    const store = r2Store(env.BUCKET, { prefix: "metrics" });
    try {
      t = await openTable(store);
    } catch (e) {
      if (!(e instanceof TimelakeError) || e.code !== "NO_TABLE") throw e;
      t = await createTable(store, schema, { location: env.TABLE_LOCATION });
    }
  }
  // The rollup, defined once (inline: appends refresh it). No Store to give:
  // beside the table, or in the catalog.
  if (!(await t.rollups()).some((d) => d.name === ROLLUP)) {
    try {
      await t.addRollup(ROLLUP, rollupSpec);
    } catch (e) {
      if (!(e instanceof TimelakeError) || e.code !== "ROLLUP_EXISTS") throw e; // another isolate came first
    }
  }
  return (writer = t);
}

async function catalogTable(env) {
  const catalog = restCatalog({
    uri: env.CATALOG_URI,
    ...(env.CATALOG_WAREHOUSE ? { warehouse: env.CATALOG_WAREHOUSE } : {}),
    ...(env.CATALOG_TOKEN ? { token: env.CATALOG_TOKEN } : {}),
  });
  const name = env.CATALOG_TABLE || "metrics.cpu";
  const options = { store: r2Store(env.BUCKET) }; // rooted at the bucket
  try {
    return await openTable(catalog, name, options);
  } catch (e) {
    if (!(e instanceof TimelakeError) || (e.code !== "NO_TABLE" && e.code !== "NO_NAMESPACE")) throw e;
    return await createTable(catalog, name, schema, options); // the namespace too, when missing
  }
}

// The Durable Object batcher: every Worker (any request, anywhere) sends its
// rows to the one object of the table, which keeps them in its storage and
// appends them in batches on its alarm. Each batch is named by a commit id
// before its append, so after a restart or an eviction the object asks the
// table (findCommit) whether the batch landed and never appends it twice.
// A full buffer (the table unreachable for long) refuses sends with
// BUFFER_FULL, status 503 and Retry-After.
export class MetricsBatcher extends TableBatcher {
  constructor(ctx, env) {
    super(ctx, {
      table: () => table(env),
      maxRows: 5000,
      maxWaitMs: 2000,
      maxBufferedRows: 200_000, // each batch's append refreshes the rollup inline
    });
  }
}

const batcherOf = (env) => env.BATCHER.get(env.BATCHER.idFromName("metrics")); // one object per table

const bigintAsString = (_k, x) => (typeof x === "bigint" ? x.toString() : x);

const QUERY_LIMIT = 10_000;
const QUERY_MAX = 100_000;

/** The scan options of a /query URL; series values are numbers for integer columns. */
function queryOptions(url, columns) {
  const p = url.searchParams;
  const o = {};
  for (const k of ["from", "to", "asOf"]) if (p.has(k)) o[k] = p.get(k);
  if (p.has("columns")) o.columns = p.get("columns").split(",").filter((c) => c !== "");
  const limit = p.has("limit") ? Number(p.get("limit")) : QUERY_LIMIT;
  // 0 (no limit) is the most; a bad one goes on, refused as BAD_OPTION.
  o.limit = Number.isInteger(limit) && limit >= 0 ? Math.min(limit || QUERY_MAX, QUERY_MAX) : limit;
  if (p.get("raw") === "1") o.raw = true;
  for (const s of p.getAll("series")) {
    const i = s.indexOf(":");
    const col = i < 0 ? s : s.slice(0, i);
    const type = columns.find((c) => c.name === col)?.type;
    const vals = i < 0 ? [] : s.slice(i + 1).split(",");
    (o.series ??= {})[col] = vals.map((v) => ((type === "long" || type === "int") && /^-?\d+$/.test(v) ? BigInt(v) : v));
  }
  return o;
}

const ARROW = "application/vnd.apache.arrow.stream";

async function query(t, url, req) {
  const scan = t.scan(queryOptions(url, t.columns));
  if (url.searchParams.get("format") === "arrow" || (req.headers.get("accept") ?? "").includes(ARROW)) {
    const body = await scan.arrow();
    const stats = await scan.stats;
    return new Response(body, { headers: { "content-type": ARROW, "x-timelake-scan-stats": JSON.stringify(stats, bigintAsString) } });
  }
  const lines = [];
  for await (const row of scan.rows()) lines.push(JSON.stringify(row, bigintAsString));
  const stats = await scan.stats;
  return new Response(lines.length ? lines.join("\n") + "\n" : "", {
    headers: { "content-type": "application/x-ndjson", "x-timelake-scan-stats": JSON.stringify(stats, bigintAsString) },
  });
}

const json = (v, status = 200) =>
  new Response(JSON.stringify(v, bigintAsString), {
    status,
    headers: { "content-type": "application/json" },
  });

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    try {
      // Only the object appends: the producer hands over and returns.
      if (req.method === "POST" && url.pathname === "/batch") return json(await sendRows(batcherOf(env), await req.json()));
      const t = await table(env);
      // The result's `rollups` has the inline refresh of the hourly rollup.
      if (req.method === "POST" && url.pathname === "/append") return json(await t.append(await req.json()));
      if (req.method === "POST" && url.pathname === "/enqueue") {
        // Producers send small messages; the consumer batches them into big appends.
        const rows = await req.json();
        for (let i = 0; i < rows.length; i += 100 * 50) {
          const chunk = [];
          for (let j = i; j < Math.min(i + 100 * 50, rows.length); j += 50) chunk.push({ body: rows.slice(j, j + 50) });
          await env.ROWS.sendBatch(chunk); // at most 100 messages a call
        }
        return json({ enqueued: rows.length });
      }
      if (url.pathname === "/info") return json(await t.info());
      if (url.pathname === "/latest") return json(await t.latest());
      if (url.pathname === "/query") return await query(t, url, req);
      if (url.pathname === "/rollup") {
        // Opened per request at its newest version (the queue consumer and
        // the Durable Object refresh it too), closed once the body is built.
        const ru = await t.rollup(ROLLUP);
        try {
          return await query(ru, url, req);
        } finally {
          await ru.close();
        }
      }
      return json({ error: "not found" }, 404);
    } catch (e) {
      const code = e instanceof TimelakeError ? e.code : "INTERNAL";
      if (code === "BUFFER_FULL") return json({ error: e.message, code, retryAfterMs: e.retryAfterMs }, 503);
      return json({ error: String(e.message ?? e), code, row: e.row, column: e.column }, 400);
    }
  },

  // The recommended deployment: a Queue consumer turning many small messages
  // into one append per delivered batch (max_batch_size / max_batch_timeout in
  // wrangler.toml set how big), so the table gets few, large files and writers
  // rarely conflict. A failed append leaves the table as it was and retries
  // the whole batch. If an append committed but the acknowledgement was lost,
  // the redelivered batch is appended again: the same (series, time) keys with
  // a later _ingest_ts, which compaction collapses to one row (outside readers
  // see both copies until then).
  async queue(batch, env) {
    const rows = batch.messages.flatMap((m) => m.body);
    try {
      const t = await table(env);
      await t.append(rows); // the rollup too (a failed refresh is a warning; the next one catches up)
      batch.ackAll();
    } catch (e) {
      if (e instanceof TimelakeError && e.row !== undefined) {
        // Bad input will not get better by retrying: log it and drop the batch
        // (or send it to a dead-letter queue).
        console.error(`dropping a batch of ${rows.length} rows: ${e.message}`);
        batch.ackAll();
        return;
      }
      batch.retryAll();
    }
  },
};
