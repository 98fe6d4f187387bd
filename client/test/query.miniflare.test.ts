// The example Worker (examples/worker/src/worker.js) in workerd through
// Miniflare: rows appended over /append, read back over /query (NDJSON,
// stats in a header) against a brute-force filter and dedup of what was
// sent, and as an Arrow IPC stream (format=arrow, or the Accept header)
// that apache-arrow reads to the same rows; bad query input as coded 400s. The example's package imports are
// pointed at the built client (dist/src), as a bundler would resolve them.
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { tableFromIPC } from "apache-arrow";
import { Miniflare } from "miniflare";

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const example = path.resolve(dist, "../../examples/worker/src/worker.js");

let mf: Miniflare;
let dir: string;

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "timelake-query-"));
  const src = (await fs.readFile(example, "utf8"))
    .replace('"@timelake/client/timelake.wasm"', '"./src/timelake.wasm"')
    .replace('"@timelake/client/workers"', '"./src/workers.js"');
  const script = path.join(dist, "example-worker.js");
  await fs.writeFile(script, src);
  mf = new Miniflare({
    modules: true,
    scriptPath: script,
    modulesRoot: dist,
    modulesRules: [
      { type: "ESModule", include: ["**/*.js"] },
      { type: "CompiledWasm", include: ["**/*.wasm"] },
    ],
    compatibilityDate: "2025-09-01",
    r2Buckets: ["BUCKET"],
    r2Persist: path.join(dir, "r2"),
    bindings: { TABLE_LOCATION: "s3://metrics/metrics" },
  });
  await mf.ready;
});
after(async () => {
  await mf?.dispose();
  await fs.rm(dir, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
type Row = { time: string; host: string; region: string; cpu: number; mem_bytes: number; healthy: boolean | null };
const rowsOf = (n: number, seed: number, step: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({
    time: new Date(T0 + Math.floor((i * step) / 4) * 60_000).toISOString(),
    host: `web-${(i * step) % 4}`,
    region: seed === 1 ? "eu" : "us",
    cpu: seed + i / 8,
    mem_bytes: seed * 1_000_000 + i,
    healthy: i % 5 === 0 ? null : i % 2 === 0,
  }));

/** The last write of each (host, time), filtered, sorted, as /query prints it. */
function expected(appends: Row[][], hosts: string[], from: number, to: number, columns: (keyof Row)[], limit: number): Record<string, unknown>[] {
  const last = new Map<string, Row>();
  for (const a of appends) for (const r of a) last.set(`${r.host} ${r.time}`, r);
  return [...last.values()]
    .filter((r) => hosts.includes(r.host) && Date.parse(r.time) >= from && Date.parse(r.time) < to)
    .sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : Date.parse(a.time) - Date.parse(b.time)))
    .slice(0, limit)
    .map((r) => {
      const o: Record<string, unknown> = { time: r.time.replace("Z", "000Z"), host: r.host };
      for (const c of columns) o[c] = c === "mem_bytes" ? String(r[c]) : r[c];
      return o;
    });
}

async function post(p: string, body: unknown) {
  const res = await mf.dispatchFetch(`http://worker${p}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
  return { status: res.status, json: (await res.json()) as any };
}

async function query(qs: string) {
  const res = await mf.dispatchFetch(`http://worker/query?${qs}`);
  const text = await res.text();
  return { status: res.status, res, text, lines: res.status === 200 ? text.split("\n").filter((l) => l).map((l) => JSON.parse(l)) : [] };
}

test("the example Worker's /query: NDJSON rows equal to the deduplicated, filtered writes; stats in a header", async () => {
  const a = rowsOf(2000, 1, 1);
  const b = rowsOf(600, 2, 3); // every third key of a's: duplicates, the later append wins
  for (const batch of [a, b]) {
    const r = await post("/append", batch);
    assert.equal(r.status, 200, JSON.stringify(r.json));
  }
  const from = T0 + 37 * 60_000,
    to = T0 + 6 * 3600_000;
  const q = await query(`series=host:web-1,web-3&from=${new Date(from).toISOString()}&to=${to}&columns=cpu,mem_bytes,healthy&limit=100000`);
  assert.equal(q.status, 200, q.text);
  assert.equal(q.res.headers.get("content-type"), "application/x-ndjson");
  const want = expected([a, b], ["web-1", "web-3"], from, to, ["cpu", "mem_bytes", "healthy"], 100000);
  assert.ok(want.length > 100);
  assert.deepEqual(q.lines, want);
  const stats = JSON.parse(q.res.headers.get("x-timelake-scan-stats")!);
  assert.equal(stats.rows, want.length);
  assert.ok(stats.requests > 0 && stats.bytesRead > 0 && stats.filesRead >= 1, JSON.stringify(stats));
  assert.match(stats.snapshotId, /^\d+$/);

  const limited = await query(`series=host:web-2&columns=cpu&limit=5`);
  assert.deepEqual(limited.lines, expected([a, b], ["web-2"], 0, Infinity, ["cpu"], 5));

  // The hourly rollup, refreshed inline by each append (in the append's
  // call: the example makes no refreshRollup call), equals the hourly
  // aggregate of the same deduplicated rows.
  const r = await post("/append", rowsOf(50, 3, 7)); // late duplicates again
  assert.equal(r.json.rollups?.[0]?.rollup, "hourly", JSON.stringify(r.json));
  assert.equal(r.json.rollups[0].refresh?.mode, "incremental", JSON.stringify(r.json));
  assert.equal(r.json.rollups[0].refresh.sourceSnapshot, r.json.snapshotId, "the rollup reflects the append");
  assert.deepEqual(r.json.warnings, []);
  const rolled = await mf.dispatchFetch("http://worker/rollup?limit=0");
  const got = (await rolled.text()).split("\n").filter((l) => l).map((l) => JSON.parse(l));
  const byBucket = new Map<string, Row[]>();
  for (const row of expected([a, b, rowsOf(50, 3, 7)], ["web-0", "web-1", "web-2", "web-3"], 0, Infinity, ["cpu", "mem_bytes"], 1e9) as unknown as Row[]) {
    const k = `${row.host} ${Math.floor(Date.parse(row.time) / 3600_000)}`;
    byBucket.set(k, [...(byBucket.get(k) ?? []), row]);
  }
  const wantRolled = [...byBucket.values()].map((rs) => ({
    bucket: new Date(Math.floor(Date.parse(rs[0]!.time) / 3600_000) * 3600_000).toISOString().replace("Z", "000Z"),
    host: rs[0]!.host,
    row_count: String(rs.length),
    cpu_count: String(rs.length),
    cpu_sum: rs.reduce((s, x) => s + x.cpu, 0),
    cpu_min: Math.min(...rs.map((x) => x.cpu)),
    cpu_max: Math.max(...rs.map((x) => x.cpu)),
    cpu_last: rs[rs.length - 1]!.cpu,
    mem_bytes_max: rs.map((x) => BigInt(x.mem_bytes)).reduce((m, x) => (x > m ? x : m)).toString(),
  }));
  assert.equal(got.length, wantRolled.length);
  for (let i = 0; i < wantRolled.length; i++) {
    const g = got[i],
      w = wantRolled[i]!;
    assert.deepEqual({ ...g, cpu_sum: 0 }, { ...w, cpu_sum: 0 }, `bucket ${i}`);
    assert.ok(Math.abs(g.cpu_sum - w.cpu_sum) <= 1e-12 * Math.abs(w.cpu_sum), `cpu_sum ${g.cpu_sum} vs ${w.cpu_sum}`);
  }
});

test("/query?format=arrow (and Accept: application/vnd.apache.arrow.stream): an Arrow IPC stream of the NDJSON rows", async () => {
  const qs = "series=host:web-0,web-2&columns=cpu,mem_bytes,healthy,region&limit=100000";
  const nd = await query(qs);
  assert.equal(nd.status, 200, nd.text);
  assert.ok(nd.lines.length > 100);
  for (const init of [{ qs: qs + "&format=arrow" }, { qs, headers: { accept: "application/vnd.apache.arrow.stream" } }]) {
    const res = await mf.dispatchFetch(`http://worker/query?${init.qs}`, { headers: init.headers ?? {} });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/vnd.apache.arrow.stream");
    assert.equal(JSON.parse(res.headers.get("x-timelake-scan-stats")!).rows, nd.lines.length);
    const a = tableFromIPC(new Uint8Array(await res.arrayBuffer()));
    assert.deepEqual(a.schema.fields.map((f) => `${f.name}:${f.type}`), [
      "time:Timestamp<MICROSECOND, UTC>", "host:Utf8", "region:Utf8", "cpu:Float64", "mem_bytes:Int64", "healthy:Bool",
    ]);
    // as /query's NDJSON prints them: times in microseconds, longs as strings
    const got = a.toArray().map((r) => {
      const o = r.toJSON() as Record<string, unknown>;
      const ms = o["time"] as number; // apache-arrow: epoch milliseconds, microseconds as the fraction
      const us = Math.round(ms * 1000) % 1000;
      return { ...o, time: new Date(Math.floor(ms)).toISOString().replace("Z", String(us).padStart(3, "0") + "Z"), mem_bytes: String(o["mem_bytes"]) };
    });
    assert.deepEqual(got, nd.lines);
  }
});

test("/query bad input: coded 400s naming what was wrong", async () => {
  for (const [qs, code, column] of [
    ["columns=cpu,nope", "UNKNOWN_COLUMN", "nope"],
    ["from=2026-11-30T10:00:00Z&to=2026-11-30T09:00:00Z", "BAD_RANGE", undefined],
    ["from=soon", "BAD_TIME", undefined],
    ["series=region:eu", "BAD_FILTER", "region"],
    ["limit=-3", "BAD_OPTION", undefined],
    ["limit=lots", "BAD_OPTION", "limit"],
  ] as const) {
    const q = await query(qs);
    assert.equal(q.status, 400, qs);
    const j = JSON.parse(q.text);
    assert.equal(j.code, code, `${qs}: ${q.text}`);
    assert.equal(j.column, column, qs);
  }
  const ok = await query("limit=1");
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.lines.length, 1);
});
