// table.scan in Node: its output against a brute-force filter and dedup
// of what was appended (the later append wins a duplicate key), time
// ranges, series IN filters, projection, limit, raw, as-of, the queue held
// and released (early break), and bad options by code.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  createTable,
  memoryStore,
  openTable,
  RowError,
  StoreError,
  TimelakeError,
  type ColumnBatch,
  type ScanOptions,
  type Store,
  type TableSchema,
  type TableWriter,
} from "../src/index.js";

const schema: TableSchema = {
  time: "ts",
  series: ["host", "shard"],
  columns: [
    { name: "shard", type: "long" },
    { name: "cpu", type: "double" },
    { name: "mem", type: "long" },
    { name: "note", type: "string" },
  ],
  partition: "hour",
};

const T0 = Date.UTC(2026, 10, 29, 10, 0, 0);
type Row = { ts: number; host: string; shard: bigint; cpu: number; mem: bigint; note: string | null };

/** n rows from seed: 5 hosts × 2 shards, a row every 20 s across three hours (so three partitions). */
function gen(n: number, seed: number, step = 1): Row[] {
  const out: Row[] = [];
  for (let i = 0; i < n; i++) {
    const k = i * step;
    out.push({
      ts: T0 + Math.floor(k / 10) * 20_000,
      host: `h${k % 5}`,
      shard: BigInt(Math.floor(k / 5) % 2),
      cpu: seed * 1000 + i / 4,
      mem: (BigInt(seed) << 40n) + BigInt(i),
      note: i % 7 === 0 ? null : `s${seed}-${i}`,
    });
  }
  return out;
}

const keyOf = (r: Row) => `${r.host}\u0000${r.shard}\u0000${r.ts}`;
const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "000Z");

/** What a scan should return: the last write of each key, filtered, sorted by (host, shard, ts), as scan values. */
function expected(appends: Row[][], o: { from?: number; to?: number; hosts?: string[]; shards?: bigint[]; columns?: string[]; limit?: number } = {}) {
  const last = new Map<string, Row>();
  for (const a of appends) for (const r of a) last.set(keyOf(r), r);
  let rows = [...last.values()].filter(
    (r) =>
      (o.from === undefined || r.ts >= o.from) &&
      (o.to === undefined || r.ts < o.to) &&
      (o.hosts === undefined || o.hosts.includes(r.host)) &&
      (o.shards === undefined || o.shards.includes(r.shard)),
  );
  rows.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : a.shard !== b.shard ? (a.shard < b.shard ? -1 : 1) : a.ts - b.ts));
  if (o.limit) rows = rows.slice(0, o.limit);
  const cols = ["cpu", "mem", "note"].filter((c) => o.columns === undefined || o.columns.includes(c));
  return rows.map((r) => {
    const out: Record<string, unknown> = { ts: iso(r.ts), host: r.host, shard: r.shard };
    for (const c of cols) out[c] = r[c as keyof Row];
    return out;
  });
}

async function table(): Promise<{ t: TableWriter; a: Row[]; b: Row[]; first: bigint }> {
  const t = await createTable(memoryStore(), schema);
  const a = gen(3000, 1);
  const r1 = await t.append(a);
  const b = gen(1500, 2, 2); // every other key of a's first 3000: duplicates, later _ingest_ts
  await t.append(b);
  return { t, a, b, first: r1.snapshotId };
}

async function collect(t: TableWriter, o: ScanOptions): Promise<{ rows: Record<string, unknown>[]; batches: ColumnBatch[] }> {
  const s = t.scan(o);
  const batches: ColumnBatch[] = [];
  for await (const b of s) batches.push(b);
  const rows: Record<string, unknown>[] = [];
  for (const b of batches) {
    for (let r = 0; r < b.length; r++) rows.push(Object.fromEntries(Object.entries(b.columns).map(([k, v]) => [k, v[r]])));
  }
  const st = await s.stats;
  assert.equal(st.rows, rows.length);
  assert.equal(st.stopped, false);
  return { rows, batches };
}

test("scan: every row, deduplicated (the later append wins), in batches of batchRows", async () => {
  const { t, a, b } = await table();
  const { rows, batches } = await collect(t, { batchRows: 500 });
  assert.deepEqual(rows, expected([a, b]));
  assert.ok(batches.length >= 6);
  for (const x of batches) assert.ok(x.length <= 500 && x.length > 0);
  assert.deepEqual(Object.keys(batches[0]!.columns), ["ts", "host", "shard", "cpu", "mem", "note"]);
  for (const x of batches) for (const col of Object.values(x.columns)) assert.equal(col.length, x.length);
});

