// @timelake/client in Node: create, append, errors, 64-bit values, the
// queue, panics, faulty stores. Runs the compiled sources (dist/src) with the
// timelake.wasm built beside them.
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import {
  createTable,
  memoryStore,
  memoryStats,
  openTable,
  overLimit,
  RowError,
  StoreError,
  TimelakeError,
  tooLarge,
  type GetOptions,
  type Store,
  type TableSchema,
} from "../src/index.js";
import { localStore } from "../src/stores/local.js";
import { enqueue } from "../src/runtime.js";
import type { MemoryStore } from "../src/stores/memory.js";

const schema: TableSchema = {
  time: "ts",
  series: ["host"],
  columns: [
    { name: "cpu", type: "double" },
    { name: "mem", type: "long" },
    { name: "up", type: "boolean" },
  ],
};

const T0 = Date.UTC(2026, 10, 29, 10, 0, 0);

function sampleRows(n: number, offset = 0): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    rows.push({ ts: new Date(T0 + (offset + i) * 1000), host: `host-${i % 20}`, cpu: (i % 1000) / 10, mem: BigInt(i) << 33n, up: i % 2 === 0 });
  }
  return rows;
}

/** Every object of a memory store, for before/after comparisons. */
function snapshot(s: MemoryStore): Map<string, string> {
  const m = new Map<string, string>();
  for (const [k, v] of s.objects) m.set(k, Buffer.from(v).toString("base64"));
  return m;
}

test("create, append objects, info and latest", async () => {
  const st = memoryStore();
  const t = await createTable(st, schema);
  assert.equal(t.version, 1);
  assert.deepEqual(
    t.columns.map((c) => `${c.name}:${c.type}`),
    ["ts:timestamptz", "host:string", "cpu:double", "mem:long", "up:boolean", "_ingest_ts:timestamptz"],
  );
  const r = await t.append(sampleRows(1000));
  assert.equal(r.version, 2);
  assert.equal(r.rowsWritten, 1000);
  assert.equal(r.inputRows, 1000);
  assert.equal(typeof r.snapshotId, "bigint");
  assert.ok(r.snapshotId > 0n);
  assert.equal(r.files, 1);
  assert.ok(r.bytes > 0);
  assert.equal(r.retries, 0);
  const info = await t.info();
  assert.equal(info.snapshotId, r.snapshotId);
  assert.equal(info.rows, 1000);
  assert.equal(info.minTime, "2026-11-29T10:00:00Z");
  assert.deepEqual(info.partitions.map((p) => p.name), ["ts_day=2026-11-29"]);
  const latest = await t.latest();
  assert.equal(latest.length, 20);
  const h19 = latest.find((row) => row["host"] === "host-19")!;
  assert.equal(h19["ts"], "2026-11-29T10:16:39.000000Z"); // row 999
  assert.equal(h19["mem"], 999n << 33n);
  assert.equal(h19["up"], false);
  assert.ok(st.objects.has("metadata/v2.metadata.json"));
});

test("timestamps as Date, ISO strings, numbers and bigints in a unit; 64-bit longs", async () => {
  const t = await createTable(memoryStore(), schema);
  const big = (1n << 62n) + 7n; // beyond 2^53: exact only as bigint or string
  await t.append(
    [
      { ts: new Date(T0), host: "date", mem: big },
      { ts: "2026-11-29T10:00:00.123456Z", host: "iso", mem: "9007199254740993" },
      { ts: T0 / 1000, host: "seconds", mem: 42 },
    ],
    { timeUnit: "s" },
  );
  await t.append([{ ts: BigInt(T0) * 1000n + 5n, host: "micros", mem: -big }], { timeUnit: "us" });
  const got = Object.fromEntries((await t.latest()).map((r) => [r["host"], r]));
  assert.equal(got["date"]!["ts"], "2026-11-29T10:00:00.000000Z");
  assert.equal(got["date"]!["mem"], big);
  assert.equal(got["iso"]!["ts"], "2026-11-29T10:00:00.123456Z");
  assert.equal(got["iso"]!["mem"], 9007199254740993n);
  assert.equal(got["seconds"]!["ts"], "2026-11-29T10:00:00.000000Z");
  assert.equal(got["seconds"]!["mem"], 42n);
  assert.equal(got["micros"]!["ts"], "2026-11-29T10:00:00.000005Z");
  assert.equal(got["micros"]!["mem"], -big);
});

