// "## Targets" of WORKERS.md: one line per row of the
// benchmark's table of targets, every figure from the run report.mjs is writing:
//   wd      results/workerd.json (harness.mjs): rows 3–6 and 9 (the batcher)
//   native  results/native.json (go run ./bench/native): row 6's denominator
//   gotest  results/gotest-targets.txt (go test -bench BenchmarkAppendAge,
//           BenchmarkMetadataAfterAppends in table/): rows 1 and 2
//   node    results/node.json (bench/nodeappend.mjs): rows 7 and 8
// A smoke run passes its -smoke files; its sizes are tiny, so its figures
// only show that every part ran and parses.
import { median, mib, ok as verdict, fmt, ratio as x } from "./reportfmt.mjs";
const int = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en") : "–");
const mb = (b) => (Number.isFinite(b) ? (b / 1e6).toFixed(1) : "–");
const fin = (v) => Number.isFinite(v);

// goBenchLines parses `go test -bench` output: full name (without the
// -GOMAXPROCS suffix) → { n, unit → value }.
export function goBenchLines(text) {
  const out = {};
  for (const line of (text ?? "").split("\n")) {
    const m = line.match(/^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.*)$/);
    if (!m) continue;
    const metrics = { n: Number(m[2]) };
    for (const [, v, unit] of m[3].matchAll(/([\d.e+-]+) (\S+)/g)) metrics[unit] = Number(v);
    out[m[1]] = metrics;
  }
  return out;
}

