// The batcher test Worker, run in workerd by Miniflare: a TableBatcher
// Durable Object (BATCHER) appending to a table on the R2 bucket BUCKET,
// and routes for the test in Node:
//   POST /send?to=NAME   body: JSON rows; sendRows to the object NAME → AddResult (or its coded error)
//   POST /flush?to=NAME  GET /status?to=NAME  GET /dead?to=NAME   passed to the object
//   GET  /rows?prefix=   every stored row of the table (raw scan): [[producer, n], …]
//   POST /load?to=&producers=&sends=&rows=   producers inside workerd, each sending
//                        `sends` batches of `rows` rows one after another (rows as
//                        the test's rowsOf makes them) → {ms, latencies}: each
//                        send's acknowledgement time, by workerd's clock (it
//                        advances across I/O, which each send is)
// With a HOOK binding, the object calls it after each append committed and
// before the batch leaves storage (/committed: "throw" makes it fail there,
// and the next alarm must find the commit), and its store calls it before
// each conditional metadata write (/before-commit); a test may kill the
// runtime while either waits.
import wasm from "../../src/timelake.wasm";
import {
  createTable,
  initWasm,
  openTable,
  r2Store,
  sendRows,
  TableBatcher,
  TimelakeError,
  type BatcherStub,
  type DurableStateLike,
  type R2BucketLike,
  type Store,
  type TableSchema,
} from "../../src/workers.js";

initWasm(wasm);

interface Namespace {
  idFromName(name: string): unknown;
  get(id: unknown): BatcherStub;
}

interface Env {
  BUCKET: R2BucketLike;
  BATCHER: Namespace;
  HOOK?: { fetch(url: string): Promise<Response> };
  MAX_ROWS?: string;
  MAX_WAIT_MS?: string;
  MAX_BUFFERED_ROWS?: string;
}

const schema: TableSchema = { time: "ts", series: ["producer"], columns: [{ name: "n", type: "long" }, { name: "v", type: "double" }] };

/** With HOOK: the store calls it before each conditional metadata write (the commit), and waits. */
function hooked(store: Store, env: Env): Store {
  if (!env.HOOK) return store;
  const put = store.putIfAbsent.bind(store);
  return Object.assign(Object.create(store) as Store, {
    async putIfAbsent(key: string, data: Uint8Array) {
      if (/^metadata\/v\d+\.metadata\.json$/.test(key)) await (await env.HOOK!.fetch(`http://hook/before-commit?key=${key}`)).text();
      return put(key, data);
    },
  });
}

async function openOrCreate(bucket: R2BucketLike, prefix: string, env: Env) {
  const store = hooked(r2Store(bucket, { prefix }), env);
  try {
    return await openTable(store);
  } catch (e) {
    if (e instanceof TimelakeError && e.code === "NO_TABLE") return createTable(store, schema);
    throw e;
  }
}

/** One object per table: its name is the table's prefix in the bucket. */
export class TestBatcher extends TableBatcher {
  constructor(ctx: DurableStateLike & { id: { name?: string } }, env: Env) {
    const num = (s: string | undefined, d: number) => (s ? Number(s) : d);
    super(ctx, {
      table: () => openOrCreate(env.BUCKET, "batched", env),
      maxRows: num(env.MAX_ROWS, 500),
      maxWaitMs: num(env.MAX_WAIT_MS, 100),
      maxBufferedRows: num(env.MAX_BUFFERED_ROWS, 200_000),
      ...(env.HOOK
        ? {
            afterCommit: async (id: string) => {
              const say = await (await env.HOOK!.fetch(`http://hook/committed?id=${id}`)).text();
              if (say === "throw") throw new Error(`test: stopped after committing ${id}`);
            },
          }
        : {}),
    });
  }
}

const stubOf = (env: Env, url: URL) => env.BATCHER.get(env.BATCHER.idFromName(url.searchParams.get("to") ?? "t"));

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    try {
      switch (url.pathname) {
        case "/send":
          return Response.json(await sendRows(stubOf(env, url), (await request.json()) as object[]));
        case "/flush":
        case "/status":
        case "/dead":
          return stubOf(env, url).fetch(`https://batcher${url.pathname}`, { method: request.method });
        case "/load": {
          const q = (k: string) => Number(url.searchParams.get(k));
          const [producers, sends, size] = [q("producers"), q("sends"), q("rows")];
          const stub = stubOf(env, url);
          const latencies: number[] = [];
          const t0 = Date.now();
          await Promise.all(
            Array.from({ length: producers }, async (_, k) => {
              for (let j = 0; j < sends; j++) {
                const rows = Array.from({ length: size }, (_, i) => {
                  const n = k * 1_000_000 + j * 1_000 + i;
                  return { ts: Date.UTC(2026, 11, 3) + n, producer: `p${k}`, n, v: i / 7 };
                });
                const a = Date.now();
                await sendRows(stub, rows);
                latencies.push(Date.now() - a);
              }
            }),
          );
          return Response.json({ ms: Date.now() - t0, latencies });
        }
        case "/rows": {
          const tb = await openTable(r2Store(env.BUCKET, { prefix: url.searchParams.get("prefix") ?? "batched" }));
          const out: [string, string][] = [];
          for await (const b of tb.scan({ raw: true, columns: ["n"] })) {
            const p = b.columns["producer"]!;
            const n = b.columns["n"]!;
            for (let i = 0; i < b.length; i++) out.push([p[i] as string, String(n[i])]);
          }
          return Response.json(out);
        }
      }
      return new Response("no route", { status: 404 });
    } catch (e) {
      const x = e as TimelakeError & Record<string, unknown>;
      return Response.json({ name: x.name, code: x.code ?? "INTERNAL", message: String(x.message), buffered: x["buffered"], maxBufferedRows: x["maxBufferedRows"] }, { status: x.code === "BUFFER_FULL" ? 503 : 500 });
    }
  },
};
