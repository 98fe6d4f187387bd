// TableWriter.maintain() and timelake.auto-maintain in Node: compaction
// through the client, inline maintenance after appends, a failing
// maintenance that leaves the committed append standing, and maintenance
// commits that lose to concurrent writers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, openTable, TimelakeError, type Store, type TableSchema } from "../src/index.js";
import type { MemoryStore } from "../src/stores/memory.js";

const schema: TableSchema = {
  time: "ts",
  series: ["host"],
  columns: [
    { name: "cpu", type: "double" },
    { name: "mem", type: "long" },
  ],
};

// A past day, so its partition is cold (timelake.compact-cold-after 1h).
const DAY = Date.UTC(2026, 10, 20);

/** n rows of batch k: keys (host, ts) unique across batches, all in DAY. */
function batch(k: number, n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    ts: new Date(DAY + (i * 37 + k) * 1000),
    host: `h${i % 25}`,
    cpu: (i % 100) / 4,
    mem: (BigInt(k) << 40n) + BigInt(i),
  }));
}

async function tableWith(files: number, rowsPer: number, store: Store = memoryStore(), properties: Record<string, string> = {}) {
  const t = await createTable(store, schema, { properties });
  for (let k = 0; k < files; k++) await t.append(batch(k, rowsPer));
  return t;
}

test("maintain() compacts 8 files into one; rows, info and latest unchanged", async () => {
  const t = await tableWith(8, 1000);
  const before = await t.info();
  assert.deepEqual([before.files, before.rows], [8, 8000]);
  const latestBefore = await t.latest();

  const dry = await t.maintain({ compact: true, dryRun: true });
  assert.equal(dry.dryRun, true);
  assert.deepEqual([dry.merges, dry.filesRead, dry.filesWritten, dry.commits], [1, 8, 0, 0], "planned, not done");
  assert.ok(dry.plan.some((l) => /8 files/.test(l)), dry.plan.join("\n"));
  assert.equal((await t.info()).version, before.version, "a dry run commits nothing");

  const r = await t.maintain({ compact: true });
  assert.equal(r.merges, 1);
  assert.equal(r.filesRead, 8);
  assert.equal(r.filesWritten, 1);
  assert.equal(r.rowsBefore, 8000);
  assert.equal(r.rowsAfter, 8000);
  assert.equal(r.version, before.version + 1);
  assert.equal(typeof r.snapshotId, "bigint");
  assert.ok(r.bytesRead > 0 && r.bytesWritten > 0);

  const after = await t.info();
  assert.deepEqual([after.files, after.rows, after.version], [1, 8000, r.version]);
  assert.equal(after.snapshotId, r.snapshotId);
  assert.deepEqual(await t.latest(), latestBefore);

  // Nothing left: a second run commits nothing.
  const again = await t.maintain();
  assert.equal(again.merges, 0);
  assert.equal(again.commits, 0);
  assert.equal(again.version, r.version);
});

test("maintain() options: snapshot expiry and cleanup run; bad options are INVALID_ARGUMENT", async () => {
  const t = await tableWith(3, 100, memoryStore(), { "history.expire.max-snapshot-age-ms": "0" });
  const r = await t.maintain({ expire: true });
  assert.equal(r.merges, 0, "compaction was not asked for");
  assert.equal(r.snapshotsExpired, 2, "3 appends made 3 snapshots; the current one stays");
  assert.equal((await t.info()).rows, 300);
  await assert.rejects(
    // @ts-expect-error: a wrong type on purpose
    t.maintain({ compact: "yes" }),
    (e: unknown) => e instanceof TimelakeError && e.code === "INVALID_ARGUMENT",
  );
});

test("timelake.auto-maintain=true: each append compacts the cold partition; off by default", async () => {
  const off = await tableWith(2, 100);
  const r0 = await off.append(batch(2, 100));
  assert.equal(r0.maintenance, undefined);
  assert.equal((await off.info()).properties["timelake.auto-maintain"], "false");
  assert.equal((await off.info()).files, 3);

  const t = await createTable(memoryStore(), schema, { properties: { "timelake.auto-maintain": "true" } });
  for (let k = 0; k < 5; k++) {
    const r = await t.append(batch(k, 500));
    assert.ok(r.maintenance, `append ${k}: no maintenance in the result`);
    assert.deepEqual(r.warnings, []);
    if (k === 0) {
      assert.equal(r.maintenance.merges, 0, "one file: nothing to merge");
      assert.equal(r.version, 2);
    } else {
      assert.equal(r.maintenance.merges, 1, `append ${k}: ${r.maintenance.plan.join("; ")}`);
      assert.equal(r.maintenance.filesRead, 2);
      assert.equal(r.maintenance.rowsAfter, (k + 1) * 500);
      assert.equal(r.maintenance.version, r.version + 1);
      assert.equal(typeof r.timings.maintainMs, "number");
    }
    const info = await t.info();
    assert.deepEqual([info.files, info.rows], [1, (k + 1) * 500], `after append ${k}`);
  }
});

