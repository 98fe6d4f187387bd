// The maintenance workloads of the workerd half (harness.mjs runs them with
// its context, as appends.mjs): compactions of tables of many small files
// and the expiry of many snapshots, in R2 and in a memory store.
import * as fs from "node:fs/promises";
import * as path from "node:path";

/** The compaction inputs: files × rows each (smoke: one small table). */
export function compactions(smoke) {
  return smoke ? [{ files: 8, rows: 100 }] : [{ files: 8, rows: 1000 }, { files: 24, rows: 50_000 }];
}

/**
 * Compactions (COMPACT, built once, copied per run) and snapshot expiry with
 * file cleanup, cold, warm and steady; returns a note when the client has
 * no maintain() (then nothing is measured), else undefined.
 */
export async function maintenance({ start, call, measure, record, log, work, RUNS, STEADY_AFTER, STEADY, smoke }, { expiry = true, compaction = true } = {}) {
  const COMPACT = compactions(smoke);
  const SNAPSHOTS = smoke ? 20 : 1000;
  // Compaction inputs and the many-snapshot table are built once, then copied
  // for every run (a run changes its table).
  const persist = path.join(work, "maintain");
  await fs.rm(persist, { recursive: true, force: true });
  let w = await start(persist);
  const jobs = [];
  for (const c of compaction ? COMPACT : []) {
    const t = `c${c.files}x${c.rows}`;
    await call(w, `/create?t=${t}&props=${encodeURIComponent(JSON.stringify({ "timelake.maintain-byte-cap": "0" }))}`);
    await call(w, `/fill?t=${t}&files=${c.files}&rows=${c.rows}`);
    jobs.push({ name: `compact ${c.files} files / ${c.files * c.rows} rows`, t, opts: { compact: true } });
  }
  if (expiry) {
    // Every snapshot kept (timelake.history.max-snapshots=0): with the
    // default, 10, each commit drops all but the newest 10 and expiry finds
    // 9. The run expires SNAPSHOTS-1 and deletes none of their files: the
    // client's grace floor (10 minutes) keeps them, as it keeps everything
    // R2 and the memory store stamped minutes ago; bench/native does the
    // same (its copies stamped now). The cleanup run that follows past the
    // floor is timed by bench/expirenode.mjs in Node, not here.
    const props = {
      "history.expire.max-snapshot-age-ms": "1",
      "history.expire.min-snapshots-to-keep": "1",
      "timelake.orphan-grace": "0s",
      "timelake.history.max-snapshots": "0",
    };
    await call(w, `/create?t=s${SNAPSHOTS}&props=${encodeURIComponent(JSON.stringify(props))}`);
    for (let done = 0; done < SNAPSHOTS; done += 100) await call(w, `/small?t=s${SNAPSHOTS}&k=${Math.min(100, SNAPSHOTS - done)}`);
    jobs.push({ name: `expire + cleanup, ${SNAPSHOTS} snapshots`, t: `s${SNAPSHOTS}`, opts: { expire: true, orphans: true } });
  }
  const avail = await call(w, `/maintain?t=${jobs[0].t}&opts=${encodeURIComponent(JSON.stringify({ dryRun: true }))}`);
  await w.close();
  if (avail.unavailable !== undefined) {
    const note = `maintain() is not available in this @timelake/client (${avail.unavailable}); compaction and expiry were measured natively only.`;
    log(note);
    return note;
  }
  for (const job of jobs) {
    for (let r = 0; r < RUNS; r++) {
      w = await start(persist);
      try {
        await call(w, `/copy?from=${job.t}&to=${job.t}-r${r}`);
        await call(w, `/copy?from=${job.t}&to=${job.t}-r${r}w`);
        await call(w, "/noop");
        record(job.name, "cold", await measure(w, `/maintain?t=${job.t}-r${r}&opts=${encodeURIComponent(JSON.stringify(job.opts))}`));
        record(job.name, "warm", await measure(w, `/maintain?t=${job.t}-r${r}w&opts=${encodeURIComponent(JSON.stringify(job.opts))}`));
        // The same on a memory store in the isolate: without the R2
        // simulator, which runs in the same workerd process and whose CPU
        // the figures above include (natively the store is a memory store
        // too). /maintain?mem=1 lets the copy go once it has run.
        const onMem = async (t, kind) => {
          await call(w, `/memcopy?from=${job.t}&t=${t}`);
          const m = await (kind ? measure : call)(w, `/maintain?t=${t}&mem=1&opts=${encodeURIComponent(JSON.stringify(job.opts))}`);
          if (kind) record(`${job.name} (memory store)`, kind, m);
        };
        for (const k of ["m", "mw"]) await onMem(`${job.t}-r${r}${k}`, "warm");
        // Compactions again on fresh copies until the isolate has made
        // STEADY_AFTER calls of each store, then STEADY measured ones: V8
        // has by then optimized the code the merge runs (expiry, seconds a
        // call, is measured cold and warm only).
        if (job.opts.compact) {
          for (let k = 2; k < STEADY_AFTER + STEADY; k++) {
            const copy = `${job.t}-r${r}s${k}`;
            await call(w, `/copy?from=${job.t}&to=${copy}`);
            const m = await (k < STEADY_AFTER ? call(w, `/maintain?t=${copy}&opts=${encodeURIComponent(JSON.stringify(job.opts))}`) : measure(w, `/maintain?t=${copy}&opts=${encodeURIComponent(JSON.stringify(job.opts))}`));
            if (k >= STEADY_AFTER) record(job.name, "steady", m);
            await onMem(`${copy}m`, k >= STEADY_AFTER ? "steady" : undefined);
          }
        }
      } finally {
        await w.close();
      }
    }
  }
}
