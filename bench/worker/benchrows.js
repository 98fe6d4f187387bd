// The benchmark table of the workerd harness (worker.js) and of the Node
// benchmarks (../nodeappend.mjs, ../compactnode.mjs, …), so they append the
// same rows to the same schema: table/bench_test.go's benchBatch.
export const schema = {
  time: "ts",
  series: ["host"],
  columns: [
    { name: "region", type: "string", required: true },
    { name: "cpu", type: "double" },
    { name: "mem", type: "long" },
  ],
  partition: "day",
};

export const DAY1 = Date.UTC(2026, 10, 28);
export const HOSTS = Array.from({ length: 100 }, (_, i) => "host-" + String(i).padStart(3, "0"));
export const REGIONS = ["eu", "us", "ap", "sa"];

// makeRows(n): 100 series, one row per series per second from
// 2026-11-28T10:00Z, arriving in time order (so the append sorts them by
// series).
export function makeRows(n) {
  const start = DAY1 + 10 * 3600_000;
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    out[i] = { ts: start + Math.floor(i / 100) * 1000, host: HOSTS[i % 100], region: REGIONS[i % 4], cpu: (i % 1000) / 10, mem: 2 ** 30 + i * 4096 };
  }
  return out;
}

// table/compact_bench_test.go's compactionTable, batch f of files×each: the
// next stretch of one day for the same 100 series (times in microseconds).
export function fillRows(f, files, each) {
  const step = Math.floor((24 * 3600 * 1e6) / Math.floor((files * each) / 100 + 1));
  const out = new Array(each);
  for (let i = 0; i < each; i++) {
    const r = f * each + i;
    out[i] = { ts: DAY1 * 1000 + Math.floor(r / 100) * step, host: HOSTS[r % 100], region: REGIONS[r % 4], cpu: (r % 1000) / 10, mem: 2 ** 30 + r * 4096 };
  }
  return out;
}
