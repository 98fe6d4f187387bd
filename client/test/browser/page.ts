/**
 * The browser test page (an ES module, served by run.mjs from client/dist):
 * the default entry of @timelake/client in Chromium, loading timelake.wasm
 * from beside itself.
 *
 *   - the Store conformance suite against memoryStore() and idbStore() (a
 *     Store the page implements over IndexedDB: "the application's own");
 *   - table "memory" on memoryStore(): five rows of mixed inputs (Date, ISO
 *     strings with offsets, a date alone, epoch ms, bigints at the int64
 *     limits, decimal strings, nulls and missing keys), coded RowErrors that
 *     leave the table unchanged, then 10,000 rows over seven days; info,
 *     latest, scan (its Arrow bytes appended back), openTable on the same store;
 *   - table "idb" on idbStore(): 1,000 rows twice, a day apart, reopened from
 *     a new store object over the same database.
 *
 * Each table's objects (key → base64) are POSTed to /result with the
 * checks' outcome and timings; run.mjs writes them under the directory
 * named by ?out= (a file: URI, used as the tables' locations) and the Go test
 * (wasm/e2e TestBrowser) has the outside readers read them. The rows here
 * are mirrored by browserSummaries in wasm/e2e/browser_test.go.
 */
import {
  checkKey,
  checkPrefix,
  createTable,
  memoryStore,
  openTable,
  RowError,
  storeError,
  TimelakeError,
  overLimit,
  tooLarge,
  type AppendResult,
  type Store,
  type StoreObject,
  type TableSchema,
} from "../../src/index.js";
import { runConformance, type CaseResult } from "../conformance.js";

const out = new URLSearchParams(location.search).get("out") ?? "file:///tmp/timelake-browser";
const done: string[] = [];
/** Records a passed check (also on the console, which run.mjs shows on failure or timeout). */
function pass(what: string): void {
  done.push(what);
  console.log(`ok: ${what}`);
}

function check(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(`check failed: ${msg}`);
}

const big = (v: unknown) => (typeof v === "bigint" ? `${v}n` : JSON.stringify(v));

async function expectRowError(p: Promise<unknown>, code: string, row: number, column: string, value?: string): Promise<void> {
  try {
    await p;
  } catch (e) {
    check(e instanceof RowError && e instanceof TimelakeError, `want a RowError, got ${String(e)}`);
    check(
      e.code === code && e.row === row && e.column === column && (value === undefined || e.value === value),
      `got ${e.code} row ${e.row} column ${e.column} value ${e.value} (${e.message}), want ${code} row ${row} column ${column} value ${value}`,
    );
    pass(`RowError ${code} row ${row} column ${column}`);
    return;
  }
  throw new Error(`check failed: append resolved, want ${code}`);
}

// ---- a Store over IndexedDB -------------------------------------------------

interface Entry {
  data: Uint8Array;
  modified: number;
}

const req = <T>(r: IDBRequest<T>): Promise<T> =>
  new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });

const finished = (tx: IDBTransaction): Promise<void> =>
  new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("transaction aborted"));
  });

async function openDB(name: string): Promise<IDBDatabase> {
  const r = indexedDB.open(name, 1);
  r.onupgradeneeded = () => r.result.createObjectStore("objects");
  return req(r);
}

/**
 * A Store in one IndexedDB object store (key → {data, modified}). Writes
 * resolve when their transaction has committed; putIfAbsent is add(), which
 * fails inside a readwrite transaction — and those on one object store run
 * one at a time — so of concurrent calls exactly one wins.
 */
