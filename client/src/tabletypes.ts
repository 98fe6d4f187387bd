/**
 * The types of the table API (schemas, options, results, info) and the
 * parsers of the bridge's JSON for them; table.ts has the operations.
 */
import type { SchemaVersion } from "./alter.js";
import type { StoreFactory } from "./catalogstore.js";
import type { MaintainResult } from "./maintain.js";
import type { InlineRollupRefresh, RollupStoreResolver } from "./rollup.js";
import type { Store } from "./store.js";

export type ColumnType = "long" | "int" | "double" | "float" | "boolean" | "string" | "timestamptz" | "timestamp" | "timestamptz_ns" | "timestamp_ns"
  /** A nested type's text, as `timelake create --column` takes it: map<string, string>, list<double>, struct<a: long, b: list<string>>. */
  | `map<${string}>` | `list<${string}>` | `struct<${string}>`;

export interface ColumnSpec {
  name: string;
  type: ColumnType;
  /** Default false. Series columns and the time column are always required. */
  required?: boolean;
}

/** A time-series table schema. */
export interface TableSchema {
  /** The time column (a required timestamptz, or a column declared timestamp, timestamptz_ns or timestamp_ns; the ns types in a formatVersion 3 table). */
  time: string;
  /** Series columns: the time series key with the time; string unless declared long or int. */
  /** Series columns, in key order; [] for a table of one series. */
  series: string[];
  /** Value columns (and types for series columns). */
  columns?: ColumnSpec[];
  /**
   * Partition by the time column: "day" (default), "hour" or "month"; or a
   * spec of more than the time, as Spark's PARTITIONED BY reads:
   * "day, bucket(16, host)", "truncate(4, host)", "host", "none".
   */
  partition?: "day" | "hour" | "month" | "none" | (string & {});
  /**
   * false: a table without the _ingest_ts column, so that an engine that
   * writes every column (Spark 3.5) can INSERT only the user's columns. A
   * duplicate key (series…, time) is then decided by commit order: the later
   * append wins (README "Duplicates"). Default true (the column exists, optional).
   */
  ingestColumn?: boolean;
}

/** Options of openTable(store) (and createTable(store, …)). */
export interface OpenTableOptions {
  /**
   * The Store of a rollup's table, by its location and name, for appends'
   * inline refreshes and for addRollup and rollup(name) when given no Store.
   * Tried first; without it (or when it gives undefined) the Store given to
   * addRollup or rollup(name, store) on this writer, then the table store's
   * sibling(location) (r2Store, s3Store, prefixStore, localStore,
   * memoryStore: the rollup's default location beside the table).
   */
  rollupStore?: RollupStoreResolver;
}

export interface CreateTableOptions extends OpenTableOptions {
  /** The URI outside readers resolve data file paths against; default store.location. */
  location?: string;
  /** Table properties (write.target-file-size-bytes, …). */
  properties?: Record<string, string>;
  /** Iceberg format version of the new table: 2 (default) or 3 (row lineage). */
  formatVersion?: 2 | 3;
}

/** Options of createTable/openTable in a catalog: where the table's files are (see catalogstore.ts). */
export interface CatalogTableOptions {
  /**
   * A Store rooted at the bucket of the table's location (keys get the
   * location's path as prefix; in a Worker r2Store(env.BUCKET)), or a
   * function (location, vended) => Store whose keys are relative to the
   * location. Default: an s3Store from the credentials the catalog vends.
   * A file:// location needs the function (localStore in Node).
   */
  store?: Store | StoreFactory;
}

export interface CatalogCreateOptions extends CatalogTableOptions {
  /** The table's location; default: the catalog chooses (under its warehouse). */
  location?: string;
  /** Table properties (write.target-file-size-bytes, …). */
  properties?: Record<string, string>;
  /** Iceberg format version of the new table: 2 (default) or 3 (row lineage). */
  formatVersion?: 2 | 3;
}

export type TimeUnit = "s" | "ms" | "us" | "ns";

export interface AppendOptions {
  /** Unit of numbers and bigints given for timestamptz columns; default "ms" (Date.now()). */
  timeUnit?: TimeUnit;
  /** Skip keys that are not columns instead of failing with UNKNOWN_COLUMN. */
  ignoreUnknown?: boolean;
  /**
   * Add the keys that are not columns as optional columns, in the append's
   * commit, typed from the first value: number → double, bigint → long,
   * boolean, string, Date → timestamptz (a key without values: string);
   * Arrow input by its types. See TableWriter.alter for the rules.
   */
  evolve?: boolean;
  /**
   * Names this append (letters, digits and . _ : -; at most 128): kept in
   * the snapshot summary (timelake.commit-id), so that after a crash
   * findCommit tells whether the batch landed. If a retained snapshot
   * already holds the id, nothing is appended: COMMIT_EXISTS. Default: a
   * random id.
   */
  commitId?: string;
}

