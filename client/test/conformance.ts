/**
 * The Store conformance suite: one list of cases that every store passes,
 * runnable in any runtime (node:test wraps it in Node; the Miniflare test
 * Worker runs it against an R2 binding inside workerd). The TypeScript twin
 * of the Go core's store/storetest.
 */
import type { Store } from "../src/store.js";

export interface CaseResult {
  name: string;
  error?: string;
}

class Failure extends Error {}

function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Failure(msg);
}

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

function sameBytes(got: Uint8Array | null, want: Uint8Array, what: string): void {
  assert(got instanceof Uint8Array, `${what}: got ${got === null ? "null" : typeof got}, want a Uint8Array`);
  assert(got.length === want.length, `${what}: got ${got.length} bytes, want ${want.length}`);
  for (let i = 0; i < want.length; i++) assert(got[i] === want[i], `${what}: byte ${i} is ${got[i]}, want ${want[i]}`);
}

async function rejectsWith(p: Promise<unknown>, code: string, what: string): Promise<void> {
  try {
    await p;
  } catch (e) {
    const c = (e as { code?: unknown }).code;
    assert(c === code, `${what}: rejected with code ${String(c)} (${String(e)}), want ${code}`);
    return;
  }
  throw new Failure(`${what}: resolved, want a rejection with code ${code}`);
}

type Case = [name: string, run: (s: Store) => Promise<void>];

