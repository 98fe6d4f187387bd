// Shared fixtures of the rollup tests (rollup, rollupinline, rollupcatalog):
// one table schema, batches whose keys repeat (duplicates and late rows),
// the brute-force hourly rollup those batches must give, and the rows a
// rollup table holds in the same text form, so each test compares strings.
import type { TableSchema, TableWriter } from "../src/index.js";

export const schema: TableSchema = {
  time: "ts",
  series: ["host"],
  columns: [
    { name: "cpu", type: "double" },
    { name: "mem", type: "long" },
  ],
};

export const HOUR = 3600_000;
export const DAY = Date.UTC(2026, 10, 20);

export type Row = { ts: number; host: string; cpu: number; mem: bigint };

/** n rows of batch k: keys repeat across batches (duplicates, late rows), over 6 hours. */
export function rowsOf(k: number, n: number): Row[] {
  return Array.from({ length: n }, (_, i) => ({
    ts: DAY + ((i * 7919 + k * 13) % (6 * 3600)) * 1000,
    host: `h${(i + k) % 3}`,
    cpu: ((i * k) % 50) / 4,
    mem: BigInt(i + k * 1000),
  }));
}

/**
 * The exact rollup of the batches in commit order (a later row of a key
 * wins): hourly per host, "host|bucketMs|rows|cpuMax|cpuSum|memMax", sorted.
 */
export function expected(batches: Row[][]): string[] {
  const latest = new Map<string, Row>();
  for (const b of batches) for (const r of b) latest.set(`${r.host}|${r.ts}`, r);
  const buckets = new Map<string, { n: number; max: number; sum: number; mem: bigint }>();
  for (const r of latest.values()) {
    const key = `${r.host}|${Math.floor(r.ts / HOUR) * HOUR}`;
    const b = buckets.get(key) ?? { n: 0, max: -Infinity, sum: 0, mem: -1n };
    b.n++;
    b.max = Math.max(b.max, r.cpu);
    b.sum += r.cpu;
    if (r.mem > b.mem) b.mem = r.mem;
    buckets.set(key, b);
  }
  return [...buckets.entries()].map(([k, b]) => `${k}|${b.n}|${b.max}|${b.sum}|${b.mem}`).sort();
}

/** A rollup table's rows in the form of expected(). */
export async function rollupRows(t: TableWriter): Promise<string[]> {
  const out: string[] = [];
  for await (const b of t.scan()) {
    const c = b.columns;
    for (let i = 0; i < b.length; i++) {
      const ms = Date.parse(String(c.bucket![i]));
      out.push(`${c.host![i]}|${ms}|${c.row_count![i]}|${c.cpu_max![i]}|${c.cpu_sum![i]}|${c.mem_max![i]}`);
    }
  }
  return out.sort();
}
