// Arrow IPC bytes appended from Node: pyarrow's fixtures (arrowipc/testdata)
// read back through info() and latest(); a bad Arrow input is a coded
// RowError and leaves the store as it was; 100k rows timed (logged only).
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, RowError } from "../src/index.js";
import type { MemoryStore } from "../src/stores/memory.js";
import { benchStream, findCase, fixture, fixtures, tableSchema } from "./arrowfixtures.js";

function snapshot(s: MemoryStore): Map<string, string> {
  const m = new Map<string, string>();
  for (const [k, v] of s.objects) m.set(k, Buffer.from(v).toString("base64"));
  return m;
}

const iso = (us: number) => new Date(Math.floor(us / 1000)).toISOString().replace("Z", "") + String(((us % 1000) + 1000) % 1000).padStart(3, "0") + "Z";

test("append Arrow IPC stream bytes (every flat type): info and latest agree with pyarrow", async () => {
  const c = findCase("types stream");
  const store = memoryStore();
  const w = await createTable(store, tableSchema(c.table));
  const r = await w.append(fixture(c.file));
  assert.equal(r.inputRows, 20);
  assert.equal(r.rowsWritten, 20);
  const info = await w.info();
  assert.equal(info.rows, 20);
  // the latest row of each host, from pyarrow's rows: [ts, host, i8, …]
  const rows = c.rows!;
  const names = ["ts", "host", ...c.table.columns.map((x) => x.name)];
  const want = new Map<string, unknown[]>();
  for (const row of rows) {
    const prev = want.get(row[1] as string);
    if (!prev || (row[0] as number) >= (prev[0] as number)) want.set(row[1] as string, row);
  }
  const latest = await w.latest();
  assert.equal(latest.length, want.size);
  for (const got of latest) {
    const exp = want.get(got["host"] as string)!;
    assert.equal(got["ts"], iso(exp[0] as number));
    for (const [k, name] of names.entries()) {
      if (k < 2) continue;
      const e = exp[k];
      const g = got[name];
      if (e === null) assert.equal(g, null, name);
      // cases.json went through JSON.parse: integers past 2^53 are the nearest double
      else if (typeof g === "bigint") assert.equal(Number(g), e, name);
      else assert.equal(g, e, name);
    }
  }
  await w.close();
});

test("append an ArrayBuffer of an Arrow file with ZSTD bodies, and a Node Buffer of a stream with dictionary deltas", async () => {
  const c = findCase("zstd file");
  const w = await createTable(memoryStore(), tableSchema(c.table));
  const bytes = fixture(c.file);
  const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const r = await w.append(ab as ArrayBuffer);
  assert.equal(r.inputRows, 300);
  assert.equal(r.rowsWritten, 20); // 15 copies of the same 20 keys: the last of each wins
  assert.equal((await w.info()).rows, 20);

  const d = findCase("dictionary deltas");
  const w2 = await createTable(memoryStore(), tableSchema(d.table));
  const r2 = await w2.append(Buffer.from(fixture(d.file)));
  assert.equal(r2.inputRows, 12);
  const latest = await w2.latest();
  assert.equal(latest.length, 1);
  const last = d.rows![d.rows!.length - 1]!;
  assert.deepEqual([latest[0]!["zone"], latest[0]!["level"]], [last[2], last[3] === null ? null : BigInt(last[3] as number)]);
});

test("bad Arrow input: a coded RowError naming row and column, the store unchanged", async () => {
  const c = findCase("types stream");
  const store = memoryStore();
  const w = await createTable(store, tableSchema(c.table));
  await w.append(fixture(c.file));
  const before = snapshot(store);
  const bytes = fixture(c.file);
  await assert.rejects(w.append(bytes.subarray(0, bytes.length - 100)), (e: unknown) => {
    assert.ok(e instanceof RowError, String(e));
    assert.equal(e.code, "SYNTAX");
    assert.match(e.message, /Arrow/);
    return true;
  });
  const u = findCase("uint64 past int64");
  const w2 = await createTable(memoryStore(), tableSchema(u.table));
  await assert.rejects(w2.append(fixture(u.file)), (e: unknown) => {
    assert.ok(e instanceof RowError);
    assert.deepEqual([e.code, e.row, e.column], ["TYPE_MISMATCH", 3, "v"]);
    return true;
  });
  await assert.rejects(w.append(fixture(findCase("unknown column").file)), (e: unknown) => {
    assert.ok(e instanceof RowError);
    assert.deepEqual([e.code, e.column], ["UNKNOWN_COLUMN", "lst"]);
    return true;
  });
  await assert.rejects(w.append(new Uint8Array(0)), (e: unknown) => e instanceof RowError && e.code === "EMPTY_INPUT");
  assert.deepEqual(snapshot(store), before);
});

test("100k Arrow rows (5 columns) in Node: timings (logged, not asserted)", async (t) => {
  const w = await createTable(memoryStore(), tableSchema(fixtures.bench.table));
  const bytes = benchStream(100);
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const r = await w.append(bytes);
    const ms = performance.now() - t0;
    assert.equal(r.inputRows, 100_000);
    t.diagnostic(
      `Arrow append ${i + 1} of 100k rows (${(bytes.length / 1048576).toFixed(1)} MiB): ${ms.toFixed(0)} ms ` +
        `(copy ${r.timings.copyMs.toFixed(1)}, parse+align ${r.timings.alignMs.toFixed(1)}, append ${r.timings.appendMs.toFixed(0)})`,
    );
  }
});
