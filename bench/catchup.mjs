// The index catch-up workload of bench/harness.mjs.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs/promises";
import * as fss from "node:fs";
import * as path from "node:path";

// The catch-up workload: latest() and the next append of 1k rows on a table
// where another engine appended CATCHUP_N rows after a Timelake append of 1k,
// so the last-value index must be brought up to date from that engine's data
// file. The table is table/catchup_bench_test.go's (TestCatchUpFixture, the
// table BenchmarkIndexCatchUp measures natively): the foreign snapshot is a
// real one in shape, written by table.CommitForeign — its own data file,
// manifest and manifest list, an explicit sequence number, no timelake.*
// summary keys and no statistics entry (no index). It is written natively
// and loaded into R2 object by object, then copied fresh for every call.
//
// Each job's prep(from, t) lists the unmeasured calls that make table t from
// the fixture's copy from. The R2 jobs copy in R2 and their measured call
// opens the table; the memory-store jobs copy into a memory store in the
// isolate and open it beforehand, so the measured call is what
// BenchmarkIndexCatchUp times natively (and report.mjs, which reads the
// "catch-up:" names only, leaves them out of its issue-11 table).
export function catchupJobs(smoke) {
  const CATCHUP_N = smoke ? 1000 : 100_000;
  const r2 = (from, t) => [`/copy?from=${from}&to=${t}`];
  const mem = (from, t) => [`/memcopy?from=${from}&t=${t}`, `/open?t=${t}&mem=1`];
  return [
  { tag: "l", name: `catch-up: latest, after a foreign append of ${CATCHUP_N} rows`, r2: true, prep: r2, route: (t) => `/latest?t=${t}` },
  { tag: "a", name: `catch-up: append 1000, after a foreign append of ${CATCHUP_N} rows`, r2: true, prep: r2, route: (t) => `/append?t=${t}&n=1000` },
  { tag: "lm", name: `catch-up (memory store, table open): latest, after a foreign append of ${CATCHUP_N} rows`, prep: mem, route: (t) => `/latest?t=${t}&mem=1` },
  { tag: "am", name: `catch-up (memory store, table open): append 1000, after a foreign append of ${CATCHUP_N} rows`, prep: mem, route: (t) => `/append?t=${t}&n=1000&mem=open` },
  ];
}

function catchupFixture({ work, root, smoke }, location) {
  const CATCHUP_N = smoke ? 1000 : 100_000;
  const dir = path.join(work, "catchup-fixture");
  fss.rmSync(dir, { recursive: true, force: true });
  const env = { ...process.env, TIMELAKE_CATCHUP_FIXTURE: dir, TIMELAKE_CATCHUP_ROWS: String(CATCHUP_N), TIMELAKE_CATCHUP_LOCATION: location };
  execFileSync("go", ["test", "-count=1", "-run", "^TestCatchUpFixture$", "./table/"], { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
  return dir;
}

export async function upload(w, t, dir) {
  const keys = fss.readdirSync(dir, { recursive: true }).filter((k) => fss.statSync(path.join(dir, k)).isFile());
  for (const key of keys) {
    const res = await w.mf.dispatchFetch(`http://bench/put?t=${t}&key=${encodeURIComponent(key.split(path.sep).join("/"))}`, { method: "POST", body: fss.readFileSync(path.join(dir, key)) });
    const body = await res.json();
    if (!res.ok || body.error) throw new Error(`put ${key}: ${JSON.stringify(body).slice(0, 500)}`);
  }
  return keys.length;
}

// One fresh isolate per run and job: every call on a fresh copy of the
// table (its open included), the first cold, the next WARM warm, and STEADY
// more after STEADY_AFTER calls, as the appends.
async function catchupRun({ start, call, measure, record, WARM, STEADY_AFTER, STEADY }, persist, job, r) {
  const w = await start(persist);
  try {
    await call(w, "/rows?n=1000");
    await call(w, "/noop");
    for (let k = 0; k < STEADY_AFTER + STEADY; k++) {
      const t = `cu-${job.tag}${r}-${k}`;
      for (const route of job.prep("cu", t)) await call(w, route);
      const kind = k === 0 ? "cold" : k <= WARM ? "warm" : k >= STEADY_AFTER ? "steady" : undefined;
      if (kind) record(job.name, kind, await measure(w, job.route(t)));
      else await call(w, job.route(t));
    }
  } finally {
    await w.close();
  }
}

export async function catchupWorkload(ctx) {
  const { start, log, work, RUNS } = ctx;
  const persist = path.join(work, "catchup");
  await fs.rm(persist, { recursive: true, force: true });
  const dir = catchupFixture(ctx, "file:///bench/cu");
  const w = await start(persist);
  log(`catch-up fixture: ${await upload(w, "cu", dir)} objects`);
  await w.close();
  for (const job of catchupJobs(ctx.smoke)) for (let r = 0; r < RUNS; r++) await catchupRun(ctx, persist, job, r);
}
