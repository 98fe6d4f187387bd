// The flights-3m scans: vega-datasets' flights-3m.parquet (3,000,000 rows,
// 2001-01-01 to 2001-07-01) loaded with the CLI as a Timelake table (time
// `date`, series `origin`, day partitions: 182 partitions, 211 files), then
// scanned by the CLI and by the client in Node, one month, two, three and
// the whole table, each in fresh processes, alternating readers. Written to
// results/flights[-TAG].json and the "flights-3m" section of
// results/SCANS.md (bench/flightsreport.mjs).
//
//   node bench/flights.mjs                      # BENCH_ONLY=flights bash bench/run.sh builds first
//
// Environment: BENCH_RUNS (3 per reader and query), FLIGHTS_DIR (the table,
// default $TMPDIR/timelake-flights: made once, kept), FLIGHTS_PARQUET (the
// input file; default: `npm pack vega-datasets@3.2.1` into a temporary
// directory, the file taken out of it), FLIGHTS_CLI (a timelake binary;
// default: go build ./cmd/timelake), FLIGHTS_CLIENT (a client/dist of
// another build; default this tree's client/dist), FLIGHTS_TAG (results/flights-TAG.json:
// "before" is shown beside the untagged run).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { FLIGHT_QUERIES, flightsSection, writeFlightsSection } from "./flightsreport.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const res = path.join(here, "results");
const RUNS = +(process.env.BENCH_RUNS ?? 3);
const tag = process.env.FLIGHTS_TAG ?? "";
const dir = process.env.FLIGHTS_DIR ?? path.join(os.tmpdir(), "timelake-flights");
const log = (...a) => console.error("flights:", ...a);
// The flights table is a directory, not a catalog's table: a REST catalog in
// the environment (bench/run.sh starts one for the catalog workload) would make
// the CLI take its path for NAMESPACE.TABLE.
for (const k of Object.keys(process.env)) if (k.startsWith("TIMELAKE_CATALOG_")) delete process.env[k];

// The CLI: the given binary or this tree's.
let cli = process.env.FLIGHTS_CLI;
if (!cli) {
  cli = path.join(os.tmpdir(), `timelake-flights-cli-${process.pid}`);
  execFileSync("go", ["build", "-o", cli, "./cmd/timelake"], { cwd: root, stdio: "inherit" });
}

// The table, made once (a full append of 3M rows takes seconds).
if (!fs.existsSync(path.join(dir, "metadata"))) {
  let input = process.env.FLIGHTS_PARQUET;
  if (!input) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vega-"));
    const tgz = execFileSync("npm", ["pack", "vega-datasets@3.2.1", "--silent"], { cwd: tmp, encoding: "utf8" }).trim().split("\n").pop();
    execFileSync("tar", ["xzf", tgz, "package/data/flights-3m.parquet"], { cwd: tmp });
    input = path.join(tmp, "package/data/flights-3m.parquet");
  }
  log(`loading ${input} into ${dir}`);
  fs.rmSync(dir, { recursive: true, force: true });
  execFileSync(cli, ["create", dir, "--time", "date", "--series", "origin", "--column", "date:timestamp", "--column", "delay:long",
    "--column", "distance:long", "--column", "destination:string", "--partition", "day"], { stdio: "inherit" });
  execFileSync(cli, ["append", dir, input], { stdio: "inherit" });
}
const info = JSON.parse(execFileSync(cli, ["info", dir, "--json"], { encoding: "utf8" }));

export { FLIGHT_QUERIES };
const READERS = [
  { tag: "cli-arrow", name: "CLI `timelake scan --format arrow -o /dev/null`" },
  { tag: "cli-csv", name: "CLI `timelake scan --format csv -o /dev/null`" },
  { tag: "node-arrow", name: "Node `table.scan().arrowStream()` read and dropped" },
  { tag: "node-batches", name: "Node `for await (const batch of table.scan())` (column arrays)" },
];

