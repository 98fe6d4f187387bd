// Expiry + cleanup of 1,000 snapshots in Node on memory stores, against the
// native benchmark of the same work (table/expire_bench_test.go,
// BenchmarkExpire/snapshots=1000/floor=10m).
//
//   node bench/expirenode.mjs
//
// The table: SNAPSHOTS (1000) appends of 10 rows (table/table_test.go's
// batch: 10 hosts, a minute apart, each batch 10 minutes after the last),
// with timelake.history.max-snapshots=0 so that it keeps every snapshot (by
// default every commit keeps only the newest 10, and expiry then finds 9).
//
// The client's grace floor (10 minutes, whatever timelake.orphan-grace says)
// keeps the files of the snapshots a run expires for 10 minutes after that
// run first saw them unreferenced, so the work takes two maintain({expire,
// orphans}) runs: A expires the snapshots, B (11 minutes later) deletes their
// files. The clock is moved instead of waited for: Date here (which
// memoryStore stamps objects with and wasm_exec.js reads the Go clock from)
// runs `shift` ms ahead. Each run: a fresh copy of the table, 11 minutes
// (its objects then look older than the floor), A, 11 minutes, B. It prints
// per run A's and B's CPU and wall, snapshots expired, files deleted, then
// medians of A+B (all runs, and runs 2.. warm) beside the native benchmark's
// cpu-ms/op and counts (NATIVE=0: skip it).
//
// RUNS (5), SNAPSHOTS (1000; the native benchmark has 100 and 1000), CLIENT
// (another build's client/dist/src, to alternate), PROFILE=file.cpuprofile
// (profiles run PROFILE_RUN's (3) A and B), NATIVE_COUNT (3).
const RealDate = Date;
let shift = 0;
globalThis.Date = class extends RealDate {
  constructor(...a) {
    if (a.length === 0) super(RealDate.now() + shift);
    else super(...a);
  }
  static now() {
    return RealDate.now() + shift;
  }
};
const later = (ms) => (shift += ms);
const FLOOR_PLUS = 11 * 60_000; // past the client's 10-minute grace floor

const dist = process.env.CLIENT ?? new URL("../client/dist/src", import.meta.url).pathname;
const { createTable, openTable, memoryStore } = await import(dist + "/node.js");
const { schema } = await import("./worker/benchrows.js");
const { startProfile } = await import("./nodeprofile.mjs");
const { execFileSync } = await import("node:child_process");

const SNAPSHOTS = Number(process.env.SNAPSHOTS ?? 1000);
const N = Number(process.env.RUNS ?? 5);
const base = memoryStore();
const props = {
  "history.expire.max-snapshot-age-ms": "0",
  "history.expire.min-snapshots-to-keep": "1",
  "timelake.orphan-grace": "0s",
  "timelake.history.max-snapshots": "0",
};
const t = await createTable(base, schema, { properties: props, location: "file:///bench/s" });
const start = Date.UTC(2026, 10, 26); // table_test.go's day1 - 48h
for (let i = 0; i < SNAPSHOTS; i++) {
  const b0 = start + i * 600_000;
  await t.append(Array.from({ length: 10 }, (_, j) => ({ ts: b0 + j * 60_000, host: "h00" + j, region: "eu", cpu: j, mem: j * 1000 })));
}
const made = (await t.history()).length;
if (made !== SNAPSHOTS) throw new Error(`the table holds ${made} snapshots, not ${SNAPSHOTS}`);

async function copy() {
  const m = memoryStore();
  for (const o of await base.list("")) await m.put(o.key, await base.get(o.key));
  return m;
}

async function run(m, profile) {
  const tb = await openTable(m);
  const stop = profile ? await startProfile() : undefined;
  const c0 = process.cpuUsage(),
    t0 = performance.now();
  const out = await tb.maintain({ expire: true, orphans: true });
  const c = process.cpuUsage(c0);
  const wall = performance.now() - t0;
  await stop?.(profile);
  await tb.close();
  return { cpu: (c.user + c.system) / 1000, wall, expired: out.snapshotsExpired, deleted: out.filesDeleted, young: out.keptYoung };
}

