// Inline rollup refresh from JavaScript: with timelake.rollup.inline=true
// append() refreshes every rollup after its commit, in the same call. The
// rollup equals a brute-force aggregate of the rows appended; a rollup table
// that cannot be reached is a warning (with its code) and the append
// stands; several writers appending at once lose no bucket update; the
// rollup's Store is found without being given (Store.sibling, the
// rollupStore option).
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { createTable, memoryStore, openTable, prefixStore, r2Store, TimelakeError, type Store } from "../src/index.js";
import { localStore } from "../src/node.js";
import { siblingPrefix } from "../src/stores/sibling.js";
import { schema, DAY, rowsOf, expected, rollupRows, type Row } from "./rollupfixtures.js";

const spec = { every: "1h", aggregates: { cpu: ["max", "avg"], mem: ["max"] }, inline: true } as const;

const asInput = (b: Row[]) => b.map((r) => ({ ...r, ts: new Date(r.ts) }));

/** A store without sibling(): the client cannot derive a rollup's store from it. */
function plain(s: Store): Store {
  return {
    location: s.location!,
    get: s.get.bind(s),
    getRange: s.getRange.bind(s),
    put: s.put.bind(s),
    putIfAbsent: s.putIfAbsent.bind(s),
    delete: s.delete.bind(s),
    list: s.list.bind(s),
  };
}

const show = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? String(x) : x));

test("append with inline=true refreshes the rollup in the same call: exact under duplicates and late rows", async () => {
  const store = memoryStore();
  const t = await createTable(store, schema);
  // No Store: the rollup is beside the table, in the memory store's sibling.
  const ru = await t.addRollup("hourly", spec);
  assert.equal(ru.store.location, "memory://timelake__rollup_hourly");
  assert.equal((await t.rollups())[0]!.location, "memory://timelake__rollup_hourly");
  const batches: Row[][] = [];
  for (let k = 1; k <= 4; k++) {
    batches.push(rowsOf(k, 400));
    const r = await t.append(asInput(batches[k - 1]!));
    assert.deepEqual(r.warnings, [], show(r));
    assert.equal(r.rollups?.length, 1, show(r));
    const [one] = r.rollups!;
    assert.equal(one!.rollup, "hourly");
    assert.equal(one!.error, undefined);
    assert.equal(one!.refresh?.sourceSnapshot, r.snapshotId, "the rollup reflects the append's snapshot");
    assert.ok(one!.refresh!.committed);
    assert.equal(one!.refresh!.mode, k === 1 ? "full" : "incremental");
    assert.ok(one!.refresh!.rows > 0 && one!.refresh!.rows <= 18, show(one));
    if (k > 1) assert.ok(one!.refresh!.buckets + one!.refresh!.spans > 0, show(one));
    assert.equal(typeof r.timings.rollupMs, "number");
    assert.deepEqual(await rollupRows(ru), expected(batches), `after append ${k}`);
  }
  // A refresh from scratch into a second table gives the same rows.
  const check = await t.addRollup("check", { ...spec, inline: false });
  await t.refreshRollup("check", check);
  assert.deepEqual(await rollupRows(check), await rollupRows(ru));
  // Another writer of the same store finds the rollup tables by itself; rollup(name) too.
  const w2 = await openTable(store);
  batches.push(rowsOf(9, 100));
  const r2 = await w2.append(asInput(batches[4]!));
  assert.deepEqual(r2.rollups?.map((o) => [o.rollup, o.refresh?.sourceSnapshot === r2.snapshotId]), [["check", true], ["hourly", true]]);
  assert.deepEqual(await rollupRows(await w2.rollup("hourly")), expected(batches));
  // Not inline: no refresh, no rollups field.
  const plainTable = await createTable(memoryStore(), schema);
  await plainTable.addRollup("hourly", { ...spec, inline: false });
  const r3 = await plainTable.append(asInput(rowsOf(1, 10)));
  assert.equal(r3.rollups, undefined);
});

