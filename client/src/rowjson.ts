/**
 * Rows as JSON text for the Durable Object batcher: what a producer sends
 * over fetch and what the object keeps in its storage. Dates become ISO
 * 8601 strings (which append reads as the same instant); bigints, which
 * JSON has not, become {"$timelake.bigint": "<decimal>"} and come back as
 * bigints, so a long or a timestamptz given in "us"/"ns" keeps every digit.
 */
import { TimelakeError } from "./errors.js";

/** The tag of a bigint. persisted (in Durable Object storage): must not change. */
const BIGINT = "$timelake.bigint";

const replacer = (_k: string, v: unknown): unknown => (typeof v === "bigint" ? { [BIGINT]: v.toString() } : v);

function reviver(_k: string, v: unknown): unknown {
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    const s = (v as Record<string, unknown>)[BIGINT];
    if (typeof s === "string" && Object.keys(v).length === 1) return BigInt(s);
  }
  return v;
}

/** One row's JSON text. */
export function rowJSON(row: object): string {
  return JSON.stringify(row, replacer);
}

/** The JSON text of rows, an array. */
export function rowsJSON(rows: readonly object[]): string {
  return JSON.stringify(rows, replacer);
}

/** Rows back from rowsJSON's text; INVALID_ARGUMENT unless an array of objects. */
export function parseRows(text: string): object[] {
  let v: unknown;
  try {
    // The reviver costs a call per value: only when a bigint is tagged.
    v = text.includes(`"${BIGINT}"`) ? JSON.parse(text, reviver) : JSON.parse(text);
  } catch (e) {
    throw new TimelakeError("INVALID_ARGUMENT", `timelake: rows are not JSON: ${(e as Error).message}`);
  }
  checkRows(v);
  return v;
}

/** INVALID_ARGUMENT unless rows is a non-empty array of plain objects. */
export function checkRows(rows: unknown): asserts rows is object[] {
  if (!Array.isArray(rows) || rows.length === 0) {
    throw new TimelakeError("INVALID_ARGUMENT", "timelake: the batcher takes a non-empty array of row objects");
  }
  for (let i = 0; i < rows.length; i++) {
    const r: unknown = rows[i];
    if (r === null || typeof r !== "object" || Array.isArray(r)) {
      throw new TimelakeError("INVALID_ARGUMENT", `timelake: row ${i + 1} is not an object`);
    }
  }
}
