// Runs the GOOS=wasip1 build under Node's built-in WASI (preview1).
//   node --no-warnings runwasi.mjs bench.wasm command [appends] [warmup] [compacts]
//   node --no-warnings runwasi.mjs reactor.wasm reactor [appends] [warmup]
// GOGC (and nothing else) is passed from this process's environment.
import { readFileSync } from "node:fs";
import { WASI } from "node:wasi";
import { args, drive, mainNs } from "./common.mjs";

const a = args();
const env = {};
if (process.env.GOGC) env.GOGC = process.env.GOGC;
const wasi = new WASI({
  version: "preview1",
  args: ["bench", `-appends=${a.n}`, `-warmup=${a.warm}`, `-compacts=${a.compacts}`, `-cwarmup=${a.cwarm}`],
  env,
  // proc_exit ends the process (Node's process.exit). With returnOnExit:
  // true, Node 20.20.2 exited with SIGSEGV after a run of GOGC=off (a large
  // memory) had printed its results.
  returnOnExit: false,
});
const imports = {
  wasi_snapshot_preview1: wasi.wasiImport,
  timelake: {
    cpu_ns: () => {
      const u = process.cpuUsage();
      return BigInt(u.user + u.system) * 1000n;
    },
    main_ns: () => BigInt(mainNs()),
  },
};
const { instance } = await WebAssembly.instantiate(readFileSync(a.wasm), imports);
if (a.shape === "command") {
  wasi.start(instance); // Go's main ends in proc_exit
} else {
  wasi.initialize(instance);
  const x = instance.exports;
  x.bench_setup();
  const r = drive({
    target: "wasip1/wasm", shape: "reactor", warm: a.warm, n: a.n,
    prepare: x.bench_prepare, once: x.bench_append, noop: x.bench_noop,
  });
  console.log(JSON.stringify(r));
}
