/**
 * Rows as JSON text for the Durable Object batcher: what a producer sends
 * over fetch and what the object keeps in its storage. Dates become ISO
 * 8601 strings (which append reads as the same instant); bigints, which
 * JSON has not, become {"$timelake.bigint": "<decimal>"} and come back as
 * bigints, so a long or a timestamptz given in "us"/"ns" keeps every digit.
 * A Map becomes the object of its entries (a map column's value).
 */
import { RowError, TimelakeError } from "./errors.js";
import { keyWhat, mapKeyText } from "./nested.js";

/** The tag of a bigint. persisted (in Durable Object storage): must not change. */
const BIGINT = "$timelake.bigint";

// A Map (a nested column's value: labels) travels as the object of its
// entries, which append takes as it takes the Map; JSON.stringify alone
// would write {} and lose them. Its keys are their texts as append sends
// them (mapKeyText); a Map with an object key, or a Set, is refused here, as
// append refuses it, rather than sent as {}.
const replacer = (_k: string, v: unknown): unknown => {
  if (typeof v === "bigint") return { [BIGINT]: v.toString() };
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v) {
      const kt = mapKeyText(k);
      if (kt === undefined) throw new RowError("TYPE_MISMATCH", `timelake: a Map key must be a string, number, bigint, boolean or Date, not ${keyWhat(k)}`, { value: String(k) });
      if (kt === null) throw new RowError("BAD_TIME", "timelake: an invalid Date as a Map key", { value: "Invalid Date" });
      // 1 and "1" are one member here: refused, as the core refuses a key given twice
      if (Object.hasOwn(o, kt)) throw new RowError("TYPE_MISMATCH", `timelake: the Map key ${JSON.stringify(kt)} appears twice`, { value: kt });
      o[kt] = x;
    }
    return o;
  }
  if (v instanceof Set) throw new RowError("TYPE_MISMATCH", "timelake: a Set in a row: want plain objects, Maps, arrays and scalars", {});
  return v;
};

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
