// A Worker that writes a table kept in an Iceberg REST catalog: fetch goes
// to the catalog (CATALOG_URI, bearer CATALOG_TOKEN), the files to the S3
// server, either through the credentials the catalog vends (mode=vended,
// the default store) or through an s3Store rooted at the bucket that the
// Worker builds from its own bindings (mode=rooted).
//   POST /create?name=ns.t              body: the schema
//   POST /append?name=ns.t&mode=…       body: JSON array of rows
//   POST /read?name=ns.t                info and latest
//   POST /rollup?name=ns.t              body: rows; appended, then its hourly rollup refreshed
// Every answer carries the catalog requests the call made (method + path).
import wasm from "../../src/timelake.wasm";
import { createTable, initWasm, openTable, restCatalog, s3Store, TimelakeError, type Catalog, type TableSchema } from "../../src/workers.js";
import type { S3Env } from "../s3worker/worker.js";

initWasm(wasm);

interface Env extends S3Env {
  CATALOG_URI: string;
  CATALOG_WAREHOUSE: string;
  CATALOG_TOKEN?: string;
}

let requests: string[] = [];
let cached: Catalog | undefined;

/** One catalog per isolate: its config and token outlive a request. */
function catalog(env: Env): Catalog {
  cached ??= restCatalog({
    uri: env.CATALOG_URI,
    warehouse: env.CATALOG_WAREHOUSE,
    ...(env.CATALOG_TOKEN ? { token: env.CATALOG_TOKEN } : {}),
    fetch: (input, init) => {
      requests.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    },
  });
  return cached;
}

const bucketStore = (env: Env) =>
  s3Store({
    bucket: env.S3_BUCKET,
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    credentials: { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY },
  });

const json = (v: unknown, status = 200) =>
  new Response(JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x)), { status, headers: { "content-type": "application/json" } });

export default {
  async fetch(req: Request, env: Env): Promise<Response> {
    const url = new URL(req.url);
    const name = url.searchParams.get("name") ?? "";
    const options = url.searchParams.get("mode") === "rooted" ? { store: bucketStore(env) } : {};
    requests = [];
    try {
      switch (url.pathname) {
        case "/create": {
          const t = await createTable(catalog(env), name, (await req.json()) as TableSchema, options);
          return json({ version: t.version, requests });
        }
        case "/append": {
          const t = await openTable(catalog(env), name, options);
          const r = await t.append((await req.json()) as object[]);
          await t.close();
          return json({ ...r, requests });
        }
        case "/read": {
          const t = await openTable(catalog(env), name, options);
          const [info, latest] = [await t.info(), await t.latest()];
          await t.close();
          return json({ info, latest, requests });
        }
        case "/rollup": {
          // The table's hourly rollup (added on first use), the rows appended, the rollup refreshed.
          const t = await openTable(catalog(env), name, options);
          const ru = (await t.rollups()).some((d) => d.name === "hourly")
            ? await t.rollup("hourly")
            : await t.addRollup("hourly", { every: "1h", aggregates: { cpu: ["max", "sum"] } });
          const appended = await t.append((await req.json()) as object[]);
          const refresh = await t.refreshRollup("hourly", ru);
          const [definitions, info] = [await t.rollups(), await ru.info()];
          await Promise.all([t.close(), ru.close()]);
          return json({ appended, refresh, definitions, info, requests });
        }
      }
      return json({ error: "no such route" }, 404);
    } catch (e) {
      const code = e instanceof TimelakeError ? e.code : "UNKNOWN";
      return json({ error: String(e), code, requests }, 500);
    }
  },
};