test("a rollup table that cannot be reached: a warning with the code, the append stands, the next append catches up", async () => {
  const store = memoryStore();
  const t = await createTable(store, schema);
  const ru = await t.addRollup("hourly", spec);
  const batches = [rowsOf(1, 200)];
  await t.append(asInput(batches[0]!));

  // A store that fails every read.
  const failing: Store = {
    ...plain(memoryStore()),
    get: async () => {
      throw new TimelakeError("STORE_ERROR", "disk on fire");
    },
  };
  const w = await openTable(store, { rollupStore: () => failing });
  batches.push(rowsOf(2, 200));
  const r = await w.append(asInput(batches[1]!));
  assert.equal(r.rollups?.[0]?.error?.code, "STORE_ERROR", show(r));
  assert.ok(r.warnings.some((x) => x.startsWith("rollup refresh: hourly [STORE_ERROR]") && /disk on fire/.test(x)), r.warnings.join("\n"));
  const info = await w.info();
  assert.equal(info.snapshotId, r.snapshotId, "the append is committed");

  // No store at all: NO_ROLLUP_STORE.
  const bare = await openTable(plain(store));
  batches.push(rowsOf(3, 200));
  const r2 = await bare.append(asInput(batches[2]!));
  assert.equal(r2.rollups?.[0]?.error?.code, "NO_ROLLUP_STORE", show(r2));
  assert.ok(r2.warnings.some((x) => x.includes("hourly [NO_ROLLUP_STORE]") && x.includes("memory://timelake__rollup_hourly")), r2.warnings.join("\n"));
  await assert.rejects(bare.rollup("hourly"), (e: unknown) => e instanceof TimelakeError && e.code === "NO_ROLLUP_STORE");
  // ...unless given one: the Store handed to rollup(name, store) on that
  // writer (the rollup table it returns is the one its appends refresh).
  const held = await bare.rollup("hourly", ru.store);

  // The rollup is behind (it reflects the first append); the next inline
  // append catches up with all of them.
  assert.deepEqual(await rollupRows(held), expected(batches.slice(0, 1)));
  batches.push(rowsOf(4, 50));
  const r3 = await bare.append(asInput(batches[3]!));
  assert.deepEqual(r3.warnings, [], show(r3));
  assert.equal(r3.rollups?.[0]?.refresh?.sourceSnapshot, r3.snapshotId);
  assert.equal(held.version, r3.rollups?.[0]?.refresh?.version);
  assert.deepEqual(await rollupRows(held), expected(batches));
  // t's own rollup table read the version it last saw; reopened, the newest.
  assert.deepEqual(await rollupRows(await t.rollup("hourly")), expected(batches));
});

