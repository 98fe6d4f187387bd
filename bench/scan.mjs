// The scan workload of bench/harness.mjs (Performance): queries
// through the client's table.scan in workerd, on the compaction workload's
// fixture — one day of 100 series in 24 appends of 50k rows (1.2M rows, 24
// files) — and on the same partition compacted by maintain() in the
// harness, with two peers on the same query in the same isolate: hyparquet
// reading the same data files from the R2 binding with its own filter, and
// icebird reading the table from its metadata file (fetch served from R2).
// Per query: workerd CPU (all threads, main thread), WASM memory, store
// reads (data-file reads apart), the scan's own stats, rows returned; the
// partition's bytes beside them (results: `scan` in the JSON).
const DAY1 = Date.UTC(2026, 10, 28);
const HOUR = 3600_000;
export const SCAN_QUERIES = [
  { tag: "hour", name: "1 series × 1 hour", q: { host: "host-042", from: DAY1 + 10 * HOUR, to: DAY1 + 11 * HOUR } },
  { tag: "day", name: "1 series × 1 day", q: { host: "host-042", from: DAY1, to: DAY1 + 24 * HOUR } },
  { tag: "all", name: "whole day streamed, all columns", q: { from: DAY1, to: DAY1 + 24 * HOUR } },
];
const enc = (q) => encodeURIComponent(JSON.stringify(q));

export async function scans({ start, call, measure, record, log, work, RUNS, WARM, smoke }) {
  const FILES = 24, EACH = smoke ? 100 : 50_000;
  const path = await import("node:path");
  const fs = await import("node:fs/promises");
  const persist = path.join(work, "scan");
  await fs.rm(persist, { recursive: true, force: true });
  const cold = `s${FILES}x${EACH}`, comp = `${cold}c`;
  let w = await start(persist);
  const notes = [];
  let fixture;
  try {
    await call(w, `/create?t=${cold}&props=${enc({ "timelake.maintain-byte-cap": "0" })}`);
    await call(w, `/fill?t=${cold}&files=${FILES}&rows=${EACH}`);
    // The compacted table is filled the same way (the rows are a function
    // of the file number), not copied: a table's metadata, manifest lists
    // and manifests hold absolute paths under its own location, so a copy
    // of the objects still points at the source table, and the copy's
    // compaction writes a manifest list that readers following the paths
    // (icebird) look for under the source's location, where it is not.
    await call(w, `/create?t=${comp}&props=${enc({ "timelake.maintain-byte-cap": "0" })}`);
    await call(w, `/fill?t=${comp}&files=${FILES}&rows=${EACH}`);
    const before = new Set((await call(w, `/files?t=${comp}`)).data.map((d) => d.key));
    const m = await call(w, `/maintain?t=${comp}&opts=${enc({ compact: true })}`);
    if (m.unavailable !== undefined) throw new Error(`maintain: ${m.unavailable}`);
    const f0 = await call(w, `/files?t=${cold}`), f1 = await call(w, `/files?t=${comp}`);
    const compacted = f1.data.filter((d) => !before.has(d.key));
    fixture = {
      rows: FILES * EACH,
      tables: [
        { t: cold, label: `${FILES} files (as appended)`, files: f0.data.length, dataBytes: f0.dataBytes, otherBytes: f0.otherBytes, keys: f0.data.map((d) => d.key) },
        { t: comp, label: "compacted", files: compacted.length, dataBytes: compacted.reduce((a, d) => a + d.bytes, 0), keys: compacted.map((d) => d.key), maintain: m.result },
      ],
    };
    log(`scan fixture: ${FILES * EACH} rows; ${f0.data.length} files ${f0.dataBytes} B; compacted ${compacted.length} files ${fixture.tables[1].dataBytes} B`);
  } finally {
    await w.close();
  }
  const peerFailed = new Map();
  const peer = async (w, name, kind, route) => {
    if (peerFailed.has(name)) return;
    try {
      record(name, kind, await measure(w, route));
    } catch (e) {
      // The Worker's error, first line (not the route and stack).
      const raw = String(e.message ?? e);
      const msg = (raw.match(/"error":"([^"\\]*)/)?.[1] ?? raw).slice(0, 300);
      peerFailed.set(name, msg);
      notes.push(`${name}: ${msg}`);
      log(`${name}: failed: ${msg}`);
    }
  };
  for (const tb of fixture.tables) {
    for (const qq of SCAN_QUERIES) {
      const name = `scan ${qq.name}, ${tb.label}`;
      for (let r = 0; r < RUNS; r++) {
        w = await start(persist);
        try {
          await call(w, "/noop");
          const route = `/scan?t=${tb.t}&q=${enc(qq.q)}`;
          record(name, "cold", await measure(w, route));
          for (let k = 0; k < WARM; k++) record(name, "warm", await measure(w, route));
          // The request floor in the same isolate: the empty route's CPU
          // (HTTP, the harness's measuring), what the warm figures include
          // beside the scan itself.
          if (qq.tag === "hour") for (let k = 0; k < WARM; k++) record(`floor ${qq.name}, ${tb.label}`, "warm", await measure(w, "/noop"));
          const hy = `/peer/hyparquet-scan?t=${tb.t}&keys=${encodeURIComponent(tb.keys.join(","))}&q=${enc(qq.q)}`;
          await peer(w, `hyparquet ${qq.name}, ${tb.label}`, "cold", hy);
          for (let k = 0; k < WARM; k++) await peer(w, `hyparquet ${qq.name}, ${tb.label}`, "warm", hy);
          // icebird has no filter: it reads the whole table for every query,
          // so it runs on the one-hour query only (the targets' query).
          if (qq.tag === "hour") {
            const ib = `/peer/icebird-scan?t=${tb.t}&q=${enc(qq.q)}`;
            await peer(w, `icebird ${qq.name}, ${tb.label}`, "cold", ib);
            await peer(w, `icebird ${qq.name}, ${tb.label}`, "warm", ib);
          }
        } finally {
          await w.close();
        }
      }
    }
  }
  for (const tb of fixture.tables) delete tb.keys;
  return { fixture, queries: SCAN_QUERIES, notes, peerFailed: Object.fromEntries(peerFailed) };
}
