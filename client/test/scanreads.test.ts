// table.scan's reads through the Store in Node: a whole-table scan fetches
// each byte of each data file at most once, and no more bytes than the
// files hold, whatever the windows compare with the pages.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTable, memoryStore, openTable, type Store } from "../src/index.js";
import { isoMicros } from "../src/scanwire.js";

/** A store that logs the range reads of data files (keys under data/). */
function logging(base: Store) {
  const reads = new Map<string, [number, number][]>();
  const store: Store = {
    get: (k, o) => base.get(k, o),
    getRange: async (k, off, n) => {
      const b = await base.getRange(k, off, n);
      if (k.startsWith("data/")) {
        if (!reads.has(k)) reads.set(k, []);
        reads.get(k)!.push([off, b?.length ?? 0]);
      }
      return b;
    },
    put: (k, d) => base.put(k, d),
    putIfAbsent: (k, d) => base.putIfAbsent(k, d),
    delete: (ks) => base.delete(ks),
    list: (p) => base.list(p),
  };
  return { store, reads };
}

// Pages of up to 100,000 rows (write.parquet.page-row-limit) hold each
// file's 40,000 rows in one page per column, which the scan's windows of
// 8,192 rows each need. Before, a window's pages were kept for the next
// window only with pages after them fetched ahead, and a row group's last
// page has none: each window fetched (and decoded) the file's pages before
// its 64 KiB tail again, five times here.
test("a whole-table scan fetches each byte of each data file at most once", async () => {
  const base = memoryStore();
  const days = 3, perDay = 40_000, hosts = 20;
  const T0 = Date.UTC(2026, 10, 1);
  const t = await createTable(
    base,
    { time: "ts", series: ["host"], columns: [{ name: "cpu", type: "double" }, { name: "mem", type: "long" }], partition: "day" },
    { properties: { "write.parquet.page-row-limit": "100000", "timelake.auto-maintain": "false" } },
  );
  let x = 29;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648), x / 2147483648);
  for (let d = 0; d < days; d++) {
    const rows = [];
    for (let i = 0; i < perDay; i++) {
      rows.push({ ts: T0 + d * 86_400_000 + i * 2000, host: `h${String(i % hosts).padStart(2, "0")}`, cpu: rnd(), mem: BigInt(i) });
    }
    await t.append(rows);
  }
  const objs = (await base.list("data/")).filter((o) => o.key.endsWith(".parquet"));
  assert.equal(objs.length, days);
  const fileBytes = objs.reduce((a, o) => a + o.size, 0);

  const { store, reads } = logging(base);
  const r = await openTable(store);
  const scan = r.scan({ columns: ["cpu", "mem"] });
  let n = 0;
  for await (const b of scan) n += b.length;
  const stats = await scan.stats;
  assert.equal(n, days * perDay);

  let bytes = 0, requests = 0;
  for (const [key, rs] of reads) {
    const seen = new Map<number, number>();
    let over = 0;
    for (const [off, len] of rs) {
      requests++;
      bytes += len;
      for (let b = off; b < off + len; b++) {
        const k = (seen.get(b) ?? 0) + 1;
        seen.set(b, k);
        if (k > 1) over++;
      }
    }
    assert.equal(over, 0, `${key}: ${over} bytes read more than once: ${JSON.stringify(rs)}`);
  }
  assert.ok(bytes <= fileBytes, `${bytes} bytes read of ${fileBytes} bytes of data files`);
  assert.equal(stats.bytesRead, bytes);
  assert.equal(stats.requests, requests);
  assert.ok(stats.pagesRead <= stats.pages, `${stats.pagesRead} pages decoded of ${stats.pages}`);
});

// The batches' timestamps: isoMicros (a date part per day, the time of day
// from tables) against toISOString, over the years it writes with four
// digits, their ends, and beyond them (its six-digit years).
test("scan timestamps are toISOString with the microseconds", () => {
  const want = (ms: number, us: number) => new Date(ms).toISOString().slice(0, -1) + String(us).padStart(3, "0") + "Z";
  const cases: [number, number][] = [
    [0, 0], [-1, 999], [86_399_999, 1], [86_400_000, 0], [-86_400_001, 500],
    [-62_167_219_200_000, 0], [-62_167_219_200_001, 7], [253_402_300_799_999, 999], [253_402_300_800_000, 0],
    [Date.UTC(2001, 0, 1, 0, 1), 0], [Date.UTC(2026, 10, 29, 23, 59, 59, 999), 123],
  ];
  let x = 7;
  for (let i = 0; i < 20_000; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const ms = Math.round((x / 2147483648 - 0.3) * 3e14);
    cases.push([ms, x % 1000]);
  }
  for (const [ms, us] of cases) assert.equal(isoMicros(ms, us), want(ms, us), `${ms} ms ${us} µs`);
});
