// fileListStore in Node: a table written to a memoryStore, handed over as
// files (paths and Blobs, and Files with webkitRelativePath as a browser's
// webkitdirectory input gives them) under a picked folder, opened and read
// back: the same scan, history and files; its rollup found beside it;
// writes refused and the table left as it was; ranges and listings.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, fileListStore, memoryStore, openTable, StoreError, tableFolders, type MemoryStore, type TableWriter } from "../src/index.js";

const T0 = Date.UTC(2026, 10, 29, 10, 0, 0);

async function source(): Promise<{ mem: MemoryStore; t: TableWriter }> {
  const mem = memoryStore({ location: "memory://picked/t" });
  const t = await createTable(mem, { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }] });
  for (const day of [0, 1]) {
    const rows = [];
    for (let i = 0; i < 30; i++) rows.push({ ts: T0 + day * 86_400_000 + i * 60_000, host: `h${i % 3}`, cpu: day * 100 + i });
    await t.append(rows);
  }
  return { mem, t };
}

/** The objects of a memory store as [path, Blob] under folder. */
const asFiles = (m: MemoryStore, folder: string): [string, Blob][] => [...m.objects].map(([k, v]) => [`${folder}/${k}`, new Blob([v.slice()])]);

async function allRows(t: TableWriter, from?: number, to?: number): Promise<unknown[]> {
  const out = [];
  for await (const r of t.scan({ from, to }).rows()) out.push(r);
  return out;
}

test("fileListStore: a picked folder opens and reads as the table it holds", async () => {
  const { mem, t } = await source();
  const files = [...asFiles(mem, "picked/t"), ["picked/notes.txt", new Blob(["hi"])] as [string, Blob]];
  const fs = fileListStore(files);
  assert.equal(fs.root, "picked/t");
  assert.deepEqual(fs.tables, ["picked/t"]);
  const r = await openTable(fs);
  assert.deepEqual(await allRows(r), await allRows(t));
  const from = T0 + 86_400_000 + 5 * 60_000;
  const range = await allRows(r, from, from + 10 * 60_000);
  assert.equal(range.length, 10);
  assert.deepEqual(range, await allRows(t, from, from + 10 * 60_000));

  const inf = await r.info();
  assert.deepEqual([inf.timeColumn, inf.seriesColumns], ["ts", ["host"]]);
  const h = await r.history();
  assert.deepEqual(
    h.map((s) => [s.operation, s.addedRows, s.addedFiles, s.current]),
    [
      ["append", 30, 1, false],
      ["append", 30, 1, true],
    ],
  );
  assert.equal(h[1]!.parentId, h[0]!.snapshotId);
  assert.equal(h[1]!.snapshotId, (await r.info()).snapshotId);
  const fl = await r.files();
  assert.equal(fl.length, 2);
  assert.equal(fl.reduce((n, f) => n + f.rows, 0), 60);
  assert.deepEqual(fl.map((f) => f.minTime).sort(), [new Date(T0).toISOString().replace(".000Z", "Z"), new Date(T0 + 86_400_000).toISOString().replace(".000Z", "Z")]);
  for (const f of fl) assert.match(f.path, /^memory:\/\/picked\/t\/data\/ts_day=2026-11-(29|30)\/.+\.parquet$/);
});

test("fileListStore: Files with webkitRelativePath, ranges, listings", async () => {
  const { mem } = await source();
  const files = [...mem.objects].map(([k, v]) => {
    const f = new File([v.slice()], k.split("/").pop()!, { lastModified: 1234 });
    Object.defineProperty(f, "webkitRelativePath", { value: `t/${k}` });
    return f;
  });
  const fs = fileListStore(files);
  assert.equal(fs.root, "t");
  const listed = await fs.list("metadata/");
  assert.ok(listed.length >= 3 && listed.every((o) => o.key.startsWith("metadata/") && o.lastModified === 1234));
  assert.deepEqual(
    listed.map((o) => o.key),
    [...mem.objects.keys()].filter((k) => k.startsWith("metadata/")).sort(),
  );
  const key = listed[0]!.key;
  const whole = await fs.get(key);
  assert.deepEqual(whole, mem.objects.get(key));
  assert.deepEqual(await fs.getRange(key, 2, 5), mem.objects.get(key)!.subarray(2, 7));
  await assert.rejects(fs.getRange(key, whole!.length - 1, 2), (e: StoreError) => e.code === "RANGE");
  await assert.rejects(fs.get(key, { maxBytes: 1 }), (e: StoreError) => e.code === "TOO_LARGE");
  assert.equal(await fs.get("metadata/nothing.json"), null);
  await assert.rejects(fs.get("../x"), (e: StoreError) => e.code === "BAD_KEY");
  assert.deepEqual(await openTable(fs).then((r) => r.info().then((i) => i.rows)), 60);
});

test("fileListStore: read-only; a failed append leaves the table as it was", async () => {
  const { mem } = await source();
  const fs = fileListStore(asFiles(mem, "t"));
  const r = await openTable(fs);
  await assert.rejects(r.append([{ ts: T0, host: "h9", cpu: 1 }]), (e: StoreError) => e.code === "STORE_ERROR" && /read-only/.test(e.message));
  await assert.rejects(fs.put("x", new Uint8Array(1)), (e: StoreError) => e.code === "STORE_ERROR");
  await assert.rejects(fs.delete(["metadata/v1.metadata.json"]), (e: StoreError) => e.code === "STORE_ERROR");
  const again = await openTable(fs);
  assert.equal((await again.info()).rows, 60);
  assert.equal((await again.history()).length, 2);
});

test("fileListStore: the rollup table beside the picked one (sibling)", async () => {
  const { mem, t } = await source();
  const ru = await t.addRollup("hourly", { every: "1h", aggregates: { cpu: ["max"] } });
  await t.refreshRollup("hourly", ru);
  const sib = mem.sibling!("memory://picked/t__rollup_hourly") as MemoryStore;
  const files = [...asFiles(mem, "up/t"), ...asFiles(sib, "up/t__rollup_hourly")];
  assert.deepEqual(tableFolders(files.map(([p]) => p)), ["up/t", "up/t__rollup_hourly"]);
  const fs = fileListStore(files);
  assert.equal(fs.root, "up/t");
  const r = await openTable(fs);
  const hourly = await r.rollup("hourly");
  const got = await allRows(hourly);
  const [rh] = (await hourly.history()).slice(-1);
  assert.equal(rh!.summary["timelake.rollup.source-snapshot"], String((await r.info()).snapshotId));
  assert.deepEqual(got, await allRows(ru));
  assert.equal(got.length, 6); // 3 hosts × 1 hour × 2 days
  assert.equal(fs.sibling!("memory://picked/elsewhere"), undefined);
  // Picking the rollup folder itself.
  assert.equal((await openTable(fileListStore(files, { root: "up/t__rollup_hourly" })).then((x) => x.info())).rows, 6);
});