export async function idbStore(dbName: string, loc: string): Promise<Store & { dump(): Promise<Map<string, Uint8Array>> }> {
  const db = await openDB(dbName);
  const tx = (mode: IDBTransactionMode) => db.transaction("objects", mode);
  const wrap = async <T>(key: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      throw storeError("STORE_ERROR", `indexeddb ${key}: ${String(e)}`, key);
    }
  };
  const get = async (key: string) => ((await req(tx("readonly").objectStore("objects").get(key))) as Entry | undefined) ?? null;
  return {
    location: loc,
    async get(key, options) {
      checkKey(key);
      const e = await wrap(key, () => get(key));
      // IndexedDB has no size-only read: the record is read, but an object
      // over the limit still never reaches the core.
      if (e && overLimit(e.data.length, options)) throw tooLarge(key, e.data.length, options!.maxBytes!);
      return e?.data ?? null;
    },
    async getRange(key, offset, length) {
      checkKey(key);
      const e = await wrap(key, () => get(key));
      if (!e) return null;
      if (offset < 0 || length < 0 || offset + length > e.data.length) {
        throw storeError("RANGE", `range ${offset}+${length} past the end of ${key} (${e.data.length} bytes)`, key);
      }
      return e.data.subarray(offset, offset + length);
    },
    async put(key, data) {
      checkKey(key);
      await wrap(key, async () => {
        const t = tx("readwrite");
        t.objectStore("objects").put({ data: data.slice(), modified: Date.now() } satisfies Entry, key);
        await finished(t);
      });
    },
    async putIfAbsent(key, data) {
      checkKey(key);
      const t = tx("readwrite");
      const r = t.objectStore("objects").add({ data: data.slice(), modified: Date.now() } satisfies Entry, key);
      return new Promise<boolean>((resolve, reject) => {
        r.onerror = (ev) => {
          if (r.error?.name === "ConstraintError") {
            ev.preventDefault(); // the key exists: not a failure of the transaction
            resolve(false);
          }
        };
        t.oncomplete = () => resolve(true);
        t.onabort = () => reject(storeError("STORE_ERROR", `indexeddb ${key}: ${String(t.error)}`, key));
      });
    },
    async delete(keys) {
      for (const k of keys) checkKey(k);
      if (keys.length === 0) return;
      await wrap(keys[0]!, async () => {
        const t = tx("readwrite");
        for (const k of keys) t.objectStore("objects").delete(k);
        await finished(t);
      });
    },
    async list(prefix) {
      checkPrefix(prefix);
      return wrap(prefix, async () => {
        const objs: StoreObject[] = [];
        const t = tx("readonly");
        const range = prefix === "" ? undefined : IDBKeyRange.lowerBound(prefix);
        const cur = t.objectStore("objects").openCursor(range);
        await new Promise<void>((resolve, reject) => {
          cur.onerror = () => reject(cur.error);
          cur.onsuccess = () => {
            const c = cur.result;
            if (!c || !(c.key as string).startsWith(prefix)) return resolve();
            const e = c.value as Entry;
            objs.push({ key: c.key as string, size: e.data.length, lastModified: e.modified });
            c.continue();
          };
        });
        return objs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      });
    },
    async dump() {
      const t = tx("readonly");
      const [keys, vals] = await Promise.all([req(t.objectStore("objects").getAllKeys()), req(t.objectStore("objects").getAll())]);
      return new Map(keys.map((k, i) => [k as string, (vals[i] as Entry).data]));
    },
  };
}

// ---- the tables -------------------------------------------------------------

const schema: TableSchema = {
  time: "ts",
  series: ["host"],
  columns: [
    { name: "cpu", type: "double" },
    { name: "mem", type: "long" },
    { name: "note", type: "string" },
  ],
};
const T0 = Date.UTC(2026, 10, 29, 10); // 2026-11-29T10:00:00Z
const T1 = Date.UTC(2026, 11, 1); // 2026-12-01T00:00:00Z

/** The 10,000 rows: one a minute from T1 (seven days), twenty hosts. */
export function bulkRow(i: number) {
  return {
    ts: new Date(T1 + i * 60_000),
    host: `h${i % 20}`,
    cpu: i % 11 === 0 ? null : i / 4,
    mem: BigInt(i) * 1_000_000_007n,
    note: i % 3 === 0 ? null : `n${i % 5}`,
  };
}

