// The Arrow IPC fixtures pyarrow wrote for the Go core's tests
// (arrowipc/testdata, see gen.py there): bytes, table schemas and what
// pyarrow says the rows are.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { TableSchema } from "../src/index.js";

/** arrowipc/testdata, from dist/test. */
export const fixtureDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "arrowipc", "testdata");

interface Spec {
  time: string;
  series: string[];
  columns: { name: string; type: string; required: boolean }[];
}

export interface Fixtures {
  bench: { file: string; schemaBytes: number; batchBytes: number; rows: number; table: Spec };
  cases: { name: string; file: string; table: Spec; rows?: unknown[][]; repeat: number; error?: { code: string; row: number; column: string } }[];
}

export const fixtures: Fixtures = JSON.parse(fs.readFileSync(path.join(fixtureDir, "cases.json"), "utf8"));

export function fixture(file: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(path.join(fixtureDir, file)));
}

export function tableSchema(s: Spec): TableSchema {
  return { time: s.time, series: s.series, columns: s.columns.map((c) => ({ name: c.name, type: c.type as never, required: c.required })) };
}

export function findCase(name: string): Fixtures["cases"][number] {
  const c = fixtures.cases.find((c) => c.name === name);
  if (!c) throw new Error(`no fixture case ${name}`);
  return c;
}

/** A stream of `copies` copies of the bench fixture's 1,000-row batch (5 columns). */
export function benchStream(copies: number): Uint8Array {
  const data = fixture(fixtures.bench.file);
  const { schemaBytes: s, batchBytes: n } = fixtures.bench;
  const out = new Uint8Array(s + copies * n + 8);
  out.set(data.subarray(0, s), 0);
  for (let i = 0; i < copies; i++) out.set(data.subarray(s, s + n), s + i * n);
  out.set([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0], s + copies * n);
  return out;
}
