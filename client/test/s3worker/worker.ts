// A Worker that writes to an S3-compatible server through s3Store (fetch from
// workerd), run by Miniflare with the server's settings as bindings.
//   POST /conformance                 the Store conformance suite against s3Store
//   POST /create?prefix=&location=
//   POST /append?prefix=              body: JSON array of rows; 64-bit values as strings
import wasm from "../../src/timelake.wasm";
import { createTable, initWasm, openTable, s3Store, TimelakeError, type S3Store } from "../../src/workers.js";
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
          const w = await openTable(store(env, q("prefix")));
          return json(await w.append((await req.json()) as object[]));
        }
      }
      return json({ error: "no such route" }, 404);
    } catch (e) {
      if (e instanceof TimelakeError) return json({ name: e.name, code: e.code, message: e.message }, 400);
      return json({ name: "Error", message: String(e instanceof Error ? e.stack : e) }, 500);
    }
  },
};
