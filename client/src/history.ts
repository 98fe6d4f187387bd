/**
 * What TableWriter.history() and files() return: a table's retained
 * snapshots and its live data files, read from the metadata and manifests
 * the core has loaded (wasm/explore.go), for tools that show a table.
 */

/** One retained snapshot, oldest first in history(). */
export interface SnapshotEntry {
  snapshotId: bigint;
  /** undefined for the first snapshot (or when its parent expired). */
  parentId: bigint | undefined;
  sequenceNumber: number;
  timestampMs: number;
  /** The summary's operation: append, overwrite, replace, delete. */
  operation: string;
  /** The summary's added-records, added-data-files and deleted-data-files (0 when absent). */
  addedRows: number;
  addedFiles: number;
  removedFiles: number;
  /** The table's current snapshot. */
  current: boolean;
  /** The whole snapshot summary (timelake.commit-id, a rollup's timelake.rollup.source-snapshot, …). */
  summary: Record<string, string>;
}

/** One live data file of the current snapshot. */
export interface DataFileEntry {
  /** Its full location, as the manifest has it. */
  path: string;
  rows: number;
  bytes: number;
  /** The file's bounds on the time column (ISO 8601, UTC), undefined when it has none. */
  minTime: string | undefined;
  maxTime: string | undefined;
}

export function parseHistory(raw: string): SnapshotEntry[] {
  const list = JSON.parse(raw) as Record<string, unknown>[];
  return list.map((j) => ({
    snapshotId: BigInt(j["snapshotId"] as string),
    parentId: j["parentId"] ? BigInt(j["parentId"] as string) : undefined,
    sequenceNumber: j["sequenceNumber"] as number,
    timestampMs: j["timestampMs"] as number,
    operation: String(j["operation"] ?? ""),
    addedRows: j["addedRows"] as number,
    addedFiles: j["addedFiles"] as number,
    removedFiles: j["removedFiles"] as number,
    current: j["current"] === true,
    summary: (j["summary"] as Record<string, string> | null) ?? {},
  }));
}

export function parseFiles(raw: string): DataFileEntry[] {
  const list = JSON.parse(raw) as Record<string, unknown>[];
  return list.map((j) => ({
    path: j["path"] as string,
    rows: j["rows"] as number,
    bytes: j["bytes"] as number,
    minTime: (j["minTime"] as string) || undefined,
    maxTime: (j["maxTime"] as string) || undefined,
  }));
}
