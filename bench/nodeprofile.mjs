// A V8 CPU profile of part of a Node benchmark (tierup.mjs, compactnode.mjs,
// expirenode.mjs), through the inspector, sampled every 0.1 ms:
//
//   const stop = await startProfile();
//   … the work …
//   await stop("/tmp/x.cpuprofile", "the last 10 compactions");  // writes it; prints its categories when named
import * as fs from "node:fs";
import * as inspector from "node:inspector/promises";
import { summarize } from "./cpuprofile.mjs";

export async function startProfile() {
  const session = new inspector.Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  return async (file, what) => {
    const { profile } = await session.post("Profiler.stop");
    session.disconnect();
    fs.writeFileSync(file, JSON.stringify(profile));
    if (what) {
      const sum = summarize(profile);
      console.log(`profile of ${what}: ${sum.totalMs.toFixed(0)} ms sampled`);
      for (const x of sum.categories) console.log(`  ${x.pct.toFixed(1).padStart(5)}%  ${x.name}`);
    }
  };
}