async function memoryTable(timings: Record<string, unknown>): Promise<Map<string, Uint8Array>> {
  const store = memoryStore({ location: `${out}/memory` });
  const t = await createTable(store, schema);
  check(t.version === 1, `version after create: ${t.version}`);

  const r1 = await t.append([
    { ts: new Date(T0), host: "web-1", cpu: 0.5, mem: 9007199254740993n, note: "first" },
    { ts: "2026-11-29T11:00:00+01:00", host: "web-2", cpu: null, mem: -9223372036854775808n, note: null },
    { ts: "2026-11-29T10:00:01.123456Z", host: "web-1", cpu: 1.25, mem: "-42" },
    { ts: T0 + 2000, host: "web-3", cpu: -3.5, mem: 7, note: "ü✓ 表" },
    { ts: "2026-11-30", host: "web-2", cpu: 2, mem: 9223372036854775807n, note: "x" },
  ]);
  check(r1.version === 2 && r1.rowsWritten === 5 && r1.files === 2 && typeof r1.snapshotId === "bigint", `first append: ${show(r1)}`);
  pass("append of mixed inputs");

  await expectRowError(t.append([{ ts: T0, host: "a", cpu: 1 }, { ts: T0, host: "b" }, { ts: T0, host: "c", cpu: "high" }]), "TYPE_MISMATCH", 3, "cpu", "high");
  await expectRowError(t.append([{ ts: T0, host: "a" }, { ts: "yesterday", host: "b" }]), "BAD_TIME", 2, "ts");
  await expectRowError(t.append([{ ts: T0, host: "a", disk: 1 }]), "UNKNOWN_COLUMN", 1, "disk");
  await expectRowError(t.append([{ ts: T0, cpu: 1 }]), "MISSING_COLUMN", 1, "host");
  await expectRowError(t.append([{ ts: T0, host: "a", mem: 2 ** 60 }]), "TYPE_MISMATCH", 1, "mem");
  const afterErrors = await t.info();
  check(afterErrors.version === 2 && afterErrors.rows === 5, `after the refused appends: version ${afterErrors.version}, rows ${afterErrors.rows}`);
  pass("refused appends leave the table at version 2");

  const rows = Array.from({ length: 10_000 }, (_, i) => bulkRow(i));
  const t0 = performance.now();
  const r2 = await t.append(rows);
  const wall = performance.now() - t0;
  check(r2.version === 3 && r2.rowsWritten === 10_000 && r2.files === 7, `10k append: ${show(r2)}`);
  timings["append10k"] = { wallMs: wall, durationMs: r2.durationMs, timings: r2.timings, bytes: r2.bytes, files: r2.files };
  pass("append of 10,000 rows");

  const info = await t.info();
  check(info.version === 3 && info.rows === 10_005 && info.files === 9 && info.partitions.length === 9, `info: ${show(info)}`);
  check(info.minTime?.startsWith("2026-11-29T10:00:00") && info.maxTime?.startsWith("2026-12-07T22:39:00"), `info time range ${info.minTime} … ${info.maxTime}`);
  check(info.location === `${out}/memory`, `info location ${info.location}`);
  pass("info");

  const latest = await t.latest();
  check(latest.length === 23, `latest: ${latest.length} series, want 23`);
  const by = new Map(latest.map((r) => [r["host"] as string, r]));
  const w2 = by.get("web-2");
  check(w2 && w2["mem"] === 9223372036854775807n && w2["cpu"] === 2 && w2["note"] === "x" && String(w2["ts"]).startsWith("2026-11-30T00:00:00"), `latest web-2: ${show(w2)}`);
  const w1 = by.get("web-1");
  check(w1 && w1["mem"] === -42n && w1["note"] === null && String(w1["ts"]).startsWith("2026-11-29T10:00:01.123456"), `latest web-1: ${show(w1)}`);
  const h19 = by.get("h19");
  const last = bulkRow(9999); // h19's latest (9999 % 11 == 0: cpu null)
  check(h19 && h19["mem"] === last.mem && h19["cpu"] === last.cpu && h19["note"] === last.note, `latest h19: ${show(h19)}`);
  const h18 = by.get("h18"), prev = bulkRow(9998);
  check(h18 && h18["mem"] === prev.mem && h18["cpu"] === prev.cpu && h18["note"] === prev.note && String(h18["ts"]).startsWith("2026-12-07T22:38:00"), `latest h18: ${show(h18)}`);
  pass("latest");

  // scan (the default entry): h19's rows end with its latest; a break frees the queue.
  const sc = t.scan({ series: { host: "h19" }, batchRows: 50 });
  const h19rows: Record<string, unknown>[] = [];
  for await (const r of sc.rows()) h19rows.push(r);
  const end = h19rows[h19rows.length - 1];
  check(h19rows.length > 1 && end && end["mem"] === h19["mem"] && end["ts"] === h19["ts"] && end["note"] === h19["note"], `scan h19: ${h19rows.length} rows, last ${show(end)}`);
  check(h19rows.every((r, i) => i === 0 || String(r["ts"]) > String(h19rows[i - 1]!["ts"])), "scan h19: sorted by time");
  const sst = await sc.stats;
  check(sst.rows === h19rows.length && !sst.stopped, `scan stats: ${show(sst)}`);
  for await (const _ of t.scan({ batchRows: 1 })) break;
  check((await t.latest()).length === 23, "latest after a scan left early");
  // scan.arrow(): h19's rows as Arrow IPC stream bytes, appended to a new table, scan back the same.
  const ab = await t.scan({ series: { host: "h19" }, batchRows: 50 }).arrow();
  const back = await createTable(memoryStore(), schema);
  await back.append(ab);
  const backRows: Record<string, unknown>[] = [];
  for await (const r of back.scan().rows()) backRows.push(r);
  check(show(backRows) === show(h19rows), `scan.arrow() appended back: ${backRows.length} rows, want ${h19rows.length}`);
  await back.close();
  pass("scan");

  const again = await openTable(store);
  check(again.version === 3 && (await again.info()).rows === 10_005, `openTable: version ${again.version}`);
  await again.close();
  await t.close();
  pass("openTable on the same store");

  // Warm figures: three more 10k appends to a scratch table (not exported).
  const scratch = await createTable(memoryStore(), schema);
  const warm: number[] = [];
  for (let k = 0; k < 3; k++) {
    const r = await scratch.append(rows.map((r) => ({ ...r, ts: new Date(r.ts.getTime() + k * 86_400_000 * 8) })));
    check(r.rowsWritten === 10_000, `scratch append ${k}: ${show(r)}`);
    warm.push(r.durationMs);
  }
  timings["append10kWarmMs"] = warm;
  await scratch.close();
  return new Map(store.objects);
}