/** The snapshot holding a commit id (TableWriter.findCommit). */
export interface FoundCommit {
  snapshotId: bigint;
  sequenceNumber: number;
  timestampMs: number;
  /** "append" for an append. */
  operation: string;
  /** Rows the snapshot added (after deduplication within its batch). */
  addedRows: number;
  /** The metadata version searched: the newest. */
  version: number;
}

export interface AppendResult {
  /** Metadata version committed. */
  version: number;
  /** The new snapshot (64-bit: a bigint). */
  snapshotId: bigint;
  commitId: string;
  /** Rows given. */
  inputRows: number;
  /** Rows written after deduplication within the batch. */
  rowsWritten: number;
  /** Data files written. */
  files: number;
  /** Bytes of the data files. */
  bytes: number;
  /** Commits by other writers this append rebased over. */
  retries: number;
  /** Wall time of the operation in this runtime, after any queue wait. */
  durationMs: number;
  warnings: string[];
  /** Where the time went, by the Go clock (frozen between I/O in workerd). */
  timings: { columnsMs: number; copyMs: number; alignMs: number; appendMs: number; rollupMs?: number; maintainMs?: number };
  /**
   * With timelake.rollup.inline=true: every rollup's refresh, run after the
   * commit in this call (its rollup name, buckets recomputed, the raw
   * snapshot it reflects now), or its error's code and message — never a
   * thrown error: the append stands, the failure is in warnings too
   * ("rollup refresh: <name> [<CODE>]: …") and the next refresh catches up.
   * NO_ROLLUP_STORE: no Store was found for the rollup's table (see
   * OpenTableOptions.rollupStore).
   */
  rollups?: InlineRollupRefresh[];
  /**
   * With timelake.auto-maintain=true: the compaction and retention run after
   * the commit (and expiry and file cleanup after one append in 100). Its
   * failure does not fail the append (see warnings).
   */
  maintenance?: MaintainResult;
}

export interface PartitionInfo {
  name: string;
  rows: number;
  files: number;
  bytes: number;
}

export interface TableInfo {
  location: string;
  version: number;
  snapshotId: bigint | undefined;
  snapshots: number;
  rows: number;
  files: number;
  bytes: number;
  /** Other engines' delete files, and the rows of their position and equality deletes. */
  deleteFiles: number;
  positionDeletes: number;
  equalityDeletes: number;
  /** With delete files: the rows the data files hold; `rows` is after position deletes (and before equality deletes when `rowsBeforeEqualityDeletes`). */
  rowsStored: number;
  rowsBeforeEqualityDeletes: boolean;
  minTime: string | undefined;
  maxTime: string | undefined;
  partition: string;
  partitions: PartitionInfo[];
  columns: { id: number; name: string; type: ColumnType; required: boolean }[];
  /** The schema history, oldest first; the current one has current: true. */
  schemas: SchemaVersion[];
  properties: Record<string, string>;
  /** The time column and the series columns in key order; undefined for another engine's table not adopted. */
  timeColumn: string | undefined;
  seriesColumns: string[] | undefined;
}

export function parseInfo(raw: string): TableInfo {
  const j = JSON.parse(raw) as Record<string, unknown>;
  return {
    location: j["location"] as string,
    version: j["version"] as number,
    snapshotId: typeof j["snapshot-id"] === "string" ? BigInt(j["snapshot-id"]) : undefined,
    snapshots: j["snapshots"] as number,
    rows: j["rows"] as number,
    files: j["files"] as number,
    bytes: j["bytes"] as number,
    deleteFiles: (j["delete-files"] as number | undefined) ?? 0,
    positionDeletes: (j["position-deletes"] as number | undefined) ?? 0,
    equalityDeletes: (j["equality-deletes"] as number | undefined) ?? 0,
    rowsStored: (j["rows-stored"] as number | undefined) ?? (j["rows"] as number),
    rowsBeforeEqualityDeletes: (j["rows-before-equality-deletes"] as boolean | undefined) ?? false,
    minTime: j["min-time"] as string | undefined,
    maxTime: j["max-time"] as string | undefined,
    partition: j["partition"] as string,
    partitions: j["partitions"] as PartitionInfo[],
    columns: j["columns"] as TableInfo["columns"],
    schemas: (j["schemas"] as SchemaVersion[] | undefined) ?? [],
    properties: j["properties"] as Record<string, string>,
    timeColumn: j["time-column"] as string | undefined,
    seriesColumns: j["series-columns"] as string[] | undefined,
  };
}

/** What a writer knows without reading manifests: the version and the columns. */
export interface TableHead {
  version: number;
  columns: TableInfo["columns"];
}

export function parseHead(raw: string): TableHead & { location?: string } {
  const j = JSON.parse(raw) as Record<string, unknown>;
  return { version: j["version"] as number, columns: j["columns"] as TableInfo["columns"], location: j["location"] as string | undefined };
}
