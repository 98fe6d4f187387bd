// The versions of what a run measured with: Node, Miniflare, workerd and the
// peers, from bench/node_modules (here is the bench folder).
import * as fss from "node:fs";
import * as path from "node:path";
import { execFileSync } from "node:child_process";

export function versionsOf(here) {
  const v = (p) => JSON.parse(fss.readFileSync(path.join(here, "node_modules", p, "package.json"), "utf8")).version;
  let workerd = "";
  try {
    workerd = execFileSync(path.join(here, "node_modules/workerd/bin/workerd"), ["--version"], { encoding: "utf8" }).trim();
  } catch {}
  return {
    node: process.version,
    miniflare: v("miniflare"),
    workerd,
    esbuild: v("esbuild"),
    "parquet-wasm": v("parquet-wasm"),
    "apache-arrow": v("apache-arrow"),
    "hyparquet-writer": v("hyparquet-writer"),
    "@bokuweb/zstd-wasm": v("@bokuweb/zstd-wasm"),
    hyparquet: v("hyparquet"),
    "hyparquet-compressors": v("hyparquet-compressors"),
    icebird: v("icebird"),
  };
}