test("concurrent appenders with inline refresh lose no bucket update (memory and local stores)", async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "timelake-inline-"));
  try {
    for (const [kind, make] of [
      ["memory", async () => memoryStore()],
      ["local", async () => localStore(path.join(dir, "metrics"))],
    ] as const) {
      const store = await make();
      const t = await createTable(store, schema, { properties: { "commit.retry.num-retries": "100" } });
      await t.addRollup("hourly", spec);
      // 4 writers, each opened on its own store object (as separate Workers would be).
      const writers = await Promise.all([0, 1, 2, 3].map(() => openTable(kind === "memory" ? store : localStore(path.join(dir, "metrics")))));
      const appended: { k: number; rows: Row[]; snapshot: bigint }[] = [];
      await Promise.all(
        writers.map(async (w, i) => {
          for (let j = 0; j < 3; j++) {
            const k = 10 * (i + 1) + j;
            // Overlapping buckets and keys: every writer writes every hour of the day's first 6.
            const rows = rowsOf(k, 120);
            const r = await w.append(asInput(rows));
            appended.push({ k, rows, snapshot: r.snapshotId });
            assert.deepEqual(r.warnings, [], `${kind} writer ${i}: ${show(r)}`);
          }
        }),
      );
      // appended is in completion order, which is commit order (duplicates:
      // the later commit wins): calls on one instance run one at a time,
      // each append with its commit and refresh.
      const fresh = await openTable(store);
      const ru = await fresh.rollup("hourly");
      assert.deepEqual(await rollupRows(ru), expected(appended.map((a) => a.rows)), `${kind}: rollup after concurrent inline appends`);
      const again = await fresh.refreshRollup("hourly", ru);
      assert.equal(again.mode, "up-to-date", `${kind}: nothing left for a refresh`);
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test("Store.sibling: only a table beside the store's own", async () => {
  assert.equal(siblingPrefix("r2://b/tables/cpu", "tables/cpu", "r2://b/tables/cpu__rollup_h"), "tables/cpu__rollup_h");
  assert.equal(siblingPrefix("s3://b/wh/ns/t", "x/t", "s3://b/wh/ns/t__rollup_h"), "x/t__rollup_h");
  assert.equal(siblingPrefix("r2://b/tables/cpu", "tables/cpu", "r2://b/other/cpu__rollup_h"), undefined);
  assert.equal(siblingPrefix("r2://b/tables/cpu", "tables/cpu", "r2://c/tables/cpu__rollup_h"), undefined);
  assert.equal(siblingPrefix("r2://b/tables/cpu", "tables/cpu", "s3://b/tables/cpu__rollup_h"), undefined);
  assert.equal(siblingPrefix("r2://b/tables/cpu", "tables/cpu", "r2://b/tables/cpu"), undefined);
  assert.equal(siblingPrefix("r2://b/cpu", "cpu", "r2://b/cpu__rollup_h"), "cpu__rollup_h");
  assert.equal(siblingPrefix("r2://b", "", "r2://b__rollup_h"), undefined);
  // A location that does not spell the prefix: the suffix carries over.
  assert.equal(siblingPrefix("file:///srv/demo-table", "metrics", "file:///srv/demo-table__rollup_h"), "metrics__rollup_h");
  assert.equal(siblingPrefix("r2://b/tables/cpu", "tables/cpu", "r2://b/tables/mem"), "tables/mem");
  assert.equal(siblingPrefix("s3://b/wh/ns/t", "x/u", "s3://b/wh/ns/v"), undefined);

  // r2Store: the same bucket binding under the sibling prefix.
  const objects = new Map<string, Uint8Array>();
  const bucket = {
    async get(k: string) {
      const d = objects.get(k);
      return d ? { size: d.length, arrayBuffer: async () => d.slice().buffer } : null;
    },
    async put(k: string, v: Uint8Array) {
      objects.set(k, v);
      return {};
    },
  };
  const r2 = r2Store(bucket as never, { prefix: "tables/cpu", bucketName: "b" });
  const sib = r2.sibling!("r2://b/tables/cpu__rollup_h")!;
  assert.equal(sib.location, "r2://b/tables/cpu__rollup_h");
  await sib.put("k", new Uint8Array([1]));
  assert.deepEqual([...objects.keys()], ["tables/cpu__rollup_h/k"]);
  assert.equal(r2.sibling!("r2://b/elsewhere/x"), undefined);

  const inner = memoryStore();
  const p = prefixStore(inner, "wh/t", "s3://b/wh/t");
  await p.sibling!("s3://b/wh/t__rollup_h")!.put("k", new Uint8Array([2]));
  assert.deepEqual([...inner.objects.keys()], ["wh/t__rollup_h/k"]);

  const local = localStore("/tmp/x/metrics");
  assert.equal(local.sibling!(pathToFileURL("/tmp/x/metrics__rollup_h").href)?.location, pathToFileURL("/tmp/x/metrics__rollup_h").href);
  assert.equal(local.sibling!(pathToFileURL("/etc/passwd").href), undefined);
  assert.equal(local.sibling!("s3://b/x"), undefined);

  const m = memoryStore();
  assert.equal(m.sibling!("memory://x"), m.sibling!("memory://x"), "one store per location in a memory space");
});

test("a table whose location is not its store's: the rollup's store is the store's sibling by the same suffix", async () => {
  const store = memoryStore();
  const t = await createTable(store, schema, { location: "s3://metrics/cpu" });
  const ru = await t.addRollup("hourly", spec);
  assert.equal((await t.rollups())[0]!.location, "s3://metrics/cpu__rollup_hourly");
  assert.equal(ru.store.location, "memory://timelake__rollup_hourly");
  const r = await (await openTable(store)).append(asInput(rowsOf(1, 100)));
  assert.deepEqual(r.warnings, [], show(r));
  assert.deepEqual(await rollupRows(await t.rollup("hourly")), expected([rowsOf(1, 100)]));
});

test("appenders in 4 WebAssembly instances at once (worker threads, one local directory): no bucket update lost", async () => {
  const { Worker } = await import("node:worker_threads");
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "timelake-inline-mt-"));
  try {
    const tdir = path.join(dir, "metrics");
    const t = await createTable(localStore(tdir), schema, { properties: { "commit.retry.num-retries": "200" } });
    await t.addRollup("hourly", spec);
    const batches = 4,
      perBatch = 60,
      t0 = DAY;
    const results = await Promise.all(
      [0, 1, 2, 3].map(
        (id) =>
          new Promise<{ snapshot: string; warnings: string[]; modes: string[] }[]>((resolve, reject) => {
            const w = new Worker(new URL("./inlineworker/appender.js", import.meta.url), { workerData: { dir: tdir, id, batches, perBatch, t0 } });
            w.once("message", resolve);
            w.once("error", reject);
          }),
      ),
    );
    for (const [id, rs] of results.entries()) for (const r of rs) assert.deepEqual(r.warnings, [], `appender ${id}: ${show(r)}`);
    // Modes seen: "up-to-date" is a refresh that found another writer's refresh already covering its append.
    const modes = results.flat().flatMap((r) => r.modes);
    console.log(`inline refresh modes: ${JSON.stringify(Object.fromEntries([...new Set(modes)].map((m) => [m, modes.filter((x) => x === m).length])))}`);
    // The rows every appender sent (no key shared: commit order does not matter).
    const all: Row[] = [];
    for (let id = 0; id < 4; id++)
      for (let k = 0; k < batches; k++)
        for (let i = 0; i < perBatch; i++)
          all.push({ ts: t0 + (i % 6) * 3600_000 + (id * 1000 + k * perBatch + i) * 1000, host: `h${i % 2}`, cpu: id + k / 4 + (i % 8) / 8, mem: BigInt(id * 100_000 + k * 1000 + i) });
    const fresh = await openTable(localStore(tdir));
    const ru = await fresh.rollup("hourly");
    assert.deepEqual(await rollupRows(ru), expected([all]), "the rollup after the last inline refresh, with no refresh since");
    assert.equal((await fresh.refreshRollup("hourly", ru)).mode, "up-to-date");
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test("later rows fold: the inline refresh runs in the appending table, into a rollup table kept between appends", async () => {
  const store = memoryStore();
  const t = await createTable(store, schema);
  const ru = await t.addRollup("hourly", spec);
  const w2 = await openTable(store); // holds no rollup table: the instance keeps the one it opens
  const batches: Row[][] = [];
  const later = (k: number): Row[] =>
    Array.from({ length: 90 }, (_, i) => ({ ts: DAY + (k * 90 + Math.floor(i / 3)) * 60_000, host: `h${i % 3}`, cpu: (i % 8) / 8, mem: BigInt(k * 100 + i) }));
  const modes: string[] = [];
  for (let k = 0; k < 6; k++) {
    const w = k < 3 ? t : w2;
    batches.push(later(k));
    const r = await w.append(asInput(batches[k]!));
    assert.deepEqual(r.warnings, [], show(r));
    modes.push(r.rollups![0]!.refresh!.mode);
  }
  // The first has no rollup rows to fold into; every later one folds (no
  // raw data read), w2's too: its append is the raw table's current
  // snapshot and the rollup table it opens reflects the snapshot before.
  assert.deepEqual(modes, ["full", "fold", "fold", "fold", "fold", "fold"]);
  assert.deepEqual(await rollupRows(await t.rollup("hourly")), expected(batches));
  assert.deepEqual(await rollupRows(ru), expected(batches.slice(0, 3)), "t's held rollup table: as its own last refresh left it");
});
