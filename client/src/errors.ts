/**
 * Errors of @timelake/client. Every error is a TimelakeError with a stable
 * `code` (the same codes as the CLI's --json output); errors about one value
 * of the input are RowErrors that also name the row (1-based) and column.
 */
import { clientSecrets } from "./redact.js";

/** Codes of errors about the rows given to append. */
export const ROW_CODES = [
  "UNKNOWN_COLUMN",
  "MISSING_COLUMN",
  "TYPE_MISMATCH",
  "BAD_TIME",
  "TIME_OUT_OF_RANGE",
  "DUPLICATE_COLUMN",
  "INVALID_UTF8",
  "EMPTY_INPUT",
  "SYNTAX",
] as const;

/** Codes of bad scan options (table.scan), RowErrors naming the column or value (no row). */
export const SCAN_CODES = ["BAD_FILTER", "BAD_RANGE", "NO_SNAPSHOT", "BAD_OPTION"] as const;

/**
 * Codes of refused schema changes (table.alter), RowErrors naming the column
 * (UNKNOWN_COLUMN and DUPLICATE_COLUMN are row codes too).
 */
export const SCHEMA_CODES = ["SCHEMA_CHANGE_FORBIDDEN", "BAD_TYPE", "BAD_COLUMN_NAME", "BAD_CHANGE"] as const;

/**
 * Stable error codes. Row codes as above; table codes: TABLE_EXISTS,
 * NO_TABLE, SCHEMA_MISMATCH, CORRUPT_TABLE, UNSUPPORTED_TABLE, NOT_ADOPTED (another
 * engine's table without a key: adopt it), BAD_KEY_COLUMN (adopt's columns), COMMIT_CONFLICT_EXHAUSTED,
 * COMMIT_UNKNOWN, COMMIT_DROPPED, COMMIT_EXISTS and BAD_COMMIT_ID (an append's
 * commitId); BUFFER_FULL from the Durable Object batcher; catalog codes: NO_NAMESPACE, BAD_TABLE_NAME,
 * CATALOG_AUTH, CATALOG_UNAVAILABLE, CATALOG_RATE_LIMITED, CATALOG_ERROR,
 * CATALOG_TABLE; STORE_ERROR and BAD_KEY from stores;
 * INVALID_ARGUMENT for a call made wrongly; NOT_IMPLEMENTED; INTERNAL for a
 * bug (a recovered Go panic).
 */
export type ErrorCode =
  | (typeof ROW_CODES)[number]
  | (typeof SCAN_CODES)[number]
  | (typeof SCHEMA_CODES)[number]
  | "TABLE_EXISTS"
  | "NO_TABLE"
  | "SCHEMA_MISMATCH"
  | "CORRUPT_TABLE"
  | "UNSUPPORTED_TABLE"
  | "NOT_ADOPTED"
  | "BAD_KEY_COLUMN"
  | "COMMIT_CONFLICT_EXHAUSTED"
  | "COMMIT_UNKNOWN"
  | "COMMIT_DROPPED"
  | "COMMIT_EXISTS"
  | "BAD_COMMIT_ID"
  | "BUFFER_FULL"
  | "NO_NAMESPACE"
  | "BAD_TABLE_NAME"
  | "CATALOG_AUTH"
  | "CATALOG_UNAVAILABLE"
  | "CATALOG_RATE_LIMITED"
  | "CATALOG_ERROR"
  | "CATALOG_TABLE"
  | "BAD_ROLLUP"
  | "NO_ROLLUP"
  | "NO_ROLLUP_STORE"
  | "ROLLUP_EXISTS"
  | "ROLLUP_CONFLICT"
  | "ROLLUP_OVERFLOW"
  | "ROLLUP_COLUMN_DROPPED"
  | "STORE_ERROR"
  | "BAD_KEY"
  | "INVALID_ARGUMENT"
  | "NOT_IMPLEMENTED"
  | "INTERNAL"
  | (string & {});

export class TimelakeError extends Error {
  override name = "TimelakeError";
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * A value of the input that could not be aligned to the schema, or a scan
 * option the table refuses (UNKNOWN_COLUMN, BAD_TIME and SCAN_CODES).
 */
export class RowError extends TimelakeError {
  override name = "RowError";
  /** 1-based index into the rows given; undefined for the input as a whole. */
  readonly row: number | undefined;
  readonly column: string | undefined;
  /** The offending value as text (cut to 128 bytes), if any. */
  readonly value: string | undefined;
  constructor(
    code: ErrorCode,
    message: string,
    where: { row?: number | undefined; column?: string | undefined; value?: string | undefined },
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.row = where.row;
    this.column = where.column;
    this.value = where.value;
  }
}

/** A store call that failed, or a store that broke its contract. */
export class StoreError extends TimelakeError {
  override name = "StoreError";
  readonly key: string | undefined;
  constructor(code: ErrorCode, message: string, key?: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.key = key;
  }
}

/**
 * The codes a Store's own rejections may carry, which the core understands:
 * NOT_FOUND (same as resolving null), RANGE (a getRange past the end),
 * BAD_KEY and TOO_LARGE (a get over its maxBytes; see tooLarge in store.ts).
 */
export type StoreErrorCode = "NOT_FOUND" | "RANGE" | "BAD_KEY" | "TOO_LARGE" | "STORE_ERROR";

/** Builds the error a store rejects with. */
export function storeError(code: StoreErrorCode, message: string, key?: string, cause?: unknown): StoreError {
  return new StoreError(code, message, key, cause === undefined ? undefined : { cause });
}

/**
 * Turns what the WebAssembly module rejected with into a TimelakeError. The
 * bridge scrubbed the core's secrets; the message is scrubbed once more of
 * every secret the client was given (redact.ts), which the bridge may not
 * know (an s3Store's keys).
 */
export function fromWasm(e: unknown): TimelakeError {
  if (e instanceof TimelakeError) return e;
  if (e instanceof Error) {
    const clean = clientSecrets.scrub(e.message);
    if (clean !== e.message) e.message = clean;
    const x = e as Error & { code?: unknown; row?: unknown; column?: unknown; value?: unknown; key?: unknown };
    const code = typeof x.code === "string" ? x.code : "INTERNAL";
    if ([...ROW_CODES, ...SCAN_CODES, ...SCHEMA_CODES].includes(code as never)) {
      return new RowError(
        code,
        e.message,
        {
          row: typeof x.row === "number" ? x.row : undefined,
          column: typeof x.column === "string" ? x.column : undefined,
          value: typeof x.value === "string" ? x.value : undefined,
        },
        { cause: e },
      );
    }
    if (code === "STORE_ERROR" || code === "BAD_KEY") {
      return new StoreError(code, e.message, typeof x.key === "string" ? x.key : undefined, { cause: e });
    }
    return new TimelakeError(code, e.message, { cause: e });
  }
  return new TimelakeError("INTERNAL", clientSecrets.scrub(`timelake: unexpected rejection: ${String(e)}`), { cause: e });
}