export const cases: Case[] = [
  [
    "get of a missing key is null",
    async (s) => {
      assert((await s.get("metadata/none.json")) === null, "get(missing) is not null");
      assert((await s.getRange("metadata/none.json", 0, 1)) === null, "getRange(missing) is not null");
    },
  ],
  [
    "put then get gives the bytes back",
    async (s) => {
      const data = new Uint8Array(256).map((_, i) => i); // every byte value, zeros included
      await s.put("data/ts_day=2026-11-29/a.parquet", data);
      sameBytes(await s.get("data/ts_day=2026-11-29/a.parquet"), data, "get");
    },
  ],
  [
    "put replaces",
    async (s) => {
      await s.put("head.json", enc("one"));
      await s.put("head.json", enc("two!"));
      assert(dec(await s.get("head.json")) === "two!", "second put did not replace the first");
    },
  ],
  [
    "putIfAbsent writes once",
    async (s) => {
      assert((await s.putIfAbsent("metadata/v1.metadata.json", enc("first"))) === true, "first putIfAbsent is not true");
      assert((await s.putIfAbsent("metadata/v1.metadata.json", enc("second"))) === false, "second putIfAbsent is not false");
      assert(dec(await s.get("metadata/v1.metadata.json")) === "first", "the losing putIfAbsent changed the object");
    },
  ],
  [
    "concurrent putIfAbsent: exactly one wins",
    async (s) => {
      const n = 8;
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) => s.putIfAbsent("metadata/v2.metadata.json", enc(`writer-${i}`))),
      );
      const winners = results.flatMap((r, i) => (r ? [i] : []));
      assert(winners.length === 1, `${winners.length} writers won, want exactly 1`);
      assert(dec(await s.get("metadata/v2.metadata.json")) === `writer-${winners[0]}`, "the object is not the winner's");
    },
  ],
  [
    "getRange reads a window; past the end is RANGE",
    async (s) => {
      await s.put("r.bin", enc("0123456789"));
      assert(dec(await s.getRange("r.bin", 2, 3)) === "234", "getRange(2,3)");
      assert(dec(await s.getRange("r.bin", 0, 10)) === "0123456789", "getRange(0,10)");
      assert((await s.getRange("r.bin", 10, 0))?.length === 0, "getRange(10,0) is not empty");
      await rejectsWith(s.getRange("r.bin", 8, 5), "RANGE", "getRange(8,5) of 10 bytes");
    },
  ],
  [
    "delete removes; missing keys are fine",
    async (s) => {
      await s.put("d/a", enc("a"));
      await s.put("d/b", enc("b"));
      await s.delete(["d/a", "d/missing"]);
      assert((await s.get("d/a")) === null, "d/a still there");
      assert(dec(await s.get("d/b")) === "b", "d/b was deleted too");
      await s.delete([]);
    },
  ],
  [
    "list: prefix, sorted, sizes and times",
    async (s) => {
      const before = Date.now() - 60_000;
      for (const k of ["l/data/b", "l/data/a/x", "l/data2", "l/meta/v1"]) await s.put(k, enc(k));
      const got = await s.list("l/data");
      const keys = got.map((o) => o.key);
      assert(JSON.stringify(keys) === JSON.stringify(["l/data/a/x", "l/data/b", "l/data2"]), `list("l/data") = ${keys}`);
      const slash = (await s.list("l/data/")).map((o) => o.key);
      assert(JSON.stringify(slash) === JSON.stringify(["l/data/a/x", "l/data/b"]), `list("l/data/") = ${slash}`);
      for (const o of got) {
        assert(o.size === o.key.length, `${o.key}: size ${o.size}, want ${o.key.length}`);
        const t = o.lastModified instanceof Date ? o.lastModified.getTime() : o.lastModified;
        assert(typeof t === "number" && t > before && t < Date.now() + 60_000, `${o.key}: lastModified ${String(o.lastModified)}`);
      }
      assert((await s.list("l/none/")).length === 0, "list of an empty prefix is not empty");
    },
  ],
  [
    "keys that leave the table are BAD_KEY",
    async (s) => {
      for (const k of ["", "../x", "a/../b", "/abs", "a\\b", "a//b", "./a", "a\u0000b", "a/"]) {
        await rejectsWith(s.put(k, enc("x")), "BAD_KEY", `put(${JSON.stringify(k)})`);
        await rejectsWith(s.get(k), "BAD_KEY", `get(${JSON.stringify(k)})`);
      }
      await rejectsWith(s.list("../"), "BAD_KEY", "list(../)");
    },
  ],
  [
    "get with maxBytes: an object over it is TOO_LARGE, one within it is read",
    async (s) => {
      const data = new Uint8Array(1000).map((_, i) => i & 0xff);
      await s.put("metadata/v9.metadata.json", data);
      sameBytes(await s.get("metadata/v9.metadata.json", { maxBytes: 1000 }), data, "get(maxBytes = size)");
      sameBytes(await s.get("metadata/v9.metadata.json", { maxBytes: 1 << 20 }), data, "get(maxBytes > size)");
      await rejectsWith(s.get("metadata/v9.metadata.json", { maxBytes: 999 }), "TOO_LARGE", "get(maxBytes = size - 1)");
      await rejectsWith(s.get("metadata/v9.metadata.json", { maxBytes: 0 }), "TOO_LARGE", "get(maxBytes = 0)");
      assert((await s.get("metadata/none.json", { maxBytes: 10 })) === null, "get(missing, maxBytes) is not null");
      await s.put("metadata/empty", new Uint8Array(0));
      assert((await s.get("metadata/empty", { maxBytes: 0 }))?.length === 0, "get(empty, maxBytes = 0) is not empty");
      // The refusal changed nothing: the object is still there, whole.
      sameBytes(await s.get("metadata/v9.metadata.json"), data, "get after the refusals");
    },
  ],
  [
    "a 5 MiB object round-trips",
    async (s) => {
      const big = new Uint8Array(5 << 20);
      for (let i = 0; i < big.length; i += 4093) big[i] = i & 0xff;
      await s.put("data/big.parquet", big);
      sameBytes(await s.get("data/big.parquet"), big, "get(big)");
      sameBytes(await s.getRange("data/big.parquet", 4093 * 100, 10), big.subarray(4093 * 100, 4093 * 100 + 10), "getRange(big)");
      await rejectsWith(s.get("data/big.parquet", { maxBytes: 1 << 20 }), "TOO_LARGE", "get(5 MiB, maxBytes 1 MiB)");
    },
  ],
];

/** Runs every case, each on a fresh store from make; never throws. */
export async function runConformance(make: () => Promise<Store> | Store): Promise<CaseResult[]> {
  const out: CaseResult[] = [];
  for (const [name, run] of cases) {
    try {
      await run(await make());
      out.push({ name });
    } catch (e) {
      out.push({ name, error: e instanceof Error ? `${e.message}${e instanceof Failure ? "" : "\n" + e.stack}` : String(e) });
    }
  }
  return out;
}
