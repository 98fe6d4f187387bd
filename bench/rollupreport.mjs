// The rollup section of the benchmark report: report.mjs puts it
// in WORKERS.md when the run measured rollups (the full run, and the smoke
// run), and `node bench/report.mjs --rollup` writes results/ROLLUPS.md from a
// `BENCH_ONLY=rollup node bench/harness.mjs` run (results/workerd-only-rollup.json).
import { CATCHUP, rollupNames } from "./rollup.mjs";
import { median, ms, mib, kib, spread, ok } from "./reportfmt.mjs";

const ratio = (a, b) => (Number.isFinite(a / b) ? (a / b).toFixed(2) + "×" : "–");
const KINDS = ["cold", "warm", "steady"];

export function rollupSection(wd, p) {
  const ru = wd?.rollup;
  if (!ru) return false;
  const samples = wd.samples ?? [];
  const of = (name, kind) => samples.filter((s) => s.workload === name && s.kind === kind);
  const cpu = (ss) => median(ss.map((x) => x.cpuMs));
  const main = (ss) => median(ss.map((x) => x.cpuMainMs));
  const wasm = (ss) => Math.max(...ss.map((x) => x.body.memory?.wasmMemoryBytes ?? NaN));
  const store = (st) => (st ? `${(st.get ?? 0) + (st.getRange ?? 0)} reads (${st.dataReads} data), ${kib(st.bytesIn)} KiB in; ${(st.put ?? 0) + (st.putIfAbsent ?? 0)} writes, ${kib(st.bytesOut)} KiB out` : "–");
  const refresh = (s) => {
    const r = s?.body?.refresh;
    return r ? `${r.mode}, ${r.snapshots} snapshot${r.snapshots === 1 ? "" : "s"}, ${r.rows.toLocaleString("en")} buckets, ${kib(r.bytesRead)} KiB raw read` : "";
  };
  const row = (label, kind, ss) => {
    const c = ss.map((x) => x.cpuMs);
    p(`| ${label} | ${kind} | ${ss.length} | ${ms(cpu(ss))}${spread(c)} | ${ms(main(ss))} / ${ms(median(ss.map((x) => x.cpuV8Ms)))} | ${ms(median(ss.map((x) => x.wallMs)))} | ${mib(wasm(ss))} | ${store(ss.at(-1).body.store)} | ${refresh(ss.at(-1))} |`);
  };
  p("## Rollups", "");
  p("An hourly rollup (`cpu: min, max, avg, last`, `mem: max`; 100 series) of the bench table in R2, its table beside it (`tables/T__rollup_hourly`), refreshed by the client's `table.refreshRollup(name, rollupTable)` in workerd (`bench/rollup.mjs`, routes in `bench/worker/rollup.js`). CPU: the workerd process over the request, all threads, and main thread / V8 threads (as above; each request includes the floor of HTTP and Miniflare's R2 simulator, which runs in the same process). WASM memory: the Go instance's linear memory after the call (the isolate's high-water mark). Store: the requests the call made (one sample) and their bytes. Refresh: the result's mode, raw snapshots walked, buckets written, raw bytes read (`bytesRead`).", "");
  p("**Inline refresh.** Batches of N rows (100 series, one row a second each, successive batches later in time: 1k rows are 10 s, 100k rows 1,000 s of every series) appended to a table whose rollup reflects the previous batch; right after each append, in the same isolate, the refresh of the buckets it touched (a Worker refreshing inline does both in one request; here they are two requests so each has its own CPU). Cold: the isolate's first append and first refresh; warm: the next ones; steady: after the isolate made " + `${wd.steadyAfter} of each.`, "");
  p("| workload | call | n | CPU ms median (min–max) | main / V8 ms | wall ms | WASM MiB (max) | store (one sample) | refresh |");
  p("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const n of ru.sizes) {
    const nm = rollupNames(n);
    for (const kind of KINDS) {
      for (const name of [nm.append, nm.refresh]) {
        const ss = of(name, kind);
        if (ss.length) row(name.replace(/^rollup: /, ""), kind, ss);
      }
    }
  }
  p("");
  const fx = ru.fixture;
  p(`**Catch-up of a day.** The scan workload's partition, built the same way (\`/create\`, \`/fill\`): one day (2026-11-28) of 100 series, ${fx.rows.toLocaleString("en")} rows in 24 appends, ${fx.files} data files (one is a row of the day before), ${mib(fx.dataBytes)} MiB of data. The rollup reflected the snapshot before the day, so its refresh takes the day's 24 snapshots (walked: incremental; or, once the reflected snapshot has left the metadata under \`timelake.history.max-snapshots\`, the files with a newer sequence number: by-sequence) and recomputes every bucket of the day; beside it the same day computed whole by a rollup never refreshed, and a full scan of the day (\`table.scan(${JSON.stringify(ru.daySpec)})\`, the columns the rollup aggregates; batches iterated and dropped). Each in its own fresh isolates (cold: the isolate's first Timelake call; warm: the next ones), each refresh into a fresh copy of the rollup table.`, "");
  p("| workload | call | n | CPU ms median (min–max) | main / V8 ms | wall ms | WASM MiB (max) | store (one sample) | refresh |");
  p("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const name of [CATCHUP.scan, CATCHUP.incremental, CATCHUP.full]) {
    for (const kind of KINDS) {
      const ss = of(name, kind);
      if (ss.length) row(name.replace(/^rollup: /, ""), kind, ss);
    }
  }
  p("");
  // Targets, on the figures above: reported, never asserted.
  p("### Rollup targets", "");
  p("| target | measured | |", "| --- | --- | --- |");
  for (const n of ru.sizes) {
    const nm = rollupNames(n);
    for (const kind of ["warm", "steady"]) {
      const a = of(nm.append, kind), f = of(nm.refresh, kind);
      if (!a.length || !f.length) continue;
      p(`| inline refresh after an append of ${n.toLocaleString("en")} rows ≤ the append's own CPU (${kind}) | refresh ${ms(cpu(f))} ms / append ${ms(cpu(a))} ms = ${ratio(cpu(f), cpu(a))} all threads; main thread ${ms(main(f))} / ${ms(main(a))} ms = ${ratio(main(f), main(a))} | ${ok(cpu(f) <= cpu(a))} |`);
    }
  }
  for (const kind of ["cold", "warm"]) {
    const s = of(CATCHUP.scan, kind), f = of(CATCHUP.incremental, kind);
    if (!s.length || !f.length) continue;
    p(`| catch-up of a day within 2× of a full scan of it (${kind}) | refresh ${ms(cpu(f))} ms / scan ${ms(cpu(s))} ms = ${ratio(cpu(f), cpu(s))} all threads; main thread ${ms(main(f))} / ${ms(main(s))} ms = ${ratio(main(f), main(s))} | ${ok(cpu(f) <= 2 * cpu(s))} |`);
  }
  const all = [CATCHUP.incremental, CATCHUP.full].flatMap((n) => KINDS.flatMap((k) => of(n, k)));
  if (all.length) p(`| catch-up: WASM memory ≤ 32 MiB | ${mib(wasm(all))} MiB at most (cold and warm; the isolate's high-water mark, after the refresh) | ${ok(wasm(all) <= 32 * 2 ** 20)} |`);
  p("");
  // BENCH_PROFILE: one inline refresh each, profiled in workerd (bench/rollup.mjs profileRollup).
  const profs = Object.entries(wd.profiles ?? {}).filter(([name]) => name.startsWith("rollup "));
  for (const [name, prof] of profs) {
    p(`### Profile: ${name} (one refresh, ${ms(prof.totalMs)} ms sampled, \`${prof.file}\`)`, "");
    p(`By part (self time): ${prof.categories.map((c) => `${c.name} ${c.pct.toFixed(0)}%`).join(", ")}.`, "");
    p("| function (inclusive: itself and its callees) | ms | % |", "| --- | --- | --- |");
    for (const t of (prof.inclusive ?? []).filter((x) => !/^\(|^(wasm_export_resume|js-to-wasm::|_resume|wasm_pc_f_loop)$/.test(x.name)).slice(0, 15)) p(`| \`${t.name.slice(0, 90)}\` | ${ms(t.ms)} | ${t.pct.toFixed(1)} |`);
    p("");
  }
  return true;
}