async function idbTable(timings: Record<string, unknown>): Promise<Map<string, Uint8Array>> {
  const name = `timelake-table-${Date.now()}`;
  const store = await idbStore(name, `${out}/idb`);
  const rows = Array.from({ length: 1000 }, (_, i) => ({ ts: new Date(T0 + i * 1000), host: `h${i % 10}`, cpu: i / 8, mem: BigInt(i) << 40n }));
  const t = await createTable(store, schema);
  const a = await t.append(rows);
  const b = await t.append(rows.map((x) => ({ ...x, ts: new Date(x.ts.getTime() + 86_400_000) })));
  check(a.version === 2 && b.version === 3 && a.rowsWritten === 1000 && b.rowsWritten === 1000, `idb appends: ${show(a)} ${show(b)}`);
  timings["idbAppend1kMs"] = [a.durationMs, b.durationMs];
  await t.close();
  const reopened = await openTable(await idbStore(name, `${out}/idb`));
  const info = await reopened.info();
  check(info.version === 3 && info.rows === 2000 && info.partitions.length === 2, `idb info: ${show(info)}`);
  const latest = await reopened.latest();
  check(latest.length === 10 && latest.find((x) => x["host"] === "h9")?.["mem"] === 999n << 40n, `idb latest: ${show(latest)}`);
  await reopened.close();
  pass("table on an IndexedDB store, reopened");
  return store.dump();
}

function show(v: unknown): string {
  return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? big(x) : x));
}

function base64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

async function conformance(): Promise<void> {
  let n = 0;
  const failed: CaseResult[] = [];
  for (const [what, make] of [
    ["memoryStore", () => memoryStore()],
    ["idbStore", () => idbStore(`timelake-conformance-${Date.now()}-${n++}`, "memory://idb")],
  ] as const) {
    const results = await runConformance(make);
    failed.push(...results.filter((r) => r.error).map((r) => ({ name: `${what}: ${r.name}`, error: r.error })));
    pass(`conformance ${what}: ${results.length - results.filter((r) => r.error).length}/${results.length} cases`);
  }
  check(failed.length === 0, `store conformance:\n${failed.map((f) => `${f.name}: ${f.error}`).join("\n")}`);
}

async function main(): Promise<void> {
  const timings: Record<string, unknown> = {};
  let result: Record<string, unknown>;
  try {
    await conformance();
    const tables: Record<string, Record<string, string>> = {};
    for (const [name, make] of [
      ["memory", memoryTable],
      ["idb", idbTable],
    ] as const) {
      const objs = await make(timings);
      tables[name] = Object.fromEntries([...objs].map(([k, v]) => [k, base64(v)]));
    }
    result = { ok: true, checks: done, timings, userAgent: navigator.userAgent, tables };
  } catch (e) {
    result = { ok: false, checks: done, error: e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e) };
  }
  const res = await fetch("/result", { method: "POST", headers: { "content-type": "application/json" }, body: show(result) });
  document.title = res.ok ? "done" : `result not taken: HTTP ${res.status}`;
}

await main();
