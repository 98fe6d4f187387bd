/**
 * The options of table.scan and their wire form for the bridge
 * (wasm/scan.go): times travel as text the core parses by the append's
 * rules (RFC 3339, a date, or epoch milliseconds), 64-bit values as digits.
 */
import { RowError } from "./errors.js";

/** A time: an RFC 3339 string (or a date alone), a Date, or epoch milliseconds. */
export type TimeInput = string | Date | number;

/** A series filter value: a string for a string column, an integer (number or bigint) for an int or long one. */
export type SeriesValue = string | number | bigint;

export interface ScanOptions {
  /** Inclusive start of the time range. */
  from?: TimeInput;
  /** Exclusive end of the time range. */
  to?: TimeInput;
  /** Equality (one value) or IN (an array) filters on series columns. */
  series?: Record<string, SeriesValue | readonly SeriesValue[]>;
  /**
   * Label filters on map and struct columns, each of which a row must pass:
   * "tags[env]=prod", "tags[env]!=prod" (a row without the key matches !=),
   * "attrs.b=x" — the CLI's scan --where syntax. Evaluated on each row's
   * value after the pruning (no statistics exist for map values).
   */
  where?: string | readonly string[];
  /** The value columns to read; the time and series columns always come. Default: all but _ingest_ts. */
  columns?: readonly string[];
  /**
   * Time travel: a snapshot id (a bigint, or a string of digits as info()
   * prints it), or a time (a Date, epoch milliseconds, or an RFC 3339
   * string): the snapshot current then.
   */
  asOf?: bigint | TimeInput;
  /** Every stored row, duplicates included (delete files still apply). */
  raw?: boolean;
  /** At most this many rows; 0 or absent: no limit. */
  limit?: number;
  /** Rows per batch (default 8192). */
  batchRows?: number;
}

function timeText(what: string, v: TimeInput): string {
  if (typeof v === "string") return v;
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) throw new RowError("BAD_TIME", `timelake: scan ${what}: an invalid Date`, { column: what });
    return v.toISOString();
  }
  if (typeof v === "number" && Number.isInteger(v)) return String(v);
  throw new RowError("BAD_TIME", `timelake: scan ${what}: want a Date, an RFC 3339 string or integer epoch milliseconds, not ${String(v)}`, { column: what, value: String(v) });
}

const wireValue = (v: unknown): unknown => (typeof v === "bigint" ? { int: v.toString() } : v);

/** The options JSON the bridge's scan takes; arrow: batches as Arrow IPC stream chunks. */
export function scanOptionsJSON(o: ScanOptions = {}, arrow = false): string {
  const w: Record<string, unknown> = {};
  if (arrow) w["arrow"] = true;
  if (o.from !== undefined) w["from"] = timeText("from", o.from);
  if (o.to !== undefined) w["to"] = timeText("to", o.to);
  if (o.series !== undefined) {
    const s: Record<string, unknown[]> = {};
    for (const [col, v] of Object.entries(o.series)) s[col] = (Array.isArray(v) ? v : [v]).map(wireValue);
    w["series"] = s;
  }
  if (o.where !== undefined) {
    const ws = typeof o.where === "string" ? [o.where] : o.where;
    if (!Array.isArray(ws) || ws.some((x) => typeof x !== "string"))
      throw new RowError("BAD_FILTER", `timelake: scan where: want a string or an array of strings like "tags[env]=prod", not ${String(o.where)}`, { column: "where" });
    w["where"] = ws;
  }
  if (o.columns !== undefined) w["columns"] = o.columns;
  if (o.asOf !== undefined) {
    const a = o.asOf;
    if (typeof a === "bigint") w["asOfSnapshot"] = a.toString();
    else if (typeof a === "string" && /^\d+$/.test(a)) w["asOfSnapshot"] = a;
    else w["asOf"] = timeText("asOf", a);
  }
  if (o.raw !== undefined) w["raw"] = o.raw;
  for (const k of ["limit", "batchRows"] as const) {
    const v = o[k];
    if (v === undefined) continue;
    if (!Number.isSafeInteger(v)) throw new RowError("BAD_OPTION", `timelake: scan ${k}: want a whole number, not ${String(v)}`, { column: k, value: String(v) });
    w[k] = v;
  }
  return JSON.stringify(w);
}
