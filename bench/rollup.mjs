// The rollup workload of bench/harness.mjs (Performance): an
// hourly rollup (cpu: min, max, avg, last; mem: max) of the bench table in
// R2, refreshed by the client's refreshRollup in workerd (routes in
// worker/rollup.js).
//
//   inline    after each append of N rows (1k, 100k; successive batches move
//             forward in time: 100 series at 1 Hz from 10:00Z), the refresh
//             of the buckets it touched — the append and the refresh as two
//             requests in a row in the same isolate (a Worker's inline
//             refresh is the two in one request), so each has its own CPU:
//             cold (the isolate's first append and first refresh), warm
//             (calls 2–1+WARM), steady (after STEADY_AFTER).
//   catch-up  one day: the scan workload's 24-file partition (24 appends of
//             50k rows, 1.2M rows, 100 series, compaction workload's rows)
//             written after the rollup reflected one earlier row, so the
//             refresh walks 24 snapshots (incremental: each file's buckets
//             from its bounds) and recomputes 2,400 buckets; beside it, in
//             its own fresh isolates, a full scan of the same day (the same
//             columns: cpu, mem), and the same day computed whole by a rollup
//             never refreshed. Every refresh goes into a fresh copy of the
//             rollup table (the raw table is not changed by a refresh).
// Results: samples `rollup: …` in the JSON, and `rollup` (the fixture).
import * as fs from "node:fs/promises";
import * as path from "node:path";

const DAY1 = Date.UTC(2026, 10, 28);
const DAY = 24 * 3600_000;
export const ROLLUP_DAY_SCAN = { from: DAY1, to: DAY1 + DAY, columns: ["cpu", "mem"] };
const enc = (q) => encodeURIComponent(JSON.stringify(q));

export const rollupNames = (n) => ({ append: `rollup: append ${n}`, refresh: `rollup: inline refresh after append ${n}` });
export const CATCHUP = { incremental: "rollup: catch-up of a day (24 appends since the last refresh)", full: "rollup: the day computed whole (never refreshed)", scan: "rollup: full scan of the day (cpu, mem)" };

async function inline(ctx, n) {
  const { start, call, measure, record, work, RUNS, WARM, STEADY_AFTER, STEADY } = ctx;
  const persist = path.join(work, `rollup-inline-${n}`);
  await fs.rm(persist, { recursive: true, force: true });
  const t = `ri${n}`;
  const names = rollupNames(n);
  let k = 0;
  // The table, its rollup, and a first append refreshed (the rollup then
  // reflects a snapshot: every later refresh is a fold or incremental).
  let w = await start(persist);
  try {
    await call(w, `/create?t=${t}`);
    await call(w, `/rollup/add?t=${t}`);
    await call(w, `/rollup/rows?n=${n}&k=${k}`);
    await call(w, `/rollup/append?t=${t}&n=${n}&k=${k++}`);
    await call(w, `/rollup/refresh?t=${t}`);
  } finally {
    await w.close();
  }
  for (let r = 0; r < RUNS; r++) {
    w = await start(persist);
    try {
      await call(w, "/noop");
      for (let c = 0; c < STEADY_AFTER + STEADY; c++) {
        const kind = c === 0 ? "cold" : c <= WARM ? "warm" : c >= STEADY_AFTER ? "steady" : undefined;
        await call(w, `/rollup/rows?n=${n}&k=${k}`);
        const a = `/rollup/append?t=${t}&n=${n}&k=${k++}`, f = `/rollup/refresh?t=${t}`;
        if (!kind) {
          await call(w, a);
          await call(w, f);
          continue;
        }
        record(names.append, kind, await measure(w, a));
        const m = await measure(w, f);
        // fold: the append's rows are later than their series' rows, folded
        // into the stored rollup rows (table/rollup_fold.go); incremental:
        // the touched buckets recomputed from the raw table.
        if (!["fold", "incremental"].includes(m.body.refresh.mode)) throw new Error(`rollup inline refresh: mode ${m.body.refresh.mode}, not fold or incremental`);
        record(names.refresh, kind, m);
      }
    } finally {
      await w.close();
    }
  }
}

