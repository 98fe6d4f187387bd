// Summaries of V8 CPU profiles (.cpuprofile) for WORKERS.md: self time by
// function, and by category (which part of the Go core, the bridge, the GC,
// JavaScript) — what the harness prints and report.mjs renders.
import * as path from "node:path";

const CATEGORIES = [
  ["zstd", /klauspost_compress_zstd|zstd/i],
  ["deflate (avro manifests)", /compress_flate|klauspost_compress_flate|compress\/flate/],
  ["parquet", /timelake_timelake_parquet/],
  ["avro / iceberg / JSON metadata", /timelake_timelake_(avro|iceberg|commit)|encoding_json/],
  ["last-value index", /timelake_timelake_lastvalue/],
  ["rows: align, sort, dedup", /timelake_timelake_(rows|wasm_colrows)|^sort\.|^slices\.|^cmp\./],
  ["bridge: syscall/js, copies", /syscall_js|timelake_timelake_wasm|^_?(loadValue|storeValue|loadSlice|loadString|valueCall|valueGet|valueSet|valueNew|copyBytes|storeValue)/],
  ["Go GC + allocation", /^runtime\.(gc|mallocgc|scan|greyobject|markroot|sweep|mspan|mheap|memclr|bgsweep|findObject|heapBits|wbBuf|bulkBarrier|nextFreeFast|mcache|mcentral|growslice|makeslice|tryDeferToSpanScan|typePointers|spanOf|pageIndexOf|newobject|SetFinalizer|(.*[Ww]riteBarrier))|internal_runtime_(atomic|gc)/],
  ["Go runtime (other)", /^runtime\.|^internal_|^memeqbody|^strconv|^unicode|^internal/],
  ["timelake core (other)", /timelake_timelake_/],
  ["JS: nested values → JSON text (client)", /^(nestedJSON|flatStrings|put|stringify)$/],
  ["JS: row objects → columns (client)", /^(toColumns|set|finish)$/],
  ["V8 GC", /garbage collector/],
  ["idle / program", /\((idle|program|root)\)/],
];

export function summarize(profile) {
  const self = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let total = 0;
  for (const [id, us] of dt) {
    const n = byId.get(id);
    const name = n.callFrame.functionName || `(anonymous ${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber})`;
    self.set(name, (self.get(name) ?? 0) + us);
    total += us;
  }
  const cats = new Map();
  for (const [name, us] of self) {
    const c = CATEGORIES.find(([, re]) => re.test(name))?.[0] ?? "other JS / wasm";
    cats.set(c, (cats.get(c) ?? 0) + us);
  }
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([name, us]) => ({ name, ms: us / 1000, pct: (100 * us) / total }));
  const categories = [...cats].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, ms: us / 1000, pct: (100 * us) / total }));
  return { totalMs: total / 1000, top, categories };
}
