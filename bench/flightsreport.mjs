// The "flights-3m" section of results/SCANS.md, from results/flights.json
// (bench/flights.mjs) and, beside it, results/flights-before.json when there
// is one (the same bench run with FLIGHTS_CLI / FLIGHTS_CLIENT of an older
// build, FLIGHTS_TAG=before). report.mjs --scan keeps it.
import fs from "node:fs";
import path from "node:path";

export const FLIGHT_QUERIES = [
  { tag: "1m", name: "1 month (January)", from: "2001-01-01", to: "2001-02-01" },
  { tag: "2m", name: "2 months", from: "2001-01-01", to: "2001-03-01" },
  { tag: "3m", name: "3 months", from: "2001-01-01", to: "2001-04-01" },
  { tag: "all", name: "whole table" },
];
const BEGIN = "<!-- flights-3m: written by bench/flights.mjs (flightsreport.mjs); rerun, do not edit -->";
const END = "<!-- flights-3m end -->";

const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f0 = (x) => (x === undefined || Number.isNaN(x) ? "–" : Math.round(x).toLocaleString("en-US"));
const f2 = (x) => (x >= 100 ? f0(x) : x.toFixed(x >= 10 ? 1 : 2));
const stat = (ss, k) => ss.map((s) => s[k]);

function load(res, name) {
  const f = path.join(res, name);
  return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, "utf8")) : undefined;
}

