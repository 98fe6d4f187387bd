// The flights-3m scans in workerd (harness.mjs, BENCH_ONLY=flights; run by
// bench/flights.mjs beside the CLI and Node): the table flights.mjs made
// (FLIGHTS_DIR, default $TMPDIR/timelake-flights) put into the R2 binding
// once, then each query scanned by the Worker's /scan route
// (`for await (const batch of table.scan(q))`, batches dropped) in a fresh
// isolate: cold, the runtime's start and openTable included, as Node's
// figures are of fresh processes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { upload } from "./catchup.mjs";
import { FLIGHT_QUERIES } from "./flightsreport.mjs";

export async function flightsWorkload({ start, call, measure, record, log, work, RUNS }) {
  const dir = process.env.FLIGHTS_DIR ?? path.join(os.tmpdir(), "timelake-flights");
  if (!fs.existsSync(path.join(dir, "metadata"))) {
    const note = `no flights table at ${dir}: node bench/flights.mjs makes it`;
    log(note);
    return { note };
  }
  const persist = path.join(work, "flights");
  fs.rmSync(persist, { recursive: true, force: true });
  let w = await start(persist);
  try {
    log(`flights: ${await upload(w, "flights", dir)} objects put into R2`);
  } finally {
    await w.close();
  }
  for (let r = 0; r < RUNS; r++) {
    for (const q of FLIGHT_QUERIES) {
      const qq = q.from ? { from: Date.parse(q.from + "T00:00:00Z"), to: Date.parse(q.to + "T00:00:00Z") } : {};
      w = await start(persist);
      try {
        await call(w, "/noop");
        record(`flights ${q.tag}`, "cold", await measure(w, `/scan?t=flights&q=${encodeURIComponent(JSON.stringify(qq))}`));
      } finally {
        await w.close();
      }
    }
  }
  return { dir };
}
