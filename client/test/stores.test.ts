// The Store conformance suite against memoryStore and localStore in Node
// (r2Store runs it inside workerd: miniflare.test.ts).
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { memoryStore } from "../src/stores/memory.js";
import { localStore } from "../src/stores/local.js";
import { cases } from "./conformance.js";

for (const [name, run] of cases) {
  test(`memoryStore: ${name}`, () => run(memoryStore()));
  test(`localStore: ${name}`, async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "timelake-local-"));
    try {
      await run(localStore(dir));
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
}

test("localStore: leaves no temporary files and lays keys out as files", async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "timelake-local-"));
  try {
    const s = localStore(dir);
    await s.put("data/a.parquet", new Uint8Array([1, 2]));
    assert.equal(await s.putIfAbsent("data/a.parquet", new Uint8Array([3])), false);
    assert.deepEqual([...(await fs.readFile(path.join(dir, "data", "a.parquet")))], [1, 2]);
    assert.deepEqual(await fs.readdir(path.join(dir, ".timelake-tmp")), []);
    assert.ok(s.location.startsWith("file:///"), s.location);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
