// RowBatcher in Node, over an in-memory stand-in for Durable Object storage:
// an append whose outcome is unknown (the metadata write lands, every answer
// is lost) keeps its batch, and the next flush finds the commit instead of
// appending it again; rows arrive in chunks under the value limit.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, openTable, type Store, type TableSchema } from "../src/index.js";
import { RowBatcher, type DurableStorageLike } from "../src/batcher.js";

/** Durable Object storage as a sorted Map (list by prefix or [start, end)). */
function fakeStorage(): DurableStorageLike & { data: Map<string, unknown>; alarm: number | null } {
  const data = new Map<string, unknown>();
  const s = {
    data,
    alarm: null as number | null,
    async get(key: string) {
      return structuredClone(data.get(key));
    },
    async put(entries: Record<string, unknown>) {
      for (const [k, v] of Object.entries(entries)) data.set(k, structuredClone(v));
    },
    async delete(keys: string[]) {
      let n = 0;
      for (const k of keys) n += data.delete(k) ? 1 : 0;
      return n;
    },
    async list(o: { prefix?: string; start?: string; end?: string }) {
      const keys = [...data.keys()].sort().filter((k) => (!o.prefix || k.startsWith(o.prefix)) && (!o.start || k >= o.start) && (!o.end || k < o.end));
      return new Map(keys.map((k) => [k, structuredClone(data.get(k))]));
    },
    async setAlarm(t: number) {
      s.alarm = t;
    },
  };
  return s;
}

const schema: TableSchema = { time: "ts", series: ["p"], columns: [{ name: "n", type: "long" }] };
const rowsOf = (from: number, k: number) => Array.from({ length: k }, (_, i) => ({ ts: Date.UTC(2026, 11, 3) + from + i, p: "a", n: BigInt(from + i) }));

test("an append whose outcome is unknown keeps its batch; the next flush finds the commit and appends nothing twice", async () => {
  const mem = memoryStore();
  await createTable(mem, schema);
  let loseAnswers = false;
  const v3 = "metadata/v3.metadata.json";
  // v3's write lands, then every answer about it is lost: COMMIT_UNKNOWN.
  const store: Store = Object.assign(Object.create(mem) as Store, {
    putIfAbsent: async (key: string, data: Uint8Array) => {
      const ok = await mem.putIfAbsent(key, data);
      if (loseAnswers && key === v3) throw new Error("connection reset");
      return ok;
    },
    get: async (key: string, o?: object) => {
      if (loseAnswers && key === v3) throw new Error("connection reset");
      return mem.get(key, o as never);
    },
  });
  const storage = fakeStorage();
  const b = new RowBatcher({ storage }, { table: () => openTable(store), maxRows: 1000 });
  assert.deepEqual(await b.add(rowsOf(0, 10)), { accepted: 10, buffered: 10 });
  assert.ok(storage.alarm !== null, "an alarm is set for the waiting rows");
  assert.deepEqual(await b.flush(), { rows: 10, commits: 1, replayed: 0, deadLettered: 0 }); // v2
  await b.add(rowsOf(10, 20));
  loseAnswers = true;
  await assert.rejects(b.flush(), (e: unknown) => (e as { code?: string }).code === "COMMIT_UNKNOWN");
  const st = await b.status();
  assert.equal(st.inFlight?.rows, 20);
  assert.equal(st.lastError?.code, "COMMIT_UNKNOWN");
  assert.ok(storage.data.has("tl:flush"), "the batch's name stays in storage");
  loseAnswers = false;
  await b.add(rowsOf(30, 5));
  const r = await b.flush();
  assert.deepEqual(r, { rows: 5, commits: 1, replayed: 1, deadLettered: 0 });
  assert.deepEqual([...storage.data.keys()], [], "nothing left in storage");
  const t = await openTable(mem);
  const ns: bigint[] = [];
  for await (const batch of t.scan({ raw: true })) ns.push(...(batch.columns["n"] as bigint[]));
  assert.deepEqual(ns.sort((x, y) => Number(x - y)), [...rowsOf(0, 35).map((x) => x.n)]);
});

test("a large send is kept in chunks under the value limit, appended in one batch", async () => {
  const mem = memoryStore();
  await createTable(mem, schema);
  const storage = fakeStorage();
  const b = new RowBatcher({ storage }, { table: () => openTable(mem), maxRows: 100_000 });
  await b.add(rowsOf(0, 5000));
  const chunks = [...storage.data].filter(([k]) => k.startsWith("tl:r:"));
  assert.ok(chunks.length > 1, `${chunks.length} chunks`);
  for (const [k, v] of chunks) assert.ok((v as { rows: string }).rows.length <= 60_000, `${k}: ${(v as { rows: string }).rows.length} characters`);
  assert.equal(chunks.reduce((a, [, v]) => a + (v as { n: number }).n, 0), 5000);
  assert.deepEqual(await b.flush(), { rows: 5000, commits: 1, replayed: 0, deadLettered: 0 });
  assert.equal((await (await openTable(mem)).info()).rows, 5000);
});

test("batcher options and input are checked", async () => {
  const storage = fakeStorage();
  assert.throws(() => new RowBatcher({ storage }, { table: undefined as never }), /options\.table/);
  assert.throws(() => new RowBatcher({ storage }, { table: async () => undefined as never, maxRows: 0 }), /maxRows must be a positive whole number/);
  const b = new RowBatcher({ storage }, { table: async () => undefined as never, maxBufferedRows: 10 });
  await assert.rejects(b.add([]), /non-empty array/);
  await assert.rejects(b.add(rowsOf(0, 11)), (e: unknown) => (e as { code?: string }).code === "BUFFER_FULL" && /11 rows are more than maxBufferedRows \(10\)/.test(String(e)));
});

test("adds finishing out of order: a batch never spans a chunk still being written, so a restart after its commit loses none", async () => {
  const mem = memoryStore();
  await createTable(mem, schema);
  const storage = fakeStorage();
  const put = storage.put.bind(storage);
  let release: () => void = () => {};
  let slowNext = false;
  storage.put = async (entries) => {
    if (slowNext && Object.keys(entries).some((k) => k.startsWith("tl:r:"))) {
      slowNext = false;
      await new Promise<void>((r) => (release = r));
    }
    return put(entries);
  };
  const crash = new Error("test: the object dies after the commit");
  const first = new RowBatcher({ storage }, { table: () => openTable(mem), maxRows: 1000, afterCommit: () => Promise.reject(crash) });
  await first.add(rowsOf(0, 10)); // seq 0
  slowNext = true;
  const slow = first.add(rowsOf(10, 10)); // seq 1: its write still under way
  await new Promise((r) => setTimeout(r, 0));
  await first.add(rowsOf(20, 10)); // seq 2
  await assert.rejects(first.flush(), crash); // the batch committed; its rows still in storage
  release();
  await slow; // seq 1 lands after the batch was named
  // A new life of the object on the same storage.
  const second = new RowBatcher({ storage }, { table: () => openTable(mem), maxRows: 1000 });
  const r = await second.flush();
  assert.deepEqual(r, { rows: 20, commits: 1, replayed: 1, deadLettered: 0 }, "the batch of seq 0 alone was found; seq 1 and 2 appended");
  const ns: bigint[] = [];
  for await (const batch of (await openTable(mem)).scan({ raw: true })) ns.push(...(batch.columns["n"] as bigint[]));
  assert.deepEqual(ns.sort((x, y) => Number(x - y)), rowsOf(0, 30).map((x) => x.n));
  assert.deepEqual([...storage.data.keys()], []);
});