test("auto-maintenance that fails after the commit does not fail the append", async () => {
  const inner = memoryStore();
  let failPuts = false;
  const store: Store = {
    ...inner,
    location: inner.location,
    get: (k) => inner.get(k),
    getRange: (k, o, n) => inner.getRange(k, o, n),
    list: (p) => inner.list(p),
    delete: (k) => inner.delete(k),
    async put(k, d) {
      if (failPuts && k.startsWith("data/")) throw new Error(`injected: put ${k}`);
      return inner.put(k, d);
    },
    async putIfAbsent(k, d) {
      const ok = await inner.putIfAbsent(k, d);
      // Once the append's metadata is written, compaction uploads fail.
      if (ok && /^metadata\/v\d+\.metadata\.json$/.test(k) && armed) failPuts = true;
      return ok;
    },
  };
  let armed = false;
  const t = await tableWith(2, 200, store, { "timelake.auto-maintain": "true" });
  assert.equal((await t.info()).files, 1, "auto-maintenance compacted the first two");
  armed = true;
  const r = await t.append(batch(5, 200));
  failPuts = false;
  assert.equal(r.rowsWritten, 200);
  assert.ok(
    r.warnings.some((w) => /auto-maintenance failed after the append committed/.test(w) && /injected/.test(w)),
    r.warnings.join("\n"),
  );
  const info = await (await openTable(inner)).info();
  assert.equal(info.version, r.version, "the append's version is the newest");
  assert.deepEqual([info.rows, info.files], [600, 2]);
});

/**
 * A store that lets one "concurrent" writer win the next metadata commit: it
 * replays objects recorded from another writer's operation just before the
 * armed putIfAbsent of a metadata version goes through.
 */
class RaceStore {
  readonly inner: MemoryStore = memoryStore();
  #winner: Map<string, Uint8Array> | undefined;
  /** Conditional metadata writes that found the version taken. */
  lost = 0;

  store(): Store {
    const s = this.inner;
    return {
      location: s.location,
      get: (k) => s.get(k),
      getRange: (k, o, n) => s.getRange(k, o, n),
      put: (k, d) => s.put(k, d),
      delete: (k) => s.delete(k),
      list: (p) => s.list(p),
      putIfAbsent: async (k, d) => {
        if (this.#winner && /^metadata\/v\d+\.metadata\.json$/.test(k)) {
          const w = this.#winner;
          this.#winner = undefined;
          for (const [key, bytes] of w) await s.put(key, bytes);
        }
        const ok = await s.putIfAbsent(k, d);
        if (!ok) this.lost++;
        return ok;
      },
    };
  }

  /**
   * Runs op (another writer's commit), records what it wrote, and undoes it;
   * the recorded objects land just before the next metadata commit.
   */
  async prepareWinner(op: () => Promise<unknown>): Promise<void> {
    const before = new Map(this.inner.objects);
    await op();
    const after = new Map(this.inner.objects);
    const changed = new Map<string, Uint8Array>();
    for (const [k, v] of after) if (before.get(k) !== v) changed.set(k, v);
    const added = [...after.keys()].filter((k) => !before.has(k));
    await this.inner.delete(added);
    for (const [k, v] of before) if (after.get(k) !== v) await this.inner.put(k, v);
    this.#winner = changed;
  }
}

test("a maintain() whose commit loses to a concurrent append is rebased; every row stays", async () => {
  const race = new RaceStore();
  const t = await tableWith(8, 1000, race.store());
  const other = await openTable(race.store());
  await race.prepareWinner(() => other.append(batch(100, 700)));
  assert.equal((await t.info()).rows, 8000, "the winner is held back");

  const r = await t.maintain({ compact: true });
  assert.ok(race.lost >= 1 && r.conflicts >= 1, `conflicts ${r.conflicts}, lost ${race.lost}`);
  // Round 1 merged the 8 files it planned and was rebased over the append
  // (v10 the append, v11 the merge); the cold partition then held 2 files,
  // which round 2 merged (v12).
  assert.equal(r.merges, 2, r.plan.join("\n"));
  assert.equal(r.rowsAfter, 8000 + 8700, "8000 rows in round 1, then all 8700");
  const info = await t.info();
  assert.equal(info.version, 12);
  assert.deepEqual([info.rows, info.files], [8700, 1]);
});

test("a maintain() whose inputs a concurrent compaction removed is dropped (COMMIT_DROPPED); every row stays", async () => {
  const race = new RaceStore();
  const t = await tableWith(8, 1000, race.store());
  const other = await openTable(race.store());
  await race.prepareWinner(() => other.maintain({ compact: true }));

  await assert.rejects(t.maintain({ compact: true }), (e: unknown) => e instanceof TimelakeError && e.code === "COMMIT_DROPPED");
  const info = await t.info();
  assert.deepEqual([info.version, info.rows, info.files], [10, 8000, 1]);
  const leftovers = [...race.inner.objects.keys()].filter((k) => k.startsWith("data/"));
  assert.equal(leftovers.length, 9, "8 inputs + the winner's output; the loser's output was deleted");
});
