// scan.arrow() and scan.arrowStream() in Node: apache-arrow (a dev
// dependency, tests only) reads the bytes to the same rows as rows() of the
// same scan, every column type with nulls, the Iceberg field ids in the
// field metadata; the stream form gives the same bytes; an empty result is
// the projected schema; a bad option or a store fault rejects arrow(); a
// Scan is read once, one way.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DataType, tableFromIPC, type Table } from "apache-arrow";
import { createTable, memoryStore, openTable, RowError, StoreError, TimelakeError, type ScanOptions, type Store, type TableWriter } from "../src/index.js";

const T0 = Date.UTC(2026, 10, 29, 10, 0, 0);
const pad3 = (n: number) => String(n).padStart(3, "0");
/** A timestamptz as rows() gives it: ISO 8601 with microseconds. */
const isoMicros = (us: bigint) => {
  const ms = us / 1000n - (us % 1000n < 0n ? 1n : 0n);
  return new Date(Number(ms)).toISOString().slice(0, -1) + pad3(Number(us - ms * 1000n)) + "Z";
};

async function table(): Promise<TableWriter> {
  const t = await createTable(memoryStore(), {
    time: "ts",
    series: ["host", "shard"],
    columns: [
      { name: "shard", type: "int" },
      { name: "cpu", type: "double" },
      { name: "load", type: "float" },
      { name: "mem", type: "long" },
      { name: "ok", type: "boolean" },
      { name: "note", type: "string" },
      { name: "seen", type: "timestamptz" },
    ],
    partition: "hour",
  });
  const floats: (number | string)[] = [0.1, -0, "NaN", "Infinity", "-Infinity", 1e300, 3.25]; // non-finite as strings, as append takes them
  const notes = ["", "x", "héllo", "日本語", "𝄞 clef", "quote\"comma,"];
  const rows = (n: number, seed: number) =>
    Array.from({ length: n }, (_, i) => ({
      ts: new Date(T0 + i * 1500),
      host: `h${i % 3}`,
      shard: (i % 2) - 1,
      cpu: i % 9 === 0 ? null : i % 2 === 0 ? floats[i % floats.length]! : i / 3 + seed,
      load: i % 4 === 0 ? null : i / 8,
      mem: (BigInt(i) << 40n) - BigInt(seed),
      ok: i % 5 === 0 ? null : i % 2 === 0,
      note: i % 7 === 0 ? null : notes[i % notes.length]! + i,
      seen: i % 3 === 0 ? null : new Date(T0 - i * 7),
    }));
  await t.append(rows(20_000, 1));
  await t.append(rows(3000, 2)); // rewrites: the later append wins
  return t;
}

/** The rows of an Arrow table as rows() gives them. */
function arrowRows(a: Table): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = Array.from({ length: a.numRows }, () => ({}));
  for (const f of a.schema.fields) {
    const vec = a.getChild(f.name)!;
    let k = 0;
    for (const d of vec.data) {
      for (let i = 0; i < d.length; i++, k++) {
        let v: unknown = null;
        if (vec.isValid(k)) v = DataType.isTimestamp(f.type) ? isoMicros((d.values as BigInt64Array)[d.offset + i]!) : vec.get(k);
        out[k]![f.name] = v;
      }
    }
  }
  return out;
}

async function rowsOf(t: TableWriter, o: ScanOptions): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of t.scan(o).rows()) out.push(r);
  return out;
}

test("scan.arrow(): apache-arrow reads the rows of rows(), every column type, nulls, field ids", async () => {
  const t = await table();
  const types: Record<string, string> = {
    ts: "Timestamp<MICROSECOND, UTC>", host: "Utf8", shard: "Int32", cpu: "Float64", load: "Float32", mem: "Int64",
    ok: "Bool", note: "Utf8", seen: "Timestamp<MICROSECOND, UTC>", _ingest_ts: "Timestamp<MICROSECOND, UTC>",
  };
  const ids: Record<string, string> = { ts: "1", host: "2", shard: "3", cpu: "4", load: "5", mem: "6", ok: "7", note: "8", seen: "9", _ingest_ts: "10" };
  for (const o of [
    { batchRows: 5000 },
    { series: { host: "h1" }, columns: ["load", "note", "seen"], from: T0 + 3_600_000 },
    { raw: true, limit: 7000 },
    { columns: ["_ingest_ts", "ok"], series: { shard: [0] }, to: T0 + 600_000 },
  ] as ScanOptions[]) {
    const want = await rowsOf(t, o);
    const s = t.scan(o);
    const bytes = await s.arrow();
    assert.ok(bytes instanceof Uint8Array);
    const st = await s.stats;
    assert.equal(st.rows, want.length);
    const a = tableFromIPC(bytes);
    assert.equal(a.numRows, want.length, JSON.stringify(o));
    assert.deepEqual(a.schema.fields.map((f) => f.name), Object.keys(want[0]!));
    for (const f of a.schema.fields) {
      assert.equal(String(f.type), types[f.name], f.name);
      assert.equal(f.nullable, !["ts", "host", "shard"].includes(f.name), f.name);
      assert.equal(f.metadata.get("PARQUET:field_id"), ids[f.name], f.name);
    }
    assert.deepEqual(arrowRows(a), want, JSON.stringify(o));
    if (o.batchRows) assert.deepEqual(a.batches.map((b) => b.numRows), [5000, 5000, 5000, 5000]);
  }
  await t.close();
});

