// A Worker that writes to an S3-compatible server through s3Store (fetch from
// workerd), run by Miniflare with the server's settings as bindings.
//   POST /conformance                 the Store conformance suite against s3Store
//   POST /create?prefix=&location=
//   POST /append?prefix=              body: JSON array of rows; 64-bit values as strings
import wasm from "../../src/timelake.wasm";
import { createTable, initWasm, openTable, s3Store, TimelakeError, type S3Store, type Store } from "../../src/workers.js";
import { runConformance } from "../conformance.js";

initWasm(wasm);

export interface S3Env {
  S3_ENDPOINT: string;
  S3_REGION: string;
  S3_BUCKET: string;
  S3_ACCESS_KEY_ID: string;
  S3_SECRET_ACCESS_KEY: string;
}

function store(env: S3Env, prefix: string, location?: string): S3Store {
  return s3Store({
    bucket: env.S3_BUCKET,
    prefix,
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    credentials: { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY },
    ...(location ? { location } : {}),
  });
}

/**
 * st with its writes counted: the data files (data/…) written more than once
 * in one operation. The soak (internal/soak) checks that a rebased append
 * never uploads its data again.
 */
function countingUploads(st: Store): { store: Store; repeatedData: () => string[] } {
  const writes = new Map<string, number>();
  const note = (k: string) => writes.set(k, (writes.get(k) ?? 0) + 1);
  const store: Store = {
    location: st.location,
    get: (k, o) => st.get(k, o),
    getRange: (k, off, n) => st.getRange(k, off, n),
    put: (k, d) => (note(k), st.put(k, d)),
    putIfAbsent: (k, d) => (note(k), st.putIfAbsent(k, d)),
    delete: (ks) => st.delete(ks),
    list: (p) => st.list(p),
  };
  return { store, repeatedData: () => [...writes].filter(([k, n]) => n > 1 && k.startsWith("data/")).map(([k]) => k) };
}

const json = (v: unknown, status = 200) =>
  new Response(JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x)), { status, headers: { "content-type": "application/json" } });

export default {
  async fetch(req: Request, env: S3Env): Promise<Response> {
    const url = new URL(req.url);
    const q = (k: string) => url.searchParams.get(k) ?? "";
    try {
      switch (url.pathname) {
        case "/conformance": {
          let i = 0;
          return json(await runConformance(() => store(env, `${q("prefix")}/${i++}`)));
        }
        case "/create": {
          const w = await createTable(store(env, q("prefix"), q("location")), JSON.parse(await req.text()));
          return json({ version: w.version });
        }
        case "/append": {
          const counted = countingUploads(store(env, q("prefix")));
          const w = await openTable(counted.store);
          const r = await w.append((await req.json()) as object[]);
          return json({ ...r, repeatedDataUploads: counted.repeatedData() });
        }
      }
      return json({ error: "no such route" }, 404);
    } catch (e) {
      if (e instanceof TimelakeError) return json({ name: e.name, code: e.code, message: e.message }, 400);
      return json({ name: "Error", message: String(e instanceof Error ? e.stack : e) }, 500);
    }
  },
};