const res = [];
for (let r = 0; r < N; r++) {
  const m = await copy();
  later(FLOOR_PLUS);
  const prof = process.env.PROFILE && r === Number(process.env.PROFILE_RUN ?? 3) - 1 ? process.env.PROFILE : undefined;
  const a = await run(m, prof && prof.replace(/(\.cpuprofile)?$/, ".A$1"));
  later(FLOOR_PLUS);
  const b = await run(m, prof && prof.replace(/(\.cpuprofile)?$/, ".B$1"));
  const expired = a.expired + b.expired,
    deleted = a.deleted + b.deleted;
  res.push({ cpu: a.cpu + b.cpu, wall: a.wall + b.wall, expired, deleted, A: a, B: b });
  const f = (x) => x.toFixed(1);
  console.log(
    `run ${r + 1}: A ${f(a.cpu)} ms CPU (${f(a.wall)} wall), ${a.expired} snapshots expired, ${a.deleted} files deleted, ${a.young} kept young; ` +
      `B ${f(b.cpu)} ms CPU (${f(b.wall)} wall), ${b.expired} expired, ${b.deleted} files deleted, ${b.young} kept young; A+B ${f(a.cpu + b.cpu)} ms CPU`,
  );
  if (expired !== SNAPSHOTS - 1 || deleted < SNAPSHOTS - 1) {
    console.error(`run ${r + 1} expired ${expired} snapshots and deleted ${deleted} files: want ${SNAPSHOTS - 1} expired and at least their manifest lists deleted`);
    process.exit(1);
  }
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const warm = res.slice(1);
const summary = {
  snapshots: SNAPSHOTS,
  expired: res[0].expired,
  deleted: res[0].deleted,
  medianCpuMs: +median(res.map((x) => x.cpu)).toFixed(1),
  medianCpuMsWarm: warm.length ? +median(warm.map((x) => x.cpu)).toFixed(1) : undefined,
  medianWallMs: +median(res.map((x) => x.wall)).toFixed(1),
};
console.log("node: " + JSON.stringify(summary));

if (process.env.NATIVE !== "0") {
  // The same work natively: the same table (10-row appends, every snapshot
  // kept), on a memory store, the same two runs past the same grace floor.
  const name = `BenchmarkExpire/snapshots=${SNAPSHOTS}$/floor=10m`;
  const count = process.env.NATIVE_COUNT ?? "3";
  const root = new URL("..", import.meta.url).pathname;
  const args = ["test", "./table", "-run", "^$", "-bench", name, "-count", count];
  console.log(`native: go ${args.join(" ")}`);
  const out = execFileSync("go", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const lines = out.split("\n").filter((l) => l.startsWith("BenchmarkExpire/"));
  const metric = (l, unit) => Number(l.match(new RegExp(`([0-9.]+) ${unit}\\b`))?.[1]);
  const cpus = lines.map((l) => metric(l, "cpu-ms/op"));
  for (const l of lines) console.log("  " + l.replace(/\s+/g, " "));
  if (lines.length === 0) throw new Error("no native benchmark line:\n" + out);
  const nat = { expired: metric(lines[0], "expired"), deleted: metric(lines[0], "deleted"), medianCpuMs: +median(cpus).toFixed(1) };
  console.log("native: " + JSON.stringify(nat));
  console.log(`node/native (median CPU, A+B): ${(summary.medianCpuMs / nat.medianCpuMs).toFixed(1)}x; warm runs ${summary.medianCpuMsWarm !== undefined ? (summary.medianCpuMsWarm / nat.medianCpuMs).toFixed(1) + "x" : "n/a"}`);
  if (nat.expired !== summary.expired) console.log(`note: native expired ${nat.expired}, Node ${summary.expired}`);
}
