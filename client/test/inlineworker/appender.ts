// One appender of rollupinline.test.ts's cross-instance test, run in a
// worker_thread: its own WebAssembly instance, its own TableWriter on the
// shared local directory. It appends its batches (keys no other appender
// writes, buckets every appender writes), each refreshing the rollup inline,
// and posts each append's snapshot, warnings and inline outcomes.
import { parentPort, workerData } from "node:worker_threads";
import { openTable } from "../../src/node.js";
import { localStore } from "../../src/stores/local.js";

const { dir, id, batches, perBatch, t0 } = workerData as { dir: string; id: number; batches: number; perBatch: number; t0: number };
const t = await openTable(localStore(dir));
const out = [];
for (let k = 0; k < batches; k++) {
  const rows = Array.from({ length: perBatch }, (_, i) => ({
    // Appender id's own seconds in every hour of the day's first 6: no key is shared.
    ts: new Date(t0 + (i % 6) * 3600_000 + (id * 1000 + k * perBatch + i) * 1000),
    host: `h${i % 2}`,
    cpu: id + k / 4 + (i % 8) / 8, // multiples of 1/8: exact sums in any order
    mem: BigInt(id * 100_000 + k * 1000 + i),
  }));
  const r = await t.append(rows);
  out.push({ snapshot: String(r.snapshotId), warnings: r.warnings, modes: (r.rollups ?? []).map((o) => o.refresh?.mode ?? o.error?.code) });
}
parentPort!.postMessage(out);