function runTable(r) {
  const out = [];
  out.push(
    "| query | reader | n | wall ms median (min–max) | … of it the scan (Node: after the runtime's start and openTable) | CPU ms median | peak RSS MiB | data requests | data bytes read | × the data bytes of the partitions | pages decoded / pages | rows |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  );
  for (const q of r.queries) {
    for (const rd of r.readers) {
      const ss = r.samples[q.tag]?.[rd.tag];
      if (!ss?.length) continue;
      const ms = stat(ss, "ms"), s0 = ss[0];
      out.push(
        `| ${q.name} | ${rd.name} | ${ss.length} | ${f0(med(ms))} (${f0(Math.min(...ms))}–${f0(Math.max(...ms))}) | ${s0.scanMs === undefined ? "" : f0(med(stat(ss, "scanMs")))} | ${f0(med(stat(ss, "cpuMs")))} | ${f0(med(stat(ss, "peakRssMiB")))} | ${f0(s0.reads.dataRequests)} | ${f0(s0.reads.dataBytes)} | ${(s0.reads.dataBytes / q.partitionBytes).toFixed(3)}× | ${f0(s0.stats.pagesRead)} / ${f0(s0.stats.pages)} | ${f0(s0.rows)} |`,
      );
    }
  }
  return out;
}

function wasmNote(r) {
  const ss = r.samples.all?.["workerd-batches"];
  if (!ss?.length || ss[0].wasmMiB === undefined) return "";
  return `; WebAssembly memory after the whole table: ${f0(med(stat(ss, "wasmMiB")))} MiB (a Worker's isolate has 128 MiB)`;
}

// flightsTargets: the targets for scans at scale, one {target, measured,
// verdict} per row (report.mjs's "Read path and fixed costs" takes them too).
export function flightsTargets(r) {
  const m = (q, rd, k = "ms") => {
    const ss = r.samples[q]?.[rd];
    return ss?.length ? med(stat(ss, k)) : NaN;
  };
  const all = r.queries.find((q) => q.tag === "all");
  const verdict = (ok) => (Number.isNaN(ok) || ok === undefined ? "n/a" : ok ? "met" : "**not met**");
  const rows = [];
  for (const rd of r.readers) {
    const ss = r.samples.all?.[rd.tag];
    if (!ss?.length) continue;
    const x = ss[0].reads.dataBytes / all.partitionBytes;
    rows.push({ target: `whole table, bytes read ≤ 1.1× the data bytes: ${rd.name}`, measured: `${f0(ss[0].reads.dataBytes)} B of ${f0(all.partitionBytes)} B (${x.toFixed(3)}×)`, verdict: verdict(x <= 1.1) });
  }
  for (const [node, cli] of [["node-batches", "cli-csv"], ["node-arrow", "cli-arrow"], ["workerd-batches", "cli-csv"]]) {
    const w = m("all", node) / m("all", cli), c = m("all", node, "cpuMs") / m("all", cli, "cpuMs");
    if (Number.isNaN(w)) continue;
    rows.push({ target: `whole table, the client ≤ 3× the CLI: ${node} / ${cli}`, measured: `wall ${f0(m("all", node))} / ${f0(m("all", cli))} ms (${f2(w)}×); CPU ${f0(m("all", node, "cpuMs"))} / ${f0(m("all", cli, "cpuMs"))} ms (${f2(c)}×)`, verdict: `${verdict(w <= 3)} (wall), ${verdict(c <= 3)} (CPU)` });
  }
  for (const rd of r.readers) {
    const w = m("3m", rd.tag) / m("1m", rd.tag), c = m("3m", rd.tag, "cpuMs") / m("1m", rd.tag, "cpuMs");
    if (Number.isNaN(w)) continue;
    const sc = m("3m", rd.tag, "scanMs") / m("1m", rd.tag, "scanMs");
    const scan = Number.isNaN(sc) ? "" : `; the scan alone ${f0(m("3m", rd.tag, "scanMs"))} / ${f0(m("1m", rd.tag, "scanMs"))} ms (${f2(sc)}×)`;
    rows.push({ target: `3 months ≤ 3.3× 1 month: ${rd.name}`, measured: `wall ${f0(m("3m", rd.tag))} / ${f0(m("1m", rd.tag))} ms (${f2(w)}×); CPU ${f0(m("3m", rd.tag, "cpuMs"))} / ${f0(m("1m", rd.tag, "cpuMs"))} ms (${f2(c)}×)${scan}`, verdict: `${verdict(w <= 3.3)} (wall), ${verdict(c <= 3.3)} (CPU)${scan ? `, ${verdict(sc <= 3.3)} (scan)` : ""}` });
  }
  return rows;
}

function targets(r) {
  return ["| target | measured | |", "| --- | --- | --- |", ...flightsTargets(r).map((t) => `| ${t.target} | ${t.measured} | ${t.verdict} |`)];
}

export function flightsSection(res) {
  const r = load(res, "flights.json");
  if (!r) return undefined;
  const before = load(res, "flights-before.json");
  const t = r.table;
  const out = [
    BEGIN,
    "## flights-3m: the client in Node and workerd beside the CLI",
    "",
    `Written by \`BENCH_ONLY=flights bash bench/run.sh\` (\`node bench/flights.mjs\`: ${r.runs} runs of each reader and query, fresh processes, alternating); ${r.date}, ${r.cpus} CPUs (shared with other work: load ${r.load} at the end; wall times of one query vary up to 3× between runs, CPU times much less). Node ${r.node}. Compare within a run.`,
    "",
    `The table: vega-datasets 3.2.1's \`data/flights-3m.parquet\` (3,000,000 rows, Polars, 11 row groups) appended by the CLI into \`timelake create TABLE --time date --series origin --column date:timestamp --column delay:long --column distance:long --column destination:string --partition day\`: ${f0(t.rows)} rows after deduplication, ${t.partitions} daily partitions, ${t.files} files, ${f0(t.bytes)} B. The scans are sorted by (origin, date), so a scan merges every file it reads at once. CPU: the process (all threads); Node's includes starting the runtime and opening the table. Data requests and bytes: range reads of the data files (the scan's own stats for the CLI; a counting wrapper on localStore's getRange in Node; the Worker's counting store over the R2 binding in workerd). workerd (when run, after the CLI and Node runs, \`bench/flightsworkerd.mjs\`): the same table put into Miniflare's R2, each query in a fresh isolate (runtime start and openTable included); CPU is workerd's process, all threads, Miniflare's R2 simulator included; its peak RSS is the growth over the request${wasmNote(r)}.`,
    "",
    "Why the client's scans grew faster than the data before (the Before table, when there is one): each window shorter than a page fetched and decoded its pages again (natively 40 MB read for the 16.5 MB table, 13,644 page decodes for 2,340 pages), and in WebAssembly a scan's live heap (a decoded page per column of every file merged) passed the 40 MiB soft limit, past which the runtime collected again and again; see docs/decisions/scan.md (\"Pages are decoded once\", \"…and past that, in proportion to the live heap\"). Then left: that live heap itself (about 104 MiB for the whole table, natively); pages are now decoded a window at a time, which brought it to about 60 MiB and the whole table's WebAssembly memory from 170 to 103 MiB (the section \"flights-3m: pages decoded a window at a time\" below; a run of this bench after that change shows it in the tables here).",
    "",
    ...runTable(r),
    "",
    "### Targets",
    "",
    ...targets(r),
    "",
  ];
  if (before) {
    out.push(
      `### Before (${before.date}: the same bench with FLIGHTS_TAG=before, FLIGHTS_CLI and FLIGHTS_CLIENT built from the commit before the fix)`,
      "",
      ...runTable(before),
      "",
      ...targets(before),
      "",
    );
  }
  out.push(...pagesSection(res), END);
  return out.join("\n");
}

// pagesSection: the live heap of the scans before and after pages were
// decoded a window at a time (parquet.PageStream), from
// flights-pagestream-workerd-{before,after}.json (harness.mjs's
// workerd-only-flights-pagestream-….json of BENCH_ONLY=flights BENCH_RUNS=3
// BENCH_TAG=pagestream-…, renamed; the before one
// with BENCH_WASM of the commit before) and
// gotest-scanheap-{before,after}.txt (go test ./table -bench
// BenchmarkScanHeap), when they are there.
function pagesSection(res) {
  const wb = load(res, "flights-pagestream-workerd-before.json");
  const wa = load(res, "flights-pagestream-workerd-after.json");
  const heap = (name) => {
    const f = path.join(res, name);
    if (!fs.existsSync(f)) return {};
    const out = {};
    for (const m of fs.readFileSync(f, "utf8").matchAll(/^(BenchmarkScanHeap\w+)-\d+\s+\d+\s+\d+ ns\/op\s+([\d.]+) live-heap-MiB/gm)) {
      (out[m[1]] ??= []).push(Number(m[2]));
    }
    return out;
  };
  const nb = heap("gotest-scanheap-before.txt"), na = heap("gotest-scanheap-after.txt");
  if (!wb || !wa) return [];
  const of = (w, q) => w.samples.filter((s) => s.workload === `flights ${q}`);
  const rows = FLIGHT_QUERIES.map((q) => {
    const b = of(wb, q.tag), a = of(wa, q.tag);
    const mem = (ss) => f2(Math.max(...ss.map((s) => s.body.memory.wasmMemoryBytes)) / 2 ** 20);
    const cpu = (ss) => `${f0(med(stat(ss, "cpuMs")))} (${f0(Math.min(...stat(ss, "cpuMs")))}–${f0(Math.max(...stat(ss, "cpuMs")))})`;
    return `| ${q.name} | ${b.length} / ${a.length} | ${mem(b)} | ${mem(a)} | ${cpu(b)} | ${cpu(a)} |`;
  });
  const nat = (k, what) => (nb[k] && na[k] ? [`| ${what} | ${nb[k].length} / ${na[k].length} | ${f2(Math.max(...nb[k]))} | ${f2(Math.max(...na[k]))} |`] : []);
  return [
    "### flights-3m: pages decoded a window at a time",
    "",
    "A keyed scan merges every file it reads at once and each file's column held a decoded page (up to 8,192 rows); it now holds the page's bytes and decodes a window of rows at a time (`parquet.PageStream`: PLAIN, dictionary indexes, DELTA_BINARY_PACKED and definition levels resume where the last window stopped; see docs/decisions/scan.md, \"Pages are decoded a window at a time\"). The same table in workerd, fresh isolates, WebAssembly memory after each query (the isolate's high-water mark; a Worker has 128 MiB) and workerd's CPU, the commit before (its `timelake.wasm` through `BENCH_WASM`) and after, run one after the other:",
    "",
    "    BENCH_WASM=before.wasm BENCH_ONLY=flights BENCH_RUNS=3 BENCH_TAG=pagestream-before node bench/harness.mjs",
    "    BENCH_ONLY=flights BENCH_RUNS=3 BENCH_TAG=pagestream-after node bench/harness.mjs",
    "    # results/workerd-only-flights-pagestream-{before,after}.json, kept as results/flights-pagestream-workerd-{before,after}.json",
    "",
    "| query | n (before / after) | WASM memory MiB before | after | workerd CPU ms before, median (min–max) | after |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
    "Natively, the most heap live at a collection every 16th batch of a whole-table scan (`TIMELAKE_FLIGHTS_DIR=<a copy of the table> go test ./table -run '^$' -bench BenchmarkScanHeap -benchtime 1x -count 3`, table/scan_heap_bench_test.go; before: the same benchmark on the commit before; `gotest-scanheap-{before,after}.txt`):",
    "",
    "| scan | n (before / after) | live heap MiB before | after |",
    "| --- | --- | --- | --- |",
    ...nat("BenchmarkScanHeapFlights", "flights-3m, whole table (211 files)"),
    ...nat("BenchmarkScanHeapManyFiles", "synthetic: 200 files × 12,000 rows, 50 series in each"),
    "",
    "What the whole flights scan holds now (`TIMELAKE_HEAP_PROFILE`, go tool pprof -sample_index=inuse_space, at the peak): about 24 MiB of windows (a window's rows per column of each file, and the merge's view of the one before), 21 MiB of compressed file bytes (each file's 64 KiB tail kept from opening it, and the pages fetched ahead), 8 MiB of decompressed pages (zstd is not resumable: a page's bytes are held decompressed) and a few MiB of metadata.",
    "The 1-month scan (36 files) grew from 47 to 52 MiB: not explained yet (its live heap is under the 16 MiB past which a scan paces its collections by the live heap, so its memory is set by what it allocates between collections more than by the pages it holds).",
    "",
  ];
}

/** Puts the section into results/SCANS.md (replacing the one there, or at its end). */
export function writeFlightsSection(res) {
  const s = flightsSection(res);
  if (!s) return;
  const f = path.join(res, "SCANS.md");
  let md = fs.existsSync(f) ? fs.readFileSync(f, "utf8") : "";
  const a = md.indexOf(BEGIN), b = md.indexOf(END);
  md = a >= 0 && b > a ? md.slice(0, a) + s + md.slice(b + END.length) : md.replace(/\n*$/, "\n\n") + s + "\n";
  fs.writeFileSync(f, md);
}
