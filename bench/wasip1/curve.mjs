// The cost of the n-th append of a process, from run.sh's lines of runs made
// with WARMUP=0: per variant, the median over runs and appends in each window
// of positions, CPU of all threads and of the main thread. It shows how long
// V8 takes to finish compiling the hot code again (TurboFan, in the
// background) and where an append's cost settles.
//   node bench/wasip1/curve.mjs runs.jsonl
import { readFileSync } from "node:fs";

const windows = [[0, 10], [10, 25], [25, 50], [50, 100], [100, 150], [150, 200], [200, 300]];
const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const by = new Map();
for (const l of readFileSync(process.argv[2], "utf8").split("\n").filter(Boolean)) {
  const { variant, r } = JSON.parse(l);
  if (r.workload !== "append 1000" || r.warmup !== 0) continue;
  if (!by.has(variant)) by.set(variant, []);
  by.get(variant).push(r);
}
const head = windows.map(([a, b]) => `${a + 1}–${b}`);
console.log(`| variant (CPU ms all threads / main thread, by append number) | ${head.join(" | ")} |`);
console.log(`|---|${head.map(() => "---").join("|")}|`);
for (const [variant, rs] of by) {
  const cells = windows.map(([a, b]) => {
    const cpu = rs.flatMap((r) => r.cpuMs.slice(a, b)), main = rs.flatMap((r) => (r.mainMs || []).slice(a, b));
    if (!cpu.length) return "";
    return main.length ? `${med(cpu).toFixed(1)} / ${med(main).toFixed(1)}` : med(cpu).toFixed(2);
  });
  console.log(`| ${variant} | ${cells.join(" | ")} |`);
}