test("rows whose keys come in different orders, missing or undefined land in their columns", async () => {
  const t = await createTable(memoryStore(), schema);
  await t.append([
    { ts: new Date(T0), host: "a", cpu: 1.5, mem: 1, up: true },
    { ts: new Date(T0), host: "b", cpu: 2.5, mem: 2, up: false }, // the same order: the remembered builders
    { host: "c", mem: 3, ts: new Date(T0), cpu: 3.5 }, // reordered, up missing
    { ts: new Date(T0), host: "d", cpu: undefined, up: true, mem: 4 }, // cpu undefined in the slot cpu had
    { up: false, cpu: 5.5, host: "e", mem: 5, ts: new Date(T0) },
    { ts: new Date(T0), host: "f", cpu: 6.5, mem: 6, up: true },
  ]);
  const got = Object.fromEntries((await t.latest()).map((r) => [r["host"], [r["cpu"], r["mem"], r["up"]]]));
  assert.deepEqual(got, {
    a: [1.5, 1n, true],
    b: [2.5, 2n, false],
    c: [3.5, 3n, null],
    d: [null, 4n, true],
    e: [5.5, 5n, false],
    f: [6.5, 6n, true],
  });
});

test("create on an existing table is TABLE_EXISTS; open of nothing is NO_TABLE", async () => {
  const st = memoryStore();
  await createTable(st, schema);
  await assert.rejects(createTable(st, schema), (e: unknown) => e instanceof TimelakeError && e.code === "TABLE_EXISTS");
  await assert.rejects(openTable(memoryStore()), (e: unknown) => e instanceof TimelakeError && e.code === "NO_TABLE");
  const t = await openTable(st);
  assert.equal(t.version, 1);
  await assert.rejects(
    createTable(memoryStore(), { time: "ts", series: ["cpu"], columns: [{ name: "cpu", type: "double" }] }),
    (e: unknown) => e instanceof TimelakeError && e.code === "INVALID_ARGUMENT" && /series/.test(e.message),
  );
  await assert.rejects(
    createTable({ get() {} } as unknown as Store, schema),
    (e: unknown) => e instanceof TimelakeError && e.code === "INVALID_ARGUMENT" && /getRange/.test(e.message),
  );
});

const good = { ts: new Date(T0), host: "a", cpu: 1 };
const badInputs: [string, unknown[], string, number | undefined, string | undefined][] = [
  ["a row that is not an object", [good, 42], "TYPE_MISMATCH", 2, undefined],
  ["an array row", [[1, 2]], "TYPE_MISMATCH", 1, undefined],
  ["a string where a number belongs", [good, { ...good, cpu: "abc" }], "TYPE_MISMATCH", 2, "cpu"],
  ["NaN", [good, good, { ...good, cpu: NaN }], "TYPE_MISMATCH", 3, "cpu"],
  ["a number beyond 2^53 for a long", [{ ...good, mem: 2 ** 60 }], "TYPE_MISMATCH", 1, "mem"],
  ["a bigint beyond int64", [{ ...good, mem: 1n << 70n }], "TYPE_MISMATCH", 1, "mem"],
  ["a fraction for a long", [{ ...good, mem: 1.5 }], "TYPE_MISMATCH", 1, "mem"],
  ["missing time", [good, { host: "b" }], "MISSING_COLUMN", 2, "ts"],
  ["null series", [{ ...good, host: null }], "MISSING_COLUMN", 1, "host"],
  ["an unknown field", [good, { ...good, disk: 3 }], "UNKNOWN_COLUMN", 2, "disk"],
  ["_ingest_ts given", [{ ...good, _ingest_ts: T0 }], "UNKNOWN_COLUMN", 1, "_ingest_ts"],
  ["an object value", [{ ...good, cpu: { v: 1 } }], "TYPE_MISMATCH", 1, "cpu"],
  ["an invalid Date", [{ ...good, ts: new Date("nope") }], "BAD_TIME", 1, "ts"],
  ["a bad time string", [{ ...good, ts: "yesterday" }], "BAD_TIME", 1, "ts"],
  ["a boolean for a double", [{ ...good, cpu: true }], "TYPE_MISMATCH", 1, "cpu"],
  ["a string for a boolean", [{ ...good, up: "maybe" }], "TYPE_MISMATCH", 1, "up"],
  ["a time out of range", [{ ...good, ts: 1e300 }], "TIME_OUT_OF_RANGE", 1, "ts"],
  ["no rows", [], "EMPTY_INPUT", undefined, undefined],
];

