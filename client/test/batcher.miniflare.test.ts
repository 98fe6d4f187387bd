// The Durable Object batcher (TableBatcher) in workerd through Miniflare:
// many producers send rows, the object appends them in batches; the object
// is stopped after an append committed and before its batch left storage,
// and the whole runtime is killed mid-load and restarted on the same
// storage. Every acknowledged row must be in the table exactly once (read
// back by a raw scan: duplicates included), no row twice.
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

interface Setup {
  bindings?: Record<string, string>;
  hook?: (req: Request) => Promise<Response>;
}

async function start(dir: string, s: Setup = {}): Promise<Miniflare> {
  const mf = new Miniflare({
    modules: true,
    scriptPath: path.join(dist, "test", "batcher", "worker.js"),
    modulesRoot: dist,
    modulesRules: [
      { type: "ESModule", include: ["**/*.js"] },
      { type: "CompiledWasm", include: ["**/*.wasm"] },
    ],
    compatibilityDate: "2025-09-01",
    r2Buckets: ["BUCKET"],
    r2Persist: path.join(dir, "r2"),
    durableObjects: { BATCHER: { className: "TestBatcher", useSQLite: true } },
    durableObjectsPersist: path.join(dir, "do"),
    bindings: s.bindings ?? {},
    ...(s.hook ? { serviceBindings: { HOOK: s.hook as never } } : {}),
  });
  await mf.ready;
  return mf;
}

type Row = { ts: number; producer: string; n: number; v: number };

/** Send j of producer k: `size` rows, each n unique over the test. */
function rowsOf(k: number, j: number, size: number): Row[] {
  return Array.from({ length: size }, (_, i) => {
    const n = k * 1_000_000 + j * 1_000 + i;
    return { ts: Date.UTC(2026, 11, 3) + n, producer: `p${k}`, n, v: i / 7 };
  });
}

async function call(mf: Miniflare, pathname: string, init?: { method?: string; body?: string }): Promise<{ status: number; json: any }> {
  const res = await mf.dispatchFetch(`http://worker${pathname}`, { method: init?.method ?? "GET", ...(init?.body ? { body: init.body } : {}) });
  const text = await res.text();
  try {
    return { status: res.status, json: JSON.parse(text) };
  } catch {
    return { status: res.status, json: text };
  }
}

/** Runs producers (each `sends` sends of `size` rows, one at a time) until done or stopped; returns the acknowledged rows' n and the ack latencies. */
async function produce(mf: Miniflare, producers: number, sends: number, size: number, from = 0, stop?: { stopped: boolean }) {
  const acked = new Set<number>();
  const latencies: number[] = [];
  let failed = 0;
  const codes = new Map<string, number>();
  await Promise.all(
    Array.from({ length: producers }, async (_, k) => {
      for (let j = from; j < from + sends && !stop?.stopped; j++) {
        const rows = rowsOf(k, j, size);
        const t0 = performance.now();
        try {
          const r = await call(mf, "/send?to=t", { method: "POST", body: JSON.stringify(rows) });
          if (r.status === 200) {
            latencies.push(performance.now() - t0);
            for (const x of rows) acked.add(x.n);
          } else {
            failed++;
            codes.set(r.json?.code ?? String(r.status), (codes.get(r.json?.code) ?? 0) + 1);
          }
        } catch {
          failed++; // the runtime went away: not acknowledged
        }
      }
    }),
  );
  return { acked, latencies, failed, codes };
}