test("scan: time range (Date, ISO string, epoch ms), series IN, projection, limit", async () => {
  const { t, a, b } = await table();
  const from = T0 + 45 * 60_000,
    to = T0 + 2 * 3600_000 + 10 * 60_000; // across the partitions
  for (const [f, tt] of [
    [new Date(from), new Date(to).toISOString()],
    [from, to],
  ] as const) {
    const { rows } = await collect(t, { from: f, to: tt, series: { host: ["h1", "h3"], shard: 1 }, columns: ["cpu"] });
    const want = expected([a, b], { from, to, hosts: ["h1", "h3"], shards: [1n], columns: ["cpu"] });
    assert.ok(want.length > 50);
    assert.deepEqual(rows, want);
  }
  const { rows: bigShard } = await collect(t, { series: { shard: [0n], host: "h2" }, columns: ["mem", "note"] });
  assert.deepEqual(bigShard, expected([a, b], { hosts: ["h2"], shards: [0n], columns: ["mem", "note"] }));
  const { rows: limited } = await collect(t, { limit: 7, from, batchRows: 3 });
  assert.deepEqual(limited, expected([a, b], { from, limit: 7 }));
  const { rows: none } = await collect(t, { series: { host: "nobody" } });
  assert.deepEqual(none, []);
});

test("scan: raw keeps the duplicates; asOf the first snapshot sees the first append", async () => {
  const { t, a, b, first } = await table();
  const { rows: raw } = await collect(t, { raw: true, columns: [] });
  assert.equal(raw.length, a.length + b.length);
  for (const asOf of [first, first.toString()]) {
    const { rows } = await collect(t, { asOf });
    assert.deepEqual(rows, expected([a]));
  }
  const s = t.scan({ asOf: new Date(Date.now() + 60_000), limit: 1 });
  for await (const _ of s);
  assert.notEqual((await s.stats).snapshotId, first);
});

test("scan.rows(): objects, as the batches", async () => {
  const { t, a, b } = await table();
  const got: Record<string, unknown>[] = [];
  for await (const r of t.scan({ series: { host: "h4" }, batchRows: 100 }).rows()) got.push(r);
  assert.deepEqual(got, expected([a, b], { hosts: ["h4"] }));
});

test("scan holds the queue: an op waits for it; break releases it; stats say stopped", async () => {
  const { t } = await table();
  const s = t.scan({ batchRows: 10 });
  let latestDone = false;
  let batches = 0;
  let pending: Promise<unknown> | undefined;
  for await (const x of s) {
    assert.equal(x.length, 10);
    if (++batches === 1) pending = t.latest().then(() => (latestDone = true));
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(latestDone, false, "latest ran inside the scan");
    if (batches === 3) break;
  }
  await pending;
  assert.equal(latestDone, true);
  const st = await s.stats;
  assert.equal(st.stopped, true);
  assert.equal(st.rows, 30);
  // The instance is free: append and scan again.
  await t.append(gen(10, 3));
  const { rows } = await collect(t, { limit: 5 });
  assert.equal(rows.length, 5);
  // A break in rows() releases it too; so does return() on a bare iterator.
  for await (const _ of t.scan({ batchRows: 5 }).rows()) break;
  const it = t.scan({ batchRows: 5 })[Symbol.asyncIterator]();
  assert.equal((await it.next()).done, false);
  await it.return!();
  assert.equal((await it.next()).done, true);
  assert.ok((await t.info()).rows > 0);
});

test("a Scan is iterated once", async () => {
  const { t } = await table();
  const s = t.scan({ limit: 1 });
  for await (const _ of s);
  assert.throws(() => s[Symbol.asyncIterator](), (e: unknown) => e instanceof TimelakeError && e.code === "INVALID_ARGUMENT");
});

test("scan: bad options are coded errors naming what was wrong, and free the queue", async () => {
  const { t, first } = await table();
  const cases: [ScanOptions, string, string | undefined][] = [
    [{ columns: ["cpu", "nope"] }, "UNKNOWN_COLUMN", "nope"],
    [{ series: { nope: "x" } }, "UNKNOWN_COLUMN", "nope"],
    [{ series: { cpu: 1 } }, "BAD_FILTER", "cpu"],
    [{ series: { shard: "one" } }, "BAD_FILTER", "shard"],
    [{ series: { host: 3 } }, "BAD_FILTER", "host"],
    [{ series: { shard: 1.5 } }, "BAD_FILTER", "shard"],
    [{ series: { host: [] } }, "BAD_FILTER", "host"],
    [{ from: T0 + 1000, to: T0 }, "BAD_RANGE", undefined],
    [{ from: T0, to: new Date(T0) }, "BAD_RANGE", undefined],
    [{ from: "yesterday" }, "BAD_TIME", undefined],
    [{ to: new Date(NaN) }, "BAD_TIME", "to"],
    [{ asOf: first + 1n }, "NO_SNAPSHOT", undefined],
    [{ asOf: "2000-01-01" }, "NO_SNAPSHOT", undefined],
    [{ limit: -1 }, "BAD_OPTION", undefined],
  ];
  for (const [o, code, column] of cases) {
    const s = t.scan(o);
    await assert.rejects(
      (async () => {
        for await (const _ of s);
      })(),
      (e: unknown) => e instanceof RowError && e.code === code && e.column === column,
      `${JSON.stringify(o, (_k, v) => (typeof v === "bigint" ? `${v}n` : v))} → ${code}`,
    );
    await assert.rejects(s.stats, (e: unknown) => e instanceof TimelakeError && e.code === code);
  }
  for (const o of [{ limit: 1.5 }, { limit: NaN }, { batchRows: 2 ** 60 }]) {
    await assert.rejects(
      (async () => {
        for await (const _ of t.scan(o));
      })(),
      (e: unknown) => e instanceof RowError && e.code === "BAD_OPTION" && e.column === Object.keys(o)[0],
    );
  }
  // A scan left before its first batch never runs; its stats say so.
  const never = t.scan();
  const it = never[Symbol.asyncIterator]();
  await it.return!();
  assert.equal((await it.next()).done, true);
  await assert.rejects(never.stats, (e: unknown) => e instanceof TimelakeError && e.code === "INVALID_ARGUMENT");
  assert.equal((await t.latest()).length, 10);
});