test("scan.arrowStream(): the bytes of arrow() in a chunk per batch; cancelling stops the scan", async () => {
  const t = await table();
  const whole = await t.scan({ batchRows: 4096 }).arrow();
  const chunks: Uint8Array[] = [];
  const reader = t.scan({ batchRows: 4096 }).arrowStream().getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  assert.equal(chunks.length, 6); // 20,000 rows in 5 batches, then the end of the stream
  assert.deepEqual(Buffer.concat(chunks), Buffer.from(whole));
  const s = t.scan({ batchRows: 100 });
  const r2 = s.arrowStream().getReader();
  assert.equal((await r2.read()).done, false);
  await r2.cancel();
  assert.equal((await s.stats).stopped, true);
  assert.equal((await t.latest()).length, 6); // the queue is free
  await t.close();
});

test("scan.arrow(): an empty result is the projected schema, no batch", async () => {
  const t = await table();
  const a = tableFromIPC(await t.scan({ series: { host: "nope" }, columns: ["mem"] }).arrow());
  assert.equal(a.numRows, 0);
  assert.deepEqual(a.schema.fields.map((f) => `${f.name}:${f.type}`), ["ts:Timestamp<MICROSECOND, UTC>", "host:Utf8", "shard:Int32", "mem:Int64"]);
  const none = tableFromIPC(await (await createTable(memoryStore(), { time: "ts", series: ["k"] })).scan().arrow());
  assert.deepEqual(none.schema.fields.map((f) => f.name), ["ts", "k"]); // a table without snapshots
  await t.close();
});

test("scan.arrow(): bad options and store faults reject with coded errors; a Scan is read once, one way", async () => {
  const t = await table();
  await assert.rejects(t.scan({ columns: ["nope"] }).arrow(), (e: unknown) => e instanceof RowError && e.code === "UNKNOWN_COLUMN" && e.column === "nope");
  const s = t.scan({ limit: 3 });
  for await (const _ of s);
  await assert.rejects(s.arrow(), (e: unknown) => e instanceof TimelakeError && e.code === "INVALID_ARGUMENT");
  const s2 = t.scan({ limit: 3 });
  await s2.arrow();
  assert.throws(() => s2.arrowStream(), (e: unknown) => e instanceof TimelakeError && e.code === "INVALID_ARGUMENT");
  await t.close();

  const base = memoryStore();
  const w = await createTable(base, { time: "ts", series: ["host"], columns: [{ name: "note", type: "string" }] });
  await w.append(Array.from({ length: 40_000 }, (_, i) => ({ ts: new Date(T0 + i * 1000), host: `h${i % 3}`, note: `${Math.random()}${Math.random()}`.repeat(5) })));
  let armed = false;
  const fail = () => Promise.reject(new Error("disk on fire"));
  const store = {
    location: base.location,
    get: (k: string, o?: object) => (armed && k.startsWith("data/") ? fail() : base.get(k, o)),
    getRange: (k: string, off: number, n: number) => (armed && k.startsWith("data/") ? fail() : base.getRange(k, off, n)),
    put: (k: string, d: Uint8Array) => base.put(k, d),
    putIfAbsent: (k: string, d: Uint8Array) => base.putIfAbsent(k, d),
    delete: (ks: string[]) => base.delete(ks),
    list: (p: string) => base.list(p),
  } as unknown as Store;
  const ft = await openTable(store);
  const reader = ft.scan({ batchRows: 1000 }).arrowStream().getReader();
  assert.equal((await reader.read()).done, false);
  armed = true;
  await assert.rejects(
    (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read());
    })(),
    (e: unknown) => e instanceof StoreError && /disk on fire/.test(e.message),
  );
  armed = false;
  assert.equal((await ft.info()).rows, 40_000);
});
