// The rollup workload's routes, imported by worker.js: an hourly
// rollup (cpu: min, max, avg, last; mem: max) of the bench table, kept in
// R2 beside it (tables/T__rollup_hourly), refreshed by the client's
// refreshRollup. The append and the refresh are separate requests, so the
// harness measures each; the inline refresh of a Worker is the two in a row.
//
//   GET /rollup/add?t=T                 defines rollup "hourly" on T and creates its table
//   GET /rollup/rows?n=N&k=K            builds batch K of N rows (kept): 100 series, one row
//                                       per series per second, from 10:00Z + K·N/100 s, so
//                                       successive batches move forward in time
//   GET /rollup/append?t=T&n=N&k=K      appends batch K (built by /rollup/rows) to T
//   GET /rollup/seed?t=T                appends one row the day before (a raw snapshot the
//                                       rollup can reflect before a day is written)
//   GET /rollup/refresh?t=T[&ru=C]      refreshRollup("hourly") of T into its rollup table,
//                                       or into C, a copy of it (its objects under tables/C,
//                                       its location T's rollup's): the answer is the result
import { openTable, r2Store } from "@timelake/client/workers";

const NAME = "hourly";
const SPEC = { every: "1h", aggregates: { cpu: ["min", "max", "avg", "last"], mem: ["max"] } };
const DAY1 = Date.UTC(2026, 10, 28);
const HOSTS = Array.from({ length: 100 }, (_, i) => "host-" + String(i).padStart(3, "0"));
const REGIONS = ["eu", "us", "ap", "sa"];

const rollupKey = (t) => `${t}__rollup_${NAME}`;
const batches = new Map();
function batch(n, k) {
  const key = `${n}:${k}`;
  let out = batches.get(key);
  if (!out) {
    const start = DAY1 + 10 * 3600_000 + Math.floor((k * n) / 100) * 1000;
    out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = { ts: start + Math.floor(i / 100) * 1000, host: HOSTS[i % 100], region: REGIONS[i % 4], cpu: (i % 1000) / 10, mem: 2 ** 30 + i * 4096 };
    batches.clear(); // one batch kept at a time: the isolate's memory is the table's
    batches.set(key, out);
  }
  return out;
}

const rollups = new Map();
// The rollup table of T (or its copy C), opened once per isolate.
async function rollupTable(env, ctx, t, copy) {
  const key = copy ?? rollupKey(t);
  let ru = rollups.get(key);
  if (!ru) {
    ru = await openTable(ctx.counted(r2Store(env.BUCKET, { prefix: "tables/" + key, location: "file:///bench/" + rollupKey(t) })));
    rollups.set(key, ru);
  }
  return ru;
}

const sum = (r) => ({ mode: r.mode, snapshots: r.snapshots, buckets: r.buckets, rows: r.rows, tombstones: r.tombstones, bytesRead: r.bytesRead, capReached: r.capReached, committed: r.committed, version: r.version });

export async function rollupRoute(url, env, ctx) {
  const q = (k, d) => url.searchParams.get(k) ?? d;
  const t = q("t", "t");
  switch (url.pathname) {
    case "/rollup/add": {
      const w = await ctx.writer(env, t);
      const store = ctx.counted(r2Store(env.BUCKET, { prefix: "tables/" + rollupKey(t), location: "file:///bench/" + rollupKey(t) }));
      const ru = await w.addRollup(NAME, SPEC, store);
      rollups.set(rollupKey(t), ru);
      return { version: ru.version };
    }
    case "/rollup/rows":
      return { rows: batch(Number(q("n")), Number(q("k"))).length };
    case "/rollup/append": {
      const w = await ctx.writer(env, t);
      const r = await w.append(batch(Number(q("n")), Number(q("k"))));
      return { version: r.version, rowsWritten: r.rowsWritten, files: r.files, bytes: r.bytes };
    }
    case "/rollup/seed": {
      const w = await ctx.writer(env, t);
      const r = await w.append([{ ts: DAY1 - 3600_000, host: HOSTS[0], region: "eu", cpu: 1, mem: 1 }]);
      return { version: r.version };
    }
    case "/rollup/refresh": {
      const w = await ctx.writer(env, t);
      const ru = await rollupTable(env, ctx, t, url.searchParams.get("ru") ?? undefined);
      return { refresh: sum(await w.refreshRollup(NAME, ru)) };
    }
  }
  return null;
}