test("bad input rejects with a coded RowError naming row and column; nothing is written", async (t) => {
  const st = memoryStore();
  const w = await createTable(st, schema);
  await w.append([good]);
  const before = snapshot(st);
  for (const [name, rows, code, row, column] of badInputs) {
    await t.test(name, async () => {
      const e = await w.append(rows as object[]).then(
        () => assert.fail("append resolved"),
        (e: unknown) => e,
      );
      assert.ok(e instanceof RowError, `got ${String(e)}, want a RowError`);
      assert.equal(e.code, code, e.message);
      assert.equal(e.row, row, e.message);
      assert.equal(e.column, column, e.message);
      if (row !== undefined) assert.match(e.message, new RegExp(`row ${row}\\b`));
      assert.deepEqual(snapshot(st), before, "the store changed");
    });
  }
  assert.equal((await w.info()).version, 2);
});

test("ingestColumn: false makes a table without _ingest_ts: a duplicate key goes to the later append", async () => {
  const t = await createTable(memoryStore(), { ...schema, ingestColumn: false });
  assert.deepEqual(
    t.columns.map((c) => c.name),
    ["ts", "host", "cpu", "mem", "up"],
  );
  assert.equal((await t.info()).properties["timelake.ingest-column"], "false");
  const steps: [string, Record<string, unknown>[], bigint][] = [
    ["first append: the last row of a key wins", [{ ts: new Date(T0), host: "a", mem: 1n }, { ts: new Date(T0), host: "a", mem: 2n }], 2n],
    ["later append of the same key wins", [{ ts: new Date(T0), host: "a", mem: 3n }], 3n],
  ];
  for (const [name, rows, want] of steps) {
    await t.append(rows);
    const latest = await t.latest();
    assert.equal(latest.length, 1, name);
    assert.equal(latest[0]!["mem"], want, name);
    assert.ok(!("_ingest_ts" in latest[0]!), name);
  }
  const e = await t.append([{ ts: new Date(T0), host: "a", _ingest_ts: T0 }]).then(
    () => assert.fail("append resolved"),
    (e: unknown) => e,
  );
  assert.ok(e instanceof RowError && e.code === "UNKNOWN_COLUMN" && e.column === "_ingest_ts", String(e));
  const reopened = await openTable(t.store);
  assert.deepEqual(
    reopened.columns.map((c) => c.name),
    ["ts", "host", "cpu", "mem", "up"],
  );
});

/** A memory store whose methods can be made to misbehave. */
function faulty(base: MemoryStore, fault: { method: string; when: (key: string) => boolean; act: () => unknown }): Store {
  const wrap =
    (m: keyof Store) =>
    (...args: unknown[]) => {
      const key = typeof args[0] === "string" ? args[0] : Array.isArray(args[0]) ? String(args[0][0]) : "";
      if (fault.method === m && fault.when(key)) return fault.act();
      return (base[m] as (...a: unknown[]) => unknown)(...args);
    };
  return {
    location: base.location,
    get: wrap("get"),
    getRange: wrap("getRange"),
    put: wrap("put"),
    putIfAbsent: wrap("putIfAbsent"),
    delete: wrap("delete"),
    list: wrap("list"),
  } as Store;
}