async function catchup(ctx) {
  const { start, call, measure, record, log, work, RUNS, WARM, smoke } = ctx;
  const FILES = 24, EACH = smoke ? 100 : 50_000;
  const persist = path.join(work, "rollup-day");
  await fs.rm(persist, { recursive: true, force: true });
  const t = "rd", ru = `${t}__rollup_hourly`;
  let w = await start(persist);
  let fixture;
  try {
    // The scan workload's fixture (same routes, same rows), with the rollup
    // defined first and refreshed over one earlier row.
    await call(w, `/create?t=${t}&props=${enc({ "timelake.maintain-byte-cap": "0" })}`);
    await call(w, `/rollup/add?t=${t}`);
    await call(w, `/copy?from=${ru}&to=${ru}-empty`);
    await call(w, `/rollup/seed?t=${t}`);
    await call(w, `/rollup/refresh?t=${t}`);
    await call(w, `/fill?t=${t}&files=${FILES}&rows=${EACH}`);
    const f = await call(w, `/files?t=${t}`);
    fixture = { rows: FILES * EACH, files: f.data.length, dataBytes: f.dataBytes, otherBytes: f.otherBytes };
    log(`rollup fixture: ${fixture.rows} rows, ${fixture.files} files, ${fixture.dataBytes} B`);
  } finally {
    await w.close();
  }
  const jobs = [
    { name: CATCHUP.scan, route: () => `/scan?t=${t}&q=${enc(ROLLUP_DAY_SCAN)}` },
    // incremental: the 24 snapshots walked; by-sequence: the reflected
    // snapshot has left the metadata (timelake.history.max-snapshots), the
    // files with a newer sequence number read instead.
    { name: CATCHUP.incremental, from: ru, mode: ["incremental", "by-sequence"] },
    // (Not in a smoke run, which stays short.)
    ...(smoke ? [] : [{ name: CATCHUP.full, from: `${ru}-empty`, mode: ["full"] }]),
  ];
  for (let r = 0; r < RUNS; r++) {
    for (const job of jobs) {
      w = await start(persist);
      try {
        await call(w, "/noop");
        for (let c = 0; c <= WARM; c++) {
          let route;
          if (job.route) route = job.route();
          else {
            const copy = `${ru}-r${r}${job.mode[0][0]}${c}`;
            await call(w, `/copy?from=${job.from}&to=${copy}`);
            route = `/rollup/refresh?t=${t}&ru=${copy}`;
          }
          const m = await measure(w, route);
          if (job.mode && !job.mode.includes(m.body.refresh.mode)) throw new Error(`${job.name}: mode ${m.body.refresh.mode}, not ${job.mode.join(" or ")}`);
          record(job.name, c === 0 ? "cold" : "warm", m);
        }
      } finally {
        await w.close();
      }
    }
  }
  return fixture;
}

// The sizes: 1k and 100k rows (smoke: 100 rows, the day 24 × 100 rows).
export async function rollupWorkload(ctx) {
  const sizes = ctx.smoke ? [100] : [1000, 100_000];
  for (const n of sizes) await inline(ctx, n);
  return { sizes, fixture: await catchup(ctx), daySpec: ROLLUP_DAY_SCAN };
}

// Inclusive time by function (self + callees, each function counted once
// per stack), the top `k`: where a refresh spends its time.
export function inclusive(profile, k = 25) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const tot = new Map();
  let all = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i] ?? 0;
    all += us;
    const seen = new Set();
    for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const name = byId.get(id).callFrame.functionName || "(anonymous)";
      if (seen.has(name)) continue;
      seen.add(name);
      tot.set(name, (tot.get(name) ?? 0) + us);
    }
  }
  return [...tot].sort((a, b) => b[1] - a[1]).slice(0, k).map(([name, us]) => ({ name, ms: us / 1000, pct: (100 * us) / all }));
}

// BENCH_PROFILE: V8 CPU profiles of inline refreshes (after appends of n
// rows, the append unprofiled), each refresh profiled on its own; the
// last one saved, inclusive and self times logged. w: an isolate with the
// inspector, the Timelake module built with its names.
export async function profileRollup({ call, log, results, summarize }, w, n, times = 6) {
  const fs = await import("node:fs/promises");
  const t = `rp${n}`;
  await call(w, `/create?t=${t}`);
  await call(w, `/rollup/add?t=${t}`);
  let last;
  for (let k = 0; k < times; k++) {
    await call(w, `/rollup/rows?n=${n}&k=${k}`);
    await call(w, `/rollup/append?t=${t}&n=${n}&k=${k}`);
    if (k === 0) {
      await call(w, `/rollup/refresh?t=${t}`);
      continue;
    }
    await w.inspector.send("Profiler.enable");
    await w.inspector.send("Profiler.setSamplingInterval", { interval: 200 });
    await w.inspector.send("Profiler.start");
    await call(w, `/rollup/refresh?t=${t}`);
    last = (await w.inspector.send("Profiler.stop")).profile;
  }
  const file = path.join(results, `profile-rollup-inline-refresh-${n}.cpuprofile`);
  await fs.writeFile(file, JSON.stringify(last));
  const s = summarize(last);
  log(`profile rollup refresh after ${n}: ${s.totalMs.toFixed(0)} ms; ${s.categories.map((c) => `${c.name} ${c.pct.toFixed(0)}%`).join(", ")}`);
  for (const x of inclusive(last)) log(`  incl ${x.ms.toFixed(1)} ms ${x.pct.toFixed(1)}% ${x.name}`);
  for (const x of s.top.slice(0, 12)) log(`  self ${x.ms.toFixed(1)} ms ${x.pct.toFixed(1)}% ${x.name}`);
  return { file: path.relative(path.dirname(results), file), appends: 1, ...s, inclusive: inclusive(last) };
}