function runCLI(q, format) {
  const a = ["-f", "%e %U %S %M", cli, "scan", dir, "--format", format, "-o", "/dev/null", "--stats"];
  if (q.from) a.push("--from", q.from, "--to", q.to);
  const r = spawnSync("/usr/bin/time", a, { encoding: "utf8", maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`timelake scan: ${r.stderr}`);
  const lines = r.stderr.trim().split("\n");
  const [wall, user, sys, maxKB] = lines.pop().split(" ").map(Number);
  const stats = JSON.parse(lines.find((l) => l.startsWith("{")));
  return { ms: wall * 1000, cpuMs: (user + sys) * 1000, peakRssMiB: maxKB / 1024, rows: stats.rows,
    reads: { dataRequests: stats.requests, dataBytes: stats["bytes-read"] },
    stats: { filesRead: stats["files-read"], pages: stats.pages, pagesRead: stats["pages-read"], requests: stats.requests, bytesRead: stats["bytes-read"] } };
}

function runNode(q, arrow) {
  const a = [path.join(here, "flightsnode.mjs"), dir];
  if (q.from) a.push("--from", q.from, "--to", q.to);
  if (arrow) a.push("--arrow");
  if (process.env.FLIGHTS_CLIENT) a.push("--client", path.resolve(process.env.FLIGHTS_CLIENT));
  const r = spawnSync(process.execPath, a, { encoding: "utf8", cwd: here, maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`flightsnode: ${r.stderr}`);
  const o = JSON.parse(r.stdout.trim().split("\n").pop());
  o.stats = { filesRead: o.stats.filesRead, pages: o.stats.pages, pagesRead: o.stats.pagesRead, requests: o.stats.requests, bytesRead: o.stats.bytesRead };
  return o;
}

const bytesOf = (partitionsFrom, partitionsTo) =>
  info.partitions
    ? info.partitions.filter((p) => !partitionsFrom || (p.name.slice(-10) >= partitionsFrom && p.name.slice(-10) < partitionsTo))
    : [];

const samples = {};
for (let r = 0; r < RUNS; r++) {
  for (const q of FLIGHT_QUERIES) {
    for (const rd of READERS) {
      const s = rd.tag === "cli-arrow" ? runCLI(q, "arrow") : rd.tag === "cli-csv" ? runCLI(q, "csv") : runNode(q, rd.tag === "node-arrow");
      ((samples[q.tag] ??= {})[rd.tag] ??= []).push(s);
      log(`${q.tag} ${rd.tag} run ${r + 1}/${RUNS}: ${Math.round(s.ms)} ms, CPU ${Math.round(s.cpuMs)} ms, ${s.reads.dataRequests} data requests, ${s.reads.dataBytes} B`);
    }
  }
}
// workerd in the same run (FLIGHTS_WORKERD=0: not): harness.mjs's flights
// workload (bench/flightsworkerd.mjs), fresh isolates over the same table
// put into Miniflare's R2, the client being this tree's build (or
// FLIGHTS_CLIENT's timelake.wasm). CPU is workerd's process, all threads
// (R2's simulator included); peak RSS is its growth over the request.
if (process.env.FLIGHTS_WORKERD !== "0" && RUNS > 0) {
  const env = { ...process.env, BENCH_ONLY: "flights", BENCH_RUNS: String(RUNS), FLIGHTS_DIR: dir, BENCH_TAG: "" };
  if (process.env.FLIGHTS_CLIENT) env.BENCH_WASM = path.join(path.resolve(process.env.FLIGHTS_CLIENT), "src", "timelake.wasm");
  execFileSync(process.execPath, [path.join(here, "harness.mjs")], { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
  const wd = JSON.parse(fs.readFileSync(path.join(res, "workerd-only-flights.json"), "utf8"));
  READERS.push({ tag: "workerd-batches", name: "workerd `for await (const batch of table.scan())` (column arrays; R2 binding)" });
  for (const x of wd.samples) {
    const q = x.workload.replace(/^flights /, "");
    const b = x.body;
    ((samples[q] ??= {})["workerd-batches"] ??= []).push({
      ms: x.wallMs, cpuMs: x.cpuMs, peakRssMiB: x.rssGrowth / 2 ** 20, rows: b.rows, wasmMiB: b.memory?.wasmMemoryBytes / 2 ** 20,
      reads: { dataRequests: b.store.dataReads, dataBytes: b.store.dataBytesIn },
      stats: { filesRead: b.stats.filesRead, pages: b.stats.pages, pagesRead: b.stats.pagesRead, requests: b.stats.requests, bytesRead: b.stats.bytesRead },
    });
  }
}
const parts = (q) => bytesOf(q.from, q.to);
const out = {
  tag,
  date: new Date().toISOString(),
  runs: RUNS,
  node: process.version,
  load: fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
  cpus: os.cpus().length,
  table: { dir, files: info.files, bytes: info.bytes, rows: info.rows, partitions: info.partitions?.length },
  queries: FLIGHT_QUERIES.map((q) => ({ ...q, partitionBytes: parts(q).reduce((a, p) => a + p.bytes, 0), partitionFiles: parts(q).reduce((a, p) => a + p.files, 0) })),
  readers: READERS,
  samples,
};
fs.mkdirSync(res, { recursive: true });
const file = path.join(res, `flights${tag ? "-" + tag : ""}.json`);
fs.writeFileSync(file, JSON.stringify(out, null, 1) + "\n");
log(`wrote ${file}`);
writeFlightsSection(res);
console.log(flightsSection(res));
if (!process.env.FLIGHTS_CLI) fs.rmSync(cli, { force: true });
