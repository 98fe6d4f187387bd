// The append workloads of the workerd half (harness.mjs runs them; each
// takes the harness's context: start, call, measure, record, work and the
// sample counts): appends cold, warm and steady into R2 and into a memory
// store, the first call's fixed part, the spec comparison (BENCH_ONLY=spec)
// and the peers parquet-wasm and hyparquet-writer writing the same rows.
import * as fs from "node:fs/promises";
import * as path from "node:path";

// specAppends (BENCH_ONLY=spec): warm appends of the same rows into a table
// of Timelake's own spec (day) and into one partitioned as another engine's
// may be (day and bucket[16] of the series), alternately in one isolate.
export async function specAppends({ start, call, measure, record, work, RUNS, WARM, SIZES }) {
  for (const n of SIZES) {
    const persist = path.join(work, `spec-${n}`);
    await fs.rm(persist, { recursive: true, force: true });
    const w = await start(persist);
    try {
      await call(w, `/create?t=d${n}`);
      await call(w, `/create?t=b${n}&partition=${encodeURIComponent("day, bucket(16, host)")}`);
      await call(w, `/rows?n=${n}`);
      for (let k = 0; k < 2; k++) {
        await call(w, `/append?t=d${n}&n=${n}`);
        await call(w, `/append?t=b${n}&n=${n}`);
      }
      for (let r = 0; r < RUNS * WARM; r++) {
        record(`append ${n} (day)`, "warm", await measure(w, `/append?t=d${n}&n=${n}`));
        record(`append ${n} (day, bucket[16] of host)`, "warm", await measure(w, `/append?t=b${n}&n=${n}`));
      }
    } finally {
      await w.close();
    }
  }
}

export async function appends({ start, call, measure, record, work, RUNS, WARM, STEADY_AFTER, STEADY, SETTLED_AFTER, SIZES }) {
  for (const n of SIZES) {
    const persist = path.join(work, `append-${n}`);
    await fs.rm(persist, { recursive: true, force: true });
    let w = await start(persist);
    await call(w, `/create?t=a${n}`);
    await w.close();
    for (let r = 0; r < RUNS; r++) {
      w = await start(persist);
      try {
        await call(w, "/noop");
        await call(w, `/rows?n=${n}`);
        record(`append ${n}`, "cold", await measure(w, `/append?t=a${n}&n=${n}`));
        for (let k = 0; k < WARM; k++) record(`append ${n}`, "warm", await measure(w, `/append?t=a${n}&n=${n}`));
        for (let k = 0; k < 2; k++) record("noop", "warm", await measure(w, "/noop"));
        for (let k = 1 + WARM; k < STEADY_AFTER; k++) await call(w, `/append?t=a${n}&n=${n}`);
        for (let k = 0; k < STEADY; k++) record(`append ${n}`, "steady", await measure(w, `/append?t=a${n}&n=${n}`));
        await call(w, `/append?t=m${n}&n=${n}&mem=1`);
        for (let k = 0; k < WARM; k++) record(`append ${n} (memory store)`, "warm", await measure(w, `/append?t=m${n}&n=${n}&mem=1`));
        for (let k = 1 + WARM; k < STEADY_AFTER; k++) await call(w, `/append?t=m${n}&n=${n}&mem=1`);
        for (let k = 0; k < STEADY; k++) record(`append ${n} (memory store)`, "steady", await measure(w, `/append?t=m${n}&n=${n}&mem=1`));
        // The empty request again, in an isolate whose tier-up has settled
        // (the first two follow R2 appends, whose background compilation may
        // still run): the floor of the memory-store appends just above.
        for (let k = 0; k < 2; k++) record("noop", "warm", await measure(w, "/noop"));
        // Settled (1k rows only): the same appends once the isolate has made
        // SETTLED_AFTER of them, and the empty request beside them.
        if (n === 1000) {
          for (let k = 2 * (STEADY_AFTER + STEADY); k < SETTLED_AFTER; k++) await call(w, `/append?t=m${n}&n=${n}&mem=1`);
          for (let k = 0; k < STEADY; k++) record(`append ${n} (memory store)`, "settled", await measure(w, `/append?t=m${n}&n=${n}&mem=1`));
          for (let k = 0; k < 2; k++) record("noop", "settled", await measure(w, "/noop"));
        }
      } finally {
        await w.close();
      }
    }
    // The first call's fixed part on its own: a fresh isolate's first
    // request only opens the table (the Go runtime's start + openTable).
    if (n === SIZES[SIZES.length - 1]) {
      for (let r = 0; r < RUNS; r++) {
        w = await start(persist);
        try {
          await call(w, "/noop");
          record("open (runtime start + openTable)", "cold", await measure(w, `/open?t=a${n}`));
        } finally {
          await w.close();
        }
      }
    }
  }
}

// The peers writing the same rows: arrow (building the table only),
// parquet-wasm and hyparquet-writer, 100k rows (smoke: 1k).
export async function peers({ start, call, measure, record, work, RUNS, WARM, smoke }) {
  const PEER_N = smoke ? 1000 : 100_000;
  const persist = path.join(work, "peers");
  for (let r = 0; r < RUNS; r++) {
    const w = await start(persist);
    try {
      await call(w, `/rows?n=${PEER_N}`);
      record(`arrow ${PEER_N}`, "cold", await measure(w, `/peer/arrow?n=${PEER_N}`));
      record(`parquet-wasm ${PEER_N}`, "cold", await measure(w, `/peer/parquet-wasm?n=${PEER_N}`));
      for (let k = 0; k < WARM; k++) {
        record(`arrow ${PEER_N}`, "warm", await measure(w, `/peer/arrow?n=${PEER_N}`));
        record(`parquet-wasm ${PEER_N}`, "warm", await measure(w, `/peer/parquet-wasm?n=${PEER_N}`));
      }
      record(`hyparquet-writer ${PEER_N}`, "cold", await measure(w, `/peer/hyparquet?n=${PEER_N}`));
      for (let k = 0; k < WARM; k++) record(`hyparquet-writer ${PEER_N}`, "warm", await measure(w, `/peer/hyparquet?n=${PEER_N}`));
    } finally {
      await w.close();
    }
  }
}
