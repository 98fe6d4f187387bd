// The Durable Object batcher workload of bench/harness.mjs:
// TableBatcher (@timelake/client/workers) bound as BATCHER, SQLite-backed
// storage, appending to one table on the R2 binding.
//
//   throughput  P producers inside the isolate (bench/worker/batcher.js
//               /batcher/load), each making S sends of R rows one after
//               another; acknowledgement latency per send by workerd's
//               clock; rows/s acknowledged, and rows/s until the table
//               holds every row (the object's alarm appends maxRows at a
//               time or maxWaitMs after the first waiting row); the workerd
//               process CPU over the load.
//   kills       producers driven from Node (one dispatchFetch per send, so
//               each acknowledgement is known here), the workerd process
//               killed (Miniflare disposed) at a random moment KILLS times
//               and restarted on the same storage, then drained; the table
//               read back raw: acknowledged rows missing (lost) and rows
//               stored more than once (duplicated) must both be 0 — an
//               outcome check that fails the run, not a timing.
import * as fs from "node:fs/promises";
import * as fss from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export const BATCHER_WORKLOAD = "Durable Object batcher";

// CPU ms of a process, all threads and its main thread (schedstat run times, as harness.mjs measures).
function cpuOf(pid) {
  const out = { all: 0, main: 0 };
  for (const t of fss.readdirSync(`/proc/${pid}/task`)) {
    try {
      const run = Number(fss.readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]) / 1e6;
      out.all += run;
      if (Number(t) === pid) out.main += run;
    } catch {}
  }
  return out;
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

export async function batcherWorkload({ start, call, log, work, RUNS, smoke }) {
  const cfg = smoke
    ? { producers: 4, sends: 5, rows: 20, maxRows: 100, maxWaitMs: 100, kills: 1 }
    : { producers: 32, sends: 50, rows: 50, maxRows: 5000, maxWaitMs: 1000, kills: 4 };
  const bindings = { BATCH_MAX_ROWS: String(cfg.maxRows), BATCH_MAX_WAIT_MS: String(cfg.maxWaitMs) };
  const boot = async (dir) =>
    start(path.join(dir, "r2"), bindings, {
      durableObjects: { BATCHER: { className: "BenchBatcher", useSQLite: true } },
      durableObjectsPersist: path.join(dir, "do"),
    });
  // Waits for the object's alarms to append everything (no flush call: the alarm is what is measured).
  const drain = async (w) => {
    let st;
    for (let i = 0; i < 3000; i++) {
      st = await call(w, "/batcher/status");
      if (st.buffered === 0) return st;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`the batcher did not drain in 60 s: ${JSON.stringify(st)}`);
  };
  const failures = [];
  const runs = [];
  for (let r = 0; r < Math.min(RUNS, 3); r++) {
    const dir = path.join(work, `batcher-${r}`);
    await fs.rm(dir, { recursive: true, force: true });
    const w = await boot(dir);
    try {
      await call(w, "/batcher/status"); // the object and the isolate up
      const c0 = cpuOf(w.pid);
      const t0 = performance.now();
      const load = await call(w, `/batcher/load?producers=${cfg.producers}&sends=${cfg.sends}&rows=${cfg.rows}`);
      const ackedMs = performance.now() - t0;
      const st = await drain(w);
      const allMs = performance.now() - t0;
      const c1 = cpuOf(w.pid);
      const check = await call(w, "/batcher/check");
      const rows = cfg.producers * cfg.sends * cfg.rows;
      if (check.distinct !== rows || check.twice !== 0) failures.push(`throughput run ${r}: ${check.distinct} distinct rows of ${rows}, ${check.twice} stored twice`);
      const lat = load.latencies;
      const run = {
        rows,
        ackedMs,
        allMs,
        ackedRowsPerS: (rows / ackedMs) * 1000,
        rowsPerS: (rows / allMs) * 1000,
        commits: st.commits,
        cpuMs: c1.all - c0.all, // the workerd process, all threads, load and appends
        cpuMainMs: c1.main - c0.main,
        p50: pct(lat, 50),
        p99: pct(lat, 99),
        max: Math.max(...lat),
      };
      runs.push(run);
      log(`batcher run ${r}: ${rows} rows acked in ${ackedMs.toFixed(0)} ms, appended in ${allMs.toFixed(0)} ms (${run.rowsPerS.toFixed(0)} rows/s, ${st.commits} commits), ack p50 ${run.p50} ms p99 ${run.p99} ms, CPU ${run.cpuMs.toFixed(0)} ms (main thread ${run.cpuMainMs.toFixed(0)})`);
    } finally {
      await w.close();
    }
  }

  // Kills: producers from Node, the runtime killed at random moments.
  const dir = path.join(work, "batcher-kills");
  await fs.rm(dir, { recursive: true, force: true });
  const acked = new Set();
  let cut = 0;
  let sendsFrom = 0;
  for (let k = 0; k < cfg.kills; k++) {
    const w = await boot(dir);
    const stop = { stopped: false };
    const from = sendsFrom;
    sendsFrom += 100;
    const load = Promise.all(
      Array.from({ length: Math.min(cfg.producers, 16) }, async (_, p) => {
        for (let j = from; j < from + 100 && !stop.stopped; j++) {
          try {
            const res = await w.mf.dispatchFetch(`http://bench/batcher/send?k=${p}&j=${j}&rows=${cfg.rows}`, { method: "POST" });
            const body = await res.json();
            if (res.ok && body.accepted === cfg.rows) for (let i = 0; i < cfg.rows; i++) acked.add(String(p * 1_000_000 + j * 1_000 + i));
            else cut++;
          } catch {
            cut++;
          }
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 400 + Math.floor(Math.random() * 1200)));
    stop.stopped = true;
    await w.close(); // the workerd process ends: sends in flight fail, unacknowledged
    await load;
  }
  const w = await boot(dir);
  let kills;
  try {
    let st;
    try {
      st = await drain(w);
    } catch (e) {
      // An outcome, reported with the run's other figures rather than
      // ending the harness (and losing them).
      failures.push(`kills: ${e.message}`);
      kills = { kills: cfg.kills, acked: acked.size, cut, drained: false };
      log(`batcher kills: ${e.message}`);
      return { config: cfg, runs, kills, failures, loadAvg: os.loadavg().map((x) => Number(x.toFixed(2))) };
    }
    const check = await call(w, "/batcher/check");
    const stored = new Set(check.ns);
    const lost = [...acked].filter((n) => !stored.has(n)).length;
    kills = { kills: cfg.kills, acked: acked.size, cut, stored: check.distinct, lost, duplicated: check.twice, replayedAfterLastRestart: st.replayed };
    if (lost || check.twice) failures.push(`kills: ${lost} acknowledged rows lost, ${check.twice} stored more than once`);
    log(`batcher kills: ${JSON.stringify(kills)}`);
  } finally {
    await w.close();
  }
  return { config: cfg, runs, kills, failures, loadAvg: os.loadavg().map((x) => Number(x.toFixed(2))) };
}
