// Nested columns of every shape from a Worker in workerd (Miniflare, R2
// binding): the table of nestedshapes.ts created by type text, JS arrays,
// objects, Maps and bigints appended inside the Worker (sent to it as
// tagged JSON), scanned back as parsed values exactly (bigints past 2^53)
// before and after maintain; scan.arrow()'s bytes read by apache-arrow in
// Node as the nested types with the same values, and appended by the Worker
// to another table as the same rows; a wrong shape a
// TYPE_MISMATCH naming row, column and path. Maps keyed by numbers, bigints
// and booleans and epoch ms at nested timestamps, scanned back exactly.
import assert from "node:assert/strict";
import { test } from "node:test";
import { tableFromIPC } from "apache-arrow";
import { workerForTests } from "./mf.js";
import { arrowRows, shapeNames, shapesArrowTypes, shapesIn, shapesOut, shapesSchema } from "./nestedshapes.js";

const worker = workerForTests();
const post = worker.post;
const T0 = Date.UTC(2026, 10, 29);

/** v as the Worker's /append-typed reads it back: bigints and Maps tagged. */
function typed(v: unknown): unknown {
  if (typeof v === "bigint") return { $bigint: v.toString() };
  if (v instanceof Map) return { $map: [...v].map(([k, x]) => [typed(k), typed(x)]) };
  if (Array.isArray(v)) return v.map(typed);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typed(x)]));
  return v;
}

function rowsOf(host: string): unknown {
  return typed(
    shapesIn().map((v, i) => {
      const r: Record<string, unknown> = { ts: T0 + i, host: `${host}${i + 1}` };
      shapeNames.forEach((n, j) => (r[n] = v[j]));
      return r;
    }),
  );
}

function want(...hosts: string[]): unknown[][] {
  return hosts.flatMap((h) => shapesOut.map((v, i) => [`${h}${i + 1}`, ...v]));
}

async function fetchWorker(path: string, body: unknown): Promise<Response> {
  const res = await worker.mf().dispatchFetch(`http://worker${path}`, { method: "POST", body: JSON.stringify(body) });
  assert.equal(res.status, 200, path);
  return res as unknown as Response;
}

async function scanTyped(prefix: string): Promise<unknown[][]> {
  const text = await (await fetchWorker(`/scan-typed?prefix=${prefix}`, {})).text();
  const rows = JSON.parse(text, (_k, x) => (x && typeof x === "object" && typeof x.$bigint === "string" ? BigInt(x.$bigint) : x)) as Record<string, unknown>[];
  return rows.map((r) => [r["host"], ...shapeNames.map((n) => r[n] ?? null)]);
}

test("a Worker appends JS values of every nested shape and scans them back exactly, as rows and as Arrow", async () => {
  const schema = encodeURIComponent(JSON.stringify(shapesSchema));
  assert.equal((await post(`/create?prefix=s1&schema=${schema}`)).status, 200);
  let r = await post("/append-typed?prefix=s1", rowsOf("a"));
  assert.equal(r.status, 200, JSON.stringify(r.j));
  assert.deepEqual(await scanTyped("s1"), want("a"));
  r = await post("/append-typed?prefix=s1", rowsOf("b"));
  assert.equal(r.status, 200, JSON.stringify(r.j));
  assert.equal((await post("/maintain?prefix=s1")).status, 200);
  assert.deepEqual(await scanTyped("s1"), want("a", "b"), "after maintain");

  const bytes = new Uint8Array(await (await fetchWorker("/scan-arrow?prefix=s1", { columns: [...shapeNames] })).arrayBuffer());
  const a = tableFromIPC(bytes);
  for (const n of shapeNames) assert.equal(String(a.schema.fields.find((f) => f.name === n)!.type), shapesArrowTypes[n], n);
  assert.deepEqual(arrowRows(a, shapeNames), want("a", "b"));

  // those Arrow bytes appended by the Worker to a second table: the same rows
  assert.equal((await post(`/create?prefix=s2&schema=${schema}`)).status, 200);
  const all = new Uint8Array(await (await fetchWorker("/scan-arrow?prefix=s1", {})).arrayBuffer());
  const res = await worker.mf().dispatchFetch("http://worker/append-arrow?prefix=s2", { method: "POST", body: all });
  assert.equal(res.status, 200, await res.text());
  assert.deepEqual(await scanTyped("s2"), want("a", "b"), "Arrow appended in workerd");

  // a wrong shape deep inside: TYPE_MISMATCH naming row, column and path, nothing appended
  const bad = typed([
    { ts: T0 + 9, host: "c" },
    { ts: T0 + 9, host: "d", st: { c: { e: new Map([["k", "x"]]) } } },
  ]);
  r = await post("/append-typed?prefix=s1", bad);
  assert.equal(r.status, 400);
  assert.deepEqual([r.j.code, r.j.row, r.j.column], ["TYPE_MISMATCH", 2, "st"], r.j.message);
  assert.match(r.j.message, /at st\.c\.e\[k\]/);
  assert.deepEqual(await scanTyped("s1"), want("a", "b"), "nothing appended");
});

test("a Worker appends Maps keyed by numbers, bigints and booleans, and epoch ms at nested timestamps; scanned back exactly", async () => {
  const schema = encodeURIComponent(
    JSON.stringify({
      time: "ts",
      series: ["host"],
      columns: [
        { name: "byLong", type: "map<long, string>" },
        { name: "byBool", type: "map<boolean, long>" },
        { name: "times", type: "list<timestamptz>" },
        { name: "ev", type: "struct<when: timestamptz>" },
      ],
    }),
  );
  assert.equal((await post(`/create?prefix=k1&schema=${schema}`)).status, 200);
  const ms = Date.UTC(2026, 10, 29, 1, 2, 3, 456);
  const iso = "2026-11-29T01:02:03.456000Z";
  const rows = typed([{ ts: T0, host: "a", byLong: new Map<unknown, string>([[1, "one"], [2n ** 63n - 1n, "max"]]), byBool: new Map([[true, 9007199254740993n]]), times: [ms, BigInt(ms)], ev: { when: ms } }]);
  const r = await post("/append-typed?prefix=k1", rows);
  assert.equal(r.status, 200, JSON.stringify(r.j));
  const text = await (await fetchWorker("/scan-typed?prefix=k1", {})).text();
  const got = JSON.parse(text, (_k, x) => (x && typeof x === "object" && typeof x.$bigint === "string" ? BigInt(x.$bigint) : x)) as Record<string, unknown>[];
  assert.deepEqual(
    got.map((g) => [g["host"], g["byLong"], g["byBool"], g["times"], g["ev"]]),
    [["a", { "1": "one", "9223372036854775807": "max" }, { true: 9007199254740993n }, [iso, iso], { when: iso }]],
  );
  // an object key: TYPE_MISMATCH naming row and column
  const bad = await post("/append-typed?prefix=k1", typed([{ ts: T0 + 1, host: "b", byLong: new Map([[{ k: 1 }, "x"]]) }]));
  assert.equal(bad.status, 400);
  assert.deepEqual([bad.j.code, bad.j.row, bad.j.column], ["TYPE_MISMATCH", 1, "byLong"], bad.j.message);
});