/** Waits until the object holds nothing: its alarms append (no flush call here, so a lost alarm fails the test). */
async function drain(mf: Miniflare): Promise<any> {
  let st: any;
  for (let i = 0; i < 1500; i++) {
    st = await call(mf, "/status?to=t");
    assert.equal(st.status, 200, JSON.stringify(st.json));
    if (st.json.buffered === 0) return st.json;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the batcher did not drain in 30 s: ${JSON.stringify(st?.json)}`);
}

/** Every stored row's n, counted. */
async function stored(mf: Miniflare): Promise<Map<number, number>> {
  const r = await call(mf, "/rows");
  assert.equal(r.status, 200, JSON.stringify(r.json));
  const out = new Map<number, number>();
  for (const [, n] of r.json as [string, string][]) out.set(Number(n), (out.get(Number(n)) ?? 0) + 1);
  return out;
}

function checkExactlyOnce(counts: Map<number, number>, acked: Set<number>) {
  const twice = [...counts].filter(([, c]) => c > 1).map(([n]) => n);
  assert.deepEqual(twice.slice(0, 10), [], `${twice.length} rows stored more than once`);
  const missing = [...acked].filter((n) => !counts.has(n));
  assert.deepEqual(missing.slice(0, 10), [], `${missing.length} acknowledged rows missing`);
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function tmp(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), "timelake-batcher-"));
}

test("many producers, the object stopped after every third commit: every acknowledged row once", async (t) => {
  const dir = await tmp();
  let commits = 0;
  const mf = await start(dir, {
    bindings: { MAX_ROWS: "400", MAX_WAIT_MS: "50" },
    hook: async (req) => new Response(new URL(req.url).pathname === "/committed" && ++commits % 3 === 0 ? "throw" : "ok"),
  });
  try {
    const { acked, failed } = await produce(mf, 12, 10, 25);
    assert.equal(failed, 0);
    assert.equal(acked.size, 12 * 10 * 25);
    const st = await drain(mf);
    const counts = await stored(mf);
    checkExactlyOnce(counts, acked);
    assert.equal(counts.size, acked.size);
    assert.ok(st.replayed >= 1, `replayed ${st.replayed}: the stopped batches were found by findCommit`);
    assert.equal(st.deadLetters, 0);
    t.diagnostic(`${commits} commits (every third stopped before its batch was deleted), ${st.replayed} found committed on replay`);
  } finally {
    await mf.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test("the runtime killed after an append committed, and at random moments under load: every acknowledged row once", async (t) => {
  const dir = await tmp();
  const acked = new Set<number>();
  let unacked = 0;
  // Round 0: killed while the object waits in afterCommit (committed, batch still stored).
  let killNow: () => void = () => {};
  const killed = new Promise<void>((r) => (killNow = r));
  let commits = 0;
  let mf = await start(dir, {
    bindings: { MAX_ROWS: "300", MAX_WAIT_MS: "50" },
    hook: async (req) => {
      if (new URL(req.url).pathname === "/committed" && ++commits === 3) {
        killNow();
        return new Promise<Response>(() => {}); // never answers: the runtime dies first
      }
      return new Response("ok");
    },
  });
  const stop = { stopped: false };
  const load = produce(mf, 8, 1000, 20, 0, stop);
  await killed;
  stop.stopped = true;
  await mf.dispose();
  let r = await load;
  for (const n of r.acked) acked.add(n);
  unacked += r.failed;
  // Rounds 1–3: restart on the same storage, load, kill at a random moment.
  for (let round = 1; round <= 3; round++) {
    mf = await start(dir, { bindings: { MAX_ROWS: "300", MAX_WAIT_MS: "50" } });
    if (round === 1) {
      // The batch killed in afterCommit had landed: the restarted object's
      // alarm finds its commit id and does not append it again.
      let st: any;
      for (let i = 0; i < 500 && !(st?.replayed >= 1); i++) {
        st = (await call(mf, "/status?to=t")).json;
        await new Promise((res) => setTimeout(res, 20));
      }
      assert.equal(st.replayed, 1, `after the restart: ${JSON.stringify(st)}`);
    }
    const stop = { stopped: false };
    const load = produce(mf, 8, 1000, 20, round * 100, stop);
    await new Promise((res) => setTimeout(res, 300 + Math.floor(Math.random() * 900)));
    stop.stopped = true;
    await mf.dispose(); // requests in flight fail: those rows are not acknowledged
    r = await load;
    for (const n of r.acked) acked.add(n);
    unacked += r.failed;
  }
  mf = await start(dir, { bindings: { MAX_ROWS: "300", MAX_WAIT_MS: "50" } });
  try {
    const st = await drain(mf);
    const counts = await stored(mf);
    checkExactlyOnce(counts, acked);
    assert.ok(acked.size > 0);
    t.diagnostic(`${acked.size} rows acknowledged over 4 kills, ${unacked} sends cut by a kill, ${counts.size} rows stored; the batch in flight at the first kill found committed after the restart`);
  } finally {
    await mf.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test("the runtime killed in the middle of an append, before its commit: the batch is appended after the restart, once", async (t) => {
  const dir = await tmp();
  let killNow: () => void = () => {};
  const killed = new Promise<void>((r) => (killNow = r));
  let commits = 0;
  let mf = await start(dir, {
    bindings: { MAX_ROWS: "300", MAX_WAIT_MS: "50" },
    hook: async (req) => {
      if (new URL(req.url).pathname === "/before-commit" && ++commits === 3) {
        killNow(); // data files and manifest uploaded, the metadata not written
        return new Promise<Response>(() => {});
      }
      return new Response("ok");
    },
  });
  const stop = { stopped: false };
  const load = produce(mf, 6, 1000, 20, 0, stop);
  await killed;
  stop.stopped = true;
  await mf.dispose();
  const { acked, failed } = await load;
  mf = await start(dir, { bindings: { MAX_ROWS: "300", MAX_WAIT_MS: "50" } });
  try {
    const st = await drain(mf);
    assert.equal(st.replayed, 0, "the batch cut before its commit is not in the table");
    assert.ok(st.commits >= 1, `${st.commits} commits after the restart`);
    const counts = await stored(mf);
    checkExactlyOnce(counts, acked);
    t.diagnostic(`${acked.size} rows acknowledged, ${failed} sends cut; after the restart ${st.commits} commits, the cut batch among them`);
  } finally {
    await mf.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test("the runtime killed while the alarm is set for later: the restarted object appends the waiting rows with no further send", async () => {
  // workerd keeps the alarm's time in the object's storage but not in its
  // scheduler across a restart: getAlarm() answers a time that never fires.
  const dir = await tmp();
  const bindings = { MAX_ROWS: "100000", MAX_WAIT_MS: "1500" };
  let mf = await start(dir, { bindings });
  const rows = rowsOf(3, 0, 40);
  const r = await call(mf, "/send?to=t", { method: "POST", body: JSON.stringify(rows) });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  await mf.dispose(); // before the alarm, 1.5 s away
  mf = await start(dir, { bindings });
  try {
    const st = await drain(mf);
    assert.equal(st.commits, 1, JSON.stringify(st));
    const counts = await stored(mf);
    checkExactlyOnce(counts, new Set(rows.map((x) => x.n)));
    assert.equal(counts.size, rows.length);
  } finally {
    await mf.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test("a full buffer refuses with BUFFER_FULL and its limits; flushing makes room", async () => {
  const dir = await tmp();
  const mf = await start(dir, { bindings: { MAX_ROWS: "100000", MAX_WAIT_MS: "600000", MAX_BUFFERED_ROWS: "1000" } });
  try {
    const ok = await call(mf, "/send?to=t", { method: "POST", body: JSON.stringify(rowsOf(0, 0, 600)) });
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    assert.deepEqual(ok.json, { accepted: 600, buffered: 600 });
    const full = await call(mf, "/send?to=t", { method: "POST", body: JSON.stringify(rowsOf(0, 1, 600)) });
    assert.equal(full.status, 503);
    assert.equal(full.json.code, "BUFFER_FULL");
    assert.equal(full.json.buffered, 600);
    assert.equal(full.json.maxBufferedRows, 1000);
    assert.match(full.json.message, /holds 600 rows; 600 more would pass maxBufferedRows \(1000\)/);
    const flushed = await call(mf, "/flush?to=t", { method: "POST" });
    assert.equal(flushed.json.rows, 600, JSON.stringify(flushed.json));
    const again = await call(mf, "/send?to=t", { method: "POST", body: JSON.stringify(rowsOf(0, 1, 600)) });
    assert.equal(again.status, 200, JSON.stringify(again.json));
  } finally {
    await mf.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test("a row the table refuses goes to the dead letters with its error; the rest of the batch is appended", async () => {
  const dir = await tmp();
  const mf = await start(dir, { bindings: { MAX_ROWS: "100000", MAX_WAIT_MS: "600000" } });
  try {
    const good = rowsOf(1, 0, 50);
    const bad = [{ ...rowsOf(2, 0, 1)[0], v: "lots" }];
    for (const rows of [good.slice(0, 25), bad, good.slice(25)]) {
      const r = await call(mf, "/send?to=t", { method: "POST", body: JSON.stringify(rows) });
      assert.equal(r.status, 200, JSON.stringify(r.json));
    }
    const flushed = await call(mf, "/flush?to=t", { method: "POST" });
    assert.deepEqual(flushed.json, { rows: 50, commits: 1, replayed: 0, deadLettered: 1 });
    const dead = await call(mf, "/dead?to=t");
    assert.equal(dead.json.length, 1);
    assert.deepEqual({ code: dead.json[0].code, row: dead.json[0].row, column: dead.json[0].column, n: dead.json[0].rows[0].n }, { code: "TYPE_MISMATCH", row: 1, column: "v", n: 2_000_000 });
    const counts = await stored(mf);
    checkExactlyOnce(counts, new Set(good.map((r) => r.n)));
    assert.equal(counts.size, 50);
  } finally {
    await mf.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test("throughput into one table and acknowledgement latency, producers inside workerd (logged, not asserted)", async (t) => {
  const dir = await tmp();
  const env = (k: string, d: number) => Number(process.env[`TIMELAKE_BATCHER_${k}`] ?? d);
  const [producers, sends, size] = [env("PRODUCERS", 32), env("SENDS", 25), env("ROWS", 50)];
  const maxRows = env("MAX_ROWS", 5000);
  const maxWaitMs = env("MAX_WAIT_MS", 1000);
  const mf = await start(dir, { bindings: { MAX_ROWS: String(maxRows), MAX_WAIT_MS: String(maxWaitMs) } });
  try {
    await call(mf, "/status?to=t"); // the object up
    const t0 = performance.now();
    const load = await call(mf, `/load?to=t&producers=${producers}&sends=${sends}&rows=${size}`, { method: "POST" });
    assert.equal(load.status, 200, JSON.stringify(load.json));
    const tAcked = performance.now() - t0;
    // Appended: the alarm's flushes, waited for (a flush call joins the one running).
    let st: any;
    for (;;) {
      st = (await call(mf, "/status?to=t")).json;
      if (st.buffered === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const tAll = performance.now() - t0;
    const acked = new Set<number>();
    for (let k = 0; k < producers; k++) for (let j = 0; j < sends; j++) for (const r of rowsOf(k, j, size)) acked.add(r.n);
    const counts = await stored(mf);
    checkExactlyOnce(counts, acked);
    assert.equal(counts.size, acked.size);
    const lat = load.json.latencies as number[];
    t.diagnostic(
      `${acked.size} rows from ${producers} producers in workerd (${sends} sends of ${size} rows each, one at a time; maxRows ${maxRows}, maxWaitMs ${maxWaitMs}): ` +
        `acknowledged in ${tAcked.toFixed(0)} ms (${((acked.size / tAcked) * 1000).toFixed(0)} rows/s), all appended in ${tAll.toFixed(0)} ms = ${((acked.size / tAll) * 1000).toFixed(0)} rows/s in ${st.commits} commits (${st.replayed} replayed); ` +
        `ack latency p50 ${pct(lat, 50)} ms, p99 ${pct(lat, 99)} ms, max ${Math.max(...lat)} ms (workerd's clock)`,
    );
  } finally {
    await mf.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  }
});
