// Tabulates run.sh's lines: per variant and workload, the median over the
// timed operations of each run, then the median and range of those run
// medians across the runs, and the ratio to the native run's median.
//   node bench/wasip1/report.mjs runs.jsonl sizes.txt
import { readFileSync } from "node:fs";

const [runsFile, sizesFile] = process.argv.slice(2);
const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const f = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));
const groups = new Map(); // workload -> variant -> [{cpu, wall, gc, noop}]
for (const l of readFileSync(runsFile, "utf8").split("\n").filter(Boolean)) {
  const { variant, r } = JSON.parse(l);
  if (!groups.has(r.workload)) groups.set(r.workload, new Map());
  const g = groups.get(r.workload);
  if (!g.has(variant)) g.set(variant, []);
  g.get(variant).push({
    cpu: med(r.cpuMs), wall: med(r.wallMs), main: r.mainMs && r.mainMs.length ? med(r.mainMs) : undefined,
    gc: r.numGC === undefined ? undefined : r.numGC / r.wallMs.length, noop: r.noopCallUs,
  });
}
for (const [workload, g] of groups) {
  const nat = g.get("native");
  const nCpu = nat && med(nat.map((s) => s.cpu)), nWall = nat && med(nat.map((s) => s.wall));
  console.log(`\n${workload}: ms per operation, median of each run's median (range over runs)\n`);
  console.log("| variant | runs | CPU ms, all threads | / native | main thread CPU ms | / native | wall ms | / native | GCs per op | empty call µs |");
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const [variant, ss] of g) {
    const cpu = ss.map((s) => s.cpu), wall = ss.map((s) => s.wall);
    const rng = (xs) => `${f(med(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
    const gc = ss[0].gc === undefined ? "" : f(med(ss.map((s) => s.gc)));
    const noop = ss[0].noop === undefined ? "" : f(med(ss.map((s) => s.noop)));
    const main = ss.every((s) => s.main !== undefined) ? ss.map((s) => s.main) : undefined;
    console.log(`| ${variant} | ${ss.length} | ${rng(cpu)} | ${nCpu ? f(med(cpu) / nCpu) + "x" : ""} | ${main ? rng(main) : ""} | ${main && nCpu ? f(med(main) / nCpu) + "x" : ""} | ${rng(wall)} | ${nWall ? f(med(wall) / nWall) + "x" : ""} | ${gc} | ${noop} |`);
  }
}
if (sizesFile) {
  console.log("\n| module | bytes | gzip -9 |\n|---|---|---|");
  for (const l of readFileSync(sizesFile, "utf8").split("\n").filter(Boolean)) {
    const [n, b, z] = l.split(" ");
    console.log(`| ${n} | ${(+b).toLocaleString("en")} | ${(+z).toLocaleString("en")} |`);
  }
}
