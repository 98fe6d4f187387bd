// TableWriter.delete: which rows go, and what the core did.
import { TimelakeError } from "./errors.js";

/** The rows a delete removes: all conditions together; at least one is required. */
export interface DeleteOptions {
  /** Series column → the values whose rows go (strings, or integers for long/int columns). */
  series?: Record<string, ReadonlyArray<string | number | bigint>>;
  /** Rows at or after this time (a Date, epoch milliseconds, or an RFC 3339 string). */
  from?: Date | number | string;
  /** Rows before this time. */
  to?: Date | number | string;
  /** Plan only: what would be dropped and rewritten. */
  dryRun?: boolean;
  /**
   * Make the deleted rows physically gone: the snapshots that still
   * reference files holding them expire, and the files are deleted once
   * unreferenced — at once with `now`, else by maintenance past the orphan
   * grace.
   */
  purge?: boolean;
  now?: boolean;
}

/** What a purge removed and what remains until when. */
export interface PurgeResult {
  snapshotsExpired: string[];
  filesDeleted: number;
  bytesDeleted: number;
  filesPending: number;
  bytesPending: number;
  pendingUntil?: string;
  files: string[];
  warnings: string[];
}

/** What a delete did (or would do, with dryRun). */
export interface DeleteResult {
  dryRun: boolean;
  version: number;
  changed: boolean;
  filesDropped: number;
  filesRewritten: number;
  filesWritten: number;
  rowsDeleted: number;
  bytesRemoved: number;
  bytesWritten: number;
  plan: string[];
  conflicts: number;
  purge?: PurgeResult;
}

function timeText(v: Date | number | string, name: string): string {
  if (typeof v === "string") return v;
  const d = typeof v === "number" ? new Date(v) : v;
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) {
    throw new TimelakeError("INVALID_ARGUMENT", `timelake: delete ${name}: want a Date, epoch milliseconds or an RFC 3339 string`);
  }
  return d.toISOString();
}

/** The options as the core reads them. */
export function deleteJSON(o: DeleteOptions): string {
  const series: Record<string, string[]> = {};
  const seriesStrings: Record<string, string[]> = {};
  for (const [col, vals] of Object.entries(o.series ?? {})) {
    for (const v of vals) {
      if (typeof v === "string") (seriesStrings[col] ??= []).push(v);
      else if (typeof v === "bigint" || Number.isInteger(v)) (series[col] ??= []).push(String(v));
      else throw new TimelakeError("INVALID_ARGUMENT", `timelake: delete series ${col}: ${String(v)} is not a string or an integer`);
    }
  }
  // Integers go as JSON numbers written from their decimal text: exact past 2^53.
  const numbers = Object.entries(series).map(([c, vs]) => `${JSON.stringify(c)}:[${vs.join(",")}]`).join(",");
  const rest = JSON.stringify({
    seriesStrings,
    from: o.from === undefined ? "" : timeText(o.from, "from"),
    to: o.to === undefined ? "" : timeText(o.to, "to"),
    dryRun: o.dryRun ?? false,
    purge: o.purge ?? false,
    now: o.now ?? false,
  });
  return `{"series":{${numbers}},${rest.slice(1)}`;
}

function camel(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = v;
  return out;
}

/** The core's result JSON as a DeleteResult. */
export function parseDeleteResult(json: string): DeleteResult {
  const raw = camel(JSON.parse(json) as Record<string, unknown>);
  const r = raw as unknown as DeleteResult;
  if (raw.purge) {
    const p = camel(raw.purge as Record<string, unknown>) as unknown as PurgeResult;
    p.warnings ??= [];
    r.purge = p;
  }
  return r;
}
