// The package as users import it: export conditions, entries, no runtime
// dependencies.
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import { test } from "node:test";

test("package.json: no runtime dependencies; exports with workerd, node and default conditions", async () => {
  const pkg = JSON.parse(await fs.readFile(new URL("../../package.json", import.meta.url), "utf8"));
  assert.equal(pkg.dependencies, undefined);
  assert.equal(pkg.type, "module");
  // Each runtime condition carries its own types (the node entry's include localStore).
  assert.deepEqual(Object.keys(pkg.exports["."]), ["workerd", "node", "types", "default"]);
  for (const c of ["workerd", "node"]) assert.deepEqual(Object.keys(pkg.exports["."][c]), ["types", "default"], c);
  for (const e of ["./workers", "./timelake.wasm", "./local"]) assert.ok(pkg.exports[e], e);
});

test("@timelake/client in Node resolves to the node entry (localStore included)", async () => {
  const m = await import("@timelake/client");
  for (const name of ["createTable", "openTable", "TableWriter", "memoryStore", "r2Store", "localStore", "initWasm", "TimelakeError", "RowError", "StoreError"]) {
    assert.ok(name in m, `missing export ${name}`);
  }
});

test("@timelake/client/workers: initWasm takes only a compiled module", async () => {
  const w = await import("@timelake/client/workers");
  assert.throws(() => w.initWasm(new Uint8Array(8) as unknown as WebAssembly.Module), (e: unknown) => e instanceof w.TimelakeError && e.code === "INVALID_ARGUMENT");
  assert.ok(!("localStore" in w), "the Workers entry must not pull in node:fs");
});

test("the workers entry imports nothing from node:", async () => {
  const seen = new Set<string>();
  const visit = async (url: URL) => {
    if (seen.has(url.href)) return;
    seen.add(url.href);
    const src = await fs.readFile(url, "utf8");
    for (const m of src.matchAll(/(?:import|export)[^"']*["']([^"']+)["']/g)) {
      const spec = m[1]!;
      assert.ok(!spec.startsWith("node:"), `${url.pathname} imports ${spec}`);
      if (spec.startsWith(".") && spec.endsWith(".js")) await visit(new URL(spec, url));
    }
  };
  await visit(new URL("../src/workers.js", import.meta.url));
  assert.ok(seen.size > 5);
});
