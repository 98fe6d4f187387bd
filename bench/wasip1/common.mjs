// Shared by the runners: the timing loop JavaScript drives (one exported call
// per append, timed with performance.now and process.cpuUsage) and the
// result line, in main.go's format.
import { performance } from "node:perf_hooks";
import { readFileSync } from "node:fs";

// mainNs is the main thread's CPU time (schedstat's first field, ns), or -1.
export const mainNs = () => {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]);
  } catch {
    return -1;
  }
};

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};

// drive times n calls of once, each after an untimed prepare, after warm
// untimed ones; noop is timed over 20,000 calls for the per-call overhead.
export function drive({ target, shape, warm, n, prepare, once, noop }) {
  for (let i = 0; i < warm; i++) { prepare(); once(); }
  const wallMs = [], cpuMs = [], mainMs = [];
  for (let i = 0; i < n; i++) {
    prepare();
    const m0 = mainNs(), c0 = cpuNs(), t0 = performance.now();
    once();
    const t1 = performance.now(), c1 = cpuNs(), m1 = mainNs();
    wallMs.push(t1 - t0);
    cpuMs.push((c1 - c0) / 1e6);
    if (m0 >= 0 && m1 >= 0) mainMs.push((m1 - m0) / 1e6);
  }
  const calls = 20000;
  for (let i = 0; i < 1000; i++) noop();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) noop();
  const noopUs = ((performance.now() - t0) * 1000) / calls;
  return {
    target, shape, gogc: process.env.GOGC || "100", workload: "append 1000", warmup: warm,
    wallMs, cpuMs, mainMs, noopCallUs: noopUs,
  };
}

export function args() {
  const [wasm, shape, n = "60", warm = "150", compacts = "8", cwarm = "10"] = process.argv.slice(2);
  return { wasm, shape, n: +n, warm: +warm, compacts: +compacts, cwarm: +cwarm };
}
