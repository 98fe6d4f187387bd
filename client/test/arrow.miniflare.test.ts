// Arrow IPC bytes posted to a Worker (workerd through Miniflare) and appended
// there, the Go core parsing them: results read back with info and latest; a
// bad Arrow body is a coded error and leaves the bucket as it was; 100k rows
// timed (logged only).
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import type { Miniflare } from "miniflare";
import { bucketOf, startWorker } from "./mf.js";
import { benchStream, findCase, fixture, fixtures, tableSchema } from "./arrowfixtures.js";

let mf: Miniflare;
let dir: string;

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "timelake-mf-arrow-"));
  mf = await startWorker(path.join(dir, "r2"));
});
after(async () => {
  await mf?.dispose();
  await fs.rm(dir, { recursive: true, force: true });
});

async function call(pathname: string, body?: Uint8Array): Promise<{ status: number; json: any }> {
  const res = await mf.dispatchFetch(`http://worker${pathname}`, { method: "POST", ...(body ? { body } : {}) });
  return { status: res.status, json: await res.json() };
}

const create = (prefix: string, schema: object) => call(`/create?prefix=${prefix}&schema=${encodeURIComponent(JSON.stringify(schema))}`);

test("a Worker appends Arrow IPC bytes posted to it (stream, dictionary deltas, LZ4); info and latest read them back", async () => {
  const c = findCase("types stream");
  assert.equal((await create("a1", tableSchema(c.table))).status, 200);
  const r = await call("/append-arrow?prefix=a1", fixture(c.file));
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.equal(r.json.rowsWritten, 20);
  const lz = await call("/append-arrow?prefix=a1", fixture(findCase("lz4 stream").file));
  assert.equal(lz.status, 200, JSON.stringify(lz.json));
  assert.equal(lz.json.inputRows, 300);
  const info = await call("/info?prefix=a1");
  assert.equal(info.json.info.rows, 40);
  assert.equal(info.json.info.version, 3);
  const latest = await call("/latest?prefix=a1");
  assert.deepEqual(latest.json.map((x: { host: string }) => x.host), ["web-0", "web-1", "web-2"]);

  const d = findCase("dictionary deltas");
  await create("a2", tableSchema(d.table));
  const rd = await call("/append-arrow?prefix=a2", fixture(d.file));
  assert.equal(rd.status, 200, JSON.stringify(rd.json));
  assert.equal(rd.json.inputRows, 12);
  const ld = await call("/latest?prefix=a2");
  assert.equal(ld.json[0].zone, d.rows![11]![2]);
});

test("a bad Arrow body in a Worker: a coded RowError; the bucket unchanged", async () => {
  const c = findCase("types stream");
  await create("a3", tableSchema(c.table));
  const list = async () => (await (await bucketOf(mf)).list({ prefix: "a3/" })).objects.map((o) => o.key);
  const before = await list();
  const bytes = fixture(c.file);
  const r = await call("/append-arrow?prefix=a3", bytes.subarray(0, 1000));
  assert.equal(r.status, 400);
  assert.equal(r.json.name, "RowError");
  assert.equal(r.json.code, "SYNTAX");
  const t = await call("/append-arrow?prefix=a3", fixture(findCase("null series value").file));
  assert.equal(t.status, 400);
  assert.deepEqual([t.json.code, t.json.row, t.json.column], ["MISSING_COLUMN", 2, "host"]);
  assert.deepEqual(await list(), before);
  assert.equal((await call("/info?prefix=a3")).json.info.version, 1);
});

test("100k Arrow rows (5 columns) appended in workerd (timings logged, not asserted)", async (t) => {
  await create("a4", tableSchema(fixtures.bench.table));
  const bytes = benchStream(100);
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const r = await call("/append-arrow?prefix=a4", bytes);
    const ms = performance.now() - t0;
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.inputRows, 100_000);
    t.diagnostic(
      `workerd Arrow append ${i + 1} of 100k rows: ${ms.toFixed(0)} ms round trip (Go clock, frozen between I/O: ` +
        `copy ${r.json.timings.copyMs}, parse+align ${r.json.timings.alignMs}, append ${r.json.timings.appendMs}); wasm memory ${(r.json.memory.wasmMemoryBytes / 1048576).toFixed(0)} MiB`,
    );
  }
});
