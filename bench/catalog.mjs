// The catalog workload of bench/harness.mjs: the same 1,000-row
// append to a table kept in a REST catalog, its catalog and store requests
// counted, and the outcome check that a warm append is one commit request.
import * as fs from "node:fs/promises";
import * as fss from "node:fs";
import * as path from "node:path";

// The same 1,000-row append as `append 1000`, to a table kept in a REST
// catalog (bench/run.sh starts Iceberg's own server, scripts/restcatalog.sh,
// file warehouse, and exports TIMELAKE_CATALOG_URI): the catalog decides each
// version, the files go to the same R2 binding as the storage-only tables
// (under the table's location path). Cold = a fresh isolate's first call
// (runtime start, GET /v1/config, the table's load, the append and its
// commit); warm and steady as the appends. The Worker counts the catalog
// requests through the fetch it gives restCatalog, and the store requests as
// for every workload. Outcome check (not a timing): a warm or steady append
// with no other writer must make exactly one catalog request, the commit POST.
const CATALOG_N = 1000;
export const CATALOG_WORKLOAD = `append ${CATALOG_N} through a REST catalog`;
function checkCatalogSample(failures, kind, m) {
  if (kind === "cold") return;
  const c = m.body.catalog;
  const only = c && c.commit === 1 && c.requests.length === 1;
  if (!only) failures.push(`${kind} append: catalog requests ${JSON.stringify(c?.requests ?? null)}, want exactly one commit POST`);
}
export async function catalogAppends({ start, call, measure, record, log, work, RUNS, WARM, STEADY_AFTER, STEADY }) {
  const failures = [];
  const uri = process.env.TIMELAKE_CATALOG_URI;
  if (!uri) {
    const note = "skipped: no REST catalog server (TIMELAKE_CATALOG_URI unset: bench/run.sh starts one when `bash scripts/restcatalog.sh check` finds it built; `bash scripts/restcatalog.sh build` needs java 17 and mvn)";
    log(`${CATALOG_WORKLOAD}: ${note}`);
    return { note, failures };
  }
  const bindings = { CATALOG_URI: uri, CATALOG_WAREHOUSE: process.env.TIMELAKE_CATALOG_WAREHOUSE ?? "" };
  const persist = path.join(work, "catalog");
  await fs.rm(persist, { recursive: true, force: true });
  const t = `c${CATALOG_N}_${process.pid}`; // one table per harness run: the server may outlive a run
  // The catalog server's process (a JVM): its CPU over each request is kept
  // beside workerd's (serverCpuMs), not in it.
  let serverPid;
  try {
    serverPid = Number(fss.readFileSync(path.join(process.env.TIMELAKE_CATALOG_DIR ?? "", "pid"), "utf8").trim()) || undefined;
  } catch {}
  let w = await start(persist, bindings);
  await call(w, `/cat/create?t=${t}`);
  await w.close();
  for (let r = 0; r < RUNS; r++) {
    w = await start(persist, bindings);
    w.serverPid = serverPid;
    try {
      await call(w, "/noop");
      await call(w, `/rows?n=${CATALOG_N}`);
      const one = async (kind) => {
        const m = await measure(w, `/cat/append?t=${t}&n=${CATALOG_N}`);
        record(CATALOG_WORKLOAD, kind, m);
        log(`  catalog ${JSON.stringify(m.body.catalog.requests)}${m.serverCpuMs === undefined ? "" : `, catalog server CPU ${m.serverCpuMs.toFixed(1)} ms`}`);
        checkCatalogSample(failures, kind, m);
      };
      await one("cold");
      for (let k = 0; k < WARM; k++) await one("warm");
      for (let k = 1 + WARM; k < STEADY_AFTER; k++) await call(w, `/cat/append?t=${t}&n=${CATALOG_N}`);
      for (let k = 0; k < STEADY; k++) await one("steady");
    } finally {
      await w.close();
    }
  }
  return { note: undefined, failures };
}
