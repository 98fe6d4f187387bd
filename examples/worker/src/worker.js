// A Worker that appends rows to a Timelake table in an R2 bucket, as a user
// would write it: the package's /workers entry and its .wasm imported as a
// compiled module (Workers cannot compile WebAssembly from bytes).
//
//   POST /append   body: a JSON array of rows ({time, host, cpu, …})
//   GET  /latest   the latest row of every series
import wasm from "@timelake/client/timelake.wasm";
import { initWasm, createTable, openTable, r2Store, TimelakeError } from "@timelake/client/workers";

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

async function table(env) {
  if (writer) return writer;
  const store = r2Store(env.BUCKET, { prefix: "metrics" });
  try {
    writer = await openTable(store);
  } catch (e) {
    if (!(e instanceof TimelakeError) || e.code !== "NO_TABLE") throw e;
    writer = await createTable(store, schema, { location: env.TABLE_LOCATION });
  }
  return writer;
}

const json = (v, status = 200) =>
  new Response(JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x)), {
    status,
    headers: { "content-type": "application/json" },
  });

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    try {
      const t = await table(env);
      if (req.method === "POST" && url.pathname === "/append") return json(await t.append(await req.json()));
      if (url.pathname === "/latest") return json(await t.latest());
      return json({ error: "not found" }, 404);
    } catch (e) {
      const code = e instanceof TimelakeError ? e.code : "INTERNAL";
      return json({ error: String(e.message ?? e), code, row: e.row, column: e.column }, 400);
    }
  },
};