test("a store that throws or returns wrong types: a coded error naming the call; nothing committed", async (t) => {
  // [name, method, which keys, what it does, code, message]. A failed
  // conditional write of the metadata leaves the outcome unknown to the core
  // (COMMIT_UNKNOWN): it keeps the uploaded files, but no version is added.
  const scenarios: [string, string, (k: string) => boolean, () => unknown, string, RegExp][] = [
    ["put of a data file throws", "put", (k) => k.startsWith("data/"), () => {
      throw new Error("disk full");
    }, "STORE_ERROR", /store\.put\("data\/.*disk full/],
    ["put of a data file rejects", "put", (k) => k.startsWith("data/"), () => Promise.reject(new Error("503 slow down")), "STORE_ERROR", /503 slow down/],
    ["get resolves a number", "get", () => true, () => Promise.resolve(7), "STORE_ERROR", /resolved with a number, want a Uint8Array/],
    ["putIfAbsent resolves a string", "putIfAbsent", (k) => k.endsWith("v3.metadata.json"), () => Promise.resolve("yes"), "COMMIT_UNKNOWN", /putIfAbsent\("metadata\/v3\.metadata\.json"\): resolved with a string, want a boolean/],
    ["putIfAbsent rejects with a non-Error", "putIfAbsent", (k) => k.endsWith("v3.metadata.json"), () => Promise.reject("nope"), "COMMIT_UNKNOWN", /rejected: nope/],
  ];
  for (const [name, method, when, act, code, msg] of scenarios) {
    await t.test(name, async () => {
      const base = memoryStore();
      const w0 = await createTable(base, schema);
      await w0.append([good]);
      const before = snapshot(base);
      const fault = { method: "", when, act };
      const w = await openTable(faulty(base, fault));
      fault.method = method;
      const e = await w.append(sampleRows(50)).then(
        () => assert.fail("append resolved"),
        (e: unknown) => e,
      );
      assert.ok(e instanceof TimelakeError, `got ${String(e)}`);
      assert.equal(e.code, code, e.message);
      assert.match(e.message, msg);
      if (code === "STORE_ERROR") assert.ok(e instanceof StoreError);
      const after = snapshot(base);
      assert.ok(!after.has("metadata/v3.metadata.json"), "a version was committed");
      for (const [k, v] of before) assert.equal(after.get(k), v, `${k} changed`);
      if (code === "STORE_ERROR") {
        // Files uploaded before the failure were deleted again.
        assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort());
      }
      assert.equal((await openTable(base)).version, 2);
    });
  }
});

// The core's size limits, passed to the store's get through the bridge
// (commit.MaxMetadataBytes for a metadata version, 1 KiB for the hint).
const MAX_METADATA_BYTES = 128 << 20;

/** memoryStore with one object (key) that claims size bytes; records each get of it. */
function hugeObjectStore(inner: MemoryStore, key: string, size: number, honourLimit: boolean) {
  const seen: { maxBytes: number | undefined; bodyRead: boolean }[] = [];
  const store: Store = {
    ...inner,
    async get(k: string, options?: GetOptions) {
      if (k !== key) return inner.get(k, options);
      if (honourLimit && overLimit(size, options)) {
        seen.push({ maxBytes: options?.maxBytes, bodyRead: false });
        throw tooLarge(k, size, options!.maxBytes!);
      }
      seen.push({ maxBytes: options?.maxBytes, bodyRead: true });
      return new Uint8Array(size);
    },
  };
  return { store, seen };
}

test("a metadata version over the core's limit: the store refuses it by its size (CORRUPT_TABLE), no body read", async () => {
  const inner = memoryStore();
  await createTable(inner, schema);
  const { store, seen } = hugeObjectStore(inner, "metadata/v2.metadata.json", MAX_METADATA_BYTES + 1, true);
  await assert.rejects(openTable(store), (e: TimelakeError) => {
    assert.equal(e.code, "CORRUPT_TABLE", e.message);
    assert.match(e.message, /object larger than the limit: "metadata\/v2\.metadata\.json" has 134217729 bytes, the limit is 134217728/);
    return true;
  });
  assert.deepEqual(seen, [{ maxBytes: MAX_METADATA_BYTES, bodyRead: false }]);
  assert.equal(inner.objects.has("metadata/v2.metadata.json"), false, "nothing was written");
});

test("a store that ignores maxBytes stays compatible: the core refuses the object after it arrives, same code", async () => {
  const inner = memoryStore();
  await createTable(inner, schema);
  const { store, seen } = hugeObjectStore(inner, "metadata/v2.metadata.json", MAX_METADATA_BYTES + 1, false);
  await assert.rejects(openTable(store), (e: TimelakeError) => {
    assert.equal(e.code, "CORRUPT_TABLE", e.message);
    assert.match(e.message, /object larger than the limit: "metadata\/v2\.metadata\.json" has 134217729 bytes, the limit is 134217728/);
    return true;
  });
  assert.deepEqual(seen, [{ maxBytes: MAX_METADATA_BYTES, bodyRead: true }]);
});

test("an oversized version-hint.text refused with TOO_LARGE: the core falls back to listing and opens the table", async () => {
  const inner = memoryStore();
  const w = await createTable(inner, schema);
  await w.append([{ ts: Date.UTC(2026, 10, 1), host: "a", cpu: 1, mem: 1n, up: true }]);
  const { store, seen } = hugeObjectStore(inner, "metadata/version-hint.text", 5000, true);
  const r = await openTable(store);
  assert.equal(r.version, 2);
  assert.deepEqual(seen, [{ maxBytes: 1024, bodyRead: false }]);
});

test("a Go panic rejects with INTERNAL and the instance stays usable", async () => {
  const t = await createTable(memoryStore(), schema);
  for (const msg of ["boom", "nil map"]) {
    await assert.rejects(
      enqueue((api) => api.debugPanic(msg)),
      (e: unknown) => {
        assert.ok(e instanceof TimelakeError);
        assert.equal(e.code, "INTERNAL");
        assert.match(e.message, msg === "boom" ? /internal error in debugPanic: boom/ : /assignment to entry in nil map/);
        assert.match(e.message, /wasm\/promise\.go/); // the stack names where
        return true;
      },
    );
    const r = await t.append(sampleRows(10));
    assert.equal(r.rowsWritten, 10);
  }
  // Malformed columns (a client bug) are INVALID_ARGUMENT, and the instance goes on.
  await assert.rejects(
    enqueue((api) => api.append(1, { length: 2, columns: [{ name: "ts", tag: 4, str: new Uint8Array(3), off: new Uint8Array(4) }] }, "{}")),
    (e: unknown) => e instanceof TimelakeError && e.code === "INVALID_ARGUMENT",
  );
  assert.equal((await t.append(sampleRows(5))).rowsWritten, 5);
});

test("concurrent appends from one instance are queued; two writers on one table rebase", async () => {
  const st = memoryStore();
  const a = await createTable(st, schema);
  const b = await openTable(st); // knows version 1 only
  const results = await Promise.all([
    a.append(sampleRows(100, 0)),
    a.append(sampleRows(100, 100)),
    b.append(sampleRows(100, 200)),
    a.append(sampleRows(100, 300)),
    b.append(sampleRows(100, 400)),
  ]);
  assert.deepEqual(
    results.map((r) => r.version).sort((x, y) => x - y),
    [2, 3, 4, 5, 6],
  );
  assert.ok(results[2]!.retries >= 1, "b's first append did not rebase over a's commits");
  assert.equal(new Set(results.map((r) => r.snapshotId)).size, 5);
  const info = await (await openTable(st)).info();
  assert.equal(info.version, 6);
  assert.equal(info.rows, 500);
  assert.equal(info.snapshots, 5);
});

test("localStore: a table written and reopened from disk", async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "timelake-table-"));
  try {
    const t = await createTable(localStore(dir), schema);
    await t.append(sampleRows(300));
    const again = await openTable(localStore(dir));
    const info = await again.info();
    assert.equal(info.rows, 300);
    assert.equal(info.location, localStore(dir).location);
    await fs.access(path.join(dir, "metadata", "v2.metadata.json"));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test("100k rows: timings (logged, not asserted)", async (t) => {
  const w = await createTable(memoryStore(), schema);
  const rows = sampleRows(100_000);
  for (let i = 0; i < 3; i++) {
    const r = await w.append(rows.map((row) => ({ ...row, ts: new Date((row["ts"] as Date).getTime() + i * 1e8) })));
    assert.equal(r.rowsWritten, 100_000);
    const m = memoryStats()!;
    t.diagnostic(
      `append ${i + 1} of 100k rows: ${r.durationMs.toFixed(0)} ms (columns ${r.timings.columnsMs.toFixed(1)}, copy ${r.timings.copyMs.toFixed(1)}, align ${r.timings.alignMs.toFixed(1)}, append ${r.timings.appendMs.toFixed(0)}); ` +
        `wasm memory ${(m.wasmMemoryBytes / 2 ** 20).toFixed(0)} MiB, Go heap sys ${(m.heapSys / 2 ** 20).toFixed(0)} MiB`,
    );
  }
});