test("scan: strings of every width, a column of nulls, and integer series round-trip through the batch form", async () => {
  const t = await createTable(memoryStore(), {
    time: "ts",
    series: ["id"],
    columns: [
      { name: "id", type: "int" },
      { name: "s", type: "string" },
      { name: "none", type: "double" },
      { name: "ok", type: "boolean" },
    ],
  });
  const strs = ["", "a", "é", "日本語", "𝄞 clef", "mixed é𝄞x", "\u0000nul"];
  const rows = strs.map((s, i) => ({ ts: new Date(T0 + i), id: i - 3, s, ok: i % 2 === 0 }));
  await t.append(rows);
  const got: Record<string, unknown>[] = [];
  for await (const r of t.scan({ batchRows: 3 }).rows()) got.push(r);
  assert.deepEqual(
    got,
    rows.map((r) => ({ ts: iso(r.ts.getTime()), id: r.id, s: r.s, none: null, ok: r.ok })),
  );
  const one: Record<string, unknown>[] = [];
  for await (const r of t.scan({ series: { id: [-3, 3n] }, columns: ["s"] }).rows()) one.push(r);
  assert.deepEqual(one.map((r) => r["s"]), ["", "\u0000nul"]);
});

test("an iterator dropped without return() is stopped when collected, releasing the queue", async () => {
  const v8 = await import("node:v8");
  const vm = await import("node:vm");
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  const { t } = await table();
  const s = t.scan({ batchRows: 10 });
  await (async () => {
    const it = s[Symbol.asyncIterator]();
    assert.equal((await it.next()).value?.length, 10);
  })(); // it is unreachable from here
  let freed = false;
  const info = t.info().then(() => (freed = true));
  for (let i = 0; i < 50 && !freed; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(freed, "the queue stayed held");
  await info;
  assert.equal((await s.stats).stopped, true);
});

test("a store fault mid-scan: batches, then a coded error (never a silent end); stats reject; the queue is free", async () => {
  const base = memoryStore();
  const w = await createTable(base, { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }, { name: "note", type: "string" }] });
  // Incompressible values: a file of ~8 MB, past the scan's 2 MiB read-ahead,
  // so reads go on after the first batches.
  await w.append(Array.from({ length: 40_000 }, (_, i) => ({ ts: new Date(T0 + i * 1000), host: `h${i % 3}`, cpu: Math.random(), note: `${Math.random()}${Math.random()}`.repeat(5) })));
  let armed = false;
  const store = {
    location: base.location,
    get: (k: string, o?: object) => (armed && k.startsWith("data/") ? Promise.reject(new Error("disk on fire")) : base.get(k, o)),
    getRange: (k: string, off: number, n: number) => (armed && k.startsWith("data/") ? Promise.reject(new Error("disk on fire")) : base.getRange(k, off, n)),
    put: (k: string, d: Uint8Array) => base.put(k, d),
    putIfAbsent: (k: string, d: Uint8Array) => base.putIfAbsent(k, d),
    delete: (ks: string[]) => base.delete(ks),
    list: (p: string) => base.list(p),
  } as unknown as Store;
  const t = await openTable(store);
  const s = t.scan({ batchRows: 1000 });
  let rows = 0;
  await assert.rejects(
    (async () => {
      for await (const b of s) {
        rows += b.length;
        armed = true; // the file's next window fails
      }
    })(),
    (e: unknown) => e instanceof StoreError && e.code === "STORE_ERROR" && /disk on fire/.test(e.message),
  );
  assert.ok(rows > 0 && rows < 40_000, `${rows} rows before the fault`);
  await assert.rejects(s.stats, (e: unknown) => e instanceof StoreError);
  armed = false;
  assert.equal((await t.info()).rows, 40_000);
});
