// Merges partial harness runs (results/workerd-only-*.json) into one file:
// the samples of all, the rest from the first. On a shared machine, rounds
// that alternate variants (one cold sample of each per round) are compared
// more fairly than one variant's samples all taken in one stretch.
//   node bench/mergeruns.mjs [--variant TEXT] OUT.json IN1.json IN2.json …   (names in results/)
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const res = path.join(path.dirname(fileURLToPath(import.meta.url)), "results");
const args = process.argv.slice(2);
const v = args.indexOf("--variant");
const variant = v >= 0 ? args.splice(v, 2)[1] : undefined;
const [out, ...ins] = args;
if (!out || !ins.length) throw new Error("usage: node bench/mergeruns.mjs OUT.json IN.json…");
const runs = ins.map((f) => JSON.parse(fs.readFileSync(path.join(res, path.basename(f)), "utf8")));
const merged = { ...runs[0], runs: runs.reduce((a, r) => a + r.runs, 0), mergedFrom: ins.map((f) => path.basename(f)), samples: runs.flatMap((r) => r.samples) };
if (variant) merged.variant = variant;
fs.writeFileSync(path.join(res, path.basename(out)), JSON.stringify(merged, null, 1));
console.error(`wrote results/${path.basename(out)}: ${merged.samples.length} samples from ${ins.length} runs`);
