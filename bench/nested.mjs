// The label-heavy workload (BENCH_ONLY=nested node bench/harness.mjs):
// appends of N (100,000; smoke 1,000) rows with 8 labels to a table whose
// labels are one tags map<string, string> column, and to one whose labels
// are 8 string columns (the same values), each shape in fresh workerd
// processes, alternating which goes first; then the rows scanned back
// (batches, map values parsed to objects) and, for the map, with a label
// filter (tags[status]=500: a quarter of the rows). worker/nested.js has
// the routes and the rows (table/nested_bench_test.go's, in JavaScript).
//
// Per run and shape: the first append in the isolate (the Go runtime
// started by the create before it), WARM more into the same table, then a
// table appended to once and scanned twice (and filtered twice). WASM
// memory is the linear memory after each request (it never shrinks: the
// high-water mark of the isolate so far).
import * as fs from "node:fs/promises";
import * as path from "node:path";

export const NESTED_WORKLOAD = "nested";

export async function nestedWorkload({ start, call, measure, record, log, work, RUNS, WARM, smoke }) {
  const n = smoke ? 1000 : 100_000;
  for (let r = 0; r < RUNS; r++) {
    for (const shape of r % 2 ? ["columns", "map"] : ["map", "columns"]) {
      const persist = path.join(work, `nested-${shape}`);
      await fs.rm(persist, { recursive: true, force: true });
      const w = await start(persist);
      try {
        await call(w, `/nested/create?t=a&shape=${shape}`);
        await call(w, `/nested/create?t=s&shape=${shape}`);
        await call(w, `/nested/rows?n=${n}`);
        const name = `labels append ${n} (${shape === "map" ? "map<string, string>" : "8 string columns"})`;
        record(name, "first", await measure(w, `/nested/append?t=a&shape=${shape}&n=${n}`));
        for (let k = 0; k < WARM; k++) record(name, "warm", await measure(w, `/nested/append?t=a&shape=${shape}&n=${n}`));
        await call(w, `/nested/append?t=s&shape=${shape}&n=${n}`);
        const scan = `labels scan ${n} (${shape === "map" ? "map<string, string>" : "8 string columns"})`;
        for (let k = 0; k < 2; k++) {
          const m = await measure(w, `/nested/scan?t=s`);
          if (m.body.rows !== n) throw new Error(`${scan}: ${m.body.rows} rows, want ${n}`);
          record(scan, "warm", m);
        }
        if (shape === "map") {
          for (let k = 0; k < 2; k++) {
            const m = await measure(w, `/nested/scan?t=s&where=${encodeURIComponent("tags[status]=500")}`);
            if (m.body.rows !== n / 4) throw new Error(`filtered scan: ${m.body.rows} rows, want ${n / 4}`);
            record(`labels scan ${n} where tags[status]=500 (map<string, string>)`, "warm", m);
          }
        }
      } finally {
        await w.close();
      }
    }
  }
  log(`nested: ${RUNS} runs of ${n} rows`);
}
