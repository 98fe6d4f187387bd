// The label-heavy workload's routes (bench/nested.mjs), imported by
// worker.js: 100 series, a row per series per second, cpu, and 8 labels —
// as one tags map<string, string> column (plain objects in the rows) or as
// 8 string columns holding the same values — table/nested_bench_test.go's
// rows, in JavaScript.
//
//   GET /nested/create?t=T&shape=map|columns   creates T (map: the tags column added
//                                              as another engine adds it)
//   GET /nested/rows?n=N                       builds both shapes' N rows (kept)
//   GET /nested/append?t=T&shape=S&n=N         appends the N rows of shape S to T
//   GET /nested/scan?t=T[&where=EXPR]          T's rows back in batches (iterated and
//                                              dropped; map values parsed to objects)
import { createTable, openTable } from "@timelake/client/workers";

const DAY1 = Date.UTC(2026, 10, 28);
const LABELS = ["env", "region", "az", "job", "instance", "service", "version", "status"];
const REGIONS = ["eu-west-1", "us-east-1", "ap-south-1", "sa-east-1"];

function labelValues(i) {
  const h = i % 100;
  const region = REGIONS[h % 4];
  return [
    ["prod", "staging", "dev"][h % 3],
    region,
    region + ["a", "b", "c"][h % 3],
    ["api", "db", "cache", "queue", "web"][h % 5],
    `10.0.${Math.floor(h / 10)}.${h % 10}:9090`,
    `svc-${String(h % 20).padStart(2, "0")}`,
    `v1.${h % 7}.0`,
    ["200", "404", "500", "503"][i % 4],
  ];
}

const rowsBy = new Map(); // "shape:n" → rows
function makeRows(n) {
  const start = DAY1 + 10 * 3600_000;
  const map = new Array(n), cols = new Array(n);
  for (let i = 0; i < n; i++) {
    const ts = start + Math.floor(i / 100) * 1000, host = "host-" + String(i % 100).padStart(3, "0"), cpu = (i % 1000) / 10;
    const v = labelValues(i);
    const tags = {};
    const c = { ts, host, cpu };
    for (let k = 0; k < LABELS.length; k++) {
      tags[LABELS[k]] = v[k];
      c["label_" + LABELS[k]] = v[k];
    }
    map[i] = { ts, host, cpu, tags };
    cols[i] = c;
  }
  rowsBy.set("map:" + n, map);
  rowsBy.set("columns:" + n, cols);
}

const schemaOf = (shape) => ({
  time: "ts",
  series: ["host"],
  columns: [{ name: "cpu", type: "double" }, ...(shape === "columns" ? LABELS.map((l) => ({ name: "label_" + l, type: "string" })) : [])],
  partition: "day",
});

// Adds tags map<string, string> as another engine's schema change would:
// the next metadata version with the field, then the version hint.
async function addTags(store) {
  const v = Number(new TextDecoder().decode(await store.get("metadata/version-hint.text")));
  const md = JSON.parse(new TextDecoder().decode(await store.get(`metadata/v${v}.metadata.json`)));
  const id = md["last-column-id"] + 1;
  md.schemas.find((s) => s["schema-id"] === md["current-schema-id"]).fields.push({
    id,
    name: "tags",
    required: false,
    type: { type: "map", "key-id": id + 1, key: "string", "value-id": id + 2, value: "string", "value-required": false },
  });
  md["last-column-id"] = id + 2;
  if (!(await store.putIfAbsent(`metadata/v${v + 1}.metadata.json`, new TextEncoder().encode(JSON.stringify(md))))) throw new Error("lost the race");
  await store.put("metadata/version-hint.text", new TextEncoder().encode(String(v + 1)));
}

export async function nestedRoute(url, env, { storeOf, writers }) {
  const q = (k, d) => url.searchParams.get(k) ?? d;
  const t = q("t", "t");
  const writer = async () => {
    let w = writers.get(t);
    if (!w) writers.set(t, (w = await openTable(storeOf(env, t))));
    return w;
  };
  switch (url.pathname) {
    case "/nested/create": {
      const shape = q("shape", "map");
      const w = await createTable(storeOf(env, t), schemaOf(shape));
      await w.close();
      if (shape === "map") await addTags(storeOf(env, t));
      writers.delete(t);
      return { version: (await writer()).version };
    }
    case "/nested/rows": {
      makeRows(Number(q("n")));
      return { rows: Number(q("n")) };
    }
    case "/nested/append": {
      const rows = rowsBy.get(q("shape", "map") + ":" + q("n"));
      const r = await (await writer()).append(rows);
      return { version: r.version, rowsWritten: r.rowsWritten, files: r.files, bytes: r.bytes };
    }
    case "/nested/scan": {
      const w = await writer();
      const where = q("where", "");
      let rows = 0, batches = 0, sample;
      for await (const b of w.scan(where ? { where } : {})) {
        rows += b.length;
        batches++;
        sample ??= b.columns.tags?.[0] ?? b.columns.label_env?.[0];
      }
      return { rows, batches, sample };
    }
  }
  return null;
}
