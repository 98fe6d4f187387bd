// Expiry + cleanup of 1,000 snapshots in Node on memory stores: the table made
// by 999 appends of 10 rows, then maintain({expire, orphans}) on fresh copies,
// CPU and wall per run (run 1 is the first in the process). RUNS (5), CLIENT
// (another build's client/dist/src, to alternate), PROFILE=file.cpuprofile
// (profiles run 3).   node bench/expirenode.mjs
const dist = process.env.CLIENT ?? new URL("../client/dist/src", import.meta.url).pathname;
const { createTable, openTable, memoryStore } = await import(dist + "/node.js");
const { schema } = await import("./worker/benchrows.js");
const inspector = await import("node:inspector/promises");
const fs = await import("node:fs");
const HOSTS = Array.from({ length: 10 }, (_, j) => "host-" + j);
const base = memoryStore();
const props = { "history.expire.max-snapshot-age-ms": "1", "history.expire.min-snapshots-to-keep": "1", "timelake.orphan-grace": "0s" };
const t = await createTable(base, schema, { properties: props, location: "file:///bench/s" });
const b0 = Date.UTC(2026, 10, 27);
for (let i = 0; i < 999; i++) await t.append(Array.from({ length: 10 }, (_, j) => ({ ts: b0 + i * 1000, host: HOSTS[j], region: "eu", cpu: j, mem: i })));
async function copy() {
  const m = memoryStore();
  for (const o of await base.list("")) await m.put(o.key, await base.get(o.key));
  return m;
}
const N = Number(process.env.RUNS ?? 5);
const res = [];
for (let r = 0; r < N; r++) {
  const m = await copy();
  const tb = await openTable(m);
  let session;
  if (process.env.PROFILE && r === 2) {
    session = new inspector.Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
    await session.post("Profiler.start");
  }
  const c0 = process.cpuUsage(), t0 = performance.now();
  const out = await tb.maintain({ expire: true, orphans: true });
  const c = process.cpuUsage(c0);
  res.push({ cpu: +((c.user + c.system) / 1000).toFixed(1), wall: +(performance.now() - t0).toFixed(1), expired: out.snapshotsExpired, deleted: out.filesDeleted });
  if (session) {
    const { profile } = await session.post("Profiler.stop");
    fs.writeFileSync(process.env.PROFILE, JSON.stringify(profile));
    session.disconnect();
  }
}
console.log(JSON.stringify(res));
