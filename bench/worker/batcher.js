// The Durable Object batcher workload's half in workerd (bench/batcher.mjs):
// BenchBatcher, a TableBatcher appending to table "batched" on the R2
// binding (maxRows and maxWaitMs from the bindings BATCH_MAX_ROWS and
// BATCH_MAX_WAIT_MS), bound as BATCHER when the harness starts Miniflare
// with it, and its routes:
//
//   POST /batcher/load?producers=P&sends=S&rows=R&from=F  P producers in this
//        isolate, each making S sends of R rows one after another through
//        sendRows; answers each send's acknowledgement time (workerd's clock:
//        it advances across I/O, and every send is I/O)
//   POST /batcher/send?k=K&j=J&rows=R   one send, producer K's J-th (rows as /load makes them)
//   GET  /batcher/status   the object's status (buffered, commits, replayed, …)
//   POST /batcher/flush    appends what waits
//   GET  /batcher/check    the table read back raw: rows, distinct rows, rows stored more than once
import { createTable, openTable, r2Store, sendRows, TableBatcher, TimelakeError } from "@timelake/client/workers";

const batchSchema = { time: "ts", series: ["producer"], columns: [{ name: "n", type: "long" }, { name: "v", type: "double" }] };
const TABLE = "batched";

async function openOrCreate(bucket) {
  const store = r2Store(bucket, { prefix: TABLE });
  try {
    return await openTable(store);
  } catch (e) {
    if (e instanceof TimelakeError && e.code === "NO_TABLE") return createTable(store, batchSchema);
    throw e;
  }
}

export class BenchBatcher extends TableBatcher {
  constructor(ctx, env) {
    super(ctx, {
      table: () => openOrCreate(env.BUCKET),
      maxRows: Number(env.BATCH_MAX_ROWS ?? 5000),
      maxWaitMs: Number(env.BATCH_MAX_WAIT_MS ?? 1000),
    });
  }
}

/** Send j of producer k: r rows, n unique over the workload (k < 1000, j < 1000, r ≤ 1000). */
export function batchRows(k, j, r) {
  const out = new Array(r);
  for (let i = 0; i < r; i++) {
    const n = k * 1_000_000 + j * 1_000 + i;
    out[i] = { ts: Date.UTC(2026, 11, 3) + n, producer: `p${k}`, n, v: i / 7 };
  }
  return out;
}

export async function batcherRoute(url, env) {
  const q = (k) => Number(url.searchParams.get(k) ?? 0);
  const stub = env.BATCHER.get(env.BATCHER.idFromName(TABLE));
  switch (url.pathname) {
    case "/batcher/load": {
      const [producers, sends, rows, from] = [q("producers"), q("sends"), q("rows"), q("from")];
      const latencies = [];
      const t0 = Date.now();
      await Promise.all(
        Array.from({ length: producers }, async (_, k) => {
          for (let j = from; j < from + sends; j++) {
            const batch = batchRows(k, j, rows);
            const a = Date.now();
            await sendRows(stub, batch);
            latencies.push(Date.now() - a);
          }
        }),
      );
      return { ms: Date.now() - t0, latencies };
    }
    case "/batcher/send":
      return sendRows(stub, batchRows(q("k"), q("j"), q("rows")));
    case "/batcher/status":
      return (await stub.fetch("https://batcher/status")).json();
    case "/batcher/flush":
      return (await stub.fetch("https://batcher/flush", { method: "POST" })).json();
    case "/batcher/check": {
      const tb = await openTable(r2Store(env.BUCKET, { prefix: TABLE }));
      const seen = new Map();
      for await (const b of tb.scan({ raw: true, columns: ["n"] })) {
        for (const n of b.columns.n) seen.set(n, (seen.get(n) ?? 0) + 1);
      }
      let rows = 0;
      const twice = [];
      for (const [n, c] of seen) {
        rows += c;
        if (c > 1) twice.push(String(n));
      }
      return { rows, distinct: seen.size, twice: twice.length, twiceSample: twice.slice(0, 10), ns: [...seen.keys()].map(String) };
    }
  }
  return null;
}
