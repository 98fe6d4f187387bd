/**
 * Rollups (continuous aggregates) of a table, as TableWriter.addRollup,
 * rollups, rollup, refreshRollup and (with inline) append use them. The
 * definition lives in the table's properties; the rollup is a table of its
 * own, scanned like any other: by default at the table's location with
 * "__rollup_<name>" appended, in the Store OpenTableOptions.rollupStore,
 * addRollup/rollup or the table store's sibling gives; for a catalog table,
 * table "ns.<table>__rollup_<name>" of the same catalog. The Go core does
 * the work (package rollup, table.RefreshRollup, table.InlineRefresh).
 */

/** Aggregates per value column: count, sum, min, max, avg (kept as sum and count), first, last. */
export type RollupFunc = "count" | "sum" | "min" | "max" | "avg" | "first" | "last";

export interface RollupSpec {
  /** Bucket width. */
  every: "1m" | "5m" | "15m" | "1h" | "1d";
  /** Per value column, its aggregates: { cpu: ["min", "max", "avg"], mem: ["max"] }. */
  aggregates: Record<string, readonly RollupFunc[]>;
  /** The rollup table's own retention ("365d"); default forever. */
  retention?: string;
  /**
   * Set timelake.rollup.inline=true on the table: every append then
   * refreshes every rollup of the table after its commit, in the same call
   * (AppendResult.rollups; see TableWriter.append for where the rollup
   * tables' Stores come from).
   */
  inline?: boolean;
}

/** A rollup as the table's properties define it. */
export interface RollupDefinition {
  name: string;
  every: string;
  /** Canonical: "cpu:count,sum,min,max;mem:max". */
  aggregates: string;
  retention: string;
  location: string;
  /** With a catalog: the rollup table's name there ("ns.t__rollup_hourly"). */
  table?: string;
}

import type { MaintainResult } from "./maintain.js";
import type { Store } from "./store.js";

/**
 * Finds the Store of a storage-only table's rollup table: called with the
 * rollup's location (from the table's properties) and name; undefined or
 * null when it has none (then the next way is tried: see
 * TableWriter.append).
 */
export type RollupStoreResolver = (location: string, name: string) => Store | undefined | null | Promise<Store | undefined | null>;

/**
 * One rollup's inline refresh after an append (AppendResult.rollups): the
 * refresh (its buckets, the raw snapshot it reflects now), or the error
 * that stopped it (also in the append's warnings). The append is committed
 * either way; the next refresh catches up.
 */
export interface InlineRollupRefresh {
  rollup: string;
  refresh?: RefreshResult;
  error?: { code: string; message: string };
}

/** Parses the bridge's JSON of an append's inline refreshes. */
export function parseInlineRefreshes(raw: string): InlineRollupRefresh[] {
  const list = JSON.parse(raw) as { rollup: string; refresh?: unknown; code?: string; message?: string }[];
  return list.map((o) => ({
    rollup: o.rollup,
    ...(o.refresh === undefined || o.refresh === null ? {} : { refresh: parseRefreshResult(JSON.stringify(o.refresh)) }),
    ...(o.code === undefined ? {} : { error: { code: o.code, message: o.message ?? "" } }),
  }));
}

export interface RefreshOptions {
  /** Stop the change detection after the first raw snapshot past this many bytes read; the next refresh goes on. */
  byteCap?: number;
}

export interface RefreshResult {
  rollup: string;
  /** up-to-date, full, incremental, by-sequence, empty, or fold (right after this Table's append of later rows: folded into the stored rows, no raw read). */
  mode: string;
  /** The raw snapshot the rollup reflects now (and before). */
  sourceSnapshot: bigint;
  previousSnapshot: bigint;
  snapshots: number;
  /** (series, bucket) keys recomputed (0 in a full refresh, and for files whose buckets came from their bounds: spans). */
  buckets: number;
  /** Time spans recomputed for every series (from files' time bounds). */
  spans: number;
  /** Keys older than the raw table's retention, left as they are. */
  skipped: number;
  rows: number;
  tombstones: number;
  bytesRead: number;
  capReached: boolean;
  snapshotsLeft: number;
  version: number;
  committed: boolean;
}

/**
 * What maintain({ rollups }) did to them: each refresh (or its error), and
 * each rollup table's own maintenance.
 */
export interface RollupMaintenance {
  refreshes: Record<string, RefreshResult | { error: string }>;
  tables: Record<string, MaintainResult>;
  /** The table's retention was held back: a rollup does not reflect its current snapshot yet. */
  retentionHeld: boolean;
}

/** The JSON addRollup sends. */
export function rollupSpecJSON(name: string, spec: RollupSpec, location: string | undefined): string {
  const aggregates = Object.entries(spec.aggregates ?? {}).map(([col, fns]) => `${col}:${fns.join(",")}`);
  return JSON.stringify({ name, every: spec.every, aggregates, retention: spec.retention ?? "", location: location ?? "", inline: spec.inline === true });
}

/** Parses the bridge's JSON of a table.RefreshResult. */
export function parseRefreshResult(raw: string): RefreshResult {
  const j = JSON.parse(raw) as Record<string, unknown>;
  const n = (k: string) => (typeof j[k] === "number" ? (j[k] as number) : 0);
  const id = (k: string) => (typeof j[k] === "string" ? BigInt(j[k] as string) : 0n);
  return {
    rollup: String(j["rollup"] ?? ""),
    mode: String(j["mode"] ?? ""),
    sourceSnapshot: id("source-snapshot"),
    previousSnapshot: id("previous-snapshot"),
    snapshots: n("snapshots"),
    buckets: n("buckets"),
    spans: n("spans"),
    skipped: n("skipped"),
    rows: n("rows"),
    tombstones: n("tombstones"),
    bytesRead: n("bytes-read"),
    capReached: j["cap-reached"] === true,
    snapshotsLeft: n("snapshots-left"),
    version: n("version"),
    committed: j["committed"] === true,
  };
}