export function targetsSection({ wd, native, gotest, node, smoke }, p) {
  const samples = wd?.samples ?? [];
  const of = (workload, kind) => samples.filter((s) => s.workload === workload && s.kind === kind);
  const cpu = (ss) => median(ss.map((s) => s.cpuMs));
  const main = (ss) => median(ss.map((s) => s.cpuMainMs ?? NaN));
  const nat = (workload, kind) => median((native?.samples ?? []).filter((s) => s.workload === workload && s.kind === kind).map((s) => s.cpuMs));
  const G = goBenchLines(gotest);
  // A smoke run's sizes are not the issue's: its timing rows are not judged
  // (the batcher's lost/duplicated rows are an outcome, judged anyway).
  const judge = (ok) => (smoke ? "not judged (smoke run)" : verdict(ok));

  p("## Targets", "");
  p(`Every figure below is from this run${smoke ? " (a SMOKE run: tiny sizes, the figures only show that each part ran)" : ""}: workerd (harness.mjs, medians; CPU all threads · main thread), natively (\`go run ./bench/native\`; \`go test -bench 'BenchmarkAppendAge|BenchmarkMetadataAfterAppends' ./table/\` → \`results/gotest-targets${smoke ? "-smoke" : ""}.txt\`), Node against the local S3 server (\`bench/nodeappend.mjs\` → \`results/node${smoke ? "-smoke" : ""}.json\`). Ratios of medians; the machine is shared, so ratios within the run are what count. Not a test: nothing asserts a timing.`, "");
  p("| measure | measured in this run | ratio | target | |", "| --- | --- | --- | --- | --- |");

  // 1. Append cost by table age (BenchmarkAppendAge): 1k rows, after the most commits / after the fewest.
  {
    const ages = Object.keys(G).map((k) => k.match(/^BenchmarkAppendAge\/rows=(\d+)\/age=(\d+)$/)).filter(Boolean).map((m) => ({ rows: +m[1], age: +m[2], b: G[m[0]] }));
    const rowsN = ages.some((a) => a.rows === 1000) ? 1000 : Math.max(0, ...ages.map((a) => a.rows));
    const mine = ages.filter((a) => a.rows === rowsN).sort((a, b) => a.age - b.age);
    const young = mine[0], old = mine.at(-1);
    if (young && old && young !== old) {
      const keys = [["cpu-ms/op", "CPU", (v) => `${fmt(v)} ms`], ["bytes-read/op", "bytes read", int], ["bytes-written/op", "bytes written", int]];
      const ratios = keys.map(([k]) => old.b[k] / young.b[k]);
      const measured = keys.map(([k, label, f]) => `${label} ${f(old.b[k])} vs ${f(young.b[k])}`).join("; ") + `; requests ${fmt(old.b["requests/op"])} vs ${fmt(young.b["requests/op"])} (${old.b.n} appends each, memory store)`;
      p(`| append cost after ${int(old.age)} commits / after ${int(young.age)}, ${int(rowsN)} rows, defaults (\`BenchmarkAppendAge\`) | ${measured} | CPU ${x(old.b["cpu-ms/op"], young.b["cpu-ms/op"])}, read ${x(old.b["bytes-read/op"], young.b["bytes-read/op"])}, written ${x(old.b["bytes-written/op"], young.b["bytes-written/op"])} | ≤ 1.2× each | ${rowsN === 1000 && old.age >= 10_000 ? judge(ratios.every((r) => r <= 1.2)) : `n/a (${int(rowsN)} rows, ${int(old.age)} commits: not the issue's sizes)`} |`);
    } else p("| append cost after 10,000 commits / after 10 (`BenchmarkAppendAge`) | not in this run | | ≤ 1.2× | n/a |");
  }

  // 2. metadata/ after N appends of 10 rows, auto-maintain on (BenchmarkMetadataAfterAppends): the most appends in the run.
  {
    const runs = Object.keys(G).map((k) => k.match(/^BenchmarkMetadataAfterAppends\/appends=(\d+)$/)).filter(Boolean).map((m) => ({ appends: +m[1], b: G[m[0]] })).sort((a, b) => a.appends - b.appends);
    const m = runs.at(-1);
    if (m) {
      const b = m.b;
      p(`| \`metadata/\` bytes after ${int(m.appends)} appends of 10 rows (defaults, \`timelake.auto-maintain\` on, 10 s apart by the table's clock, memory store; \`BenchmarkMetadataAfterAppends\`) | ${mb(b["metadata-bytes"])} MB in ${int(b["metadata-objects"])} objects (metadata versions ${int(b["metadata-versions"])}, snapshots ${int(b.snapshots)}, cleanup runs ${int(b.cleanups)}); data/ ${mb(b["data-bytes"])} MB in ${int(b["data-objects"])} objects; ${fmt(b["cpu-ms/append"])} ms CPU per append with its maintenance | ${x(b["metadata-bytes"], 20e6)} of the target | ≤ 20 MB | ${m.appends >= 10_000 ? judge(b["metadata-bytes"] <= 20e6) : `n/a (${int(m.appends)} appends: not the issue's 10,000)`} |`);
    } else p("| `metadata/` bytes after 10,000 appends of 10 rows (`BenchmarkMetadataAfterAppends`) | not in this run | | ≤ 20 MB | n/a |");
  }

  // 3. Warm 1k-row append into a memory store / the empty request, same isolates.
  {
    const noop = of("noop", "warm");
    const warm = of("append 1000 (memory store)", "warm"), steady = of("append 1000 (memory store)", "steady");
    if (warm.length && noop.length) {
      p(`| warm 1k-row append in workerd (memory store) / empty request | append ${fmt(cpu(warm))} · ${fmt(main(warm))} ms (steady ${fmt(cpu(steady))} · ${fmt(main(steady))}); empty request ${fmt(cpu(noop))} · ${fmt(main(noop))} ms | ${x(cpu(warm), cpu(noop))} all threads, ${x(main(warm), main(noop))} main thread; steady ${x(cpu(steady), cpu(noop))} · ${x(main(steady), main(noop))} | ≤ 2× | ${judge(cpu(warm) / cpu(noop) <= 2)} |`);
    } else p("| warm 1k-row append in workerd (memory store) / empty request | not in this run | | ≤ 2× | n/a |");
  }

  // 4 and 5. The largest append against parquet-wasm's write of the same rows.
  const big = Math.max(0, ...samples.filter((s) => /^append \d+$/.test(s.workload)).map((s) => Number(s.workload.split(" ")[1])));
  const pwWarm = of(`parquet-wasm ${big}`, "warm"), pwCold = of(`parquet-wasm ${big}`, "cold");
  {
    const mem = of(`append ${big} (memory store)`, "warm"), memS = of(`append ${big} (memory store)`, "steady"), r2 = of(`append ${big}`, "warm");
    if (mem.length && pwWarm.length) {
      p(`| warm ${int(big)}-row append (memory store) / parquet-wasm's plain write of the same rows | append ${fmt(cpu(mem))} · ${fmt(main(mem))} ms (steady ${fmt(cpu(memS))} · ${fmt(main(memS))}; to R2 ${fmt(cpu(r2))}); parquet-wasm ${fmt(cpu(pwWarm))} · ${fmt(main(pwWarm))} ms | ${x(cpu(mem), cpu(pwWarm))} all threads, ${x(main(mem), main(pwWarm))} main thread; steady ${x(cpu(memS), cpu(pwWarm))} · ${x(main(memS), main(pwWarm))}; R2 ${x(cpu(r2), cpu(pwWarm))} | ≤ 1.0× | ${judge(cpu(mem) / cpu(pwWarm) <= 1)} |`);
    } else p("| warm 100k-row append / parquet-wasm plain write | not in this run | | ≤ 1.0× | n/a |");
  }
  {
    const cold = of(`append ${big}`, "cold"), open = of("open (runtime start + openTable)", "cold");
    if (cold.length && pwCold.length) {
      const openNote = open.length ? `; runtime start + openTable alone ${fmt(cpu(open))} · ${fmt(main(open))} ms` : "";
      p(`| first call (fresh isolate: runtime start + openTable + append of ${int(big)} rows to R2) / parquet-wasm's first call (its first write of them) | ${fmt(cpu(cold))} · ${fmt(main(cold))} ms; parquet-wasm ${fmt(cpu(pwCold))} · ${fmt(main(pwCold))} ms${openNote} | ${x(cpu(cold), cpu(pwCold))} all threads, ${x(main(cold), main(pwCold))} main thread | ≤ 1.5× | ${judge(cpu(cold) / cpu(pwCold) <= 1.5)} |`);
    } else p("| first call / parquet-wasm's first call | not in this run | | ≤ 1.5× | n/a |");
  }

  // 6. The largest compaction measured steady in workerd, against the same workload natively.
  {
    const names = [...new Set(samples.filter((s) => /^compact \d+ files/.test(s.workload) && s.kind === "steady").map((s) => s.workload))];
    const rowsOf = (n) => Number(n.match(/\/ (\d+) rows/)?.[1] ?? 0);
    const name = names.sort((a, b) => rowsOf(a) - rowsOf(b)).at(-1);
    const n = name ? nat(name, "cold") : NaN;
    if (name && fin(n)) {
      const st = of(name, "steady");
      p(`| ${name}: WASM / native, steady | workerd steady (R2) ${fmt(cpu(st))} · ${fmt(main(st))} ms; natively ${fmt(n)} ms (memory store, a warm process) | ${x(cpu(st), n)} all threads, ${x(main(st), n)} main thread | ≤ 2.5× | ${judge(cpu(st) / n <= 2.5)} |`);
    } else p(`| compaction 24 files WASM / native, steady | ${name ? "no native figure in this run" : "not in this run"} | | ≤ 2.5× | n/a |`);
  }

  // 7 and 8. Node against the local S3 server; icebird could not be measured.
  {
    const ss = node?.samples ?? [];
    const starts = node?.starts ?? [];
    const why = node?.icebird ?? "icebird: not measured";
    const rows = node?.rows ?? 100_000;
    if (ss.length) {
      const f = ss.map((s) => s.first);
      const ph = (k, key = "cpuMs") => median(f.map((s) => s.phases?.[k]?.[key] ?? NaN));
      const startNote = starts.length ? `; the runtime start alone (import + a first call, own process): ${fmt(median(starts.map((s) => s.cpuMs)))} · ${fmt(median(starts.map((s) => s.cpuMainMs)))} ms, RSS +${mib(median(starts.map((s) => s.rssGrowth)))} MiB` : "";
      p(`| Node, fresh process: create + first ${int(rows)}-row append / icebird, same local S3 server | ${why} Timelake (n=${ss.length}): ${fmt(median(f.map((s) => s.cpuMs)))} · ${fmt(median(f.map((s) => s.cpuMainMs)))} ms CPU from the import (phases, all threads: import ${fmt(ph("import"))}, first call ${fmt(ph("runtimeStart"))}, create ${fmt(ph("create"))}, append ${fmt(ph("append"))}; with Node's own start ${fmt(median(f.map((s) => s.processCpuMs)))} ms); peak RSS ${mib(median(f.map((s) => s.peakRss)))} MiB, +${mib(median(f.map((s) => s.rssGrowth)))} over the process with its rows built${startNote} | – | CPU ≤ 0.5×, RSS ≤ 1.0× | n/a |`);
      const w = ss.flatMap((s) => s.warm), st = ss.flatMap((s) => s.steady ?? []);
      const steadyNote = st.length ? `; steady (n=${st.length}, after ${node.steadyAfter} appends in the process): ${fmt(median(st.map((s) => s.cpuMs)))} · ${fmt(median(st.map((s) => s.cpuMainMs)))} ms CPU, peak RSS growth ${mib(median(st.map((s) => s.rssGrowth)))} MiB` : "";
      p(`| Node, warm ${int(rows)}-row append / icebird | icebird: not measurable here (as above). Timelake, warm (n=${w.length}, ${node.warm > 1 ? `appends 2–${node.warm + 1}` : "the second append"} of each process): ${fmt(median(w.map((s) => s.cpuMs)))} · ${fmt(median(w.map((s) => s.cpuMainMs)))} ms CPU, peak RSS growth ${mib(median(w.map((s) => s.rssGrowth)))} MiB${steadyNote} | – | CPU ≤ 0.25× | n/a |`);
    } else {
      p(`| Node, fresh process: create + first 100k-row append / icebird | ${why} Timelake's: not measured in this run (${node?.note ?? "no results/node.json"}) | – | CPU ≤ 0.5×, RSS ≤ 1.0× | n/a |`);
      p("| Node, warm 100k-row append / icebird | not measured (as above) | – | CPU ≤ 0.25× | n/a |");
    }
  }

  // 9. The Durable Object batcher (batcher.mjs in the same harness run).
  {
    const b = wd?.batcher;
    const runs = b?.runs ?? [];
    const k = b?.kills;
    if (runs.length) {
      p(`| Durable Object: rows/s into one table, p99 acknowledgement latency, nothing lost under kills | ${int(median(runs.map((r) => r.rowsPerS)))} rows/s into the table (${int(median(runs.map((r) => r.ackedRowsPerS)))} acknowledged), ack p99 ${int(median(runs.map((r) => r.p99)))} ms (p50 ${int(median(runs.map((r) => r.p50)))}); runs: ${runs.length} of ${int(runs[0].rows)} rows each; ${k?.drained === false ? `kills: ${k.kills}, ${int(k.acked)} rows acknowledged; **the batcher did not drain within 60 s after the last restart**` : k ? `kills: ${k.kills}, ${int(k.acked)} rows acknowledged, ${k.lost} lost, ${k.duplicated} stored twice` : "kills not run"} | – | measured, 0 lost | ${k ? verdict(k.lost === 0 && k.duplicated === 0) : "n/a"} |`);
    } else p("| Durable Object: rows/s, p99 acknowledgement latency, nothing lost under kills | not in this run | – | measured, 0 lost | n/a |");
  }
  p("");
}
