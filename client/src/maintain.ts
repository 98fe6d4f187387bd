/**
 * Maintenance results: what TableWriter.maintain() and an append with
 * timelake.auto-maintain=true report. The bridge sends the core's JSON
 * (table.MaintainResult); this maps it to camelCase, the snapshot id to a
 * bigint. Counts are Numbers: byte and row counts stay far below 2^53.
 */

/** Which steps to run; none set means all four. */
export interface MaintainOptions {
  /** Merge the small files of busy or cold partitions. */
  compact?: boolean;
  /** Drop partitions past timelake.retention. */
  retention?: boolean;
  /** Expire old snapshots and delete the files only they reached. */
  expire?: boolean;
  /** Delete files no snapshot reaches, past timelake.orphan-grace (timelake.metadata-grace for metadata files). */
  orphans?: boolean;
  /** Plan and report; change nothing. */
  dryRun?: boolean;
  /**
   * Rollups to refresh first, by name (their tables from TableWriter.rollup
   * or addRollup). The table's retention runs only when every one reflects
   * its current snapshot; then each rollup table is maintained too.
   */
  rollups?: Record<string, import("./table.js").TableWriter>;
}

export interface MaintainResult {
  /** Metadata version after the run. */
  version: number;
  /** The current snapshot after the run (64-bit: a bigint). */
  snapshotId: bigint | undefined;
  dryRun: boolean;
  /** One line per decision, in order. */
  plan: string[];
  /** Merge groups committed, and dropped because a writer removed their inputs. */
  merges: number;
  mergesDropped: number;
  /** Merges left out because an input another engine wrote is not sorted and too large to sort in memory (a plan line names it). */
  mergesSkipped: number;
  filesRead: number;
  filesWritten: number;
  bytesRead: number;
  bytesWritten: number;
  /** Compaction input rows, and rows after deduplication. */
  rowsBefore: number;
  rowsAfter: number;
  /** Position delete files compaction applied (and removed), and the rows they deleted. */
  deleteFilesApplied: number;
  rowsDeleted: number;
  /** Partitions compaction left alone (equality deletes, …); the plan says why. */
  partitionsSkipped: number;
  partitionsDropped: number;
  filesDropped: number;
  /** Delete files retention dropped with their partitions. */
  deleteFilesDropped: number;
  rowsDropped: number;
  seriesDropped: number;
  snapshotsExpired: number;
  filesDeleted: number;
  orphansDeleted: number;
  bytesDeleted: number;
  /** Unreferenced files kept: written, or first seen unreferenced, within their grace. */
  keptYoung: number;
  /** timelake.maintain-byte-cap stopped compaction; the rest is left for the next run. */
  capReached: boolean;
  leftMerges: number;
  leftBytes: number;
  commits: number;
  conflicts: number;
  /** By the Go clock (frozen between I/O in workerd). */
  durationMs: number;
  warnings: string[];
  /** With options.rollups: their refreshes and their tables' maintenance. */
  rollups?: import("./rollup.js").RollupMaintenance;
}

/** Parses the bridge's JSON of a table.MaintainResult. */
export function parseMaintainResult(raw: string): MaintainResult {
  const j = JSON.parse(raw) as Record<string, unknown>;
  const n = (k: string) => (typeof j[k] === "number" ? (j[k] as number) : 0);
  return {
    version: n("version"),
    snapshotId: typeof j["snapshot-id"] === "string" ? BigInt(j["snapshot-id"]) : undefined,
    dryRun: j["dry-run"] === true,
    plan: (j["plan"] as string[] | null) ?? [],
    merges: n("merges"),
    mergesDropped: n("merges-dropped"),
    mergesSkipped: n("merges-skipped"),
    filesRead: n("files-read"),
    filesWritten: n("files-written"),
    bytesRead: n("bytes-read"),
    bytesWritten: n("bytes-written"),
    rowsBefore: n("rows-before"),
    rowsAfter: n("rows-after"),
    deleteFilesApplied: n("delete-files-applied"),
    rowsDeleted: n("rows-deleted"),
    partitionsSkipped: n("partitions-skipped"),
    partitionsDropped: n("partitions-dropped"),
    filesDropped: n("files-dropped"),
    deleteFilesDropped: n("delete-files-dropped"),
    rowsDropped: n("rows-dropped"),
    seriesDropped: n("series-dropped"),
    snapshotsExpired: n("snapshots-expired"),
    filesDeleted: n("files-deleted"),
    orphansDeleted: n("orphans-deleted"),
    bytesDeleted: n("bytes-deleted"),
    keptYoung: n("kept-young"),
    capReached: j["cap-reached"] === true,
    leftMerges: n("left-merges"),
    leftBytes: n("left-bytes"),
    commits: n("commits"),
    conflicts: n("conflicts"),
    durationMs: n("duration-ms"),
    warnings: (j["warnings"] as string[] | undefined) ?? [],
  };
}
