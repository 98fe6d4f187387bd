/**
 * Adopting another engine's table: what TableWriter.adopt() takes and
 * returns. A table Spark, pyiceberg, DuckDB or a Pipelines sink created has
 * no Timelake key; it is read as stored (info, scan) and refuses appends,
 * latest and maintain with NOT_ADOPTED until adopt() names its time and
 * series columns, in one metadata-only commit (no data file is read or
 * rewritten).
 */
import { TimelakeError } from "./errors.js";

/** The key to record. */
export interface AdoptOptions {
  /** The time column: a timestamptz. */
  time: string;
  /** The series columns in key order (string, long or int); none: one series. */
  series?: readonly string[];
  /** Check and report, commit nothing. */
  dryRun?: boolean;
}

/** What adopt() recorded. */
export interface AdoptResult {
  /** Metadata version committed (or current: a dry run, or a table adopted with this key already). */
  version: number;
  time: string;
  series: string[];
  /** Id of Timelake's sort order (series, then time) in the table. */
  sortOrderId: number;
  /** Adopting added that sort order. */
  sortOrderAdded: boolean;
  /** It is the table's default (only when the default was unsorted: another engine's order stays). */
  sortOrderDefault: boolean;
  alreadyAdopted: boolean;
  dryRun: boolean;
  /** Why Timelake still does not write the table (a partition spec or format it does not write yet), or "". */
  writeRefusal: string;
}

/** A key read from the table's partition spec, sort order and identifier fields, with why. */
export interface KeySuggestion {
  /** "" when no timestamptz column stands out. */
  time: string;
  series: string[];
  why: string[];
}

export function adoptJSON(options: AdoptOptions): string {
  if (typeof options !== "object" || options === null || typeof options.time !== "string" || options.time === "") {
    throw new TimelakeError("INVALID_ARGUMENT", "timelake: adopt takes { time, series?, dryRun? } with a time column");
  }
  const series = options.series ?? [];
  if (!Array.isArray(series) || series.some((s) => typeof s !== "string")) {
    throw new TimelakeError("INVALID_ARGUMENT", "timelake: adopt's series is an array of column names");
  }
  return JSON.stringify({ time: options.time, series, dryRun: options.dryRun === true });
}

export function parseAdoptResult(json: string): AdoptResult {
  const r = JSON.parse(json) as Record<string, unknown>;
  return {
    version: r["version"] as number,
    time: r["time"] as string,
    series: (r["series"] as string[] | null) ?? [],
    sortOrderId: r["sort-order-id"] as number,
    sortOrderAdded: r["sort-order-added"] === true,
    sortOrderDefault: r["sort-order-default"] === true,
    alreadyAdopted: r["already-adopted"] === true,
    dryRun: r["dry-run"] === true,
    writeRefusal: (r["write-refusal"] as string | undefined) ?? "",
  };
}

export function parseKeySuggestion(json: string): KeySuggestion {
  const r = JSON.parse(json) as Record<string, unknown>;
  return { time: (r["time"] as string | undefined) ?? "", series: (r["series"] as string[] | null) ?? [], why: (r["why"] as string[] | null) ?? [] };
}
