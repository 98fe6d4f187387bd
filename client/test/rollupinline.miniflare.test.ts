// Inline rollup refresh in workerd (Miniflare, R2 binding): the test
// Worker's table gets an hourly rollup with inline=true and no Store given
// (r2Store's sibling, prefix <table>__rollup_hourly); each append over
// /append refreshes it in the same call, and its rows equal a brute-force
// aggregate of the rows sent (the later append of a key wins). A writer
// whose rollup store fails gets a warning with the code while its rows are
// committed; the next inline append catches up.
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import type { Miniflare } from "miniflare";
import { bucketOf, startWorker } from "./mf.js";

let dir: string;
let mf: Miniflare;

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "timelake-mfri-"));
  mf = await startWorker(path.join(dir, "r2"));
});
after(async () => {
  await mf?.dispose();
  await fs.rm(dir, { recursive: true, force: true });
});

async function call(p: string, body?: unknown): Promise<any> {
  const res = await mf.dispatchFetch(`http://worker${p}`, { method: "POST", ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const j = await res.json();
  assert.equal(res.status, 200, `${p}: ${JSON.stringify(j)}`);
  return j;
}

const T0 = Date.UTC(2026, 10, 30);
type Row = { ts: string; host: string; shard: string; cpu: number; mem: string };

/** n rows of batch k over 5 hours; keys repeat across batches. */
const rowsOf = (k: number, n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({
    ts: new Date(T0 + ((i * 7 + k * 11) % 300) * 60_000).toISOString(),
    host: `web-${(i + k) % 3}`,
    shard: String(i % 2),
    cpu: ((i * k) % 40) / 8,
    mem: String(1000 * k + i),
  }));

function expected(batches: Row[][]): string[] {
  const last = new Map<string, Row>();
  for (const b of batches) for (const r of b) last.set(`${r.host}|${r.shard}|${r.ts}`, r);
  const by = new Map<string, Row[]>();
  for (const r of last.values()) {
    const k = `${r.host}|${r.shard}|${new Date(Math.floor(Date.parse(r.ts) / 3600_000) * 3600_000).toISOString()}`;
    by.set(k, [...(by.get(k) ?? []), r]);
  }
  return [...by.entries()]
    .map(([k, rs]) => `${k}|${rs.length}|${Math.max(...rs.map((r) => r.cpu))}|${rs.reduce((s, r) => s + r.cpu, 0)}|${rs.map((r) => BigInt(r.mem)).reduce((m, x) => (x > m ? x : m))}`)
    .sort();
}

async function rollupRows(prefix: string): Promise<string[]> {
  const rows = (await call(`/rollup-rows?prefix=${prefix}&fresh=1`)) as Record<string, unknown>[];
  return rows
    .map((r) => `${r.host}|${r.shard}|${new Date(Date.parse(String(r.bucket))).toISOString()}|${r.row_count}|${r.cpu_max}|${r.cpu_sum}|${r.mem_max}`)
    .sort();
}

test("inline rollup in a Worker: each append refreshes it, exact; a failing rollup store is a warning, caught up next", async () => {
  await call("/create?prefix=ri");
  const added = await call("/rollup-add?prefix=ri");
  assert.equal(added.location, "r2://bucket/ri__rollup_hourly");
  const batches: Row[][] = [];
  for (let k = 1; k <= 3; k++) {
    batches.push(rowsOf(k, 300));
    const r = await call("/append?prefix=ri", batches[k - 1]);
    assert.deepEqual(r.warnings, [], JSON.stringify(r));
    assert.equal(r.rollups[0].rollup, "hourly");
    assert.equal(r.rollups[0].refresh.sourceSnapshot, r.snapshotId);
    assert.equal(typeof r.timings.rollupMs, "number");
    assert.deepEqual(await rollupRows("ri"), expected(batches), `after append ${k}`);
  }
  const keys = (await (await bucketOf(mf)).list({ prefix: "ri__rollup_hourly/metadata/" })).objects.length;
  assert.ok(keys > 0, "the rollup table is beside the table in the bucket");

  // The rollup's store fails: the append stands, with a warning naming the rollup and the code.
  await call("/open?prefix=ri&rollups=broken");
  batches.push(rowsOf(4, 200));
  const r = await call("/append?prefix=ri", batches[3]);
  assert.equal(r.rollups[0].error?.code, "STORE_ERROR", JSON.stringify(r));
  assert.ok(r.warnings.some((w: string) => w.startsWith("rollup refresh: hourly [STORE_ERROR]") && w.includes("r2 is down")), JSON.stringify(r.warnings));
  const info = await call("/info?prefix=ri&fresh=1");
  assert.equal(info.info.snapshotId, r.snapshotId, "the append is committed");
  assert.deepEqual(await rollupRows("ri"), expected(batches.slice(0, 3)), "the rollup is behind");

  // A writer that finds the store: the next append catches up with both.
  await call("/open?prefix=ri");
  batches.push(rowsOf(5, 50));
  const r2 = await call("/append?prefix=ri", batches[4]);
  assert.deepEqual(r2.warnings, []);
  assert.equal(r2.rollups[0].refresh.snapshots, 2, "two raw snapshots walked");
  assert.deepEqual(await rollupRows("ri"), expected(batches));
});
